//! MSRP's L12 miner (Dolan, Quirk & Brockett 2004, §2.1; `002_*.txt`): "each sentence was
//! normalized to lower case and paired with every other sentence in the cluster. Pairings that
//! were identical or differing only by punctuation were rejected, as were those where the
//! shorter sentence in the pair was less than two thirds the length of the longer [...]. Pairs
//! that had been seen before in either order were also rejected." Kept: Levenshtein distance
//! n <= 12.
//!
//! Rules, as implemented (each has a test below):
//! - Distance and lengths are in words ([`super::words`]: lower-cased, punctuation ignored);
//!   the distance is word-level Levenshtein.
//! - Identical or differing only by punctuation = equal word sequences (distance 0): rejected.
//! - Shorter under `min_length_ratio` (2/3) of the longer, in words: rejected (2 of 3 is kept).
//! - Each unordered pair once; a pair of texts already seen, in either order or in another
//!   cluster, is rejected (the first occurrence in corpus order is kept).
//! - Sentences without words are skipped.
//!
//! Speed: sentences are sorted by length, so the length rule ends each row early; a 128-bit word
//! signature and then a bag-of-words lower bound skip most of the rest before the banded,
//! early-exit distance
//! ([`super::edit_distance`]); rows are shared out to all cores.
use crate::domain::invalid::Invalid;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::edit_distance::{bag_lower_bound, bounded_levenshtein};
use super::progress::{Cancelled, Progress};
use super::words::Vocabulary;
use super::{Candidate, Cluster};

/// Parameters of the L12 miner (MSRP's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct L12Params {
    /// Largest word-level edit distance kept (MSRP: 12).
    pub max_edit_distance: u32,
    /// Shorter / longer in words at least this (MSRP: two thirds).
    pub min_length_ratio: f64,
}

impl Default for L12Params {
    fn default() -> Self {
        L12Params {
            max_edit_distance: 12,
            min_length_ratio: 2.0 / 3.0,
        }
    }
}

impl L12Params {
    /// Checks the parameters' ranges; the error names the field.
    pub fn check(&self) -> Result<(), Invalid> {
        if !(1..=100).contains(&self.max_edit_distance) {
            return Err(Invalid::new(
                "max_edit_distance",
                "The edit distance is 1 to 100 words.",
            ));
        }
        if !(0.0..=1.0).contains(&self.min_length_ratio) {
            return Err(Invalid::new(
                "min_length_ratio",
                "The length ratio is 0 to 1.",
            ));
        }
        Ok(())
    }
}

/// Shorter / longer at least `ratio` (with a little slack so 2/3 keeps 2 of 3).
pub fn length_ok(a: usize, b: usize, ratio: f64) -> bool {
    let (short, long) = (a.min(b), a.max(b));
    long == 0 || short as f64 / long as f64 + 1e-9 >= ratio
}

/// A sentence ready for comparison.
pub(crate) struct Prepared {
    pub index: usize,
    pub id: i64,
    pub text: u32,
    pub words: Vec<u32>,
    pub sorted: Vec<u32>,
    /// One bit per word (hashed into 128): see [`signature_lower_bound`].
    pub signature: u128,
}

/// The 128-bit set of a sentence's words, each word one hashed bit.
fn signature(words: &[u32]) -> u128 {
    words.iter().fold(0u128, |s, &w| {
        s | 1u128 << (w.wrapping_mul(0x9e37_79b1) >> 25)
    })
}

/// A lower bound of the edit distance in two instructions: each position holding a word the
/// other sentence lacks costs an edit, and every bit set in one signature but not the other is
/// at least one such word (a shared bit can only hide words, never invent them).
pub fn signature_lower_bound(a: u128, b: u128) -> u32 {
    (a & !b).count_ones().max((b & !a).count_ones())
}

/// Word ids per sentence with a corpus-wide id per distinct text (equal words); with `dedup`,
/// one entry per distinct text within each cluster (the first).
pub(crate) fn prepare(clusters: &[Cluster], dedup: bool) -> Vec<Vec<Prepared>> {
    let mut vocabulary = Vocabulary::default();
    let mut texts: HashMap<Vec<u32>, u32> = HashMap::new();
    clusters
        .iter()
        .map(|c| {
            let mut seen = HashSet::new();
            c.sentences
                .iter()
                .enumerate()
                .filter_map(|(index, s)| {
                    let words = vocabulary.encode(&s.text);
                    if words.is_empty() {
                        return None;
                    }
                    let next = texts.len() as u32;
                    let text = *texts.entry(words.clone()).or_insert(next);
                    if !seen.insert(text) && dedup {
                        return None;
                    }
                    let mut sorted = words.clone();
                    sorted.sort_unstable();
                    let signature = signature(&words);
                    Some(Prepared {
                        index,
                        id: s.id,
                        text,
                        words,
                        sorted,
                        signature,
                    })
                })
                .collect()
        })
        .collect()
}

/// Keeps the first occurrence of each unordered pair of texts, in the order given.
pub(crate) fn first_of_each_text_pair(found: Vec<(u32, u32, Candidate)>) -> Vec<Candidate> {
    let mut seen = HashSet::new();
    found
        .into_iter()
        .filter(|(x, y, _)| seen.insert((*x.min(y), *x.max(y))))
        .map(|(_, _, c)| c)
        .collect()
}

/// Pairs a cluster of `n` sentences has.
fn pairs(n: usize) -> u64 {
    (n as u64) * (n as u64).saturating_sub(1) / 2
}

/// Mines `clusters`; candidates come in corpus order (cluster, then first sentence, then second).
pub fn mine(
    clusters: &[Cluster],
    params: &L12Params,
    progress: &Progress,
) -> Result<Vec<Candidate>, Cancelled> {
    let prepared = prepare(clusters, true);
    progress.set_total(prepared.iter().map(|c| pairs(c.len())).sum());
    // Per cluster: positions sorted by length (ties in corpus order).
    let by_length: Vec<Vec<usize>> = prepared
        .iter()
        .map(|c| {
            let mut order: Vec<usize> = (0..c.len()).collect();
            order.sort_by_key(|&i| (c[i].words.len(), i));
            order
        })
        .collect();
    let rows: Vec<(usize, usize)> = by_length
        .iter()
        .enumerate()
        .flat_map(|(c, order)| (0..order.len()).map(move |r| (c, r)))
        .collect();
    let next = AtomicUsize::new(0);
    const CHUNK: usize = 32;
    let work = || -> Result<Vec<(usize, usize, usize, Candidate)>, Cancelled> {
        let mut found = Vec::new();
        loop {
            progress.check()?;
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= rows.len() {
                return Ok(found);
            }
            for &(c, r) in &rows[start..(start + CHUNK).min(rows.len())] {
                let order = &by_length[c];
                let x = &prepared[c][order[r]];
                for &other in &order[r + 1..] {
                    let y = &prepared[c][other];
                    let (lx, ly) = (x.words.len(), y.words.len());
                    // Sorted by length: once one rule fails on length, it fails for the rest.
                    if ly - lx > params.max_edit_distance as usize
                        || !length_ok(lx, ly, params.min_length_ratio)
                    {
                        break;
                    }
                    if signature_lower_bound(x.signature, y.signature) > params.max_edit_distance
                        || bag_lower_bound(&x.sorted, &y.sorted) > params.max_edit_distance
                    {
                        continue;
                    }
                    let Some(d) = bounded_levenshtein(&x.words, &y.words, params.max_edit_distance)
                    else {
                        continue;
                    };
                    if d == 0 {
                        continue;
                    }
                    progress.found()?;
                    let (first, second) = if x.index < y.index { (x, y) } else { (y, x) };
                    found.push((
                        c,
                        first.index,
                        second.index,
                        Candidate {
                            a: first.id,
                            b: second.id,
                            edit_distance: d,
                            shared_long_words: 0,
                            length_ratio: lx.min(ly) as f64 / lx.max(ly) as f64,
                            score: 0.0,
                            batch: 0,
                        },
                    ));
                }
                // Pairs cut off by the length rules count as examined too.
                progress.add((order.len() - r - 1) as u64);
            }
        }
    };
    let threads = super::threads();
    let mut found: Vec<(usize, usize, usize, Candidate)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        let mut all = Vec::new();
        for h in handles {
            all.push(h.join().expect("mining thread"));
        }
        all.into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map(|v| v.concat())
    })?;
    found.sort_by_key(|(c, i, j, _)| (*c, *i, *j));
    let text_of: Vec<HashMap<usize, u32>> = prepared
        .iter()
        .map(|c| c.iter().map(|p| (p.index, p.text)).collect())
        .collect();
    Ok(first_of_each_text_pair(
        found
            .into_iter()
            .map(|(c, i, j, cand)| (text_of[c][&i], text_of[c][&j], cand))
            .collect(),
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::mining::edit_distance::levenshtein;
    use crate::domain::mining::words::words;
    use crate::domain::mining::Sentence;

    pub fn cluster(first_id: i64, texts: &[&str]) -> Cluster {
        Cluster {
            sentences: texts
                .iter()
                .enumerate()
                .map(|(i, t)| Sentence {
                    id: first_id + i as i64,
                    document: first_id + i as i64,
                    position: 0,
                    text: (*t).to_owned(),
                })
                .collect(),
        }
    }

    fn ids(c: &[Candidate]) -> Vec<(i64, i64)> {
        c.iter().map(|c| (c.a, c.b)).collect()
    }

    fn run(clusters: &[Cluster]) -> Vec<Candidate> {
        mine(clusters, &L12Params::default(), &Progress::default()).unwrap()
    }

    #[test]
    fn near_duplicates_within_a_cluster_are_paired_with_their_distance() {
        let c = cluster(
            1,
            &[
                "The cat sat on the mat today.",
                "The cat sat on a mat today.",
                "Stocks fell in Tokyo.",
            ],
        );
        let found = run(&[c]);
        // The third: 4 words against 7 is under two thirds.
        assert_eq!(ids(&found), [(1, 2)]);
        assert_eq!(found[0].edit_distance, 1);
    }

    #[test]
    fn identical_and_punctuation_only_differences_are_rejected() {
        let c = cluster(
            1,
            &[
                "The cat sat on the mat.",
                "the cat, sat on the mat!",
                "The cat sat on the mat.",
            ],
        );
        assert!(run(&[c]).is_empty());
    }

    #[test]
    fn the_two_thirds_length_boundary() {
        // 6 and 4 words: 4/6 = 2/3 is kept; 6 and 3 words (1/2) is not.
        let kept = cluster(1, &["a b c d e f", "a b c d"]);
        assert_eq!(ids(&run(&[kept])), [(1, 2)]);
        let short = cluster(1, &["a b c d e f", "a b c"]);
        assert!(run(&[short]).is_empty());
        // 9 and 5 words: 5/9 < 2/3, rejected though the distance (4) is small.
        let c = cluster(
            1,
            &[
                "one two three four five six seven eight nine",
                "one two three four five",
            ],
        );
        assert!(run(&[c]).is_empty());
    }

    #[test]
    fn the_distance_bound_is_inclusive() {
        let long: Vec<String> = (0..30).map(|i| format!("w{i}")).collect();
        let mut twelve = long.clone();
        let mut thirteen = long.clone();
        for (i, w) in twelve.iter_mut().enumerate().take(12) {
            *w = format!("x{i}");
        }
        for (i, w) in thirteen.iter_mut().enumerate().take(13) {
            *w = format!("y{i}");
        }
        let c = cluster(
            1,
            &[&long.join(" "), &twelve.join(" "), &thirteen.join(" ")],
        );
        let found = run(&[c]);
        assert_eq!(ids(&found), [(1, 2)]);
        assert_eq!(found[0].edit_distance, 12);
    }

    #[test]
    fn each_pair_once_in_either_order_and_across_clusters() {
        let a = "Police said the man was arrested on Monday.";
        let b = "Police said the man was detained on Monday.";
        // Both orders in one cluster, and again in a second cluster.
        let found = run(&[cluster(1, &[a, b, b]), cluster(10, &[b, a])]);
        assert_eq!(ids(&found), [(1, 2)]);
    }

    #[test]
    fn sentences_of_different_clusters_are_never_paired() {
        let found = run(&[cluster(1, &["a b c d"]), cluster(2, &["a b c e"])]);
        assert!(found.is_empty());
    }

    #[test]
    fn progress_counts_every_pair_and_cancel_stops() {
        let c = cluster(1, &["a b c", "a b d", "x y z w", "q"]);
        let p = Progress::default();
        mine(std::slice::from_ref(&c), &L12Params::default(), &p).unwrap();
        assert_eq!(p.get(), (6, 6));
        let p = Progress::default();
        p.cancel();
        assert_eq!(mine(&[c], &L12Params::default(), &p), Err(Cancelled));
    }

    #[test]
    fn the_signature_bound_never_exceeds_the_distance() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut rand = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..20_000 {
            let a: Vec<u32> = (0..rand(25)).map(|_| rand(300) as u32).collect();
            let b: Vec<u32> = (0..rand(25)).map(|_| rand(300) as u32).collect();
            assert!(signature_lower_bound(signature(&a), signature(&b)) <= levenshtein(&a, &b));
        }
    }

    /// The obviously correct miner: every pair, the plain distance, the rules one by one.
    pub fn slow_l12(clusters: &[Cluster], params: &L12Params) -> Vec<(i64, i64, u32)> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for c in clusters {
            for i in 0..c.sentences.len() {
                for j in i + 1..c.sentences.len() {
                    let (x, y) = (words(&c.sentences[i].text), words(&c.sentences[j].text));
                    if x.is_empty() || y.is_empty() || x == y {
                        continue;
                    }
                    if !length_ok(x.len(), y.len(), params.min_length_ratio) {
                        continue;
                    }
                    let d = levenshtein(&x, &y);
                    if d > params.max_edit_distance {
                        continue;
                    }
                    let key = if x <= y {
                        (x.clone(), y.clone())
                    } else {
                        (y.clone(), x.clone())
                    };
                    if seen.insert(key) {
                        out.push((c.sentences[i].id, c.sentences[j].id, d));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn equals_the_slow_miner_on_generated_clusters() {
        // Sentences from a tiny vocabulary so that many pairs are near each other.
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut rand = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let vocab = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let mut clusters = Vec::new();
        let mut id = 0;
        for _ in 0..6 {
            let texts: Vec<String> = (0..40)
                .map(|_| {
                    let len = 1 + rand(16) as usize;
                    (0..len)
                        .map(|_| vocab[rand(8) as usize])
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            clusters.push(cluster(id, &refs));
            id += 100;
        }
        for params in [
            L12Params::default(),
            L12Params {
                max_edit_distance: 3,
                min_length_ratio: 0.5,
            },
        ] {
            let fast: Vec<(i64, i64, u32)> = mine(&clusters, &params, &Progress::default())
                .unwrap()
                .iter()
                .map(|c| (c.a, c.b, c.edit_distance))
                .collect();
            assert_eq!(fast, slow_l12(&clusters, &params));
            assert!(!fast.is_empty());
        }
    }
}
