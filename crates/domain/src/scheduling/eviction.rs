//! What the taint-eviction controller does with a running pod (§a.5, §g.8).
//!
//! Why here: the DaemonSet controller ignores `tolerationSeconds` (§a.5), so a daemon pod that
//! tolerates a `NoExecute` taint only for a while is created, evicted when the time is up, and
//! created again (§g.8). The simulated cluster needs the eviction half of that loop, and the
//! explanation of a cell can name it; both call this one function.

use super::toleration::toleration_tolerates;
use crate::facts::{Taint, TaintEffect, Toleration};

/// The taint-eviction controller's decision for one pod on one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eviction {
    /// No `NoExecute` taint, or every one tolerated without `tolerationSeconds`.
    Never,
    /// A `NoExecute` taint is not tolerated (or tolerated for 0 s or less): evicted at once.
    Now,
    /// Evicted this many seconds after the controller first saw the pod on the tainted node.
    After(u64),
}

/// §a.5: for each `NoExecute` taint, the **first** toleration in the pod's list that
/// tolerates it (`GetMatchingTolerations`); a taint without one evicts at once; otherwise the
/// smallest `tolerationSeconds` among those tolerations decides (`getMinTolerationTime`: a
/// value ≤ 0 means at once, none set means never).
pub fn taint_eviction(tolerations: &[Toleration], taints: &[Taint]) -> Eviction {
    let mut used = Vec::new();
    for taint in taints.iter().filter(|t| t.effect == TaintEffect::NoExecute) {
        match tolerations.iter().find(|t| toleration_tolerates(t, taint)) {
            Some(toleration) => used.push(toleration),
            None => return Eviction::Now,
        }
    }
    let mut min: Option<i64> = None;
    for seconds in used.iter().filter_map(|t| t.toleration_seconds) {
        if seconds <= 0 {
            return Eviction::Now;
        }
        min = Some(min.map_or(seconds, |m| m.min(seconds)));
    }
    match min {
        None => Eviction::Never,
        Some(s) => Eviction::After(s.unsigned_abs()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, effect: TaintEffect) -> Taint {
        Taint {
            key: key.into(),
            value: String::new(),
            effect,
        }
    }

    fn tol(key: &str, operator: &str, effect: &str, seconds: Option<i64>) -> Toleration {
        Toleration {
            key: key.into(),
            operator: operator.into(),
            value: String::new(),
            effect: effect.into(),
            toleration_seconds: seconds,
        }
    }

    #[test]
    fn eviction_follows_the_taint_eviction_controller() {
        let noexec = taint("dedicated", TaintEffect::NoExecute);
        let other = taint("maintenance", TaintEffect::NoExecute);
        let nosched = taint("dedicated", TaintEffect::NoSchedule);
        let cases: Vec<(&str, Vec<Toleration>, Vec<Taint>, Eviction)> =
            vec![
            ("§a.5 no taint at all: never", vec![], vec![], Eviction::Never),
            (
                "§a.5 only NoSchedule taints do not evict, tolerated or not",
                vec![],
                vec![nosched.clone()],
                Eviction::Never,
            ),
            (
                "§a.5 an untolerated NoExecute taint evicts at once",
                vec![],
                vec![noexec.clone()],
                Eviction::Now,
            ),
            (
                "§a.5 tolerated without tolerationSeconds: never",
                vec![tol("dedicated", "Exists", "NoExecute", None)],
                vec![noexec.clone()],
                Eviction::Never,
            ),
            (
                "§g.8 tolerated for 300 s: evicted after 300 s",
                vec![tol("dedicated", "Exists", "NoExecute", Some(300))],
                vec![noexec.clone()],
                Eviction::After(300),
            ),
            (
                "§a.5 the FIRST matching toleration counts, a later unlimited one does not",
                vec![
                    tol("dedicated", "Exists", "NoExecute", Some(60)),
                    tol("", "Exists", "", None),
                ],
                vec![noexec.clone()],
                Eviction::After(60),
            ),
            (
                "§a.5 the first matching toleration is unlimited: a later limited one is unused",
                vec![
                    tol("", "Exists", "", None),
                    tol("dedicated", "Exists", "NoExecute", Some(60)),
                ],
                vec![noexec.clone()],
                Eviction::Never,
            ),
            (
                "§a.5 the smallest tolerationSeconds among the used tolerations wins",
                vec![
                    tol("dedicated", "Exists", "NoExecute", Some(600)),
                    tol("maintenance", "Exists", "NoExecute", Some(120)),
                ],
                vec![noexec.clone(), other.clone()],
                Eviction::After(120),
            ),
            (
                "§a.5 one of two NoExecute taints untolerated: at once",
                vec![tol("dedicated", "Exists", "NoExecute", None)],
                vec![noexec.clone(), other.clone()],
                Eviction::Now,
            ),
            (
                "§a.5 tolerationSeconds 0 or negative: at once",
                vec![tol("dedicated", "Exists", "NoExecute", Some(0))],
                vec![noexec.clone()],
                Eviction::Now,
            ),
            (
                "§a.5 a Gt toleration tolerates nothing by default: at once",
                vec![tol("dedicated", "Gt", "NoExecute", None)],
                vec![noexec],
                Eviction::Now,
            ),
        ];
        for (name, tolerations, taints, want) in cases {
            assert_eq!(taint_eviction(&tolerations, &taints), want, "{name}");
        }
    }
}
