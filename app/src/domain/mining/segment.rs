//! Splitting documents into sentences: lines first (news text puts headlines, section titles and
//! paragraphs on lines of their own), then the Unicode sentence boundaries of UAX #29 (the
//! `unicode-segmentation` crate) within each line. A line without sentence-final punctuation
//! and under [`HEADING_MAX_WORDS`] words is a heading (WikiRef's first line is the headline),
//! not a sentence, when headings are skipped. UAX #29 ends a sentence at every full stop before
//! a capital, so a boundary right after a title or an initial ("Mr. Smith", "J. K. Rowling") is
//! undone ([`ends_with_abbreviation`]).
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

/// Titles that end in a full stop and are followed by a name, not a new sentence. ("Jr.",
/// "Sr." and "No." are left out: they end sentences as often as not.)
const ABBREVIATIONS: [&str; 19] = [
    "Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Gen", "Sen", "Rep", "Gov", "Lt", "Col", "Capt", "Sgt",
    "Rev", "Hon", "Mt", "Ft", "vs",
];

/// Whether `segment` (one UAX #29 sentence, untrimmed) ends with a title from [`ABBREVIATIONS`]
/// or an initial, then a full stop. An initial is a single capital letter other than "I" that
/// begins the segment or follows a capitalised word or another initial ("J. K. Rowling",
/// "George W. Bush"); after a lower-case word it ends a sentence ("in group A. Then ...").
fn ends_with_abbreviation(segment: &str) -> bool {
    let Some(before) = segment.trim_end().strip_suffix('.') else {
        return false;
    };
    let mut tokens = before.rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"');
    let last = tokens.next().unwrap_or("");
    if ABBREVIATIONS.contains(&last) {
        return true;
    }
    let is_initial =
        last.chars().count() == 1 && last.chars().all(char::is_uppercase) && last != "I";
    if !is_initial {
        return false;
    }
    match tokens.find(|t| !t.is_empty()) {
        None => true,
        Some(previous) => previous.chars().next().is_some_and(char::is_uppercase),
    }
}

/// The sentences of `text`, trimmed, in order. Sentences without a word and sentences over
/// [`MAX_SENTENCE_CHARS`] are left out.
pub fn sentences(text: &str, skip_headings: bool) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if skip_headings && is_heading(line) {
            continue;
        }
        let mut pending = String::new();
        let push = |s: &str, out: &mut Vec<String>| {
            let s = s.trim();
            if !words(s).is_empty() && s.chars().count() <= MAX_SENTENCE_CHARS {
                out.push(s.to_owned());
            }
        };
        for s in line.unicode_sentences() {
            pending.push_str(s);
            if !ends_with_abbreviation(s) {
                push(&pending, &mut out);
                pending.clear();
            }
        }
        push(&pending, &mut out);
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
    fn titles_and_initials_do_not_end_a_sentence() {
        let text = "Mr. Smith met Mrs. Jones and Dr. Lee in St. Louis. J. K. Rowling was not there. It rained.";
        assert_eq!(
            sentences(text, false),
            [
                "Mr. Smith met Mrs. Jones and Dr. Lee in St. Louis.",
                "J. K. Rowling was not there.",
                "It rained."
            ]
        );
        // A line that ends on a title keeps it.
        assert_eq!(sentences("He spoke to Mr.", false), ["He spoke to Mr."]);
        // Ordinary words before a full stop still end a sentence.
        assert_eq!(
            sentences("The vote was 5 to 4. Mr. Reed left.", false),
            ["The vote was 5 to 4.", "Mr. Reed left."]
        );
        // A capital letter after a lower-case word, the pronoun, "No." and "Jr." end one too.
        for (text, first) in [
            (
                "They were in group A. Then we left.",
                "They were in group A.",
            ),
            ("So did I. We left.", "So did I."),
            (
                "It lasted until World War I. It ended.",
                "It lasted until World War I.",
            ),
            ("The answer was No. Then it rained.", "The answer was No."),
            (
                "He met Martin Luther King Jr. He said so.",
                "He met Martin Luther King Jr.",
            ),
        ] {
            assert_eq!(sentences(text, false)[0], first, "{text}");
        }
        assert_eq!(
            sentences("George W. Bush spoke. It rained.", false),
            ["George W. Bush spoke.", "It rained."]
        );
    }

    #[test]
    fn a_long_line_without_a_full_stop_is_a_sentence_not_a_heading() {
        let tweet = "How an unverified but explosive dossier became a crisis for Donald Trump";
        assert_eq!(sentences(tweet, true), [tweet]);
        assert!(sentences("... !!!", true).is_empty());
    }
}
