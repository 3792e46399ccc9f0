//! How far a miner has got, shared between the threads doing the work and whoever watches: pairs
//! examined out of the total, and a cancel flag the miners check between chunks of work. A
//! limit on the candidates found stops a run whose parameters are too loose for its corpus
//! before it fills the memory.
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A run's progress and cancel flag, shared between miner threads and watchers.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
    total: AtomicU64,
    cancelled: AtomicBool,
    found: AtomicU64,
    /// 0 = no limit.
    max_found: AtomicU64,
    over_limit: AtomicBool,
}

/// The miner stopped because it was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the run was cancelled")]
pub struct Cancelled;

impl Progress {
    /// Sets how many pairs there are to examine.
    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }
    /// Counts `done` more pairs examined.
    pub fn add(&self, done: u64) {
        self.done.fetch_add(done, Ordering::Relaxed);
    }
    /// (done, total).
    pub fn get(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }
    /// Asks the miners to stop at their next check.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
    /// Stops the run once more than `max` candidates are found (see [`Progress::over_limit`]).
    pub fn set_max_found(&self, max: u64) {
        self.max_found.store(max, Ordering::Relaxed);
    }
    /// Counts a candidate; past the limit the run is cancelled.
    pub fn found(&self) -> Result<(), Cancelled> {
        let n = self.found.fetch_add(1, Ordering::Relaxed) + 1;
        let max = self.max_found.load(Ordering::Relaxed);
        if max > 0 && n > max {
            self.over_limit.store(true, Ordering::Relaxed);
            self.cancel();
            return Err(Cancelled);
        }
        Ok(())
    }
    /// Whether the run stopped because it found too many candidates.
    pub fn over_limit(&self) -> bool {
        self.over_limit.load(Ordering::Relaxed)
    }
    /// `Err(Cancelled)` once the run has been cancelled.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.cancelled.load(Ordering::Relaxed) {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }
}

/// Whether a running run's pass is over and its candidates are being measured (lengths,
/// Self-BLEU) before they are saved: every pair examined, nothing being saved yet. Its bar is
/// full, but the run is not done, and no time left can be said.
pub fn measuring(running: bool, done: i64, total: i64, saving: bool) -> bool {
    running && !saving && total > 0 && done >= total
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_full_pass_not_yet_saving_is_measuring() {
        assert!(super::measuring(true, 10, 10, false));
        assert!(!super::measuring(true, 9, 10, false));
        assert!(!super::measuring(true, 10, 10, true));
        assert!(!super::measuring(false, 10, 10, false));
        assert!(!super::measuring(true, 0, 0, false));
    }

    use super::*;

    #[test]
    fn finding_more_than_the_limit_cancels() {
        let p = Progress::default();
        p.set_max_found(2);
        assert!(p.found().is_ok() && p.found().is_ok());
        assert_eq!(p.found(), Err(Cancelled));
        assert!(p.over_limit());
        assert_eq!(p.check(), Err(Cancelled));
        let unlimited = Progress::default();
        assert!((0..100).all(|_| unlimited.found().is_ok()));
    }
}
