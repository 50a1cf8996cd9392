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

    /// Simulated time elapsed since the start.
    pub fn elapsed(&self) -> Duration {
        self.real_start.elapsed().mul_f64(self.speed)
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

    /// How much real time a simulated duration takes.
    pub fn real(&self, simulated: Duration) -> Duration {
        simulated.div_f64(self.speed)
    }

    /// The real instant at which `elapsed()` reaches `sim_elapsed`.
    pub fn instant_at(&self, sim_elapsed: Duration) -> Instant {
        self.real_start + self.real(sim_elapsed)
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
    fn an_invalid_speed_falls_back_to_real_time() {
        for speed in [0.0, -3.0, f64::NAN, f64::INFINITY] {
            assert_eq!(SimClock::new(speed).speed(), 1.0, "{speed}");
        }
    }
}
