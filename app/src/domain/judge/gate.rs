//! The quality gate of MultiPIT §2.4: "Workers can continue in the task if they achieve > 85%
//! accuracy on the test pairs and > 0.2 Cohen's kappa when compared with the major vote of
//! other workers."
//!
//! Rules, as implemented:
//! - The gate applies once a worker has `gate_min_judgments` judgments (test pairs included).
//! - Test accuracy = correct test answers / test answers; it applies when at least one test pair
//!   was answered. Kept while strictly above the minimum.
//! - Kappa: Cohen's kappa between the worker's labels and the leave-one-out majority of the
//!   *other* workers' trusted judgments on the same (non-test) pairs. Pairs where the others tie
//!   or no one else has judged are left out. Kappa applies when at least [`MIN_KAPPA_ITEMS`]
//!   pairs remain and it is defined (it is undefined when the worker and the majority each gave
//!   one and the same label throughout). Kept while strictly above the minimum.
//!
//! That is the `paper` rule. With about six test pairs by judgment 30 it stops half of honest
//! workers of 80-95% accuracy (one miss in six is 83%). The `evidence` rule pools all the evidence
//! instead: each test answer and each answer on a pair with a majority of others is one
//! observation, agreeing or not; a worker is stopped when, with at least [`MIN_EVIDENCE`]
//! observations, the share that agrees is at most [`EVIDENCE_MAX_SHARE`], or when their kappa
//! against the majority is at most 0 (no better than chance: an always-"paraphrase" worker).
//! Simulated (`simulation.rs`): honest 80-95% workers are stopped within 30 judgments about 1%
//! of the time, always-"paraphrase" and random workers 95-100%.
//!
//! The `confidence` rule (`confidence.rs`, the default for new campaigns) keeps MultiPIT's
//! accuracy minimum and decides it with a sequential test at a stated error level; `evidence`
//! and `paper` stay selectable.
use serde::{Deserialize, Serialize};

use super::confidence::{self, Evidence, Ground};
use super::settings::{GateRule, JudgeSettings};
use crate::domain::agreement::{cohen_kappa, majority};

/// Fewest pairs with a majority of others before kappa is used.
pub const MIN_KAPPA_ITEMS: usize = 10;

/// The `evidence` rule: fewest observations before the agreement share is used ...
pub const MIN_EVIDENCE: u32 = 10;
/// ... and the share of agreeing observations at or below which a worker is stopped.
pub const EVIDENCE_MAX_SHARE: f64 = 0.66;

/// One non-test pair a worker judged, with the other workers' votes on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comparison {
    /// The worker said "paraphrase".
    pub label: bool,
    /// Other workers' trusted "paraphrase" votes on the pair.
    pub others_paraphrase: u32,
    /// Other workers' trusted "not paraphrase" votes on the pair.
    pub others_not: u32,
}

/// The numbers behind a decision (stored with every status change).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GateNumbers {
    /// The worker's judgments so far, test pairs included.
    pub judgments: u32,
    /// Test pairs the worker has answered.
    pub tests_answered: u32,
    /// The share of test pairs answered correctly; `None` before the first.
    pub test_accuracy: Option<f64>,
    /// Test pairs answered correctly.
    #[serde(default)]
    pub tests_correct: u32,
    /// Cohen's kappa against the others' majority; `None` below [`MIN_KAPPA_ITEMS`] or undefined.
    pub kappa: Option<f64>,
    /// Pairs with a majority of others that kappa was computed over.
    pub kappa_items: u32,
    /// Observations agreeing with the evidence (correct tests, answers equal to the majority)
    /// and all observations (tests, pairs with a majority).
    #[serde(default)]
    pub agreements: u32,
    /// All observations: test answers and answers on pairs with a majority of others.
    #[serde(default)]
    pub evidence: u32,
    /// The ordinary pairs with a majority of others, by (worker's label, majority):
    /// `[paraphrase/paraphrase, paraphrase/not, not/paraphrase, not/not]`.
    #[serde(default)]
    pub by_majority: [u32; 4],
    /// Of those pairs, the answers that agree and disagree with a majority 2 or more votes ahead,
    /// then with one 3 or more ahead: `[agreed, disagreed, agreed, disagreed]`.
    #[serde(default)]
    pub by_lead: [u32; 4],
}

impl GateNumbers {
    /// The counts the `confidence` rule weighs.
    pub fn evidence(&self) -> Evidence {
        let correct = self.tests_correct.min(self.tests_answered);
        let [pp, pn, np, nn] = self.by_majority;
        let [lead2_agreed, lead2_disagreed, lead3_agreed, lead3_disagreed] = self.by_lead;
        Evidence {
            tests_correct: correct,
            tests_wrong: self.tests_answered - correct,
            paraphrase_agreed: pp,
            paraphrase_disagreed: np,
            not_agreed: nn,
            not_disagreed: pn,
            lead2_agreed,
            lead2_disagreed,
            lead3_agreed,
            lead3_disagreed,
            judgments: self.judgments,
        }
    }
}

/// What the gate says about a worker.
#[derive(Debug, Clone, PartialEq)]
pub enum GateDecision {
    /// Too few judgments for the gate.
    NotYet,
    /// Above every threshold.
    Keep,
    /// Below a threshold, which [`StopReason`] names with the numbers (the words for the
    /// worker and the admin are written outside the domain: `dto::judge::stop_message`).
    Stop(StopReason),
}

/// Why the gate stopped a worker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StopReason {
    /// `paper` rule: test accuracy at or below the campaign's minimum.
    TestAccuracy {
        /// The worker's share of correct test answers.
        accuracy: f64,
        /// The campaign's minimum (kept only above it).
        minimum: f64,
    },
    /// `paper` rule: kappa against the others' majority at or below the campaign's minimum.
    Kappa {
        /// The worker's kappa.
        kappa: f64,
        /// The campaign's minimum (kept only above it).
        minimum: f64,
    },
    /// `evidence` rule: the pooled share of agreeing observations at or below
    /// [`EVIDENCE_MAX_SHARE`].
    Agreement {
        /// The worker's share of agreeing observations.
        share: f64,
        /// The share at or below which a worker is stopped.
        maximum: f64,
    },
    /// `evidence` rule: kappa at or below 0, no better than chance.
    Chance {
        /// The worker's kappa.
        kappa: f64,
    },
    /// `confidence` rule: the evidence shows, at the campaign's error level, an accuracy at or
    /// below the minimum (`confidence.rs`).
    Confident {
        /// Which evidence showed it.
        ground: Ground,
        /// The most likely accuracy.
        estimate: f64,
        /// The upper confidence bound on the accuracy.
        upper: f64,
        /// The campaign's minimum accuracy.
        minimum: f64,
        /// The campaign's error level.
        alpha: f64,
    },
    /// `confidence` rule: at one of the kappa check's looks, the upper confidence bound on
    /// kappa against the others' majority is below the minimum (`confidence::kappa_look`).
    ConfidentKappa {
        /// The look that showed it.
        look: confidence::KappaLook,
        /// The campaign's minimum kappa.
        minimum: f64,
    },
}

/// The test accuracy and leave-one-out kappa of a worker.
pub fn numbers(judgments: u32, test_correct: &[bool], comparisons: &[Comparison]) -> GateNumbers {
    let tests_answered = test_correct.len() as u32;
    let test_accuracy = (tests_answered > 0)
        .then(|| test_correct.iter().filter(|c| **c).count() as f64 / tests_answered as f64);
    // Each pair with a majority of others: (label, majority), and how far the majority leads.
    let led: Vec<((bool, bool), u32)> = comparisons
        .iter()
        .filter_map(|c| {
            let votes = std::iter::repeat_n(true, c.others_paraphrase as usize)
                .chain(std::iter::repeat_n(false, c.others_not as usize));
            majority(votes).map(|m| ((c.label, m), c.others_paraphrase.abs_diff(c.others_not)))
        })
        .collect();
    let pairs: Vec<(bool, bool)> = led.iter().map(|(p, _)| *p).collect();
    let wide = |lead: u32, agreed: bool| {
        led.iter()
            .filter(|((l, m), by)| *by >= lead && (l == m) == agreed)
            .count() as u32
    };
    let by_lead = [wide(2, true), wide(2, false), wide(3, true), wide(3, false)];
    let agreements = test_correct.iter().filter(|c| **c).count() as u32
        + pairs.iter().filter(|(a, b)| a == b).count() as u32;
    let evidence = tests_answered + pairs.len() as u32;
    let cell = |l: bool, m: bool| pairs.iter().filter(|p| **p == (l, m)).count() as u32;
    let by_majority = [
        cell(true, true),
        cell(true, false),
        cell(false, true),
        cell(false, false),
    ];
    let kappa = if pairs.len() >= MIN_KAPPA_ITEMS {
        cohen_kappa(&pairs)
    } else {
        None
    };
    GateNumbers {
        judgments,
        tests_answered,
        test_accuracy,
        tests_correct: test_correct.iter().filter(|c| **c).count() as u32,
        kappa,
        kappa_items: pairs.len() as u32,
        agreements,
        evidence,
        by_majority,
        by_lead,
    }
}

/// Keep or stop a worker with these numbers.
pub fn decide(settings: &JudgeSettings, n: &GateNumbers) -> GateDecision {
    if n.judgments < settings.gate_min_judgments {
        return GateDecision::NotYet;
    }
    match settings.gate_rule {
        GateRule::Evidence => return decide_by_evidence(n),
        GateRule::Confidence => return decide_by_confidence(settings, n),
        GateRule::Paper => {}
    }
    if let Some(acc) = n.test_accuracy {
        if acc <= settings.min_test_accuracy {
            return GateDecision::Stop(StopReason::TestAccuracy {
                accuracy: acc,
                minimum: settings.min_test_accuracy,
            });
        }
    }
    if let Some(k) = n.kappa {
        if k <= settings.min_kappa {
            return GateDecision::Stop(StopReason::Kappa {
                kappa: k,
                minimum: settings.min_kappa,
            });
        }
    }
    GateDecision::Keep
}

/// Whether a worker's test accuracy is at or below the campaign's bar (`min_test_accuracy`), as
/// the dashboard flags it whatever the gate rule: under the pooled-evidence rule a worker who
/// misses every check question can stay active on agreement with the others, and the
/// researcher should see that. Like the worker's own warning, it waits for two answered test
/// pairs (`rule_text::WARN_AFTER_TESTS`): one miss is no pattern.
pub fn below_test_bar(
    tests_answered: i64,
    test_accuracy: Option<f64>,
    settings: &JudgeSettings,
) -> bool {
    tests_answered >= i64::from(super::rule_text::WARN_AFTER_TESTS)
        && test_accuracy.is_some_and(|a| a <= settings.min_test_accuracy)
}

fn decide_by_confidence(settings: &JudgeSettings, n: &GateNumbers) -> GateDecision {
    let a = confidence::assess(&settings.sequential_test(), &n.evidence());
    match (a.stop, a.kappa) {
        (None, _) => GateDecision::Keep,
        (Some(Ground::Kappa), Some(look)) => GateDecision::Stop(StopReason::ConfidentKappa {
            look,
            minimum: settings.min_kappa,
        }),
        (Some(ground), _) => GateDecision::Stop(StopReason::Confident {
            ground,
            estimate: a.estimate.unwrap_or(0.0),
            upper: a.upper.unwrap_or(0.0),
            minimum: settings.min_test_accuracy,
            alpha: settings.gate_alpha,
        }),
    }
}

fn decide_by_evidence(n: &GateNumbers) -> GateDecision {
    if n.evidence >= MIN_EVIDENCE {
        let share = f64::from(n.agreements) / f64::from(n.evidence);
        if share <= EVIDENCE_MAX_SHARE {
            return GateDecision::Stop(StopReason::Agreement {
                share,
                maximum: EVIDENCE_MAX_SHARE,
            });
        }
    }
    match n.kappa {
        Some(k) if k <= 0.0 => GateDecision::Stop(StopReason::Chance { kappa: k }),
        _ => GateDecision::Keep,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_bar_flags_accuracy_at_or_below_the_minimum_only() {
        let s = JudgeSettings::default();
        assert!(below_test_bar(2, Some(0.0), &s));
        assert!(below_test_bar(20, Some(s.min_test_accuracy), &s));
        assert!(!below_test_bar(20, Some(0.9), &s));
        assert!(!below_test_bar(1, Some(0.0), &s), "one miss is no pattern");
        assert!(!below_test_bar(0, None, &s), "no test pair answered yet");
    }

    /// MultiPIT's rule as written (the tests of the evidence rule say so).
    fn settings() -> JudgeSettings {
        JudgeSettings {
            gate_min_judgments: 20,
            gate_rule: GateRule::Paper,
            ..JudgeSettings::default()
        }
    }

    fn agreeing(n: usize, flip_every: usize) -> Vec<Comparison> {
        (0..n)
            .map(|i| {
                let truth = i % 2 == 0;
                let label = if flip_every > 0 && i % flip_every == 0 {
                    !truth
                } else {
                    truth
                };
                let (p, q) = if truth { (4, 1) } else { (1, 4) };
                Comparison {
                    label,
                    others_paraphrase: p,
                    others_not: q,
                }
            })
            .collect()
    }

    #[test]
    fn accuracy_and_kappa_arithmetic() {
        let n = numbers(30, &[true, true, true, false], &agreeing(20, 0));
        assert_eq!(n.tests_answered, 4);
        assert_eq!(n.test_accuracy, Some(0.75));
        assert_eq!(n.kappa, Some(1.0));
        assert_eq!(n.kappa_items, 20);
    }

    #[test]
    fn ties_and_unjudged_pairs_are_left_out_of_kappa() {
        let mut c = agreeing(10, 0);
        c.push(Comparison {
            label: true,
            others_paraphrase: 2,
            others_not: 2,
        });
        c.push(Comparison {
            label: false,
            others_paraphrase: 0,
            others_not: 0,
        });
        assert_eq!(numbers(12, &[], &c).kappa_items, 10);
        // Nine pairs are too few: no kappa yet.
        assert_eq!(numbers(9, &[], &agreeing(9, 0)).kappa, None);
    }

    #[test]
    fn thresholds_are_strict_as_in_the_paper() {
        let s = settings();
        let at = |acc: f64, kappa: f64| {
            decide(
                &s,
                &GateNumbers {
                    judgments: 20,
                    tests_answered: 4,
                    test_accuracy: Some(acc),
                    tests_correct: (acc * 4.0).round() as u32,
                    kappa: Some(kappa),
                    kappa_items: 20,
                    agreements: 0,
                    evidence: 0,
                    by_majority: [0; 4],
                    by_lead: [0; 4],
                },
            )
        };
        assert_eq!(at(0.9, 0.5), GateDecision::Keep);
        assert_eq!(
            at(0.85, 0.5),
            GateDecision::Stop(StopReason::TestAccuracy {
                accuracy: 0.85,
                minimum: 0.85
            })
        );
        assert_eq!(
            at(1.0, 0.2),
            GateDecision::Stop(StopReason::Kappa {
                kappa: 0.2,
                minimum: 0.2
            })
        );
    }

    #[test]
    fn too_few_judgments_or_no_evidence_keep_the_worker() {
        let s = settings();
        let n = numbers(19, &[false, false], &[]);
        assert_eq!(decide(&s, &n), GateDecision::NotYet);
        let n = numbers(20, &[], &[]);
        assert_eq!(decide(&s, &n), GateDecision::Keep);
    }

    #[test]
    fn always_paraphrase_and_random_workers_are_stopped() {
        let s = settings();
        // Always "paraphrase": half the (balanced) test pairs wrong, kappa 0.
        let always: Vec<Comparison> = agreeing(20, 0)
            .into_iter()
            .map(|c| Comparison { label: true, ..c })
            .collect();
        let n = numbers(25, &[true, false, true, false, true], &always);
        assert_eq!(n.kappa, Some(0.0));
        assert!(matches!(decide(&s, &n), GateDecision::Stop(_)));
        // Perfect tests but flipping every other answer elsewhere: kappa about 0.
        let n = numbers(25, &[true; 5], &agreeing(20, 2));
        assert!(n.kappa.unwrap() <= 0.2, "{n:?}");
        assert!(matches!(
            decide(&s, &n),
            GateDecision::Stop(StopReason::Kappa { .. })
        ));
        // An honest worker with one slip in twenty is kept.
        let n = numbers(25, &[true; 5], &agreeing(20, 20));
        assert_eq!(decide(&s, &n), GateDecision::Keep);
    }

    #[test]
    fn the_evidence_rule_pools_tests_and_majority_agreement() {
        let s = JudgeSettings {
            gate_rule: GateRule::Evidence,
            ..settings()
        };
        // One test missed in five and one slip in twenty: kept (the paper's rule would stop).
        let n = numbers(25, &[true, true, true, true, false], &agreeing(20, 20));
        assert_eq!((n.agreements, n.evidence), (23, 25));
        assert_eq!(decide(&s, &n), GateDecision::Keep);
        assert!(matches!(decide(&settings(), &n), GateDecision::Stop(_)));
        // 16 of 25 agree (64%): stopped.
        let n = numbers(25, &[true, false, true, false, true], &agreeing(20, 3));
        assert!(n.agreements * 100 <= 66 * n.evidence, "{n:?}");
        assert!(matches!(
            decide(&s, &n),
            GateDecision::Stop(StopReason::Agreement { .. })
        ));
        // Always "paraphrase" where the majority mostly says so too: 92% agree, but kappa 0.
        let always: Vec<Comparison> = (0..20)
            .map(|i| {
                let (p, q) = if i < 18 { (4, 1) } else { (1, 4) };
                Comparison {
                    label: true,
                    others_paraphrase: p,
                    others_not: q,
                }
            })
            .collect();
        let n = numbers(25, &[true; 5], &always);
        assert_eq!((n.agreements, n.evidence, n.kappa), (23, 25, Some(0.0)));
        assert!(matches!(
            decide(&s, &n),
            GateDecision::Stop(StopReason::Chance { .. })
        ));
        assert_eq!(GateRule::parse("evidence"), Some(GateRule::Evidence));
        assert_eq!(
            GateRule::parse(GateRule::Paper.as_str()),
            Some(GateRule::Paper)
        );
    }
}
