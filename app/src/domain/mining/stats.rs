//! The numbers of a set of candidate pairs, as ParaSCI's Table 2 reports for paraphrase datasets:
//! count, mean edit distance, mean length in words and characters, and Self-BLEU.
use serde::{Deserialize, Serialize};

use super::words::words;

/// A pair's two texts and its edit distance.
pub struct PairText<'a> {
    /// One side of the pair.
    pub a: &'a str,
    /// The other side.
    pub b: &'a str,
    /// Word-level edit distance between the two.
    pub edit_distance: u32,
}

/// The numbers of a set of candidate pairs (ParaSCI Table 2's columns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PairStats {
    /// Pairs counted.
    pub pairs: u64,
    /// Mean word-level edit distance; `None` for no pairs.
    pub mean_edit_distance: Option<f64>,
    /// Over both sides of every pair.
    pub mean_words: Option<f64>,
    /// Mean length in characters, over both sides of every pair.
    pub mean_chars: Option<f64>,
    /// Corpus BLEU-4 (0-100) of side a against side b: how much the two sides share
    /// (ParaSCI Table 2's Self-BLEU; lower = more diverse).
    pub self_bleu: Option<f64>,
}

fn mean(sum: f64, n: u64) -> Option<f64> {
    (n > 0).then(|| sum / n as f64)
}

/// The numbers of `pairs`.
pub fn pair_stats(pairs: &[PairText<'_>]) -> PairStats {
    let n = pairs.len() as u64;
    let tokenized: Vec<(Vec<String>, Vec<String>)> =
        pairs.iter().map(|p| (words(p.a), words(p.b))).collect();
    PairStats {
        pairs: n,
        mean_edit_distance: mean(pairs.iter().map(|p| f64::from(p.edit_distance)).sum(), n),
        mean_words: mean(
            tokenized
                .iter()
                .map(|(a, b)| (a.len() + b.len()) as f64)
                .sum(),
            2 * n,
        ),
        mean_chars: mean(
            pairs
                .iter()
                .map(|p| (p.a.chars().count() + p.b.chars().count()) as f64)
                .sum(),
            2 * n,
        ),
        self_bleu: corpus_bleu(&tokenized),
    }
}

/// Corpus-level BLEU-4 (Papineni et al. 2002) with one reference per hypothesis: clipped n-gram
/// matches summed over the corpus for n = 1..4, their geometric mean, and the brevity penalty
/// exp(1 - r/c) when the hypotheses are shorter than the references. 0-100; `None` for no
/// words; 0 when some order has no match (no smoothing, as sacreBLEU's default corpus BLEU).
pub fn corpus_bleu(pairs: &[(Vec<String>, Vec<String>)]) -> Option<f64> {
    use std::collections::HashMap;
    let (mut hyp_len, mut ref_len) = (0usize, 0usize);
    let mut matches = [0u64; 4];
    let mut totals = [0u64; 4];
    for (hyp, reference) in pairs {
        hyp_len += hyp.len();
        ref_len += reference.len();
        for n in 1..=4 {
            if hyp.len() < n {
                continue;
            }
            let mut counts: HashMap<&[String], i64> = HashMap::new();
            for g in reference.windows(n) {
                *counts.entry(g).or_default() += 1;
            }
            for g in hyp.windows(n) {
                totals[n - 1] += 1;
                if let Some(c) = counts.get_mut(g) {
                    if *c > 0 {
                        *c -= 1;
                        matches[n - 1] += 1;
                    }
                }
            }
        }
    }
    if hyp_len == 0 {
        return None;
    }
    if matches.contains(&0) {
        return Some(0.0);
    }
    let log_precision: f64 = (0..4)
        .map(|i| (matches[i] as f64 / totals[i] as f64).ln())
        .sum::<f64>()
        / 4.0;
    let brevity = if hyp_len < ref_len {
        (1.0 - ref_len as f64 / hyp_len as f64).exp()
    } else {
        1.0
    };
    Some(100.0 * brevity * log_precision.exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn identical_sides_score_100_and_disjoint_0() {
        let same = vec![(
            toks("the cat sat on the mat"),
            toks("the cat sat on the mat"),
        )];
        assert!((corpus_bleu(&same).unwrap() - 100.0).abs() < 1e-9);
        let disjoint = vec![(toks("a b c d"), toks("e f g h"))];
        assert_eq!(corpus_bleu(&disjoint), Some(0.0));
        assert_eq!(corpus_bleu(&[]), None);
    }

    #[test]
    fn a_hand_computed_bleu() {
        // hyp "a b c d e", ref "a b c d f g": precisions 4/5, 3/4, 2/3, 1/2; BP = exp(1 - 6/5).
        let pairs = vec![(toks("a b c d e"), toks("a b c d f g"))];
        let expected = 100.0
            * (1.0f64 - 6.0 / 5.0).exp()
            * ((0.8f64 * 0.75 * (2.0 / 3.0) * 0.5).ln() / 4.0).exp();
        assert!((corpus_bleu(&pairs).unwrap() - expected).abs() < 1e-9);
    }

    #[test]
    fn means_over_both_sides() {
        let s = pair_stats(&[
            PairText {
                a: "One two.",
                b: "One two three.",
                edit_distance: 1,
            },
            PairText {
                a: "Four",
                b: "Five six",
                edit_distance: 2,
            },
        ]);
        assert_eq!(s.pairs, 2);
        assert_eq!(s.mean_edit_distance, Some(1.5));
        assert_eq!(s.mean_words, Some(2.0));
        assert_eq!(s.mean_chars, Some((8.0 + 14.0 + 4.0 + 8.0) / 4.0));
        assert_eq!(pair_stats(&[]).mean_words, None);
    }
}
