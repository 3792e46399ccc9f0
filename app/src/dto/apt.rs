//! What the APT writing task sends the page.
use crate::domain::{AttemptId, SourceId};
use serde::{Deserialize, Serialize};

/// Longest rewrite accepted, in characters.
pub const MAX_ATTEMPT_CHARS: usize = 1000;

/// What the page shows next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AptTask {
    Write {
        source_id: SourceId,
        source: String,
        total_cents: i64,
        cap_cents: i64,
        instructions: String,
        /// Above this BLEURT a rewrite earns nothing (for the page's reward table).
        bleurt_threshold: f64,
    },
    /// No sentence left that this worker has not seen.
    Exhausted { total_cents: i64 },
    /// The cap is reached: the study is over for this worker.
    Complete {
        total_cents: i64,
        completion_code: String,
    },
}

/// How a Check came out, in the study's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// MI and BLEURT at or under the threshold: pays.
    Passes,
    /// Not mutually implicative: "not logically equivalent".
    NotEquivalent,
    /// MI but BLEURT above the threshold: "too similar".
    TooSimilar,
}

/// The answer to a Check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckOutcome {
    pub attempt_id: AttemptId,
    pub verdict: Verdict,
    pub is_mutual_implication: bool,
    pub bleurt: f32,
    pub reward_cents: i64,
    pub mi_model: String,
    pub bleurt_model: String,
    /// Which scorer this was, in words ("the APT paper's models", "lite stand-in, ...").
    pub scorer: String,
}

/// The answer to a Submit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubmitOutcome {
    pub paid_cents: i64,
    pub total_cents: i64,
    pub is_complete: bool,
    /// A repeated Submit (double click, second tab, retry): nothing new was paid.
    pub was_already_submitted: bool,
}
