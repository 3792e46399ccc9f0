//! Words as the miners compare them: lower-cased runs of letters and digits (an apostrophe or
//! hyphen inside a word stays: "don't", "bail-out"); punctuation and spaces separate words and
//! are otherwise ignored, so two sentences "differing only by punctuation" have equal words.
use std::collections::HashMap;

/// The lower-cased words of `text`.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else if (c == '\'' || c == '’' || c == '-')
            && !current.is_empty()
            && chars.peek().is_some_and(|n| n.is_alphanumeric())
        {
            current.push(if c == '’' { '\'' } else { c });
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Words numbered in order of first appearance, so sequences compare as integers.
#[derive(Debug, Default)]
pub struct Vocabulary {
    ids: HashMap<String, u32>,
}

impl Vocabulary {
    /// The id of `word`, numbering it if new.
    pub fn id(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(word.to_owned(), id);
        id
    }

    /// The word ids of `text`'s words.
    pub fn encode(&mut self, text: &str) -> Vec<u32> {
        words(text).iter().map(|w| self.id(w)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_and_case_are_ignored_inner_apostrophes_and_hyphens_kept() {
        assert_eq!(
            words("The bail-out, Don't STOP!"),
            ["the", "bail-out", "don't", "stop"]
        );
        assert_eq!(words("“Yes” — he said..."), ["yes", "he", "said"]);
        assert_eq!(words("rock 'n' roll"), ["rock", "n", "roll"]);
        assert_eq!(words("  "), Vec::<String>::new());
        assert_eq!(words("It’s 3.5%"), ["it's", "3", "5"]);
    }

    #[test]
    fn the_vocabulary_numbers_words_by_first_appearance() {
        let mut v = Vocabulary::default();
        assert_eq!(v.encode("a b a"), [0, 1, 0]);
        assert_eq!(v.encode("B c"), [1, 2]);
    }
}
