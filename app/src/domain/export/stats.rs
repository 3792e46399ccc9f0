//! A dataset's statistics as the papers report them, per split: MultiPIT Table 1 (pairs per
//! part, sentence length in words per unique sentence, % paraphrase, groups, unique sentences,
//! % multi-reference) and ParaSCI Table 2 (gold-standard paraphrase pairs, length in words and
//! characters, Self-BLEU).
//!
//! Definitions, as the papers give them:
//! - lengths are means over unique sentences (MultiPIT: "the number of tokens per unique
//!   sentence"); words are counted as the miners count them (`mining::words`);
//! - % paraphrase is over labelled pairs; paraphrase pairs are ParaSCI's "gold size";
//! - Self-BLEU is corpus BLEU-4 of sentence2 against sentence1 over the paraphrase pairs
//!   (ParaSCI: "between the source and target sentences of each paraphrase pair");
//! - % multi-reference is the share of source sentences (distinct sentence1) with more than one
//!   paraphrase (MultiPIT: "the percentage of source sentences with more than one paraphrase");
//! - gold pairs are the hidden test pairs with an expert label.
use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::domain::mining::stats::corpus_bleu;
use crate::domain::mining::words::words;

/// Why a pair has no label in a labelled export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unlabelled {
    /// Still waiting for judgments: not settled and a slot not yet taken (or, by Dawid-Skene,
    /// no trusted judgment).
    ShortOfJudgments,
    /// All the judgments it will get, and no label from them (`labels::pair_label`: votes
    /// between the thresholds, or a posterior short of the target; by Dawid-Skene: both labels
    /// equally likely).
    Unresolved,
}

/// How many pairs a labelled export has no label for, by why: the export page says so, since
/// by default those rows are left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnlabelledCounts {
    /// Pairs still waiting for judgments (no trusted judgment, by Dawid-Skene).
    pub short_of_judgments: u64,
    /// Pairs with all the judgments they will get and no label from them (by Dawid-Skene: both
    /// labels equally likely).
    pub unresolved: u64,
}

impl UnlabelledCounts {
    /// Counts the reasons of `labels`' `Err`s.
    pub fn count<T>(labels: impl IntoIterator<Item = Result<T, Unlabelled>>) -> Self {
        let mut c = Self::default();
        for l in labels {
            match l {
                Ok(_) => {}
                Err(Unlabelled::ShortOfJudgments) => c.short_of_judgments += 1,
                Err(Unlabelled::Unresolved) => c.unresolved += 1,
            }
        }
        c
    }

    /// Every pair without a label.
    pub fn total(&self) -> u64 {
        self.short_of_judgments + self.unresolved
    }
}

/// One exported pair as the statistics need it.
#[derive(Debug, Clone, Copy)]
pub struct StatRow<'a> {
    /// The first (source) sentence.
    pub sentence1: &'a str,
    /// The second sentence.
    pub sentence2: &'a str,
    /// 1 paraphrase, 0 not, `None` unresolved.
    pub label: Option<u8>,
    /// A hidden test pair with an expert label.
    pub gold: bool,
    /// The pair's group (trend, URL, topic), if any.
    pub group: Option<&'a str>,
}

/// A dataset's statistics as MultiPIT Table 1 and ParaSCI Table 2 report them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DatasetStats {
    /// Pairs in the dataset.
    pub pairs: u64,
    /// Gold pairs: hidden test pairs with an expert label.
    pub gold_pairs: u64,
    /// Pairs with a label.
    pub labelled_pairs: u64,
    /// Pairs labelled paraphrase (ParaSCI's "gold size").
    pub paraphrase_pairs: u64,
    /// Paraphrase pairs as a percentage of labelled pairs; `None` when none are labelled.
    pub paraphrase_percent: Option<f64>,
    /// Distinct groups.
    pub groups: u64,
    /// Distinct sentences, from either side of a pair.
    pub unique_sentences: u64,
    /// Mean length of the unique sentences, in words; `None` when there are none.
    pub mean_words: Option<f64>,
    /// Mean length of the unique sentences, in characters; `None` when there are none.
    pub mean_chars: Option<f64>,
    /// Self-BLEU: corpus BLEU-4 (0-100) between the two sentences of the paraphrase pairs.
    pub self_bleu: Option<f64>,
    /// Percentage of source sentences with more than one paraphrase.
    pub multi_reference_percent: Option<f64>,
}

fn percent(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| 100.0 * part as f64 / whole as f64)
}

/// The statistics of `rows`.
pub fn dataset_stats(rows: &[StatRow<'_>]) -> DatasetStats {
    let mut unique: HashSet<&str> = HashSet::new();
    let mut groups: HashSet<&str> = HashSet::new();
    let mut paraphrases_of: HashMap<&str, u64> = HashMap::new();
    let mut paraphrase_pairs = Vec::new();
    let (mut gold, mut labelled, mut positive) = (0, 0, 0);
    for r in rows {
        unique.insert(r.sentence1);
        unique.insert(r.sentence2);
        if let Some(g) = r.group {
            groups.insert(g);
        }
        let sources = paraphrases_of.entry(r.sentence1).or_insert(0);
        gold += u64::from(r.gold);
        if let Some(l) = r.label {
            labelled += 1;
            if l == 1 {
                positive += 1;
                *sources += 1;
                paraphrase_pairs.push((words(r.sentence1), words(r.sentence2)));
            }
        }
    }
    let n_unique = unique.len() as u64;
    let (word_sum, char_sum) = unique.iter().fold((0u64, 0u64), |(w, c), s| {
        (w + words(s).len() as u64, c + s.chars().count() as u64)
    });
    let mean = |sum: u64| (n_unique > 0).then(|| sum as f64 / n_unique as f64);
    let multi = paraphrases_of.values().filter(|&&n| n > 1).count() as u64;
    DatasetStats {
        pairs: rows.len() as u64,
        gold_pairs: gold,
        labelled_pairs: labelled,
        paraphrase_pairs: positive,
        paraphrase_percent: percent(positive, labelled),
        groups: groups.len() as u64,
        unique_sentences: n_unique,
        mean_words: mean(word_sum),
        mean_chars: mean(char_sum),
        self_bleu: corpus_bleu(&paraphrase_pairs),
        multi_reference_percent: percent(multi, paraphrases_of.len() as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(s1: &'a str, s2: &'a str, label: Option<u8>, group: &'a str) -> StatRow<'a> {
        StatRow {
            sentence1: s1,
            sentence2: s2,
            label,
            gold: false,
            group: Some(group),
        }
    }

    #[test]
    fn a_small_dataset_counted_by_hand() {
        let mut rows = vec![
            row("the cat sat", "a cat sat down", Some(1), "g1"),
            row("the cat sat", "the cat is sitting", Some(1), "g1"),
            row("the cat sat", "dogs bark", Some(0), "g1"),
            row("stocks fell today", "shares dropped today", Some(1), "g2"),
            row("stocks fell today", "it rained", None, "g2"),
        ];
        rows[2].gold = true;
        let s = dataset_stats(&rows);
        assert_eq!(
            (s.pairs, s.gold_pairs, s.labelled_pairs, s.paraphrase_pairs),
            (5, 1, 4, 3)
        );
        assert_eq!(s.paraphrase_percent, Some(75.0));
        assert_eq!(s.groups, 2);
        // Unique: the cat sat / a cat sat down / the cat is sitting / dogs bark /
        // stocks fell today / shares dropped today / it rained.
        assert_eq!(s.unique_sentences, 7);
        let words = 3 + 4 + 4 + 2 + 3 + 3 + 2;
        assert!((s.mean_words.unwrap() - words as f64 / 7.0).abs() < 1e-12);
        let chars = 11 + 14 + 18 + 9 + 17 + 20 + 9;
        assert!((s.mean_chars.unwrap() - chars as f64 / 7.0).abs() < 1e-12);
        // "the cat sat" has two paraphrases, "stocks fell today" one: 1 of 2 sources.
        assert_eq!(s.multi_reference_percent, Some(50.0));
        let bleu = corpus_bleu(&[
            (words_of("the cat sat"), words_of("a cat sat down")),
            (words_of("the cat sat"), words_of("the cat is sitting")),
            (
                words_of("stocks fell today"),
                words_of("shares dropped today"),
            ),
        ]);
        assert_eq!(s.self_bleu, bleu, "over the paraphrase pairs only");
    }

    fn words_of(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn identical_paraphrases_have_self_bleu_100_and_an_empty_set_has_no_means() {
        let rows = [
            row(
                "one two three four five",
                "one two three four five",
                Some(1),
                "g",
            ),
            row(
                "six seven eight nine ten",
                "six seven eight nine ten",
                Some(1),
                "g",
            ),
        ];
        let s = dataset_stats(&rows);
        assert!((s.self_bleu.unwrap() - 100.0).abs() < 1e-9);
        assert_eq!(s.multi_reference_percent, Some(0.0));
        let empty = dataset_stats(&[]);
        assert_eq!(empty.pairs, 0);
        assert_eq!(
            (empty.mean_words, empty.paraphrase_percent, empty.self_bleu),
            (None, None, None)
        );
    }
}
