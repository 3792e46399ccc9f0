//! The server's random draws for serving judgments (where a block's hidden test pair goes, which
//! test pair comes next). Drawn from entropy in production; a fixed seed
//! (`PARACROWD_RANDOM_SEED`) makes a run's schedule reproducible, so a study can be replayed and a
//! test through the real server does not depend on luck.
use std::sync::Mutex;

use crate::domain::rng::SplitMix64;

/// One generator for the process, shared by every request.
#[derive(Debug)]
pub struct Draws(Mutex<SplitMix64>);

impl Draws {
    /// Seeded with `seed`, or from the operating system's entropy when `None`.
    pub fn new(seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or_else(rand::random);
        Self(Mutex::new(SplitMix64::new(seed)))
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&self) -> f64 {
        self.generator().unit()
    }

    /// A key that orders rows at random in SQL (`order by hashfloat8extended(sort_key, key)`).
    pub fn key(&self) -> i64 {
        self.generator().next_u64() as i64
    }

    fn generator(&self) -> std::sync::MutexGuard<'_, SplitMix64> {
        // A panic while the lock is held cannot leave a SplitMix64 half-updated.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_fixes_the_sequence_and_units_stay_in_range() {
        let (a, b) = (Draws::new(Some(7)), Draws::new(Some(7)));
        let xs: Vec<f64> = (0..1000).map(|_| a.unit()).collect();
        let ys: Vec<f64> = (0..1000).map(|_| b.unit()).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 0.5).abs() < 0.05, "mean {mean}");
        assert_ne!(Draws::new(Some(8)).key(), Draws::new(Some(7)).key());
    }
}
