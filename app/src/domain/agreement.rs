//! Agreement between annotators on binary labels ("paraphrase" or not). Pure functions; an
//! undefined value is `None`, never NaN or 0.

/// Cohen's kappa between two raters over the same items (Cohen 1960):
/// `k = (p_o - p_e) / (1 - p_e)`, where `p_o` is the observed agreement and `p_e` the agreement
/// expected from each rater's own label rates, `p_e = p_a(1) p_b(1) + p_a(0) p_b(0)`.
///
/// `None` when there are no items or `p_e = 1` (both raters gave one and the same label to
/// everything: agreement is perfect but carries no information). As scikit-learn's
/// `cohen_kappa_score`, one constant rater against a varying one gives 0.
pub fn cohen_kappa(pairs: &[(bool, bool)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let agree = pairs.iter().filter(|(a, b)| a == b).count() as f64;
    let a1 = pairs.iter().filter(|(a, _)| *a).count() as f64 / n;
    let b1 = pairs.iter().filter(|(_, b)| *b).count() as f64 / n;
    let p_o = agree / n;
    let p_e = a1 * b1 + (1.0 - a1) * (1.0 - b1);
    if (1.0 - p_e).abs() < 1e-12 {
        return None;
    }
    Some((p_o - p_e) / (1.0 - p_e))
}

/// The majority label of `votes` (true = paraphrase); `None` for no votes or a tie.
pub fn majority(votes: impl IntoIterator<Item = bool>) -> Option<bool> {
    let (mut yes, mut no) = (0usize, 0usize);
    for v in votes {
        if v {
            yes += 1;
        } else {
            no += 1;
        }
    }
    match yes.cmp(&no) {
        std::cmp::Ordering::Greater => Some(true),
        std::cmp::Ordering::Less => Some(false),
        std::cmp::Ordering::Equal => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(spec: &[(u8, u8, usize)]) -> Vec<(bool, bool)> {
        spec.iter()
            .flat_map(|&(a, b, n)| std::iter::repeat_n((a == 1, b == 1), n))
            .collect()
    }

    #[test]
    fn kappa_matches_a_hand_computed_table() {
        // 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.7,
        // p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4.
        let k = cohen_kappa(&rows(&[(1, 1, 20), (1, 0, 5), (0, 1, 10), (0, 0, 15)])).unwrap();
        assert!((k - 0.4).abs() < 1e-12, "{k}");
    }

    #[test]
    fn perfect_opposite_and_chance_agreement() {
        assert_eq!(cohen_kappa(&rows(&[(1, 1, 3), (0, 0, 2)])), Some(1.0));
        assert_eq!(cohen_kappa(&rows(&[(1, 0, 3), (0, 1, 3)])), Some(-1.0));
        let k = cohen_kappa(&rows(&[(1, 1, 1), (1, 0, 1), (0, 1, 1), (0, 0, 1)])).unwrap();
        assert!(k.abs() < 1e-12);
    }

    #[test]
    fn constant_raters() {
        // One constant rater against a varying one: p_o = p_e, kappa 0 (as scikit-learn).
        assert_eq!(cohen_kappa(&rows(&[(1, 1, 3), (1, 0, 2)])), Some(0.0));
        // Both constant and equal: undefined.
        assert_eq!(cohen_kappa(&rows(&[(1, 1, 5)])), None);
        assert_eq!(cohen_kappa(&[]), None);
    }

    #[test]
    fn majority_and_ties() {
        assert_eq!(majority([true, true, false]), Some(true));
        assert_eq!(majority([false, true, false]), Some(false));
        assert_eq!(majority([true, false]), None);
        assert_eq!(majority([]), None);
    }
}
