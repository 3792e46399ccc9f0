//! Whether a worker's rewrite may be scored: the rule a Check applies before the models run,
//! also used by the writing page to say why a plain form's Check was refused.
use crate::domain::reward::attempt_contains_source;
use crate::domain::text::{check, TextProblem};

/// The longest rewrite, in characters.
pub const MAX_ATTEMPT_CHARS: usize = 1000;

/// The rewrite, trimmed, if it may be scored: not empty, not too long, not the source itself
/// and not containing it; otherwise what to tell the worker.
pub fn checkable(source: &str, text: &str) -> Result<String, String> {
    let text = text.trim();
    match check(text) {
        Ok(()) => {}
        Err(TextProblem::Empty) => return Err("Write a sentence first.".to_owned()),
        Err(problem) => return Err(format!("Your sentence {problem}.")),
    }
    if text.chars().count() > MAX_ATTEMPT_CHARS {
        return Err(format!(
            "Your sentence is longer than {MAX_ATTEMPT_CHARS} characters; shorten it."
        ));
    }
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    if norm(text) == norm(source) {
        return Err("That is the given sentence itself; write it differently.".to_owned());
    }
    if attempt_contains_source(source, text) {
        return Err(
            "Your sentence contains the given sentence; such rewrites earn nothing. Rephrase it."
                .to_owned(),
        );
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "The company said its profits rose sharply last year.";

    #[test]
    fn a_rewrite_is_trimmed_and_anything_unscorable_is_refused_with_its_reason() {
        assert_eq!(
            checkable(SOURCE, "  Profits climbed steeply, the firm said.  ").as_deref(),
            Ok("Profits climbed steeply, the firm said.")
        );
        assert_eq!(
            checkable(SOURCE, "   ").unwrap_err(),
            "Write a sentence first."
        );
        assert!(checkable(SOURCE, &"a".repeat(MAX_ATTEMPT_CHARS + 1))
            .unwrap_err()
            .contains("longer than 1000"));
        assert!(checkable(
            SOURCE,
            "the company  said its profits rose sharply LAST year."
        )
        .unwrap_err()
        .contains("given sentence itself"));
        assert!(checkable(SOURCE, &format!("Indeed, {SOURCE}"))
            .unwrap_err()
            .contains("contains the given sentence"));
    }
}
