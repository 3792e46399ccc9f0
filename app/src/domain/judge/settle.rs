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
