//! Splitting documents into sentences: lines first (news text puts headlines, section titles and
//! paragraphs on lines of their own), then the Unicode sentence boundaries of UAX #29 (the
//! `unicode-segmentation` crate) within each line. A line without sentence-final punctuation
//! and under [`HEADING_MAX_WORDS`] words is a heading (WikiRef's first line is the headline),
//! not a sentence, when headings are skipped.
use unicode_segmentation::UnicodeSegmentation;

use super::words::words;

/// Lines shorter than this with no final punctuation are headings.
pub const HEADING_MAX_WORDS: usize = 10;

/// Longest sentence kept, in characters (the pair tables allow 2,000).
pub const MAX_SENTENCE_CHARS: usize = 2000;

fn is_heading(line: &str) -> bool {
    let ends_like_a_sentence = line
        .trim_end_matches(['"', '\'', '”', '’', ')', ']'])
        .ends_with(['.', '!', '?', '…', ':', ';']);
    !ends_like_a_sentence && words(line).len() < HEADING_MAX_WORDS
}

/// The sentences of `text`, trimmed, in order. Sentences without a word and sentences over
/// [`MAX_SENTENCE_CHARS`] are left out.
pub fn sentences(text: &str, skip_headings: bool) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if skip_headings && is_heading(line) {
            continue;
        }
        for s in line.unicode_sentences() {
            let s = s.trim();
            if !words(s).is_empty() && s.chars().count() <= MAX_SENTENCE_CHARS {
                out.push(s.to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_then_sentences_and_headings_left_out() {
        let text = "Evolution of the Draft\n\nIn 1956, the Celtics used a pick. He went on to average 18.6 points!\nDid it work? Yes.\n";
        assert_eq!(
            sentences(text, true),
            [
                "In 1956, the Celtics used a pick.",
                "He went on to average 18.6 points!",
                "Did it work?",
                "Yes."
            ]
        );
        assert_eq!(sentences(text, false)[0], "Evolution of the Draft");
    }

    #[test]
    fn a_long_line_without_a_full_stop_is_a_sentence_not_a_heading() {
        let tweet = "How an unverified but explosive dossier became a crisis for Donald Trump";
        assert_eq!(sentences(tweet, true), [tweet]);
        assert!(sentences("... !!!", true).is_empty());
    }
}
