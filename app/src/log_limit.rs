//! Logging expected back-pressure (a full connection pool, a busy scorer) without flooding the
//! log: at most one line per interval, saying how many were left out since the last one.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

static START: LazyLock<Instant> = LazyLock::new(Instant::now);

/// One kind of event, logged at most once per `every`.
pub struct Limited {
    every: Duration,
    /// Milliseconds after `START` when the last line was written, plus one (0: never).
    last: AtomicU64,
    left_out: AtomicU64,
}

impl Limited {
    /// An event logged at most once per `every`.
    pub const fn new(every: Duration) -> Self {
        Limited {
            every,
            last: AtomicU64::new(0),
            left_out: AtomicU64::new(0),
        }
    }

    /// `Some(n)` when a line is due now (with `n` events left out since the last line), else
    /// `None` (and this event is counted as left out).
    pub fn due(&self) -> Option<u64> {
        self.due_at(START.elapsed())
    }

    fn due_at(&self, now: Duration) -> Option<u64> {
        let now_ms = now.as_millis() as u64 + 1;
        let last = self.last.load(Ordering::Relaxed);
        let every = self.every.as_millis() as u64;
        if last != 0 && now_ms < last + every {
            self.left_out.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        // One caller wins the slot; the others count as left out.
        match self
            .last
            .compare_exchange(last, now_ms, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => Some(self.left_out.swap(0, Ordering::Relaxed)),
            Err(_) => {
                self.left_out.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_interval_with_the_count_left_out() {
        let l = Limited::new(Duration::from_secs(10));
        let at = |s: u64| Duration::from_millis(s);
        assert_eq!(l.due_at(at(0)), Some(0));
        assert_eq!(l.due_at(at(1)), None);
        assert_eq!(l.due_at(at(9_000)), None);
        assert_eq!(l.due_at(at(10_000)), Some(2));
        assert_eq!(l.due_at(at(10_001)), None);
        assert_eq!(l.due_at(at(30_000)), Some(1));
    }
}
