//! §j.4: NodeResourcesFit's `fitsRequest`, case by case.

use super::*;
use crate::testing::amounts;

#[test]
fn a_pod_that_asks_more_cpu_than_is_left_is_short_by_the_difference_j4() {
    let alloc = amounts(&[("cpu", "2"), ("memory", "4Gi"), ("pods", "110")]);
    let used = amounts(&[("cpu", "1800m"), ("memory", "1Gi")]);
    let ask = amounts(&[("cpu", "500m"), ("memory", "1Gi")]);
    let short = insufficient(&alloc, &used, 12, &ask);
    assert_eq!(short.len(), 1);
    assert_eq!(short[0].reason, "Insufficient cpu");
    assert_eq!(
        (short[0].asked, short[0].used, short[0].capacity),
        (500, 1800, 2000)
    );
    assert_eq!(short[0].short_by(), 300);
    assert_eq!(short[0].room(), 200);
}

#[test]
fn exactly_the_room_left_fits_j4() {
    let alloc = amounts(&[("cpu", "2"), ("pods", "110")]);
    let used = amounts(&[("cpu", "1500m")]);
    assert!(insufficient(&alloc, &used, 1, &amounts(&[("cpu", "500m")])).is_empty());
}

#[test]
fn a_full_pod_count_is_too_many_pods_even_for_a_pod_without_requests_j4() {
    let alloc = amounts(&[("cpu", "2"), ("pods", "3")]);
    let short = insufficient(&alloc, &Amounts::new(), 3, &Amounts::new());
    assert_eq!(short.len(), 1);
    assert_eq!(short[0].reason, "Too many pods");
    assert_eq!((short[0].used, short[0].capacity), (3, 3));
}

#[test]
fn an_extended_resource_the_node_lacks_is_insufficient_j4() {
    let alloc = amounts(&[("cpu", "2"), ("pods", "110")]);
    let ask = amounts(&[("nvidia.com/gpu", "1"), ("example", "5")]);
    let short = insufficient(&alloc, &Amounts::new(), 0, &ask);
    // "example" has no domain: not a scalar resource, ignored as Resource.Add ignores it.
    assert_eq!(short.len(), 1);
    assert_eq!(short[0].reason, "Insufficient nvidia.com/gpu");
    assert_eq!(short[0].short_by(), 1);
}

#[test]
fn cpu_is_compared_in_milli_cores_rounded_up_j1_j4() {
    // 0.1m is 1m to the scheduler (MilliValue rounds up).
    let alloc = amounts(&[("cpu", "1m"), ("pods", "1")]);
    assert!(insufficient(&alloc, &Amounts::new(), 0, &amounts(&[("cpu", "0.1m")])).is_empty());
    let used = amounts(&[("cpu", "0.1m")]);
    assert_eq!(
        insufficient(&alloc, &used, 0, &amounts(&[("cpu", "0.1m")])).len(),
        1
    );
}

#[test]
fn sums_go_back_to_empty_when_the_pods_leave_j3() {
    let pod = amounts(&[("cpu", "250m"), ("memory", "64Mi")]);
    let mut node = Amounts::new();
    node.add_signed(&pod, 1);
    node.add_signed(&pod, 1);
    assert_eq!(node.get(CPU), 500);
    node.add_signed(&pod, -1);
    node.add_signed(&pod, -1);
    assert!(node.is_empty());
}
