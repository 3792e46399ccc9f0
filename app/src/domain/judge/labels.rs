//! A pair's label from its "paraphrase" votes. MultiPIT (§2.5): with 6 judgments, more than 3
//! "paraphrase" votes make a paraphrase, fewer than 3 a non-paraphrase, exactly 3 is unresolved.
//! Other judgment counts take thresholds from [`default_thresholds`] or the campaign.
use serde::{Deserialize, Serialize};

/// A pair's label by vote threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VoteLabel {
    /// Enough "paraphrase" votes: a paraphrase.
    Paraphrase,
    /// Few enough "paraphrase" votes: not a paraphrase.
    NotParaphrase,
    /// Between the thresholds (a 3-3 tie for six judgments): no label.
    Unresolved,
}

/// Vote thresholds: paraphrase at `>= paraphrase_min`, non-paraphrase at `<= not_max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Fewest "paraphrase" votes that make a paraphrase.
    pub paraphrase_min: u32,
    /// Most "paraphrase" votes that still make a non-paraphrase.
    pub not_max: u32,
}

/// Strict majority either way, a tie unresolved: for 6 judgments `>= 4` / `<= 2` (the paper's
/// rule); for 5, `>= 3` / `<= 2` (no ties possible).
pub fn default_thresholds(judgments: u32) -> Thresholds {
    Thresholds {
        paraphrase_min: judgments / 2 + 1,
        not_max: judgments.saturating_sub(1) / 2,
    }
}

/// The label of a pair with `paraphrase_votes` "paraphrase" votes.
pub fn vote_label(paraphrase_votes: u32, t: Thresholds) -> VoteLabel {
    if paraphrase_votes >= t.paraphrase_min {
        VoteLabel::Paraphrase
    } else if paraphrase_votes <= t.not_max {
        VoteLabel::NotParaphrase
    } else {
        VoteLabel::Unresolved
    }
}

/// An ordinary pair's trusted votes as its label is read from them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairVotes {
    /// Trusted judgments.
    pub judgments: u32,
    /// Of which "paraphrase".
    pub paraphrase: u32,
    /// The label the pair settled on before its maximum (adaptive redundancy, `settle.rs`).
    pub settled: Option<bool>,
}

/// An ordinary pair's label, `None` while it waits for judgments: the label it settled on, or
/// at `judgments_per_pair` judgments the vote thresholds' (MultiPIT's rule).
pub fn pair_label(v: PairVotes, judgments_per_pair: u32, t: Thresholds) -> Option<VoteLabel> {
    match v.settled {
        Some(true) => Some(VoteLabel::Paraphrase),
        Some(false) => Some(VoteLabel::NotParaphrase),
        None if v.judgments >= judgments_per_pair => Some(vote_label(v.paraphrase, t)),
        None => None,
    }
}

/// Checks campaign thresholds against the number of judgments per pair.
pub fn check_thresholds(judgments: u32, t: Thresholds) -> Result<(), String> {
    if t.not_max >= t.paraphrase_min {
        return Err("The non-paraphrase bound must be below the paraphrase bound.".into());
    }
    if t.paraphrase_min > judgments {
        return Err(format!(
            "A paraphrase cannot need more than the {judgments} judgments a pair gets."
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_settled_pair_has_its_label_before_the_maximum() {
        let t = default_thresholds(6);
        let v = |judgments, paraphrase, settled| PairVotes {
            judgments,
            paraphrase,
            settled,
        };
        assert_eq!(pair_label(v(3, 3, None), 6, t), None);
        assert_eq!(
            pair_label(v(3, 3, Some(true)), 6, t),
            Some(VoteLabel::Paraphrase)
        );
        assert_eq!(
            pair_label(v(4, 1, Some(false)), 6, t),
            Some(VoteLabel::NotParaphrase)
        );
        assert_eq!(pair_label(v(6, 3, None), 6, t), Some(VoteLabel::Unresolved));
        assert_eq!(pair_label(v(6, 4, None), 6, t), Some(VoteLabel::Paraphrase));
    }

    use super::*;

    #[test]
    fn six_judgments_follow_the_paper() {
        let t = default_thresholds(6);
        assert_eq!(
            t,
            Thresholds {
                paraphrase_min: 4,
                not_max: 2
            }
        );
        let labels: Vec<VoteLabel> = (0..=6).map(|v| vote_label(v, t)).collect();
        use VoteLabel::*;
        assert_eq!(
            labels,
            [
                NotParaphrase,
                NotParaphrase,
                NotParaphrase,
                Unresolved,
                Paraphrase,
                Paraphrase,
                Paraphrase
            ]
        );
    }

    #[test]
    fn odd_counts_have_no_ties_and_custom_thresholds_apply() {
        let t = default_thresholds(5);
        assert_eq!(
            t,
            Thresholds {
                paraphrase_min: 3,
                not_max: 2
            }
        );
        assert_eq!(vote_label(3, t), VoteLabel::Paraphrase);
        assert_eq!(vote_label(2, t), VoteLabel::NotParaphrase);
        assert_eq!(
            default_thresholds(1),
            Thresholds {
                paraphrase_min: 1,
                not_max: 0
            }
        );
        // A stricter rule: 5 of 6 for paraphrase, at most 1 for not.
        let strict = Thresholds {
            paraphrase_min: 5,
            not_max: 1,
        };
        assert_eq!(vote_label(4, strict), VoteLabel::Unresolved);
        assert_eq!(vote_label(5, strict), VoteLabel::Paraphrase);
    }

    #[test]
    fn bad_thresholds_are_refused() {
        assert!(check_thresholds(
            6,
            Thresholds {
                paraphrase_min: 3,
                not_max: 3
            }
        )
        .is_err());
        assert!(check_thresholds(
            6,
            Thresholds {
                paraphrase_min: 7,
                not_max: 2
            }
        )
        .is_err());
        assert!(check_thresholds(6, default_thresholds(6)).is_ok());
    }
}
