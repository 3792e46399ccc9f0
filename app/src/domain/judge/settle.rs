//! When a pair has enough judgments: adaptive redundancy as a plain rule.
//!
//! A pair's label is settled once the posterior of its leading label reaches the campaign's
//! confidence target, each judgment weighted by its worker's estimated accuracy (a one-coin
//! model: a worker right with probability `a` moves the log-odds by `±ln(a / (1 − a))`), or once
//! no judgment still to come could change the leading label. It is never settled before the
//! minimum number of judgments, and at the maximum without reaching the target it is
//! "unresolved", with its posterior.
//!
//! With every worker at the same accuracy the rule counts votes: at accuracy 0.8 and a target of
//! 0.95 it settles on a lead of 3 (`ln 4 · 3 > ln 19`). Weighting earns its place when workers
//! differ: two careful workers agreeing settle a pair that two careless ones would not.

/// A campaign's redundancy settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Redundancy {
    /// Judgments every pair gets before it can settle.
    pub min: u32,
    /// Judgments a pair gets at most.
    pub max: u32,
    /// The posterior of the leading label at which a pair settles.
    pub confidence: f64,
}

impl Default for Redundancy {
    fn default() -> Self {
        Redundancy {
            min: 3,
            max: 6,
            confidence: 0.95,
        }
    }
}

impl Redundancy {
    /// Checks the settings; the error says what is allowed.
    pub fn check(&self) -> Result<(), String> {
        if self.min < 1 || self.min > self.max || self.max > 50 {
            return Err(format!(
                "The minimum and maximum judgments per pair must satisfy 1 <= minimum <= maximum <= 50 \
                 (here {} and {}).",
                self.min, self.max
            ));
        }
        if !(self.confidence > 0.5 && self.confidence < 1.0) {
            return Err(format!(
                "The confidence target is a probability above 0.5 and below 1 (here {}).",
                self.confidence
            ));
        }
        Ok(())
    }
}

/// One judgment as the rule weighs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vote {
    /// The worker said "paraphrase".
    pub paraphrase: bool,
    /// The worker's estimated accuracy (clamped to [`MIN_ACCURACY`], [`MAX_ACCURACY`]).
    pub accuracy: f64,
}

/// No worker counts as less accurate than a coin ...
pub const MIN_ACCURACY: f64 = 0.5;
/// ... or as never wrong.
pub const MAX_ACCURACY: f64 = 0.99;

/// A worker with no evidence yet counts as this accurate ...
pub const PRIOR_ACCURACY: f64 = 0.8;
/// ... as if from this many observations; each test answer and each answer on a pair with a
/// majority of others is one more.
pub const PRIOR_OBSERVATIONS: f64 = 4.0;

/// A worker's estimated accuracy from the gate's pooled evidence: `agreed` of `observations`
/// test answers and answers equal to the others' majority, shrunk towards [`PRIOR_ACCURACY`]
/// (a Beta prior worth [`PRIOR_OBSERVATIONS`]), so a newcomer's first answers neither settle
/// a pair alone nor count for nothing.
pub fn worker_accuracy(agreed: u32, observations: u32) -> f64 {
    (f64::from(agreed) + PRIOR_ACCURACY * PRIOR_OBSERVATIONS)
        / (f64::from(observations) + PRIOR_OBSERVATIONS)
}

/// The accuracy a vote is weighed with: the worker's pooled evidence (`agreed` of `observations`,
/// [`worker_accuracy`]) without the vote's own observation, when the pair's other trusted votes
/// (`others_paraphrase`, `others_not`) have a majority, so that a vote never vouches for itself.
/// The database's twin: `migrations/functions/judge_vote_accuracy.sql`.
pub fn vote_accuracy(
    paraphrase: bool,
    others_paraphrase: u32,
    others_not: u32,
    agreed: u32,
    observations: u32,
) -> f64 {
    let (agreed, observations) = match others_paraphrase.cmp(&others_not) {
        std::cmp::Ordering::Equal => (agreed, observations),
        order => {
            let agrees = (order == std::cmp::Ordering::Greater) == paraphrase;
            (
                agreed.saturating_sub(u32::from(agrees)),
                observations.saturating_sub(1),
            )
        }
    };
    worker_accuracy(agreed.min(observations), observations)
}

/// How much a judgment still to come is assumed to weigh when the rule asks whether it could
/// change the leading label: as much as any vote can ([`MAX_ACCURACY`]), so a label settled on
/// that ground can never be overturned by the judgments the maximum still allows.
pub const NEXT_ACCURACY: f64 = MAX_ACCURACY;

/// Where a pair stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Settling {
    /// It needs more judgments.
    Open,
    /// Its label is settled.
    Settled {
        /// The label.
        paraphrase: bool,
        /// The posterior of that label.
        posterior: f64,
    },
    /// It reached the maximum without reaching the target.
    Unresolved {
        /// The posterior of "paraphrase".
        posterior: f64,
    },
}

fn weight(accuracy: f64) -> f64 {
    let a = accuracy.clamp(MIN_ACCURACY, MAX_ACCURACY);
    (a / (1.0 - a)).ln()
}

/// The log-odds of "paraphrase" after `votes`, from a prior probability `prior`.
pub fn log_odds(prior: f64, votes: &[Vote]) -> f64 {
    let p = prior.clamp(1e-6, 1.0 - 1e-6);
    votes.iter().fold((p / (1.0 - p)).ln(), |l, v| {
        if v.paraphrase {
            l + weight(v.accuracy)
        } else {
            l - weight(v.accuracy)
        }
    })
}

/// The posterior probability of "paraphrase" after `votes`.
pub fn posterior(prior: f64, votes: &[Vote]) -> f64 {
    1.0 / (1.0 + (-log_odds(prior, votes)).exp())
}

/// Where a pair with `votes` stands under `r`; judgments still to come are weighted as a worker
/// of accuracy `next_accuracy` (the most a coming judgment can move the label).
pub fn settle(r: &Redundancy, prior: f64, votes: &[Vote], next_accuracy: f64) -> Settling {
    let n = votes.len() as u32;
    let l = log_odds(prior, votes);
    let p = 1.0 / (1.0 + (-l).exp());
    let lead = p.max(1.0 - p);
    if n >= r.max {
        return if lead >= r.confidence {
            Settling::Settled {
                paraphrase: p >= 0.5,
                posterior: lead,
            }
        } else {
            Settling::Unresolved { posterior: p }
        };
    }
    if n < r.min {
        return Settling::Open;
    }
    let left = f64::from(r.max - n);
    if lead >= r.confidence || l.abs() > left * weight(next_accuracy) {
        return Settling::Settled {
            paraphrase: p >= 0.5,
            posterior: lead,
        };
    }
    Settling::Open
}

#[cfg(test)]
mod tests {
    use super::*;

    fn votes(labels: &[bool], accuracy: f64) -> Vec<Vote> {
        labels
            .iter()
            .map(|&paraphrase| Vote {
                paraphrase,
                accuracy,
            })
            .collect()
    }

    #[test]
    fn equal_workers_settle_on_a_lead_of_three() {
        let r = Redundancy::default();
        let s = |labels: &[bool]| settle(&r, 0.5, &votes(labels, 0.8), 0.8);
        assert_eq!(s(&[true, true]), Settling::Open, "below the minimum");
        assert!(matches!(
            s(&[true, true, true]),
            Settling::Settled {
                paraphrase: true,
                ..
            }
        ));
        assert_eq!(s(&[true, false, true]), Settling::Open);
        assert!(matches!(
            s(&[false, true, false, false, false]),
            Settling::Settled {
                paraphrase: false,
                ..
            }
        ));
        // Six votes split 3-3: unresolved at the maximum.
        let tie = s(&[true, false, true, false, true, false]);
        assert!(
            matches!(tie, Settling::Unresolved { posterior } if (posterior - 0.5).abs() < 1e-12)
        );
    }

    #[test]
    fn careful_workers_settle_sooner_than_careless_ones() {
        let r = Redundancy::default();
        // 2-1 among careful workers: one careful vote ahead is 97%, settled ...
        assert!(matches!(
            settle(&r, 0.5, &votes(&[true, true, false], 0.97), 0.8),
            Settling::Settled {
                paraphrase: true,
                ..
            }
        ));
        // ... among ordinary ones it is not.
        assert_eq!(
            settle(&r, 0.5, &votes(&[true, true, false], 0.8), 0.8),
            Settling::Open
        );
        // Three careless workers agreeing are not enough either.
        assert_eq!(
            settle(&r, 0.5, &votes(&[true; 3], 0.6), 0.8),
            Settling::Open
        );
    }

    #[test]
    fn a_label_no_coming_judgment_can_change_is_settled() {
        let r = Redundancy {
            min: 3,
            max: 4,
            confidence: 0.999,
        };
        // 3-0 with one judgment to come: it cannot change the leading label.
        assert!(matches!(
            settle(&r, 0.5, &votes(&[true; 3], 0.8), 0.8),
            Settling::Settled {
                paraphrase: true,
                ..
            }
        ));
        // 2-1 with one to come can.
        assert_eq!(
            settle(&r, 0.5, &votes(&[true, true, false], 0.8), 0.8),
            Settling::Open
        );
    }

    #[test]
    fn settings_are_checked() {
        assert!(Redundancy::default().check().is_ok());
        for bad in [
            (0, 6, 0.95),
            (4, 3, 0.95),
            (3, 51, 0.95),
            (3, 6, 0.5),
            (3, 6, 1.0),
        ] {
            let r = Redundancy {
                min: bad.0,
                max: bad.1,
                confidence: bad.2,
            };
            assert!(r.check().is_err(), "{r:?}");
        }
    }

    #[test]
    fn a_newcomer_counts_as_the_prior_and_evidence_moves_them() {
        assert!((worker_accuracy(0, 0) - PRIOR_ACCURACY).abs() < 1e-12);
        // 4 of 4 right: (4 + 3.2) / 8.
        assert!((worker_accuracy(4, 4) - 0.9).abs() < 1e-12);
        // Many observations outweigh the prior.
        assert!((worker_accuracy(500, 1000) - 0.5).abs() < 0.002);
        assert!(worker_accuracy(3, 10) < worker_accuracy(0, 0));
    }

    #[test]
    fn a_vote_does_not_vouch_for_itself() {
        // 9 of 10 agreeing observations, one of them this vote agreeing with a 2-1 majority.
        assert_eq!(vote_accuracy(true, 2, 1, 9, 10), worker_accuracy(8, 9));
        // Against the majority: the observation was a disagreement.
        assert_eq!(vote_accuracy(false, 2, 1, 9, 10), worker_accuracy(9, 9));
        // No majority among the others: the pair gave no observation.
        assert_eq!(vote_accuracy(true, 1, 1, 9, 10), worker_accuracy(9, 10));
        assert_eq!(vote_accuracy(true, 0, 0, 0, 0), PRIOR_ACCURACY);
        // Counts out of step (a change not yet folded in) never go below zero.
        assert_eq!(vote_accuracy(true, 1, 0, 0, 0), PRIOR_ACCURACY);
    }

    #[test]
    fn accuracies_are_clamped() {
        let wild = [
            Vote {
                paraphrase: true,
                accuracy: 1.0,
            },
            Vote {
                paraphrase: false,
                accuracy: 0.0,
            },
        ];
        // 1.0 counts as 0.99; 0.0 as a coin, which says nothing.
        let p = posterior(0.5, &wild);
        assert!(p.is_finite() && (p - 0.99).abs() < 1e-9, "{p}");
    }
}
