//! intOrString scaling (maxUnavailable / maxSurge against the desired count): any value and
//! any total must scale or give Kubernetes' error, and a percentage rounds up within range.
#![no_main]

use daemonscope_domain::rollout::scale_int_or_percent;
use daemonscope_domain::IntOrPercent;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let mut total = [0u8; 8];
    total.copy_from_slice(&data[..8]);
    let total = i64::from_le_bytes(total);
    let value = if data[8] % 2 == 0 && data.len() >= 17 {
        let mut int = [0u8; 8];
        int.copy_from_slice(&data[9..17]);
        IntOrPercent::Int(i64::from_le_bytes(int))
    } else {
        IntOrPercent::Str(String::from_utf8_lossy(&data[9..]).into_owned())
    };
    if let (Ok(scaled), IntOrPercent::Str(raw)) = (scale_int_or_percent(Some(&value), total), &value)
    {
        // A valid percentage of a non-negative total between 0% and 100% stays within it.
        if let Some(Ok(percent)) = raw.strip_suffix('%').map(str::parse::<i64>) {
            if (0..=100).contains(&percent) && total >= 0 {
                assert!((0..=total).contains(&scaled), "{raw} of {total} gave {scaled}");
            }
        }
    }
});
