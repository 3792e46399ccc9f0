//! Mutual implication (MI), APT §3.1: a paraphrase keeps the meaning when an NLI model says
//! *entailment* for (source, attempt) **and** for (attempt, source). Two kinds of judge are
//! accepted, told apart by the model's `id2label` (never by assumed positions):
//! - a 3-way NLI model (the paper's RoBERTa-large judge): MI when the argmax is entailment in
//!   both directions;
//! - a binary MI classifier (labels `not_mi` / `mi`, the offline stand-in): MI when P(mi)
//!   averaged over both orders exceeds 0.5.
use std::collections::BTreeMap;

/// How to read a judge's output, derived from its `id2label`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MiJudge {
    /// 3-way (or n-way) NLI; the index of the entailment label.
    Nli {
        /// Index of the entailment label.
        entailment: usize,
        /// How many labels the model has.
        labels: usize,
    },
    /// Binary MI classifier; the index of the `mi` label.
    Binary {
        /// Index of the `mi` label.
        mi: usize,
    },
}

/// Why a judge's `id2label` could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MiJudgeError {
    /// The label ids are not exactly `0..n`; the ids found.
    #[error("id2label must number its labels 0..n without gaps, got {0:?}")]
    Gaps(Vec<usize>),
    /// No entailment label and no `mi`/`not_mi` pair; the names found.
    #[error("id2label has neither an 'entailment' label (NLI) nor 'mi'/'not_mi' labels (binary MI): {0:?}")]
    UnknownLabels(Vec<String>),
}

impl MiJudge {
    /// Reads the judge kind from `id2label` (label names compared case-insensitively).
    pub fn from_id2label(id2label: &BTreeMap<usize, String>) -> Result<Self, MiJudgeError> {
        let ids: Vec<usize> = id2label.keys().copied().collect();
        if ids.iter().enumerate().any(|(i, id)| i != *id) {
            return Err(MiJudgeError::Gaps(ids));
        }
        let names: Vec<String> = id2label.values().map(|s| s.to_lowercase()).collect();
        let find = |name: &str| names.iter().position(|n| n == name);
        if let (2, Some(mi), Some(_)) = (names.len(), find("mi"), find("not_mi")) {
            return Ok(MiJudge::Binary { mi });
        }
        if let Some(entailment) = find("entailment") {
            return Ok(MiJudge::Nli {
                entailment,
                labels: names.len(),
            });
        }
        Err(MiJudgeError::UnknownLabels(
            id2label.values().cloned().collect(),
        ))
    }

    /// The MI decision from the probability vectors of both directions.
    pub fn decide(&self, forward: &[f32], backward: &[f32]) -> bool {
        match *self {
            MiJudge::Nli { entailment, .. } => {
                argmax(forward) == Some(entailment) && argmax(backward) == Some(entailment)
            }
            MiJudge::Binary { mi } => {
                let p = (f64::from(forward[mi]) + f64::from(backward[mi])) / 2.0;
                p > 0.5
            }
        }
    }

    /// The probability the judge gives to "this direction implies the other" (entailment or mi).
    pub fn implication_probability(&self, probs: &[f32]) -> f32 {
        match *self {
            MiJudge::Nli { entailment, .. } => probs[entailment],
            MiJudge::Binary { mi } => probs[mi],
        }
    }
}

/// Numerically stable softmax.
pub fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f64> = logits.iter().map(|&l| f64::from(l - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| (e / sum) as f32).collect()
}

/// Index of the largest value; the first one on ties; `None` for an empty slice.
pub fn argmax(values: &[f32]) -> Option<usize> {
    values
        .iter()
        .enumerate()
        .fold(None, |best: Option<(usize, f32)>, (i, &v)| match best {
            Some((_, b)) if b >= v => best,
            _ => Some((i, v)),
        })
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(names: &[&str]) -> BTreeMap<usize, String> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| (i, n.to_string()))
            .collect()
    }

    #[test]
    fn the_judge_kind_and_positions_come_from_id2label() {
        assert_eq!(
            MiJudge::from_id2label(&labels(&["entailment", "neutral", "contradiction"])),
            Ok(MiJudge::Nli {
                entailment: 0,
                labels: 3
            })
        );
        // A permuted config moves the entailment index (e.g. MNLI-style models).
        assert_eq!(
            MiJudge::from_id2label(&labels(&["CONTRADICTION", "NEUTRAL", "ENTAILMENT"])),
            Ok(MiJudge::Nli {
                entailment: 2,
                labels: 3
            })
        );
        assert_eq!(
            MiJudge::from_id2label(&labels(&["not_mi", "mi"])),
            Ok(MiJudge::Binary { mi: 1 })
        );
        assert_eq!(
            MiJudge::from_id2label(&labels(&["mi", "not_mi"])),
            Ok(MiJudge::Binary { mi: 0 })
        );
        assert!(MiJudge::from_id2label(&labels(&["LABEL_0", "LABEL_1"])).is_err());
        let gap: BTreeMap<usize, String> = [(0, "entailment".into()), (2, "neutral".into())].into();
        assert!(matches!(
            MiJudge::from_id2label(&gap),
            Err(MiJudgeError::Gaps(_))
        ));
    }

    #[test]
    fn nli_mi_needs_entailment_as_argmax_in_both_directions() {
        let judge = MiJudge::Nli {
            entailment: 0,
            labels: 3,
        };
        let ent = [0.7, 0.2, 0.1];
        let neu = [0.3, 0.6, 0.1];
        assert!(judge.decide(&ent, &ent));
        assert!(!judge.decide(&ent, &neu));
        assert!(!judge.decide(&neu, &ent));
    }

    #[test]
    fn binary_mi_averages_both_orders_and_needs_more_than_half() {
        let judge = MiJudge::Binary { mi: 1 };
        assert!(judge.decide(&[0.2, 0.8], &[0.6, 0.4])); // mean 0.6
        assert!(!judge.decide(&[0.5, 0.5], &[0.5, 0.5])); // exactly 0.5 is not MI
        assert!(!judge.decide(&[0.1, 0.9], &[0.9, 0.1])); // mean 0.5
    }

    #[test]
    fn softmax_is_stable_and_sums_to_one() {
        let p = softmax(&[1000.0, 1000.0, 999.0]);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((p[0] - p[1]).abs() < 1e-7 && p[2] < p[0]);
        assert_eq!(argmax(&[0.1, 0.5, 0.5]), Some(1));
        assert_eq!(argmax(&[]), None);
    }
}
