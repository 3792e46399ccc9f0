//! A judging campaign's settings, their defaults (MultiPIT's) and their checks, and the two
//! paraphrase definitions of the paper's Figure 3, in our own words, with its examples.
use crate::domain::invalid::Invalid;
use serde::{Deserialize, Serialize};

use super::confidence::{self, DEFAULT_WORSE_BY};
use super::labels::{check_thresholds, default_thresholds, AtMaximum, LabelRule, Thresholds};
use super::settle::Redundancy;

/// Which paraphrase definition workers judge by (MultiPIT Figure 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(sqlx::Type))]
#[cfg_attr(feature = "ssr", sqlx(type_name = "text", rename_all = "snake_case"))]
pub enum Definition {
    /// MultiPIT-crowd: sentence 2 may add relevant information (for tracking information).
    Loose,
    /// MultiPIT-expert: no added information that would need fact-checking (for generation).
    Strict,
}

impl Definition {
    /// `loose` or `strict`, as stored and sent in forms.
    pub fn as_str(self) -> &'static str {
        match self {
            Definition::Loose => "loose",
            Definition::Strict => "strict",
        }
    }

    /// `loose` or `strict`, surrounding blanks ignored.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "loose" => Some(Definition::Loose),
            "strict" => Some(Definition::Strict),
            _ => None,
        }
    }

    /// The definition as workers read it.
    pub fn text(self) -> &'static str {
        match self {
            Definition::Loose => {
                "Two sentences are paraphrases when they report the same thing: each one implies the \
                 other. A sentence may also be shorter (a simplification) or add information that is \
                 common sense, world knowledge, or new but relevant to the same event — that is \
                 still a paraphrase. If one sentence says something the other does not support, or \
                 they are about different events, it is not a paraphrase."
            }
            Definition::Strict => {
                "Two sentences are paraphrases when each one implies the other. A sentence may be \
                 shorter (a simplification) or add only common sense or widely known facts. If one \
                 sentence adds information that someone would need to fact-check (numbers, names, \
                 causes, claims not in the other sentence), it is NOT a paraphrase."
            }
        }
    }
}

/// An example of the definition (Figure 3 of the MultiPIT paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// The first sentence.
    pub sentence1: &'static str,
    /// The second sentence.
    pub sentence2: &'static str,
    /// Why it is labelled as it is.
    pub why: &'static str,
    /// A paraphrase under the loose definition.
    pub loose: bool,
    /// A paraphrase under the strict definition.
    pub strict: bool,
}

/// The paper's three examples, with how each definition labels them.
pub const EXAMPLES: [Example; 3] = [
    Example {
        sentence1: "Sweden's first female PM Magdalena Andersson, resigns on DAY ONE!!",
        sentence2: "Swedish PM Magdalena Andersson resigns hours after taking job.",
        why: "A simplification: the second says the same thing more briefly.",
        loose: true,
        strict: true,
    },
    Example {
        sentence1: "Facebook announces it will be changing its name to Meta.",
        sentence2: "Facebook relaunches itself as 'Meta' in a clear bid to dominate the metaverse.",
        why: "Adds world knowledge anyone following the news has.",
        loose: true,
        strict: true,
    },
    Example {
        sentence1: "100% of the 140,000 U.S. jobs lost in December were held by women.",
        sentence2: "In fact women lost 111% of the jobs in December because men gained 16,000 jobs.",
        why: "Adds numbers that would need fact-checking: a paraphrase under the loose definition only.",
        loose: true,
        strict: false,
    },
];

/// The `confidence` rule's error level unless a campaign sets another.
pub const DEFAULT_GATE_ALPHA: f64 = 0.3;

/// Judgments every pair gets before it can settle unless a campaign says otherwise.
pub const DEFAULT_MIN_JUDGMENTS: u32 = 3;
/// The posterior at which a pair settles unless a campaign says otherwise.
pub const DEFAULT_SETTLE_CONFIDENCE: f64 = 0.95;

fn default_min_judgments() -> u32 {
    DEFAULT_MIN_JUDGMENTS
}

fn default_settle_confidence() -> f64 {
    DEFAULT_SETTLE_CONFIDENCE
}

/// The worse level a campaign stored before it was a setting was run with (serde's default).
pub(crate) fn default_gate_worse_by() -> f64 {
    WORSE_BY_BEFORE_IT_WAS_A_SETTING
}

/// The worse level every campaign ran with before a campaign could set it.
pub const WORSE_BY_BEFORE_IT_WAS_A_SETTING: f64 = 0.2;

/// Everything a judging campaign is configured with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct JudgeSettings {
    /// The paraphrase definition workers are shown.
    pub definition: Definition,
    /// Judgments a pair gets at most (MultiPIT: 6, every pair).
    pub judgments_per_pair: u32,
    /// Judgments every pair gets before its label can settle (`settle.rs`); equal to
    /// `judgments_per_pair`, every pair gets exactly that many, as in MultiPIT.
    #[serde(default = "default_min_judgments")]
    pub min_judgments_per_pair: u32,
    /// The posterior of the leading label at which a pair is settled and no longer served.
    #[serde(default = "default_settle_confidence")]
    pub settle_confidence: f64,
    /// A test pair is served at most this many times (`None`: no cap), so that its answer
    /// is worth less to a group sharing answers; the pool grows by promotion.
    #[serde(default)]
    pub test_exposure_cap: Option<u32>,
    /// One hidden test pair in every `test_every` served pairs; 0 = none.
    pub test_every: u32,
    /// A worker is kept while their test accuracy is above this (MultiPIT: > 85%).
    pub min_test_accuracy: f64,
    /// ... and their kappa against the others' majority is above this (MultiPIT: > 0.2).
    pub min_kappa: f64,
    /// The gate applies from this many judgments on.
    pub gate_min_judgments: u32,
    /// The sequential test of MultiPIT's threshold (the default, `confidence.rs`), pooled
    /// evidence, or MultiPIT's rule on point estimates (`gate.rs`).
    pub gate_rule: GateRule,
    /// The `confidence` rule's error level: the most often a worker at the threshold is
    /// stopped, over a study of any length.
    pub gate_alpha: f64,
    /// The `confidence` rule tests the accuracy minimum against the minimum minus this: the
    /// accuracy it is tuned to detect (0.1: 75% against MultiPIT's 85%).
    #[serde(default = "default_gate_worse_by")]
    pub gate_worse_by: f64,
    /// Vote thresholds that turn a pair's votes into a label.
    pub thresholds: Thresholds,
    /// An abandoned assignment frees its slot after this long.
    pub lease_seconds: u32,
    /// The judging page ignores an answer to a pair shown for less than this many
    /// milliseconds: a quick double press would otherwise answer the next pair unread.
    pub min_display_ms: u32,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        JudgeSettings {
            definition: Definition::Loose,
            judgments_per_pair: 6,
            min_judgments_per_pair: DEFAULT_MIN_JUDGMENTS,
            settle_confidence: DEFAULT_SETTLE_CONFIDENCE,
            test_exposure_cap: None,
            test_every: 5,
            min_test_accuracy: 0.85,
            min_kappa: 0.2,
            gate_min_judgments: 20,
            gate_rule: GateRule::Confidence,
            gate_alpha: DEFAULT_GATE_ALPHA,
            gate_worse_by: DEFAULT_WORSE_BY,
            thresholds: default_thresholds(6),
            lease_seconds: 900,
            min_display_ms: 300,
        }
    }
}

impl JudgeSettings {
    /// The settings adaptive redundancy runs on (`settle.rs`).
    pub fn redundancy(&self) -> Redundancy {
        Redundancy {
            min: self.min_judgments_per_pair,
            max: self.judgments_per_pair,
            confidence: self.settle_confidence,
        }
    }

    /// How the campaign's pairs get their labels (`labels.rs`): at the maximum, the vote
    /// thresholds under fixed redundancy (the minimum is the maximum, as in MultiPIT), the
    /// settling rule's posterior under adaptive redundancy.
    pub fn label_rule(&self) -> LabelRule {
        LabelRule {
            max: self.judgments_per_pair,
            at_maximum: if self.fixed_redundancy() {
                AtMaximum::Thresholds(self.thresholds)
            } else {
                AtMaximum::Posterior {
                    confidence: self.settle_confidence,
                }
            },
        }
    }

    /// The sequential test the `confidence` rule runs (`confidence.rs`).
    pub fn sequential_test(&self) -> confidence::Test {
        confidence::Test {
            minimum: self.min_test_accuracy,
            worse_by: self.gate_worse_by,
            alpha: self.gate_alpha,
            min_kappa: self.min_kappa,
        }
    }

    /// Every pair gets exactly `judgments_per_pair` judgments (no pair settles before).
    pub fn fixed_redundancy(&self) -> bool {
        self.min_judgments_per_pair >= self.judgments_per_pair
    }

    /// Checks every field; the error names the field and says what is allowed.
    pub fn check(&self) -> Result<(), Invalid> {
        if !(1..=50).contains(&self.judgments_per_pair) {
            return Err(Invalid::new(
                "judgments_per_pair",
                "Judgments per pair must be 1 to 50.",
            ));
        }
        if !(1..=self.judgments_per_pair).contains(&self.min_judgments_per_pair) {
            return Err(Invalid::new(
                "min_judgments_per_pair",
                "The minimum judgments per pair is 1 to the maximum (judgments per pair).",
            ));
        }
        if self
            .test_exposure_cap
            .is_some_and(|c| !(1..=1_000_000).contains(&c))
        {
            return Err(Invalid::new(
                "test_exposure_cap",
                "A test pair's exposure cap is 1 to 1,000,000 servings, or none.",
            ));
        }
        if !(self.settle_confidence > 0.5 && self.settle_confidence < 1.0) {
            return Err(Invalid::new(
                "settle_confidence",
                "The confidence at which a pair settles is above 0.5 and below 1.",
            ));
        }
        if self.test_every == 1 || self.test_every > 100 {
            return Err(Invalid::new(
                "test_every",
                "One test pair in every N: N is 2 to 100, or 0 for no test pairs.",
            ));
        }
        if !(0.0..=1.0).contains(&self.min_test_accuracy) {
            return Err(Invalid::new(
                "min_test_accuracy",
                "Minimum test accuracy is 0 to 1.",
            ));
        }
        if !(-1.0..=1.0).contains(&self.min_kappa) {
            return Err(Invalid::new("min_kappa", "Minimum kappa is -1 to 1."));
        }
        if !(0.001..=0.5).contains(&self.gate_alpha) {
            return Err(Invalid::new(
                "gate_alpha",
                "The gate's error level is 0.001 to 0.5.",
            ));
        }
        if !(0.01..=0.5).contains(&self.gate_worse_by) {
            return Err(Invalid::new(
                "gate_worse_by",
                "The gate's worse level lies 0.01 to 0.5 below the minimum test accuracy.",
            ));
        }
        // The sequential test weighs the minimum against a worse accuracy above 0: at 0 one right
        // answer rules the alternative out and the test stops almost nobody (a minimum of 0, or
        // one at or below the distance, leaves no such accuracy).
        if self.gate_rule == GateRule::Confidence && self.gate_worse_by >= self.min_test_accuracy {
            return Err(Invalid::new(
                "gate_worse_by",
                "The confidence rule tests the minimum test accuracy against the minimum minus \
                 the worse level, which must be above 0: lower the worse level below the minimum, \
                 raise the minimum, or choose another rule.",
            ));
        }
        if !(1..=100_000).contains(&self.gate_min_judgments) {
            return Err(Invalid::new(
                "gate_min_judgments",
                "The gate needs 1 to 100,000 judgments before it applies.",
            ));
        }
        if !(30..=86_400).contains(&self.lease_seconds) {
            return Err(Invalid::new(
                "lease_seconds",
                "A lease lasts 30 seconds to a day.",
            ));
        }
        if self.min_display_ms > 5_000 {
            return Err(Invalid::new(
                "min_display_ms",
                "The shortest time a pair is shown before an answer counts is 0 to 5,000 ms.",
            ));
        }
        check_thresholds(self.judgments_per_pair, self.thresholds)
            .map_err(|m| Invalid::new("thresholds", m))
    }
}

/// Which rule the gate applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(sqlx::Type))]
#[cfg_attr(feature = "ssr", sqlx(type_name = "text", rename_all = "snake_case"))]
pub enum GateRule {
    /// MultiPIT as written: test accuracy > minimum and kappa > minimum.
    Paper,
    /// Pooled evidence (see `gate.rs`).
    Evidence,
    /// MultiPIT's accuracy minimum, decided by a sequential test (see `confidence.rs`).
    Confidence,
}

impl GateRule {
    /// `paper`, `evidence` or `confidence`, as stored and sent in forms.
    pub fn as_str(self) -> &'static str {
        match self {
            GateRule::Paper => "paper",
            GateRule::Evidence => "evidence",
            GateRule::Confidence => "confidence",
        }
    }

    /// `paper`, `evidence` or `confidence`, surrounding blanks ignored.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "paper" => Some(GateRule::Paper),
            "evidence" => Some(GateRule::Evidence),
            "confidence" => Some(GateRule::Confidence),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_multipits_and_valid() {
        let s = JudgeSettings::default();
        // MultiPIT's minimums, decided by the sequential test (confidence.rs says why).
        assert_eq!(s.gate_rule, GateRule::Confidence);
        assert_eq!(GateRule::parse("confidence"), Some(GateRule::Confidence));
        assert_eq!((s.judgments_per_pair, s.test_every), (6, 5));
        assert_eq!((s.min_test_accuracy, s.min_kappa), (0.85, 0.2));
        // Adaptive redundancy: 3 to 6 judgments, settled at 95%.
        assert_eq!(s.redundancy(), Redundancy::default());
        assert!(!s.fixed_redundancy());
        assert!(s.check().is_ok());
    }

    #[test]
    fn bad_settings_name_their_field() {
        let bad = |f: fn(&mut JudgeSettings)| {
            let mut s = JudgeSettings::default();
            f(&mut s);
            s.check().unwrap_err().field
        };
        assert_eq!(bad(|s| s.judgments_per_pair = 0), "judgments_per_pair");
        assert_eq!(bad(|s| s.test_every = 1), "test_every");
        assert_eq!(bad(|s| s.min_test_accuracy = 1.5), "min_test_accuracy");
        assert_eq!(bad(|s| s.min_kappa = f64::NAN), "min_kappa");
        assert_eq!(bad(|s| s.lease_seconds = 5), "lease_seconds");
        assert_eq!(bad(|s| s.gate_alpha = 0.0), "gate_alpha");
        assert_eq!(bad(|s| s.gate_alpha = f64::NAN), "gate_alpha");
        assert_eq!(bad(|s| s.gate_worse_by = 0.0), "gate_worse_by");
        assert_eq!(bad(|s| s.gate_worse_by = 0.6), "gate_worse_by");
        // Under the confidence rule the worse level lies above an accuracy of 0 ...
        assert_eq!(bad(|s| s.min_test_accuracy = 0.1), "gate_worse_by");
        assert_eq!(bad(|s| s.min_test_accuracy = 0.05), "gate_worse_by");
        assert_eq!(bad(|s| s.min_test_accuracy = 0.0), "gate_worse_by");
        let mut edge = JudgeSettings {
            min_test_accuracy: 0.25,
            ..JudgeSettings::default()
        };
        assert!(edge.check().is_ok());
        // ... which the other rules, not testing it, do not ask.
        edge.min_test_accuracy = 0.0;
        for rule in [GateRule::Paper, GateRule::Evidence] {
            edge.gate_rule = rule;
            assert!(edge.check().is_ok(), "{rule:?}");
        }
        assert_eq!(bad(|s| s.min_display_ms = 60_000), "min_display_ms");
        assert_eq!(bad(|s| s.judgments_per_pair = 3), "thresholds");
        assert_eq!(
            bad(|s| s.min_judgments_per_pair = 0),
            "min_judgments_per_pair"
        );
        assert_eq!(
            bad(|s| s.min_judgments_per_pair = 7),
            "min_judgments_per_pair"
        );
        assert_eq!(bad(|s| s.settle_confidence = 0.5), "settle_confidence");
        assert_eq!(bad(|s| s.test_exposure_cap = Some(0)), "test_exposure_cap");
        assert_eq!(bad(|s| s.settle_confidence = f64::NAN), "settle_confidence");
    }

    #[test]
    fn definitions_differ_on_the_fact_checking_example() {
        assert!(EXAMPLES.iter().all(|e| e.loose));
        assert_eq!(EXAMPLES.iter().filter(|e| !e.strict).count(), 1);
        assert_eq!(Definition::parse("strict"), Some(Definition::Strict));
        assert_eq!(Definition::parse("other"), None);
    }
}
