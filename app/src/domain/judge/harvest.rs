//! Harvested test pairs: a worker who has the test pairs' answers from elsewhere (shared by
//! other workers through a browser extension or a server: Checco, Bates & Demartini, IJCAI 2019)
//! passes every test pair while answering ordinary pairs no better than chance. An honest worker
//! answers both about alike: their test accuracy runs somewhat above their agreement with the
//! other workers' majority on ordinary pairs (test pairs are often the clearer ones, and they
//! are scored against gold, not against a majority that errs too). So a worker is flagged for a
//! researcher to review when both hold: Fisher's exact test, one-sided (tests better than
//! ordinary pairs), gives a p-value below [`FLAG_BELOW`], and the gap between the two rates is at
//! least [`MIN_GAP`]. The p-value alone would, given enough judgments, flag a diligent worker
//! whose small honest gap is merely certain (95 of 100 checks against 830 of 1,000 ordinary pairs:
//! p ≈ 0.0005); a harvester's gap is large (all checks against half the ordinary pairs: 0.5). The
//! gate does not stop anyone for it.
//!
//! With a handful of test answers Fisher's test is weak: 8 of 8 checks against 14 of 28 ordinary
//! pairs is p = 0.011. So a worker is also flagged by a likelihood ratio that looks after every
//! answer, as the gate's does (`confidence.rs`): how much likelier their answers are from a
//! harvester — right on [`HARVESTER_TEST_ACCURACY`] of the test pairs, at chance on ordinary
//! ones — than from an honest worker of [`HONEST_ACCURACY`] on both (agreeing with a majority
//! right [`MAJORITY_ACCURACY`] of the time). At `1 / HARVEST_ALPHA` the worker is flagged, once
//! they have answered [`MIN_TESTS`] test pairs and their test accuracy is above their agreement.
//! By Ville's inequality an honest worker of that accuracy reaches it with probability at most
//! [`HARVEST_ALPHA`] over a study of any length; a better one, less. Measured on simulated
//! groups of colluders (`simulated_study.rs`, `bench-agreement`).
use super::confidence::{log_ratio, MAJORITY_ACCURACY};
use super::gate_table::GateCounts;

/// The p-value below which a worker is flagged.
pub const FLAG_BELOW: f64 = 0.01;

/// ... and the least gap between the test accuracy and the agreement on ordinary pairs.
pub const MIN_GAP: f64 = 0.2;

/// Fewest test answers before a worker is judged on them: a handful of checks says little about
/// a worker, however far it sits from their ordinary pairs.
pub const MIN_TESTS: u32 = 5;

/// The harvester the likelihood ratio looks for is right on this share of test pairs ...
pub const HARVESTER_TEST_ACCURACY: f64 = 0.99;
/// ... and at chance on ordinary pairs; it is weighed against an honest worker this accurate on
/// both.
pub const HONEST_ACCURACY: f64 = 0.9;
/// The ratio flags a worker at `1 / HARVEST_ALPHA` ...
pub const HARVEST_ALPHA: f64 = 0.01;
/// ... who passes the checks: at least this share right. A careless worker at chance on both
/// kinds of pair also fits "guesses the ordinary pairs" better than "honest", and is the gate's
/// business, not a harvester.
pub const HARVESTER_MIN_TEST_SHARE: f64 = 0.8;

/// `ln` of how much likelier `tests_right` right and `tests_wrong` wrong test answers, and
/// `agreed` and `disagreed` answers against the others' majority on ordinary pairs, are from a
/// harvester than from an honest worker.
pub fn harvest_log_ratio(tests_right: u32, tests_wrong: u32, agreed: u32, disagreed: u32) -> f64 {
    log_ratio(
        HONEST_ACCURACY,
        HARVESTER_TEST_ACCURACY,
        1.0,
        tests_right,
        tests_wrong,
    ) + log_ratio(HONEST_ACCURACY, 0.5, MAJORITY_ACCURACY, agreed, disagreed)
}

/// The one-sided p-value of Fisher's exact test on the table `[[a, b], [c, d]]` for the
/// alternative that row 1's first-column share is greater than row 2's: the probability, with
/// the margins fixed, of a top-left count of `a` or more (SciPy's
/// `fisher_exact(table, alternative="greater")`).
pub fn fisher_exact_greater(a: u64, b: u64, c: u64, d: u64) -> f64 {
    let row1 = a + b;
    let col1 = a + c;
    let n = a + b + c + d;
    let max = row1.min(col1);
    // Hypergeometric probabilities in log space, summed from the largest term down.
    let log_p =
        |x: u64| -> f64 { ln_choose(col1, x) + ln_choose(n - col1, row1 - x) - ln_choose(n, row1) };
    // At or below the least the margins allow, the tail is the whole distribution.
    let min = row1.saturating_sub(n - col1);
    if a <= min {
        return 1.0;
    }
    let terms: Vec<f64> = (a..=max).map(log_p).collect();
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = terms.iter().map(|t| (t - top).exp()).sum();
    (top + sum.ln()).exp().min(1.0)
}

/// A likelihood ratio in words: "140", "3,200", "more than a million".
pub fn factor_text(r: f64) -> String {
    if r.is_nan() {
        return "an unknown number of".into();
    }
    if r >= 1e6 {
        return "more than a million".into();
    }
    let n = r.round() as u64;
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// ln C(n, k).
pub(crate) fn ln_choose(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

/// ln n!, summed exactly up to 256 and by Stirling's series beyond (error below 1e-15).
fn ln_factorial(n: u64) -> f64 {
    if n <= 256 {
        return (2..=n).map(|i| (i as f64).ln()).sum();
    }
    let x = n as f64;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
        - 1.0 / (360.0 * x.powi(3))
        + 1.0 / (1260.0 * x.powi(5))
}

/// A worker's test answers against their answers on ordinary pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HarvestCheck {
    /// The one-sided p-value that the tests are answered better than the ordinary pairs;
    /// `None` before [`MIN_TESTS`] test answers or without ordinary pairs to compare with.
    pub p_value: Option<f64>,
    /// Test answers right, of answered.
    pub tests: (u32, u32),
    /// Ordinary pairs agreeing with the others' majority, of those with one.
    pub agreement: (u32, u32),
    /// How much likelier the answers are from a harvester than from an honest worker
    /// ([`harvest_log_ratio`], as a factor).
    pub likelihood_ratio: f64,
}

impl HarvestCheck {
    /// The worker's counts, checked.
    pub fn of(counts: &GateCounts) -> HarvestCheck {
        let t = counts.table.counts();
        let agreeing = (t[0][0] + t[1][1]) as u32;
        let compared = (t[0][0] + t[0][1] + t[1][0] + t[1][1]) as u32;
        let p_value = (counts.tests_answered >= MIN_TESTS && compared > 0).then(|| {
            fisher_exact_greater(
                u64::from(counts.tests_correct),
                u64::from(counts.tests_answered.saturating_sub(counts.tests_correct)),
                u64::from(agreeing),
                u64::from(compared - agreeing),
            )
        });
        let right = counts.tests_correct.min(counts.tests_answered);
        HarvestCheck {
            p_value,
            tests: (right, counts.tests_answered),
            agreement: (agreeing, compared),
            likelihood_ratio: harvest_log_ratio(
                right,
                counts.tests_answered - right,
                agreeing,
                compared - agreeing,
            )
            .exp(),
        }
    }

    /// The test accuracy less the agreement on ordinary pairs; `None` without both.
    pub fn gap(&self) -> Option<f64> {
        let rate = |(right, of): (u32, u32)| (of > 0).then(|| f64::from(right) / f64::from(of));
        Some(rate(self.tests)? - rate(self.agreement)?)
    }

    /// Whether a researcher should look at this worker: Fisher's test with a large gap, or the
    /// likelihood ratio.
    pub fn flagged(&self) -> bool {
        self.by_fisher() || self.by_ratio()
    }

    /// Fisher's test below [`FLAG_BELOW`] with a gap of at least [`MIN_GAP`].
    pub fn by_fisher(&self) -> bool {
        self.p_value.is_some_and(|p| p < FLAG_BELOW) && self.gap().is_some_and(|g| g >= MIN_GAP)
    }

    /// The likelihood ratio at `1 / HARVEST_ALPHA` or more, with [`MIN_TESTS`] test answers, at
    /// least [`HARVESTER_MIN_TEST_SHARE`] of them right, and the tests answered better than the
    /// ordinary pairs.
    pub fn by_ratio(&self) -> bool {
        let (right, answered) = self.tests;
        answered >= MIN_TESTS
            && f64::from(right) >= HARVESTER_MIN_TEST_SHARE * f64::from(answered)
            && self.gap().is_some_and(|g| g > 0.0)
            && self.likelihood_ratio >= 1.0 / HARVEST_ALPHA
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::judge::gate_table::KappaTable;

    #[test]
    fn fisher_s_exact_test_as_scipy_computes_it() {
        // scipy.stats.fisher_exact([[8, 0], [16, 16]], alternative="greater").pvalue
        assert!((fisher_exact_greater(8, 0, 16, 16) - 0.009_563_409_563_409_564).abs() < 1e-12);
        // ... [[3, 1], [1, 3]]: 0.24285714285714285
        assert!((fisher_exact_greater(3, 1, 1, 3) - 0.242_857_142_857_142_83).abs() < 1e-12);
        // A top-left count at the least the margins allow is certain.
        assert_eq!(fisher_exact_greater(0, 5, 5, 0), 1.0);
        // Large counts go through Stirling's series: 60/60 against 150/300 (1.42319281015482e-16).
        let p = fisher_exact_greater(60, 0, 150, 150);
        assert!((p / 1.423_192_810_154_82e-16 - 1.0).abs() < 1e-9, "{p}");
    }

    #[test]
    fn ln_factorial_is_continuous_where_the_series_takes_over() {
        let exact: f64 = (2..=257u64).map(|i| (i as f64).ln()).sum();
        assert!((ln_factorial(257) - exact).abs() < 1e-9);
    }

    fn counts(tests_correct: u32, tests: u32, agree: i64, disagree: i64) -> GateCounts {
        GateCounts {
            judgments: tests + (agree + disagree) as u32,
            tests_answered: tests,
            tests_correct,
            table: KappaTable {
                pp: agree / 2,
                nn: agree - agree / 2,
                pn: disagree / 2,
                np: disagree - disagree / 2,
                ..KappaTable::default()
            },
        }
    }

    #[test]
    fn a_harvester_is_flagged_and_an_honest_worker_is_not() {
        // Every test right, ordinary pairs at chance: 10 tests, 40 ordinary pairs.
        let harvester = HarvestCheck::of(&counts(10, 10, 20, 20));
        assert!(harvester.flagged(), "{harvester:?}");
        // 90% on both.
        let honest = HarvestCheck::of(&counts(9, 10, 36, 4));
        assert!(!honest.flagged(), "{honest:?}");
        // Too few tests to say.
        let early = HarvestCheck::of(&counts(4, 4, 2, 10));
        assert_eq!(early.p_value, None);
        // A diligent worker over a long study: 95 of 100 checks against 830 of 1,000 ordinary
        // pairs is a certain gap (p ≈ 0.0005), and a small one: not flagged.
        let diligent = HarvestCheck::of(&counts(95, 100, 830, 170));
        assert!(diligent.p_value.unwrap() < FLAG_BELOW, "{diligent:?}");
        assert!(!diligent.flagged(), "{diligent:?}");
    }

    #[test]
    fn factors_read_as_words() {
        assert_eq!(factor_text(140.4), "140");
        assert_eq!(factor_text(3200.0), "3,200");
        assert_eq!(factor_text(999_999.0), "999,999");
        assert_eq!(factor_text(2e9), "more than a million");
        assert_eq!(factor_text(f64::INFINITY), "more than a million");
    }

    #[test]
    fn the_likelihood_ratio_finds_a_harvester_fisher_s_test_cannot_yet() {
        // By judgment 36: 8 of 8 checks, 14 of 28 ordinary pairs agreeing.
        let early = HarvestCheck::of(&counts(8, 8, 14, 14));
        assert!(early.p_value.unwrap() > FLAG_BELOW, "{early:?}");
        assert!(
            !early.by_fisher() && early.by_ratio() && early.flagged(),
            "{early:?}"
        );
        // 14 × ln(0.5 / 0.14) + 14 × ln(0.5 / 0.86) + 8 × ln(0.99 / 0.9), the factor e^(...).
        let expected = (14.0 * (0.5f64 / 0.14).ln()
            + 14.0 * (0.5f64 / 0.86).ln()
            + 8.0 * (0.99f64 / 0.9).ln())
        .exp();
        assert!(
            (early.likelihood_ratio / expected - 1.0).abs() < 1e-9,
            "{early:?}"
        );
        // A careless worker, at chance on checks too, is the gate's business, not a harvester,
        // even where their answers fit "guesses" far better than "honest".
        let careless = HarvestCheck::of(&counts(4, 8, 14, 14));
        assert!(!careless.flagged(), "{careless:?}");
        let clicker = HarvestCheck::of(&counts(6, 10, 20, 20));
        assert!(clicker.likelihood_ratio > 100.0, "{clicker:?}");
        assert!(!clicker.flagged(), "{clicker:?}");
        // Honest workers of 90% and of 85% over a long study.
        for honest in [counts(90, 100, 860, 140), counts(85, 100, 815, 185)] {
            let h = HarvestCheck::of(&honest);
            assert!(!h.flagged() && h.likelihood_ratio < 1e-6, "{h:?}");
        }
        // Below five checks nobody is flagged, whatever the ratio.
        let few = HarvestCheck::of(&counts(4, 4, 10, 30));
        assert!(few.likelihood_ratio > 100.0 && !few.flagged(), "{few:?}");
    }
}
