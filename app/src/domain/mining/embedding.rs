//! ParaSCI's embedding miner (Dong, Wan & Cao 2021, §4.1.1 and §4.2; `000_*.txt`): "we
//! directly obtain embeddings of sentences ... Then, we calculate the cosine similarity pair by
//! pair and retain sentence pairs with a similarity score higher than 0.931 as favorable
//! paraphrase candidates", for sentences "from different parts of a same paper"; and §4.2's
//! paraphrase length rate (PLR) filter, "because the numbers of words in two paraphrase
//! sentences usually do not vary too much" (thresholds 1.0, or 2 for definitions).
//!
//! Rules, as implemented (each has a test below):
//! - Embeddings come from the caller (the server runs all-MiniLM-L6-v2 through ort: mean
//!   pooling, L2-normalised), so cosine similarity is a dot product.
//! - Pairs within a cluster (a paper, a story); with `different_documents` (the default) only
//!   sentences of different documents (a paper's sections imported as its documents).
//! - Kept when cosine >= `min_cosine` (0.931). The paper says "higher than"; equal scores
//!   are vanishingly rare and the form says "at least".
//! - PLR: the equation did not survive in our copy of the paper; we read it as
//!   |len1 - len2| / min(len1, len2) in words (0 for equal lengths, 1.0 = the longer is twice
//!   the shorter), kept when <= `max_length_rate` (1.0). The paper's other threshold (2) fits
//!   this reading; a ratio max/min could never be below 1.
//! - As in L12: identical or punctuation-only pairs are rejected, and each pair of texts once.
use crate::domain::invalid::Invalid;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::l12::first_of_each_text_pair;
use super::progress::{Cancelled, Progress};
use super::words::words;
use super::{Candidate, Cluster};

/// Parameters of the embedding miner (ParaSCI's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingParams {
    /// Least cosine similarity kept, -1 to 1 (ParaSCI: 0.931).
    pub min_cosine: f64,
    /// Largest paraphrase length rate kept, in words (ParaSCI: 1.0).
    pub max_length_rate: f64,
    /// Pair only sentences of different documents of a cluster.
    pub different_documents: bool,
}

impl Default for EmbeddingParams {
    fn default() -> Self {
        EmbeddingParams {
            min_cosine: 0.931,
            max_length_rate: 1.0,
            different_documents: true,
        }
    }
}

impl EmbeddingParams {
    /// Checks the parameters' ranges; the error names the field.
    pub fn check(&self) -> Result<(), Invalid> {
        if !(-1.0..=1.0).contains(&self.min_cosine) {
            return Err(Invalid::new("min_cosine", "Cosine similarity is -1 to 1."));
        }
        if !(0.0..=100.0).contains(&self.max_length_rate) {
            return Err(Invalid::new(
                "max_length_rate",
                "The length rate is 0 to 100.",
            ));
        }
        Ok(())
    }
}

/// Why an embedding run stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EmbedError {
    /// An admin cancelled the run.
    #[error("the run was cancelled")]
    Cancelled,
    /// The embedding model returned an error, with its message.
    #[error("the embedding model failed: {0}")]
    Model(String),
}

impl From<Cancelled> for EmbedError {
    fn from(_: Cancelled) -> Self {
        EmbedError::Cancelled
    }
}

/// ParaSCI's paraphrase length rate: |a - b| / min(a, b), in words.
pub fn length_rate(a: usize, b: usize) -> f64 {
    let (lo, hi) = (a.min(b), a.max(b));
    if lo == 0 {
        return f64::INFINITY;
    }
    (hi - lo) as f64 / lo as f64
}

/// Dot product: the cosine of two L2-normalised vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>() as f64
}

/// Texts embedded per call to the model.
pub const EMBED_BATCH: usize = 64;

/// Mines `clusters`, embedding their sentences with `embed` (L2-normalised vectors, one per
/// text, in order). Progress counts sentences embedded, then pairs compared.
pub fn mine(
    clusters: &[Cluster],
    params: &EmbeddingParams,
    embed: super::Embed<'_>,
    progress: &Progress,
) -> Result<Vec<Candidate>, EmbedError> {
    let sentences: u64 = clusters.iter().map(|c| c.sentences.len() as u64).sum();
    let pairs: u64 = clusters
        .iter()
        .map(|c| {
            let n = c.sentences.len() as u64;
            n * n.saturating_sub(1) / 2
        })
        .sum();
    progress.set_total(sentences + pairs);
    // Texts numbered by their exact content, so repeated texts pair once.
    let mut text_ids: HashMap<&str, u32> = HashMap::new();
    let mut found = Vec::new();
    for cluster in clusters {
        let ids: Vec<u32> = cluster
            .sentences
            .iter()
            .map(|s| {
                let next = text_ids.len() as u32;
                *text_ids.entry(s.text.as_str()).or_insert(next)
            })
            .collect();
        let texts: Vec<String> = cluster.sentences.iter().map(|s| s.text.clone()).collect();
        let mut vectors: Vec<Vec<f32>> = Vec::with_capacity(texts.len());
        for batch in texts.chunks(EMBED_BATCH) {
            progress.check()?;
            let v = embed(batch).map_err(EmbedError::Model)?;
            if v.len() != batch.len() {
                return Err(EmbedError::Model(format!(
                    "{} vectors for {} texts",
                    v.len(),
                    batch.len()
                )));
            }
            vectors.extend(v);
            progress.add(batch.len() as u64);
        }
        let words: Vec<Vec<String>> = texts.iter().map(|t| words(t)).collect();
        let n = texts.len();
        for i in 0..n {
            progress.check()?;
            for j in i + 1..n {
                let (x, y) = (&cluster.sentences[i], &cluster.sentences[j]);
                if params.different_documents && x.document == y.document {
                    continue;
                }
                let (wx, wy) = (&words[i], &words[j]);
                if wx.is_empty() || wy.is_empty() || wx == wy {
                    continue;
                }
                if length_rate(wx.len(), wy.len()) > params.max_length_rate {
                    continue;
                }
                let c = cosine(&vectors[i], &vectors[j]);
                if c < params.min_cosine {
                    continue;
                }
                progress.found()?;
                found.push((
                    ids[i],
                    ids[j],
                    Candidate {
                        a: x.id,
                        b: y.id,
                        edit_distance: super::edit_distance::levenshtein(wx, wy),
                        shared_long_words: 0,
                        length_ratio: wx.len().min(wy.len()) as f64 / wx.len().max(wy.len()) as f64,
                        score: c,
                        batch: 0,
                    },
                ));
            }
            progress.add((n - i - 1) as u64);
        }
    }
    Ok(first_of_each_text_pair(found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::mining::Sentence;

    /// A stand-in embedding for the rules' tests: each text names its vector, "v:x,y".
    fn fake_embed(texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        Ok(texts
            .iter()
            .map(|t| {
                let spec = t.split("v:").nth(1).unwrap_or("1,0");
                let v: Vec<f32> = spec.split(',').map(|x| x.trim().parse().unwrap()).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.into_iter().map(|x| x / norm).collect()
            })
            .collect())
    }

    fn cluster(items: &[(i64, &str)]) -> Cluster {
        Cluster {
            sentences: items
                .iter()
                .enumerate()
                .map(|(i, (doc, text))| Sentence {
                    id: i as i64 + 1,
                    document: *doc,
                    position: i as u32,
                    text: text.to_string(),
                })
                .collect(),
        }
    }

    fn ids(c: &[Candidate]) -> Vec<(i64, i64)> {
        c.iter().map(|c| (c.a, c.b)).collect()
    }

    fn run(c: &Cluster, p: &EmbeddingParams) -> Vec<Candidate> {
        mine(
            std::slice::from_ref(c),
            p,
            &fake_embed,
            &Progress::default(),
        )
        .unwrap()
    }

    #[test]
    fn length_rate_reads_the_paper_as_difference_over_the_shorter() {
        assert_eq!(length_rate(10, 10), 0.0);
        assert_eq!(length_rate(10, 20), 1.0);
        assert_eq!(length_rate(20, 10), 1.0);
        assert!(length_rate(10, 21) > 1.0);
        assert!(length_rate(0, 3).is_infinite());
    }

    #[test]
    fn keeps_pairs_at_or_above_the_cosine_threshold() {
        // cos(a, b) for unit vectors at angles: v:1,0 vs v:1,0.4 = 0.928; vs v:1,0.39 = 0.931.
        let c = cluster(&[
            (1, "alpha beta gamma v:1,0"),
            (2, "alpha beta delta v:1,0.38"),
            (3, "alpha beta epsilon v:1,0.4"),
        ]);
        let found = run(&c, &EmbeddingParams::default());
        assert_eq!(ids(&found), vec![(1, 2), (2, 3)]);
        assert!((found[0].score - 1.0 / (1.0f64 + 0.38 * 0.38).sqrt()).abs() < 1e-6);
        let looser = EmbeddingParams {
            min_cosine: 0.9,
            ..Default::default()
        };
        assert_eq!(ids(&run(&c, &looser)), vec![(1, 2), (1, 3), (2, 3)]);
    }

    #[test]
    fn pairs_only_sentences_of_different_documents_unless_asked() {
        let c = cluster(&[
            (1, "one two v:1,0"),
            (1, "one three v:1,0"),
            (2, "one four v:1,0"),
        ]);
        assert_eq!(
            ids(&run(&c, &EmbeddingParams::default())),
            vec![(1, 3), (2, 3)]
        );
        let same = EmbeddingParams {
            different_documents: false,
            ..Default::default()
        };
        assert_eq!(ids(&run(&c, &same)), vec![(1, 2), (1, 3), (2, 3)]);
    }

    #[test]
    fn length_rate_filter_keeps_twice_as_long_and_drops_longer() {
        // Word counts include the "v" and the numbers: "v:1,0" is 3 words.
        let c = cluster(&[
            (1, "a b v:1,0"),             // 5 words
            (2, "a b c d e f g v:1,0"),   // 10 words: rate 1.0, kept
            (3, "a b c d e f g h v:1,0"), // 11 words: rate 1.2 against the first
        ]);
        assert_eq!(
            ids(&run(&c, &EmbeddingParams::default())),
            vec![(1, 2), (2, 3)]
        );
    }

    #[test]
    fn identical_and_punctuation_only_pairs_are_rejected_and_each_text_pair_kept_once() {
        let c = cluster(&[
            (1, "The model works. v:1,0"),
            (2, "the model works v:1,0"),
            (3, "The model works well. v:1,0"),
            (4, "The model works well! v:1,0"),
        ]);
        // 1-2 and 3-4 differ by punctuation only.
        let found = run(&c, &EmbeddingParams::default());
        assert_eq!(ids(&found), vec![(1, 3), (1, 4), (2, 3), (2, 4)]);
        // The same text in two documents pairs with another text once.
        let c = cluster(&[
            (1, "one two v:1,0"),
            (2, "one three v:1,0"),
            (3, "one two v:1,0"),
        ]);
        assert_eq!(ids(&run(&c, &EmbeddingParams::default())), vec![(1, 2)]);
    }

    #[test]
    fn model_errors_and_cancellation_stop_the_run() {
        let c = cluster(&[(1, "a v:1,0"), (2, "b v:1,0")]);
        let failing = |_: &[String]| -> Result<Vec<Vec<f32>>, String> { Err("no model".into()) };
        let e = mine(
            std::slice::from_ref(&c),
            &EmbeddingParams::default(),
            &failing,
            &Progress::default(),
        );
        assert_eq!(e.unwrap_err(), EmbedError::Model("no model".into()));
        let p = Progress::default();
        p.cancel();
        let e = mine(
            std::slice::from_ref(&c),
            &EmbeddingParams::default(),
            &fake_embed,
            &p,
        );
        assert_eq!(e.unwrap_err(), EmbedError::Cancelled);
    }

    #[test]
    fn progress_counts_sentences_then_pairs() {
        let c = cluster(&[(1, "a v:1,0"), (2, "b v:1,0"), (3, "c v:0,1")]);
        let p = Progress::default();
        mine(
            std::slice::from_ref(&c),
            &EmbeddingParams::default(),
            &fake_embed,
            &p,
        )
        .unwrap();
        assert_eq!(p.get(), (6, 6));
    }
}
