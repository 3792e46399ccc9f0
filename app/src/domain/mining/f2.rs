//! MSRP's F2 miner (Dolan, Quirk & Brockett 2004, §3.1.1; `002_*.txt`): "extracting the first
//! two sentences of each article, then pairing these across documents within each cluster";
//! "a pair is discarded if the sentences do not share at least 3 words of 4+ characters"; "an
//! additional filter ensured that the word count of the shorter sentence is at least one-half
//! that of the longer sentence."
//!
//! Rules, as implemented (each has a test below):
//! - The first `first_sentences` (2) sentences of each document (position < 2; headlines are
//!   not sentences, see [`super::segment`]), paired only with those of *other* documents of
//!   the same cluster.
//! - Shared words: distinct lower-cased words of at least `long_word_chars` (4) characters in
//!   both; at least `min_shared_long_words` (3) are needed.
//! - Shorter at least `min_word_ratio` (1/2) of the longer in words (exactly half is kept).
//! - As in L12: identical or punctuation-only pairs rejected; each pair of texts once.
use crate::domain::invalid::Invalid;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::edit_distance::levenshtein;
use super::l12::{first_of_each_text_pair, length_ok, prepare};
use super::progress::{Cancelled, Progress};
use super::words::words;
use super::{Candidate, Cluster};

/// Parameters of the F2 miner (MSRP's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct F2Params {
    /// How many leading sentences of each document are paired (MSRP: 2).
    pub first_sentences: u32,
    /// Fewest shared long words a pair needs (MSRP: 3).
    pub min_shared_long_words: u32,
    /// Fewest characters that make a word long (MSRP: 4).
    pub long_word_chars: u32,
    /// Shorter / longer in words at least this (MSRP: one half).
    pub min_word_ratio: f64,
}

impl Default for F2Params {
    fn default() -> Self {
        F2Params {
            first_sentences: 2,
            min_shared_long_words: 3,
            long_word_chars: 4,
            min_word_ratio: 0.5,
        }
    }
}

impl F2Params {
    /// Checks the parameters' ranges; the error names the field.
    pub fn check(&self) -> Result<(), Invalid> {
        if !(1..=20).contains(&self.first_sentences) {
            return Err(Invalid::new(
                "first_sentences",
                "Take the first 1 to 20 sentences.",
            ));
        }
        if self.min_shared_long_words > 50 {
            return Err(Invalid::new(
                "min_shared_long_words",
                "At most 50 shared words.",
            ));
        }
        if !(1..=30).contains(&self.long_word_chars) {
            return Err(Invalid::new(
                "long_word_chars",
                "A long word has 1 to 30 characters.",
            ));
        }
        if !(0.0..=1.0).contains(&self.min_word_ratio) {
            return Err(Invalid::new("min_word_ratio", "The word ratio is 0 to 1."));
        }
        Ok(())
    }
}

/// Distinct words of `text` with at least `min_chars` characters.
pub fn long_words(text: &str, min_chars: u32) -> BTreeSet<String> {
    words(text)
        .into_iter()
        .filter(|w| w.chars().count() >= min_chars as usize)
        .collect()
}

/// Mines `clusters`; candidates come in corpus order.
pub fn mine(
    clusters: &[Cluster],
    params: &F2Params,
    progress: &Progress,
) -> Result<Vec<Candidate>, Cancelled> {
    // Only the leading sentences take part: keep just those (in order) before tokenizing.
    let clusters: Vec<Cluster> = clusters
        .iter()
        .map(|c| Cluster {
            sentences: c
                .sentences
                .iter()
                .filter(|s| s.position < params.first_sentences)
                .cloned()
                .collect(),
        })
        .collect();
    let clusters = &clusters[..];
    let prepared = prepare(clusters, false);
    // The leading sentences of each cluster, with their document.
    let leads: Vec<Vec<(&super::l12::Prepared, i64, BTreeSet<String>)>> = prepared
        .iter()
        .zip(clusters)
        .map(|(p, c)| {
            p.iter()
                .filter(|s| c.sentences[s.index].position < params.first_sentences)
                .map(|s| {
                    let sentence = &c.sentences[s.index];
                    (
                        s,
                        sentence.document,
                        long_words(&sentence.text, params.long_word_chars),
                    )
                })
                .collect()
        })
        .collect();
    let cross = |l: &Vec<(&super::l12::Prepared, i64, BTreeSet<String>)>| -> u64 {
        let mut per_doc: BTreeMap<i64, u64> = BTreeMap::new();
        for (_, d, _) in l {
            *per_doc.entry(*d).or_default() += 1;
        }
        let n: u64 = per_doc.values().sum();
        (n * n - per_doc.values().map(|k| k * k).sum::<u64>()) / 2
    };
    progress.set_total(leads.iter().map(cross).sum());
    let mut found = Vec::new();
    for lead in &leads {
        progress.check()?;
        for i in 0..lead.len() {
            let (x, dx, wx) = &lead[i];
            let mut examined = 0;
            for (y, dy, wy) in &lead[i + 1..] {
                if dx == dy {
                    continue;
                }
                examined += 1;
                let (lx, ly) = (x.words.len(), y.words.len());
                if x.words == y.words || !length_ok(lx, ly, params.min_word_ratio) {
                    continue;
                }
                let shared = wx.intersection(wy).count() as u32;
                if shared < params.min_shared_long_words {
                    continue;
                }
                progress.found()?;
                let (first, second) = if x.index < y.index { (x, y) } else { (y, x) };
                found.push((
                    first.text,
                    second.text,
                    Candidate {
                        a: first.id,
                        b: second.id,
                        edit_distance: levenshtein(&x.words, &y.words),
                        shared_long_words: shared,
                        length_ratio: lx.min(ly) as f64 / lx.max(ly) as f64,
                        score: 0.0,
                        batch: 0,
                    },
                ));
            }
            progress.add(examined);
        }
    }
    Ok(first_of_each_text_pair(found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::mining::Sentence;

    /// A cluster from documents given as their sentences.
    fn cluster(docs: &[&[&str]]) -> Cluster {
        let mut sentences = Vec::new();
        for (d, texts) in docs.iter().enumerate() {
            for (p, t) in texts.iter().enumerate() {
                sentences.push(Sentence {
                    id: (d * 10 + p) as i64,
                    document: d as i64,
                    position: p as u32,
                    text: (*t).to_owned(),
                });
            }
        }
        Cluster { sentences }
    }

    fn run(c: Cluster) -> Vec<(i64, i64)> {
        mine(&[c], &F2Params::default(), &Progress::default())
            .unwrap()
            .iter()
            .map(|c| (c.a, c.b))
            .collect()
    }

    const A: &str =
        "Researchers created an artificial virus from synthetic genes within fourteen days.";
    const B: &str = "An artificial virus was made from synthetic genes in record time.";

    #[test]
    fn first_sentences_are_paired_across_documents_only() {
        // Doc 0: A first; doc 1: B second; doc 0's own second sentence shares words with A
        // but is in the same document; third sentences are never used.
        let c = cluster(&[
            &[A, "Researchers created it within fourteen days."],
            &["Unrelated opening words here.", B, A],
        ]);
        assert_eq!(run(c), [(0, 11)]);
    }

    #[test]
    fn three_shared_long_words_are_needed() {
        // "artificial", "virus", "synthetic": 3 shared words of 4+ characters (virus has 5).
        let c = cluster(&[
            &["An artificial virus from synthetic parts."],
            &["The artificial virus had synthetic bits."],
        ]);
        assert_eq!(run(c), [(0, 10)]);
        // Only two ("artificial", "synthetic"); short shared words ("the", "had") do not count.
        let c = cluster(&[
            &["An artificial germ from synthetic parts."],
            &["The artificial virus had synthetic bits."],
        ]);
        assert!(run(c).is_empty());
    }

    #[test]
    fn the_shorter_needs_half_the_words_of_the_longer() {
        // 8 and 4 words: exactly half, kept; 9 and 4: rejected.
        let long8 = "alpha bravo charlie delta echo foxtrot golf hotel";
        let long9 = "alpha bravo charlie delta echo foxtrot golf hotel india";
        let short = "alpha bravo charlie zulu";
        assert_eq!(run(cluster(&[&[long8], &[short]])).len(), 1);
        assert!(run(cluster(&[&[long9], &[short]])).is_empty());
    }

    #[test]
    fn identical_leads_are_rejected_and_pairs_counted_once() {
        let c = cluster(&[&[A], &["researchers created an artificial virus, from synthetic genes within fourteen days!"], &[B], &[B]]);
        // A with its punctuation-only twin: rejected; A-B kept once (doc 2), not again with
        // doc 3, nor as the twin with B (the same words); B with B: identical.
        assert_eq!(run(c), [(0, 20)]);
    }

    #[test]
    fn progress_counts_cross_document_pairs() {
        let c = cluster(&[&[A, B], &[A], &[B, A, A]]);
        let p = Progress::default();
        mine(&[c], &F2Params::default(), &p).unwrap();
        // Leads: 2 + 1 + 2 = 5; cross-document pairs: (25 - 4 - 1 - 4) / 2 = 8.
        assert_eq!(p.get(), (8, 8));
    }
}
