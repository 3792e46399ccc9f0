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
    /// No label: between the thresholds (a 3-3 tie for six judgments), or under adaptive
    /// redundancy a posterior short of the target at the maximum.
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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairVotes {
    /// Trusted judgments.
    pub judgments: u32,
    /// Of which "paraphrase".
    pub paraphrase: u32,
    /// Judgments that hold one of its slots: the trusted ones and those of stopped workers (a
    /// stop gives no slot back); set-aside ones (republished, excluded) gave theirs back. At the
    /// maximum no judgment can come.
    pub taken: u32,
    /// The label the pair settled on before its maximum (adaptive redundancy, `settle.rs`).
    pub settled: Option<bool>,
    /// The posterior of "paraphrase" from its trusted votes weighted by their workers'
    /// accuracy (`judge_pair.posterior`); none below the minimum.
    pub posterior: Option<f64>,
}

/// How a campaign labels its pairs: a settled label, else nothing until a pair has taken its
/// maximum of judgments, and then [`AtMaximum`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelRule {
    /// Judgments a pair gets at most.
    pub max: u32,
    /// The label of a pair that got every judgment it will get without settling.
    pub at_maximum: AtMaximum,
}

/// The label of a pair at its maximum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AtMaximum {
    /// Fixed redundancy (the minimum is the maximum, as in MultiPIT): the vote thresholds. A
    /// pair short of trusted votes (a stopped worker's vote no longer counts) takes the label
    /// its votes give whatever the missing ones would have said, else none.
    Thresholds(Thresholds),
    /// Adaptive redundancy: the leading label when its posterior reaches `confidence` (as
    /// [`super::settle::settle`] decides at the maximum), else unresolved, with its posterior.
    Posterior {
        /// The campaign's target.
        confidence: f64,
    },
}

/// An ordinary pair's label by the campaign's rule, `None` while it waits for judgments.
pub fn pair_label(v: PairVotes, rule: LabelRule) -> Option<VoteLabel> {
    match v.settled {
        Some(true) => return Some(VoteLabel::Paraphrase),
        Some(false) => return Some(VoteLabel::NotParaphrase),
        None if v.taken < rule.max => return None,
        None => {}
    }
    Some(match rule.at_maximum {
        AtMaximum::Thresholds(t) => {
            let no = v.judgments.saturating_sub(v.paraphrase);
            if v.paraphrase >= t.paraphrase_min {
                VoteLabel::Paraphrase
            } else if no >= rule.max.saturating_sub(t.not_max) {
                VoteLabel::NotParaphrase
            } else {
                VoteLabel::Unresolved
            }
        }
        AtMaximum::Posterior { confidence } => match v.posterior {
            Some(p) if p.max(1.0 - p) >= confidence => {
                if p >= 0.5 {
                    VoteLabel::Paraphrase
                } else {
                    VoteLabel::NotParaphrase
                }
            }
            _ => VoteLabel::Unresolved,
        },
    })
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
    /// A pair with `judgments` trusted votes of which `paraphrase` say so, all of them holding
    /// a slot, with no settled label and no posterior.
    fn v(judgments: u32, paraphrase: u32) -> PairVotes {
        PairVotes {
            judgments,
            paraphrase,
            taken: judgments,
            settled: None,
            posterior: None,
        }
    }

    fn fixed(max: u32) -> LabelRule {
        LabelRule {
            max,
            at_maximum: AtMaximum::Thresholds(default_thresholds(max)),
        }
    }

    const ADAPTIVE: LabelRule = LabelRule {
        max: 6,
        at_maximum: AtMaximum::Posterior { confidence: 0.95 },
    };

    #[test]
    fn a_settled_pair_has_its_label_before_the_maximum() {
        use VoteLabel::*;
        let settled = |judgments, paraphrase, label| PairVotes {
            settled: Some(label),
            ..v(judgments, paraphrase)
        };
        for rule in [fixed(6), ADAPTIVE] {
            assert_eq!(pair_label(v(3, 3), rule), None);
            assert_eq!(pair_label(settled(3, 3, true), rule), Some(Paraphrase));
            assert_eq!(pair_label(settled(4, 1, false), rule), Some(NotParaphrase));
        }
        assert_eq!(pair_label(v(6, 3), fixed(6)), Some(Unresolved));
        assert_eq!(pair_label(v(6, 4), fixed(6)), Some(Paraphrase));
        assert_eq!(pair_label(v(6, 2), fixed(6)), Some(NotParaphrase));
    }

    #[test]
    fn at_the_maximum_an_adaptive_pair_is_labelled_by_its_posterior_or_unresolved() {
        use VoteLabel::*;
        let at = |paraphrase, posterior| PairVotes {
            posterior,
            ..v(6, paraphrase)
        };
        // Four votes of six, but the two against came from workers known to be accurate: the
        // posterior says "not", short of the target, so the pair is unresolved, where the vote
        // thresholds would have called it a paraphrase.
        assert_eq!(pair_label(at(4, Some(0.08)), ADAPTIVE), Some(Unresolved));
        assert_eq!(pair_label(at(4, Some(0.08)), fixed(6)), Some(Paraphrase));
        assert_eq!(pair_label(at(4, Some(0.94)), ADAPTIVE), Some(Unresolved));
        assert_eq!(pair_label(at(4, Some(0.95)), ADAPTIVE), Some(Paraphrase));
        // Three votes of six: the posterior's leading label where it reaches the target.
        assert_eq!(pair_label(at(3, Some(0.03)), ADAPTIVE), Some(NotParaphrase));
        assert_eq!(pair_label(at(3, Some(0.5)), ADAPTIVE), Some(Unresolved));
        assert_eq!(pair_label(at(3, None), ADAPTIVE), Some(Unresolved));
        // The same decision as the settling rule's at the maximum.
        use super::super::settle::{settle, Redundancy, Settling, Vote};
        let r = Redundancy {
            min: 3,
            max: 6,
            confidence: 0.95,
        };
        for accuracies in [[0.7, 0.7, 0.7, 0.7, 0.95, 0.95], [0.9; 6], [0.8; 6]] {
            for yes in 0..=6 {
                let votes: Vec<Vote> = (0..6)
                    .map(|i| Vote {
                        paraphrase: i < yes,
                        accuracy: accuracies[i],
                    })
                    .collect();
                let s = settle(&r, 0.5, &votes, 0.99);
                let posterior = match s {
                    Settling::Settled {
                        paraphrase,
                        posterior,
                    } => Some(if paraphrase {
                        posterior
                    } else {
                        1.0 - posterior
                    }),
                    Settling::Unresolved { posterior } => Some(posterior),
                    Settling::Open => unreachable!("at the maximum"),
                };
                let expected = match s {
                    Settling::Settled {
                        paraphrase: true, ..
                    } => Paraphrase,
                    Settling::Settled { .. } => NotParaphrase,
                    _ => Unresolved,
                };
                assert_eq!(
                    pair_label(at(yes as u32, posterior), ADAPTIVE),
                    Some(expected),
                    "{accuracies:?}, {yes} yes"
                );
            }
        }
    }

    #[test]
    fn a_pair_whose_slots_are_all_taken_has_its_label_with_fewer_trusted_votes() {
        use VoteLabel::*;
        // Six slots taken, one of them by a stopped worker whose vote no longer counts.
        let short = |paraphrase, posterior| PairVotes {
            taken: 6,
            posterior,
            ..v(5, paraphrase)
        };
        // Fixed: a label only where the missing vote could not have changed it.
        assert_eq!(pair_label(short(4, None), fixed(6)), Some(Paraphrase));
        assert_eq!(pair_label(short(3, None), fixed(6)), Some(Unresolved));
        assert_eq!(pair_label(short(2, None), fixed(6)), Some(Unresolved));
        assert_eq!(pair_label(short(1, None), fixed(6)), Some(NotParaphrase));
        assert_eq!(
            pair_label(
                PairVotes {
                    taken: 6,
                    ..v(0, 0)
                },
                fixed(6)
            ),
            Some(Unresolved),
            "no vote left says nothing"
        );
        // Adaptive: the posterior of the votes that still count.
        assert_eq!(pair_label(short(3, Some(0.9)), ADAPTIVE), Some(Unresolved));
        assert_eq!(pair_label(short(4, Some(0.99)), ADAPTIVE), Some(Paraphrase));
        // Slots still free (a set-aside vote gave its slot back): it waits.
        assert_eq!(
            pair_label(
                PairVotes {
                    taken: 5,
                    ..v(5, 4)
                },
                fixed(6)
            ),
            None
        );
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
