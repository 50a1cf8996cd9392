//! Simulated time: a wall clock that runs `speed` times faster than real time from the moment
//! the simulation starts.
//!
//! Why: a test runs a whole rollout (kubelet delays, minReadySeconds, crash-loop restarts) in
//! a fraction of a second at speed 100, and the demo runs at speed 1 so people can watch it.
//! Timestamps written into objects come from this clock, so they stay consistent with the
//! delays the controllers wait for.

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use std::time::{Duration, Instant};

/// A cheap, copyable clock: simulated now = start + (real elapsed × speed).
#[derive(Debug, Clone, Copy)]
pub struct SimClock {
    real_start: Instant,
    sim_start: Timestamp,
    speed: f64,
}

impl SimClock {
    /// Starts a clock now at `speed` simulated seconds per real second. A speed that is not a
    /// positive finite number is treated as 1 (settings validation rejects it earlier).
    pub fn new(speed: f64) -> SimClock {
        SimClock::starting_at(Timestamp::now(), speed)
    }

    /// A clock whose simulated time starts at `sim_start` (tests pin it).
    pub fn starting_at(sim_start: Timestamp, speed: f64) -> SimClock {
        let speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        SimClock {
            real_start: Instant::now(),
            sim_start,
            speed,
        }
    }

    /// Simulated seconds per real second.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Simulated time elapsed since the start; saturates at `Duration::MAX` instead of
    /// panicking, so an extreme speed cannot take down a task or an API request (issue 15).
    pub fn elapsed(&self) -> Duration {
        scale(self.real_start.elapsed(), self.speed)
    }

    /// The simulated time elapsed since the start plus `delay`, saturating: the due time of
    /// something scheduled `delay` from now, however large `delay` is (a `tolerationSeconds`
    /// of `i64::MAX` is valid in Kubernetes).
    pub fn after(&self, delay: Duration) -> Duration {
        self.elapsed().saturating_add(delay)
    }

    /// The simulated wall-clock time.
    pub fn now(&self) -> Timestamp {
        let elapsed = SignedDuration::try_from(self.elapsed()).unwrap_or(SignedDuration::MAX);
        self.sim_start
            .saturating_add(elapsed)
            .unwrap_or(self.sim_start)
    }

    /// The simulated time in unix seconds (what the domain rules take as `now`).
    pub fn now_unix(&self) -> i64 {
        self.now().as_second()
    }

    /// How much real time a simulated duration takes (saturating at `Duration::MAX`).
    pub fn real(&self, simulated: Duration) -> Duration {
        scale(simulated, 1.0 / self.speed)
    }

    /// The real instant at which `elapsed()` reaches `sim_elapsed`; an instant too far to
    /// represent becomes "in about thirty years", which a timer treats as never.
    pub fn instant_at(&self, sim_elapsed: Duration) -> Instant {
        self.real_start
            .checked_add(self.real(sim_elapsed))
            .unwrap_or_else(far_future)
    }

    /// Waits a simulated duration.
    pub async fn sleep(&self, simulated: Duration) {
        tokio::time::sleep(self.real(simulated)).await;
    }

    /// A `now` function for the store, so creation and deletion timestamps use this clock.
    pub fn now_fn(&self) -> std::sync::Arc<dyn Fn() -> Timestamp + Send + Sync> {
        let clock = *self;
        std::sync::Arc::new(move || clock.now())
    }
}

/// `duration × factor`, saturating at `Duration::MAX` (std's `mul_f64` panics on overflow).
fn scale(duration: Duration, factor: f64) -> Duration {
    Duration::try_from_secs_f64(duration.as_secs_f64() * factor).unwrap_or(if factor > 0.0 {
        Duration::MAX
    } else {
        Duration::ZERO
    })
}

/// An instant far enough ahead to mean "never" for a timer, without overflowing `Instant`.
pub fn far_future() -> Instant {
    let now = Instant::now();
    now.checked_add(Duration::from_secs(86_400 * 365 * 30))
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fast_clock_runs_ahead_of_real_time_by_its_speed() {
        let start = Timestamp::from_second(1_800_000_000).expect("valid");
        let clock = SimClock::starting_at(start, 1000.0);
        std::thread::sleep(Duration::from_millis(20));
        let ahead = clock.now().as_second() - start.as_second();
        assert!(
            ahead >= 20,
            "20 ms at speed 1000 is at least 20 simulated seconds, got {ahead}"
        );
        assert_eq!(
            clock.real(Duration::from_secs(10)),
            Duration::from_millis(10)
        );
    }

    #[test]
    fn extreme_speeds_and_delays_saturate_instead_of_panicking() {
        // Issue 15 reproduction 3: speed 1e20 made every API request panic ("overflow when
        // multiplying duration by float"), speed 1e-300 killed the kubelet task, and
        // reproduction 2: a due time of u64::MAX seconds overflowed `Instant + Duration`.
        let fast = SimClock::new(1e300);
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(fast.elapsed(), Duration::MAX);
        assert_eq!(scale(Duration::from_secs(1), 1e20), Duration::MAX);
        let _ = fast.now();
        assert_eq!(fast.after(Duration::from_secs(1)), Duration::MAX);
        let slow = SimClock::new(1e-300);
        assert_eq!(slow.real(Duration::from_secs(1)), Duration::MAX);
        let far = slow.instant_at(Duration::from_secs(u64::MAX));
        assert!(far > Instant::now());
        let clock = SimClock::new(1.0);
        assert!(clock.instant_at(Duration::MAX) > Instant::now());
        assert_eq!(clock.after(Duration::MAX), Duration::MAX);
    }

    #[test]
    fn an_invalid_speed_falls_back_to_real_time() {
        for speed in [0.0, -3.0, f64::NAN, f64::INFINITY] {
            assert_eq!(SimClock::new(speed).speed(), 1.0, "{speed}");
        }
    }
}
