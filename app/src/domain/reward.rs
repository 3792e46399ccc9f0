//! The APT reward (Nighojkar & Licato 2021, §3.1, Eq. 1):
//!
//! ```text
//! reward = mi / (1 + e^(5 * bleurt))^2   dollars
//! ```
//!
//! `mi` is 1 when the NLI judge finds mutual implication, else 0; `bleurt` is BLEURT averaged over
//! both directions. The paper pays nothing when BLEURT exceeds its threshold (0.5): a pair earns
//! money exactly when it passes APT. The original study's code only rounded (paying $0.01 just
//! above 0.5); we follow the paper. It also paid $0 when the attempt contained the source.
//! Money is whole cents, rounded half away from zero.

/// The paper's BLEURT threshold: above it an attempt is "too similar" and earns nothing.
pub const DEFAULT_BLEURT_THRESHOLD: f64 = 0.5;

/// The reward in dollars before rounding, Eq. 1 (no threshold applied).
pub fn reward_dollars(is_mutual_implication: bool, bleurt: f64) -> f64 {
    if !is_mutual_implication {
        return 0.0;
    }
    let d = 1.0 + (5.0 * bleurt).exp();
    1.0 / (d * d)
}

/// The reward in whole cents with the paper's rules: 0 without mutual implication, 0 when
/// `bleurt > threshold`, 0 for a non-finite score, else Eq. 1 rounded to the nearest cent.
pub fn reward_cents(is_mutual_implication: bool, bleurt: f64, threshold: f64) -> i64 {
    if !bleurt.is_finite() || bleurt > threshold {
        return 0;
    }
    (reward_dollars(is_mutual_implication, bleurt) * 100.0).round() as i64
}

/// What a mutually implicative rewrite earns at a few BLEURT scores up to `threshold`, for
/// the writing page's table ("up to $1" is reached only near BLEURT -1).
/// Each row is (BLEURT, cents); above the threshold a rewrite earns nothing.
pub fn reward_table(threshold: f64) -> Vec<(f64, i64)> {
    [-1.0, -0.5, -0.25, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
        .into_iter()
        .filter(|b| *b <= threshold)
        .map(|b| (b, reward_cents(true, b, threshold)))
        .collect()
}

/// Whether an attempt is an APT success: mutual implication and BLEURT at or under the threshold.
pub fn passes_apt(is_mutual_implication: bool, bleurt: f64, threshold: f64) -> bool {
    is_mutual_implication && bleurt.is_finite() && bleurt <= threshold
}

/// The study paid $0 when the attempt contains the source sentence (copying it and adding words
/// keeps mutual implication trivially). Compared case-insensitively with whitespace collapsed.
pub fn attempt_contains_source(source: &str, attempt: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let (source, attempt) = (norm(source), norm(attempt));
    !source.is_empty() && attempt.contains(&source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reward_table_falls_from_a_dollar_to_nothing() {
        let t = reward_table(DEFAULT_BLEURT_THRESHOLD);
        assert_eq!(
            t,
            [
                (-1.0, 99),
                (-0.5, 85),
                (-0.25, 60),
                (0.0, 25),
                (0.1, 14),
                (0.2, 7),
                (0.3, 3),
                (0.4, 1),
                (0.5, 1)
            ]
        );
        assert_eq!(reward_table(0.3).last(), Some(&(0.3, 3)));
    }

    #[test]
    fn no_mutual_implication_pays_nothing() {
        assert_eq!(reward_cents(false, -2.0, 0.5), 0);
        assert_eq!(reward_dollars(false, -2.0), 0.0);
    }

    #[test]
    fn eq_1_at_known_points() {
        // bleurt = 0: 1 / (1 + 1)^2 = 0.25 dollars.
        assert!((reward_dollars(true, 0.0) - 0.25).abs() < 1e-12);
        assert_eq!(reward_cents(true, 0.0, 0.5), 25);
        // Very dissimilar wording approaches $1.
        assert_eq!(reward_cents(true, -3.0, 0.5), 100);
        // bleurt = -0.5: 1 / (1 + e^-2.5)^2 = 0.8455...
        assert_eq!(reward_cents(true, -0.5, 0.5), 85);
    }

    #[test]
    fn rounding_is_to_the_nearest_cent() {
        // Find the BLEURT where Eq. 1 equals 2.5 cents and check both sides of it.
        // (1 + e^(5b))^2 = 40  =>  b = ln(sqrt(40) - 1) / 5
        let b = ((40f64).sqrt() - 1.0).ln() / 5.0;
        assert_eq!(reward_cents(true, b - 1e-6, 0.5), 3);
        assert_eq!(reward_cents(true, b + 1e-6, 0.5), 2);
    }

    #[test]
    fn the_threshold_boundary_follows_the_paper() {
        // At exactly 0.5 the pair passes APT: 1 / (1 + e^2.5)^2 = 0.0071 -> 1 cent.
        assert_eq!(reward_cents(true, 0.5, 0.5), 1);
        assert!(passes_apt(true, 0.5, 0.5));
        // Just above: nothing (the original code would have paid 1 cent).
        assert_eq!(reward_cents(true, 0.500001, 0.5), 0);
        assert!(!passes_apt(true, 0.500001, 0.5));
        assert_eq!((reward_dollars(true, 0.500001) * 100.0).round(), 1.0);
        // A configurable threshold moves the cut.
        assert_eq!(reward_cents(true, 0.45, 0.4), 0);
    }

    #[test]
    fn non_finite_scores_pay_nothing() {
        assert_eq!(reward_cents(true, f64::NAN, 0.5), 0);
        assert_eq!(reward_cents(true, f64::NEG_INFINITY, 0.5), 0);
        assert!(!passes_apt(true, f64::NAN, 0.5));
    }

    #[test]
    fn containing_the_source_is_detected_ignoring_case_and_spacing() {
        let source = "The cat sat on the mat.";
        assert!(attempt_contains_source(
            source,
            "Yes: the  CAT sat on the mat. Indeed"
        ));
        assert!(attempt_contains_source(source, source));
        assert!(!attempt_contains_source(
            source,
            "A cat was sitting on the mat."
        ));
        assert!(!attempt_contains_source("   ", "anything"));
    }
}
