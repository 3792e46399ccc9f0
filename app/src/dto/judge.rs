//! What the MultiPIT judging task sends the page.
use serde::{Deserialize, Serialize};

/// What the judging page shows next. The same shape for test and ordinary pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum JudgeTask {
    Judge {
        assignment_id: String,
        sentence1: String,
        sentence2: String,
        /// The worker's judgments in this campaign so far.
        judged: i64,
        guide: JudgeGuide,
    },
    /// Nothing to judge for this worker now (every pair has its judgments, or they saw it).
    NothingLeft { judged: i64 },
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
}
