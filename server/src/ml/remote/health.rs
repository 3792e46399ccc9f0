//! Whether the inference server takes Checks, and whether a probe is looking for it. Checks
//! (on any thread) and the probe task share this state; its rules are here, apart from the
//! network, so each interleaving that matters has a test:
//!
//! - the server starts down; a passed check of it marks it up;
//! - a failed call marks it down, and says whether it was up (so the failure is logged once);
//! - at most one probe runs: [`Health::claim_probe`] says whether the caller must start one;
//! - a probe that finds the server back ends probing *before* it marks the server up, so a
//!   failure right after that always finds no probe running and starts a new one.
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Default)]
pub struct Health {
    up: AtomicBool,
    probing: AtomicBool,
}

impl Health {
    /// Down, with no probe running.
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::SeqCst)
    }

    /// A check of the server passed (at start-up).
    pub fn mark_up(&self) {
        self.up.store(true, Ordering::SeqCst);
    }

    /// Taken down on purpose (the server was not there at start-up).
    pub fn mark_down(&self) {
        self.up.store(false, Ordering::SeqCst);
    }

    /// A call to the server failed: down now. True when it was up until this call, so the
    /// caller logs the change once, however many Checks fail together.
    pub fn failed(&self) -> bool {
        self.up.swap(false, Ordering::SeqCst)
    }

    /// True when no probe was running: the caller starts one (and no one else will).
    pub fn claim_probe(&self) -> bool {
        !self.probing.swap(true, Ordering::SeqCst)
    }

    /// The probe found the server back and serving our models: it stops, then Checks go there.
    pub fn probe_passed(&self) {
        self.probing.store(false, Ordering::SeqCst);
        self.up.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_down_and_one_probe_at_a_time() {
        let h = Health::new();
        assert!(!h.is_up());
        assert!(h.claim_probe(), "the first caller starts the probe");
        assert!(!h.claim_probe(), "a second caller finds it running");
        h.probe_passed();
        assert!(h.is_up());
        assert!(h.claim_probe(), "after it passed, a new probe may start");
    }

    #[test]
    fn a_failure_is_reported_once_however_many_checks_fail() {
        let h = Health::new();
        h.mark_up();
        assert!(h.failed());
        assert!(!h.failed());
        assert!(!h.is_up());
    }

    #[test]
    fn a_failure_right_after_the_probe_passed_starts_a_new_probe() {
        let h = Health::new();
        assert!(h.claim_probe());
        h.probe_passed();
        assert!(h.failed());
        assert!(
            h.claim_probe(),
            "otherwise the server would stay down with no probe"
        );
    }

    #[test]
    fn a_failure_during_the_probes_success_leaves_the_next_failure_to_probe_again() {
        // The failing Check marks down and finds the probe still running; the probe then marks
        // up. The server is used again, and its next failure starts a probe: never stuck down.
        let h = Health::new();
        assert!(h.claim_probe());
        assert!(!h.failed());
        assert!(!h.claim_probe());
        h.probe_passed();
        assert!(h.is_up());
        assert!(h.failed());
        assert!(h.claim_probe());
    }
}
