//! The paper's Table 2 and Figure 2 for a set of attempts (APT §3.1).
//!
//! Table 2 counts attempts and "uniques" (source sentences whose attempts fall in a category at
//! least once): APT attempts are MI with BLEURT <= threshold; MI attempts include the APT ones;
//! non-MI attempts are the rest. Attempt percentages are of all attempts, unique percentages of
//! all source sentences attempted. (The paper's AP_H row has MI + non-MI uniques = all uniques,
//! its AP_T5 rows do not; we follow the caption's definition: at least one attempt.)
//! Figure 2 divides the observed BLEURT range into 100 bins, one series per category.
use std::collections::HashSet;
use std::hash::Hash;

/// One Check as the statistics see it.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptPoint<S> {
    /// The source sentence the attempt paraphrases.
    pub source: S,
    /// The MI judge found the attempt and source imply each other.
    pub is_mutual_implication: bool,
    /// BLEURT score of the attempt against its source.
    pub bleurt: f64,
}

/// Category of an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// MI and BLEURT <= threshold.
    Apt,
    /// MI but too similar.
    MiNotApt,
    /// Not mutual implication: the meaning changed.
    NonMi,
}

/// The category of an attempt with MI verdict `is_mi` and score `bleurt`.
pub fn category(is_mi: bool, bleurt: f64, threshold: f64) -> Category {
    if !is_mi {
        Category::NonMi
    } else if super::super::reward::passes_apt(true, bleurt, threshold) {
        Category::Apt
    } else {
        Category::MiNotApt
    }
}

/// Table 2's row for one data set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Table2 {
    /// All attempts.
    pub total_attempts: u64,
    /// Attempts that are APT (MI and BLEURT <= threshold).
    pub apt_attempts: u64,
    /// MI attempts, the APT ones included.
    pub mi_attempts: u64,
    /// Attempts that are not MI.
    pub non_mi_attempts: u64,
    /// Source sentences attempted at least once.
    pub unique_sources: u64,
    /// Sources with at least one APT attempt.
    pub apt_uniques: u64,
    /// Sources with at least one MI attempt.
    pub mi_uniques: u64,
    /// Sources with at least one non-MI attempt.
    pub non_mi_uniques: u64,
}

impl Table2 {
    /// `part` as a percentage of `whole`; `None` when `whole` is 0 (shown as "–", never NaN).
    pub fn percent(part: u64, whole: u64) -> Option<f64> {
        (whole > 0).then(|| 100.0 * part as f64 / whole as f64)
    }
}

/// Table 2's counts for `attempts`, APT meaning MI with BLEURT <= `threshold`.
pub fn table2<S: Eq + Hash + Clone>(attempts: &[AttemptPoint<S>], threshold: f64) -> Table2 {
    let mut t = Table2::default();
    let (mut all, mut apt, mut mi, mut non_mi) = (
        HashSet::new(),
        HashSet::new(),
        HashSet::new(),
        HashSet::new(),
    );
    for a in attempts {
        t.total_attempts += 1;
        all.insert(a.source.clone());
        match category(a.is_mutual_implication, a.bleurt, threshold) {
            Category::Apt => {
                t.apt_attempts += 1;
                t.mi_attempts += 1;
                apt.insert(a.source.clone());
                mi.insert(a.source.clone());
            }
            Category::MiNotApt => {
                t.mi_attempts += 1;
                mi.insert(a.source.clone());
            }
            Category::NonMi => {
                t.non_mi_attempts += 1;
                non_mi.insert(a.source.clone());
            }
        }
    }
    t.unique_sources = all.len() as u64;
    t.apt_uniques = apt.len() as u64;
    t.mi_uniques = mi.len() as u64;
    t.non_mi_uniques = non_mi.len() as u64;
    t
}

/// Figure 2: counts per bin for each category over the observed BLEURT range.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Histograms {
    /// Lower edge of the first bin and upper edge of the last.
    pub min: f64,
    /// Upper edge of the last bin.
    pub max: f64,
    /// APT attempts per bin.
    pub apt: Vec<u64>,
    /// MI attempts per bin that were too similar to count as APT.
    pub mi_not_apt: Vec<u64>,
    /// Non-MI attempts per bin.
    pub non_mi: Vec<u64>,
}

/// `bins` equal-width bins from the smallest to the largest finite BLEURT; the maximum falls in
/// the last bin. `None` when there is no finite score.
pub fn histograms<S>(
    attempts: &[AttemptPoint<S>],
    threshold: f64,
    bins: usize,
) -> Option<Histograms> {
    let scores = attempts.iter().map(|a| a.bleurt).filter(|b| b.is_finite());
    let (min, max) = scores.fold(None, |acc: Option<(f64, f64)>, b| match acc {
        None => Some((b, b)),
        Some((lo, hi)) => Some((lo.min(b), hi.max(b))),
    })?;
    let bins = bins.max(1);
    let mut h = Histograms {
        min,
        max,
        apt: vec![0; bins],
        mi_not_apt: vec![0; bins],
        non_mi: vec![0; bins],
    };
    let width = (max - min) / bins as f64;
    for a in attempts.iter().filter(|a| a.bleurt.is_finite()) {
        let i = if width > 0.0 {
            (((a.bleurt - min) / width) as usize).min(bins - 1)
        } else {
            0
        };
        match category(a.is_mutual_implication, a.bleurt, threshold) {
            Category::Apt => h.apt[i] += 1,
            Category::MiNotApt => h.mi_not_apt[i] += 1,
            Category::NonMi => h.non_mi[i] += 1,
        }
    }
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(source: u32, mi: bool, bleurt: f64) -> AttemptPoint<u32> {
        AttemptPoint {
            source,
            is_mutual_implication: mi,
            bleurt,
        }
    }

    #[test]
    fn table2_counts_attempts_and_uniques_by_category() {
        let attempts = [
            p(1, true, 0.2),  // APT
            p(1, true, 0.7),  // MI, too similar
            p(1, false, 0.1), // non-MI
            p(2, true, 0.5),  // APT at the threshold
            p(3, false, 0.9), // non-MI
            p(3, false, 0.8),
        ];
        let t = table2(&attempts, 0.5);
        assert_eq!(
            t,
            Table2 {
                total_attempts: 6,
                apt_attempts: 2,
                mi_attempts: 3,
                non_mi_attempts: 3,
                unique_sources: 3,
                apt_uniques: 2,
                mi_uniques: 2,
                non_mi_uniques: 2,
            }
        );
        assert_eq!(
            Table2::percent(t.apt_attempts, t.total_attempts),
            Some(100.0 / 3.0)
        );
        assert_eq!(Table2::percent(1, 0), None);
    }

    #[test]
    fn the_paper_ap_h_percentages_follow_from_its_counts() {
        // AP_H: 5007 attempts, 2659 APT (53.10%), 3232 MI (64.55%), 1775 non-MI (35.45%).
        let pct = |a, b| (Table2::percent(a, b).unwrap() * 100.0).round() / 100.0;
        assert_eq!(pct(2659, 5007), 53.11); // the paper truncates to 53.10
        assert_eq!(pct(3232, 5007), 64.55);
        assert_eq!(pct(1775, 5007), 35.45);
        assert_eq!(pct(1231, 1631), 75.48);
    }

    #[test]
    fn histograms_span_the_observed_range_in_equal_bins() {
        let attempts = [
            p(1, true, -1.0),
            p(1, true, 0.0),
            p(2, true, 0.9),
            p(2, false, 1.0),
            p(3, false, f64::NAN),
        ];
        let h = histograms(&attempts, 0.5, 4).unwrap();
        assert_eq!((h.min, h.max), (-1.0, 1.0));
        assert_eq!(h.apt, [1, 0, 1, 0]); // -1.0 in bin 0; 0.0 starts bin 2
        assert_eq!(h.mi_not_apt, [0, 0, 0, 1]); // 0.9 in the last bin
        assert_eq!(h.non_mi, [0, 0, 0, 1]); // the maximum falls in the last bin
        assert_eq!(
            h.apt
                .iter()
                .chain(&h.mi_not_apt)
                .chain(&h.non_mi)
                .sum::<u64>(),
            4
        );
        assert!(histograms::<u32>(&[], 0.5, 100).is_none());
        let same = histograms(&[p(1, true, 0.3), p(2, false, 0.3)], 0.5, 100).unwrap();
        assert_eq!((same.apt[0], same.non_mi[0]), (1, 1));
    }
}
