//! How times read on every page: ages ("3m 20s") and the UTC clock ("14:34:56").
//!
//! Why here, below the components and the live client: the stale banner, the events table,
//! the pod table and the rollout pace all print times, and each must print them alike.
//! Layer: imports nothing of the project.

/// "3m 20s"-style ages (negative ages, from clock skew, read as 0s).
pub fn format_age(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {}s", s / 60, s % 60),
        3600..=86_399 => format!("{}h {}m", s / 3600, (s / 60) % 60),
        _ => format!("{}d {}h", s / 86_400, (s / 3600) % 24),
    }
}

/// Renders unix seconds as `HH:MM:SS` UTC (the stale banner's clock).
pub fn format_utc_time(unix_seconds: i64) -> String {
    let s = unix_seconds.rem_euclid(86_400);
    format!("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        let cases = [
            (0, "0s"),
            (59, "59s"),
            (200, "3m 20s"),
            (7_260, "2h 1m"),
            (90_000, "1d 1h"),
            (-5, "0s"),
        ];
        for (s, want) in cases {
            assert_eq!(format_age(s), want);
        }
    }

    #[test]
    fn utc_clock_formats_hours_minutes_seconds() {
        let cases = [
            (0, "00:00:00"),
            (1_764_686_096, "14:34:56"),
            (86_399, "23:59:59"),
            (-1, "23:59:59"),
        ];
        for (t, want) in cases {
            assert_eq!(format_utc_time(t), want, "{t}");
        }
    }
}
