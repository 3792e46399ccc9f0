//! What the MultiPIT judging task sends the page.
use crate::domain::AssignmentId;
use serde::{Deserialize, Serialize};

use crate::domain::judge::confidence::Ground;
use crate::domain::judge::gate::StopReason;

/// What the judging page shows next. The same shape for test and ordinary pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum JudgeTask {
    Judge {
        assignment_id: AssignmentId,
        sentence1: String,
        sentence2: String,
        /// The worker's judgments in this campaign so far.
        judged: i64,
        guide: JudgeGuide,
    },
    /// Nothing to judge for this worker (every pair has its judgments, or they saw it).
    NothingLeft { judged: i64 },
    /// Nothing to judge for this worker this moment: the pairs left for them are held by other
    /// workers' leases, and come back if those run out unanswered.
    Waiting { judged: i64 },
    /// The gate stopped this worker; the message says why.
    Stopped { judged: i64, message: String },
}

/// The definition and instructions the page keeps one click away.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeGuide {
    pub title: String,
    /// `loose` or `strict`.
    pub definition: String,
    pub definition_text: String,
    pub instructions: String,
    /// The page ignores answers to a pair shown for less than this (a double press).
    pub min_display_ms: u32,
    /// The quality gate in plain words, shown before the first pair.
    pub quality_rule: String,
    /// Hidden check questions are mixed in among the pairs.
    #[serde(default)]
    pub has_checks: bool,
}

/// The correct answer to a missed test pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Feedback {
    pub is_paraphrase: bool,
    pub explanation: String,
}

/// The answer to an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerOutcome {
    pub judged: i64,
    /// Present only when a test pair was answered wrongly.
    pub feedback: Option<Feedback>,
    /// Present when this answer made the gate stop the worker.
    pub stopped: Option<String>,
    /// A repeated answer (double press, second tab, retry): nothing new was stored.
    pub was_already_answered: bool,
    /// Set while the worker is heading for the gate's bar (not yet stopped).
    #[serde(default)]
    pub warning: Option<String>,
    /// What to show next, leased in the same transaction, so a judgment is one round trip
    /// (`None` for a repeated answer: the page asks `judge/next`).
    #[serde(default)]
    pub next: Option<JudgeTask>,
}

/// The gate's reason in the words the worker reads (and the admin sees in the history).
pub fn stop_message(reason: &StopReason) -> String {
    match *reason {
        StopReason::TestAccuracy { accuracy, minimum } => format!(
            "Your accuracy on the check questions is {:.0}%; this study needs more than {:.0}%.",
            accuracy * 100.0,
            minimum * 100.0
        ),
        StopReason::Kappa { kappa, minimum } => format!(
            "Your answers agree too little with other workers' (kappa {kappa:.2}; this study needs more than {minimum:.2})."
        ),
        StopReason::Agreement { share, maximum } => format!(
            "Your answers matched the check answers and other workers' majority {:.0}% of the time; this study needs more than {:.0}%.",
            share * 100.0,
            maximum * 100.0
        ),
        StopReason::Chance { kappa } => format!(
            "Your answers agree with other workers' no more than chance would (kappa {kappa:.2})."
        ),
        StopReason::Confident {
            ground,
            estimate,
            upper,
            minimum,
            alpha,
        } => match ground {
            Ground::Overall => format!(
                "Your answers (check questions and agreement with other workers' majority) show an accuracy of about {:.0}%, at most {:.0}% with {:.0}% confidence; this study needs more than {:.0}%.",
                estimate * 100.0,
                upper * 100.0,
                (1.0 - alpha) * 100.0,
                minimum * 100.0
            ),
            Ground::ParaphrasePairs | Ground::NotPairs => format!(
                "On pairs other workers call {}, your answers agree with theirs no more often than chance would; this study stops workers whose answers on either kind of pair are no better than chance.",
                if ground == Ground::ParaphrasePairs { "paraphrases" } else { "not paraphrases" }
            ),
            // The kappa check's stop carries its own numbers (`ConfidentKappa`).
            Ground::Kappa => "Your answers agree too little with other workers' majority.".to_owned(),
        },
        StopReason::ConfidentKappa { look, minimum } => format!(
            "Your answers agree too little with other workers' majority: kappa {:.2}, at most {:.2} with {:.1}% confidence; this study needs more than {minimum:.2}.",
            look.kappa,
            look.upper,
            look.confidence_percent()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_messages_give_the_numbers_and_the_bar() {
        let m = stop_message(&StopReason::TestAccuracy {
            accuracy: 0.85,
            minimum: 0.85,
        });
        assert!(m.contains("85%") && m.contains("more than 85%"), "{m}");
        let m = stop_message(&StopReason::Kappa {
            kappa: 0.2,
            minimum: 0.2,
        });
        assert!(m.contains("kappa 0.20"), "{m}");
        let m = stop_message(&StopReason::Agreement {
            share: 0.64,
            maximum: 0.66,
        });
        assert!(m.contains("majority 64%") && m.contains("66%"), "{m}");
        let m = stop_message(&StopReason::Confident {
            ground: Ground::Overall,
            estimate: 0.62,
            upper: 0.8,
            minimum: 0.85,
            alpha: 0.1,
        });
        assert!(
            m.contains(
                "about 62%, at most 80% with 90% confidence; this study needs more than 85%"
            ),
            "{m}"
        );
        let m = stop_message(&StopReason::Confident {
            ground: Ground::NotPairs,
            estimate: 0.7,
            upper: 0.9,
            minimum: 0.85,
            alpha: 0.1,
        });
        assert!(m.contains("call not paraphrases"), "{m}");
        let m = stop_message(&StopReason::ConfidentKappa {
            look: crate::domain::judge::confidence::KappaLook {
                judgments: 200,
                items: 160,
                kappa: 0.05,
                upper: 0.18,
                confidence: 0.99625,
            },
            minimum: 0.2,
        });
        assert!(
            m.contains(
                "kappa 0.05, at most 0.18 with 99.6% confidence; this study needs more than 0.20"
            ),
            "{m}"
        );
        let m = stop_message(&StopReason::Chance { kappa: 0.0 });
        assert!(m.contains("chance") && m.contains("kappa 0.00"), "{m}");
    }
}
