//! Train/test split by source sentence (APT §4: AP_H was split about 3:1 so that no source
//! sentence appears in both parts). Groups are shuffled with a seeded generator, so a split is
//! reproducible, and the test part takes whole groups until it holds `test_fraction` of the rows.
use std::collections::BTreeMap;

/// SplitMix64 (Steele, Lea & Flood 2014): a small, well-mixed, seeded generator, so the split
/// needs no dependency and gives the same result on every platform.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by rejection to avoid modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// Which part each row goes to: `true` for test. `groups[i]` is row i's source sentence.
pub fn split_by_group<G: Ord + Clone>(groups: &[G], test_fraction: f64, seed: u64) -> Vec<bool> {
    let mut sizes: BTreeMap<G, usize> = BTreeMap::new();
    for g in groups {
        *sizes.entry(g.clone()).or_default() += 1;
    }
    let mut order: Vec<(G, usize)> = sizes.into_iter().collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let target = (groups.len() as f64 * test_fraction.clamp(0.0, 1.0)).round() as usize;
    let mut in_test = std::collections::BTreeSet::new();
    let mut taken = 0;
    for (g, n) in order {
        if taken >= target {
            break;
        }
        taken += n;
        in_test.insert(g);
    }
    groups.iter().map(|g| in_test.contains(g)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups() -> Vec<u32> {
        // 400 sources with 1..=5 attempts each.
        (0..400u32)
            .flat_map(|s| std::iter::repeat_n(s, (s % 5 + 1) as usize))
            .collect()
    }

    #[test]
    fn no_source_is_in_both_parts() {
        let g = groups();
        let test = split_by_group(&g, 0.25, 7);
        for (i, gi) in g.iter().enumerate() {
            for (j, gj) in g.iter().enumerate() {
                if gi == gj {
                    assert_eq!(test[i], test[j]);
                }
            }
        }
    }

    #[test]
    fn the_split_is_about_three_to_one_and_reproducible() {
        let g = groups();
        let a = split_by_group(&g, 0.25, 7);
        let share = a.iter().filter(|t| **t).count() as f64 / g.len() as f64;
        assert!((share - 0.25).abs() < 0.01, "{share}");
        assert_eq!(a, split_by_group(&g, 0.25, 7));
        assert_ne!(a, split_by_group(&g, 0.25, 8));
    }

    #[test]
    fn edge_fractions_and_empty_input() {
        let g = groups();
        assert!(split_by_group(&g, 0.0, 1).iter().all(|t| !t));
        assert!(split_by_group(&g, 1.0, 1).iter().all(|t| *t));
        assert!(split_by_group::<u32>(&[], 0.25, 1).is_empty());
    }

    #[test]
    fn splitmix_matches_its_reference_sequence() {
        // First outputs for seed 1234567 from the reference C implementation.
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }
}
