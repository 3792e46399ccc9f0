//! Login throttling: at most `max_failures` failed attempts per key (an account or an address)
//! within a sliding `window`; a success clears the key. Time is passed in, so the rule is tested
//! without sleeping. The caller owns the locking and picks the keys.
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// How many failures a key may have inside the window before it is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitPolicy {
    /// Failures allowed inside the window before the key is refused.
    pub max_failures: usize,
    /// How far back failures count.
    pub window: Duration,
}

/// Failed attempts per key, oldest first.
#[derive(Debug, Default)]
pub struct AttemptLimiter {
    failures: HashMap<String, VecDeque<Instant>>,
}

impl AttemptLimiter {
    /// A limiter with no failures recorded.
    pub fn new() -> Self {
        Self::default()
    }

    /// `Some(wait)` when `key` has used up its failures at `now`: the time until the oldest one
    /// leaves the window. `None` when an attempt may go ahead.
    pub fn retry_after(
        &mut self,
        key: &str,
        policy: LimitPolicy,
        now: Instant,
    ) -> Option<Duration> {
        let entries = self.failures.get_mut(key)?;
        while entries
            .front()
            .is_some_and(|t| now.duration_since(*t) >= policy.window)
        {
            entries.pop_front();
        }
        if entries.is_empty() {
            self.failures.remove(key);
            return None;
        }
        if entries.len() >= policy.max_failures {
            let oldest = *entries.front().expect("BUG: checked non-empty");
            Some(policy.window.saturating_sub(now.duration_since(oldest)))
        } else {
            None
        }
    }

    /// Records one failed attempt for `key` at `now`.
    pub fn record_failure(&mut self, key: &str, now: Instant) {
        self.failures
            .entry(key.to_owned())
            .or_default()
            .push_back(now);
    }

    /// Forgets the failures of `key` (after a successful login).
    pub fn clear(&mut self, key: &str) {
        self.failures.remove(key);
    }

    /// Drops keys whose failures are all outside the window, bounding memory.
    pub fn prune(&mut self, window: Duration, now: Instant) {
        self.failures.retain(|_, entries| {
            entries
                .back()
                .is_some_and(|t| now.duration_since(*t) < window)
        });
    }

    /// How many keys currently have failures recorded.
    pub fn tracked_keys(&self) -> usize {
        self.failures.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: LimitPolicy = LimitPolicy {
        max_failures: 3,
        window: Duration::from_secs(60),
    };

    #[test]
    fn a_key_is_refused_after_max_failures_inside_the_window() {
        let mut limiter = AttemptLimiter::new();
        let t0 = Instant::now();
        for i in 0..3 {
            assert_eq!(limiter.retry_after("ada", POLICY, t0), None, "attempt {i}");
            limiter.record_failure("ada", t0 + Duration::from_secs(i));
        }
        let wait = limiter
            .retry_after("ada", POLICY, t0 + Duration::from_secs(10))
            .expect("fourth attempt must be refused");
        assert_eq!(wait, Duration::from_secs(50));
        // Other keys are unaffected.
        assert_eq!(limiter.retry_after("bob", POLICY, t0), None);
    }

    #[test]
    fn failures_leave_the_window_and_the_key_is_allowed_again() {
        let mut limiter = AttemptLimiter::new();
        let t0 = Instant::now();
        for _ in 0..3 {
            limiter.record_failure("ada", t0);
        }
        assert!(limiter
            .retry_after("ada", POLICY, t0 + Duration::from_secs(59))
            .is_some());
        assert_eq!(
            limiter.retry_after("ada", POLICY, t0 + Duration::from_secs(60)),
            None
        );
        assert_eq!(limiter.tracked_keys(), 0);
    }

    #[test]
    fn a_success_clears_the_key() {
        let mut limiter = AttemptLimiter::new();
        let t0 = Instant::now();
        for _ in 0..3 {
            limiter.record_failure("ada", t0);
        }
        limiter.clear("ada");
        assert_eq!(limiter.retry_after("ada", POLICY, t0), None);
    }

    #[test]
    fn prune_drops_only_stale_keys() {
        let mut limiter = AttemptLimiter::new();
        let t0 = Instant::now();
        limiter.record_failure("old", t0);
        limiter.record_failure("new", t0 + Duration::from_secs(50));
        limiter.prune(POLICY.window, t0 + Duration::from_secs(70));
        assert_eq!(limiter.tracked_keys(), 1);
        assert_eq!(
            limiter.retry_after("old", POLICY, t0 + Duration::from_secs(70)),
            None
        );
    }
}
