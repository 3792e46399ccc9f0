//! What the APT writing task sends the page.
use crate::domain::{AttemptId, SourceId};
use serde::{Deserialize, Serialize};

pub use crate::domain::apt::attempt::MAX_ATTEMPT_CHARS;
use crate::error::AppError;

/// Why a plain form's Check (the writing page before or without its script) was refused, as the
/// server names it in the address it sends the browser back to (`?refused=`, with the text
/// kept in `?draft=`). A closed set: an address cannot make the page say anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainRefusal {
    /// The text may not be scored (`domain::apt::attempt::checkable` says why).
    Invalid,
    /// The models or the server were busy.
    Busy,
    /// The database did not answer.
    Unavailable,
    /// The sentence was no longer the worker's (skipped or submitted in another tab).
    Stale,
    /// Anything else.
    Failed,
}

impl PlainRefusal {
    /// The refusal for a Check's error.
    pub fn of(error: &AppError) -> Self {
        match error {
            AppError::Validation { .. } => PlainRefusal::Invalid,
            AppError::Overloaded | AppError::RateLimited { .. } => PlainRefusal::Busy,
            AppError::DatabaseUnavailable => PlainRefusal::Unavailable,
            AppError::Conflict(_) => PlainRefusal::Stale,
            _ => PlainRefusal::Failed,
        }
    }

    /// Its name in the address.
    pub fn code(self) -> &'static str {
        match self {
            PlainRefusal::Invalid => "invalid",
            PlainRefusal::Busy => "busy",
            PlainRefusal::Unavailable => "unavailable",
            PlainRefusal::Stale => "stale",
            PlainRefusal::Failed => "failed",
        }
    }

    /// The refusal an address names, if it names one.
    pub fn parse(code: &str) -> Option<Self> {
        [
            PlainRefusal::Invalid,
            PlainRefusal::Busy,
            PlainRefusal::Unavailable,
            PlainRefusal::Stale,
            PlainRefusal::Failed,
        ]
        .into_iter()
        .find(|r| r.code() == code)
    }

    /// What the page says about `draft`, a rewrite of `source`.
    pub fn error(self, source: &str, draft: &str) -> AppError {
        match self {
            PlainRefusal::Invalid => AppError::validation(
                "text",
                crate::domain::apt::attempt::checkable(source, draft)
                    .err()
                    .unwrap_or_else(|| "This text was not checked; try again.".to_owned()),
            ),
            PlainRefusal::Busy => AppError::Overloaded,
            PlainRefusal::Unavailable => AppError::DatabaseUnavailable,
            PlainRefusal::Stale => AppError::Conflict(
                "That sentence was no longer yours to rewrite (skipped or submitted in another tab?), so nothing was checked. This is your current one."
                    .to_owned(),
            ),
            PlainRefusal::Failed => AppError::Internal,
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_refusal_goes_through_the_address_and_says_the_rules_reason() {
        for error in [
            AppError::validation("text", "x"),
            AppError::Overloaded,
            AppError::RateLimited {
                retry_after_secs: 3,
            },
            AppError::DatabaseUnavailable,
            AppError::Conflict("no longer yours".into()),
            AppError::Internal,
            AppError::NotFound,
        ] {
            let refusal = PlainRefusal::of(&error);
            assert_eq!(
                PlainRefusal::parse(refusal.code()),
                Some(refusal),
                "{error:?}"
            );
        }
        assert_eq!(PlainRefusal::parse("Call this number"), None);
        assert!(PlainRefusal::of(&AppError::Conflict("x".into()))
            .error("a", "b")
            .to_string()
            .contains("no longer yours to rewrite"));
        let source = "The company said its profits rose sharply last year.";
        assert_eq!(
            PlainRefusal::Invalid.error(source, source).to_string(),
            "That is the given sentence itself; write it differently."
        );
        assert_eq!(
            PlainRefusal::Busy
                .error(source, "Profits rose.")
                .to_string(),
            AppError::Overloaded.to_string()
        );
    }
}
