//! Sentence-level chrF and BLEU exactly as sacrebleu 2.x computes them (`sentence_chrf`,
//! `sentence_bleu` with the `13a` tokenizer and `exp` smoothing), on a 0..1 scale. Plain
//! functions; `tests/ml/lite.rs` checks them against sacrebleu's own numbers
//! (`tests/fixtures/lite_reference.json`, written by `scripts/models/train_lite_heads.py`).
//!
//! Sources: Popović (2015), "chrF: character n-gram F-score for automatic MT evaluation";
//! Papineni et al. (2002), BLEU; Post (2018), "A Call for Clarity in Reporting BLEU Scores"
//! (sacrebleu, whose `13a` tokenizer is mteval-v13a's).
use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

/// chrF's character n-gram order and recall weight (sacrebleu's defaults).
const CHAR_ORDER: usize = 6;
const BETA: f64 = 2.0;
/// BLEU's n-gram order.
const BLEU_ORDER: usize = 4;

/// sacrebleu's `sentence_chrf(hypothesis, [reference]).score / 100`: character n-grams of
/// orders 1..6 with whitespace removed, precision and recall averaged over the orders both
/// texts have, F-beta with beta = 2 (recall weighs more).
pub fn chrf(hypothesis: &str, reference: &str) -> f64 {
    let hyp: Vec<char> = hypothesis.chars().filter(|c| !c.is_whitespace()).collect();
    let reference: Vec<char> = reference.chars().filter(|c| !c.is_whitespace()).collect();
    let eps = 1e-16;
    let factor = BETA * BETA;
    let (mut avg_prec, mut avg_rec, mut effective_order) = (0.0, 0.0, 0usize);
    for n in 1..=CHAR_ORDER {
        let h = char_ngrams(&hyp, n);
        let r = char_ngrams(&reference, n);
        let n_hyp: usize = h.values().sum();
        let n_ref: usize = r.values().sum();
        let matches: usize = h
            .iter()
            .map(|(g, c)| (*c).min(r.get(g).copied().unwrap_or(0)))
            .sum();
        let prec = if n_hyp > 0 {
            matches as f64 / n_hyp as f64
        } else {
            eps
        };
        let rec = if n_ref > 0 {
            matches as f64 / n_ref as f64
        } else {
            eps
        };
        if n_hyp > 0 && n_ref > 0 {
            effective_order += 1;
        }
        avg_prec += prec;
        avg_rec += rec;
    }
    if effective_order == 0 {
        return 0.0;
    }
    avg_prec /= effective_order as f64;
    avg_rec /= effective_order as f64;
    if avg_prec + avg_rec == 0.0 {
        return 0.0;
    }
    (1.0 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec)
}

fn char_ngrams(chars: &[char], n: usize) -> HashMap<&[char], usize> {
    let mut counts = HashMap::new();
    if chars.len() >= n {
        for gram in chars.windows(n) {
            *counts.entry(gram).or_insert(0) += 1;
        }
    }
    counts
}

/// sacrebleu's `sentence_bleu(hypothesis, [reference]).score / 100`: the `13a` tokenizer,
/// n-grams of orders 1..4, the brevity penalty, the `exp` smoothing for orders with no match,
/// and the effective order (orders the hypothesis is too short for are left out).
pub fn bleu(hypothesis: &str, reference: &str) -> f64 {
    let hyp = tokenize_13a(hypothesis);
    let reference = tokenize_13a(reference);
    let hyp: Vec<&str> = hyp.split(' ').filter(|w| !w.is_empty()).collect();
    let reference: Vec<&str> = reference.split(' ').filter(|w| !w.is_empty()).collect();
    let (sys_len, ref_len) = (hyp.len(), reference.len());
    if sys_len == 0 {
        return 0.0;
    }
    let brevity = if sys_len < ref_len {
        (1.0 - ref_len as f64 / sys_len as f64).exp()
    } else {
        1.0
    };
    let counts: Vec<(usize, usize)> = (1..=BLEU_ORDER)
        .map(|n| {
            let h = word_ngrams(&hyp, n);
            let r = word_ngrams(&reference, n);
            let correct: usize = h
                .iter()
                .map(|(g, c)| (*c).min(r.get(g).copied().unwrap_or(0)))
                .sum();
            (correct, sys_len.saturating_sub(n - 1))
        })
        .collect();
    // sacrebleu stops early when nothing matches at any order (its issue #141).
    if counts.iter().all(|&(correct, _)| correct == 0) {
        return 0.0;
    }
    let mut precisions = [0.0f64; BLEU_ORDER];
    let mut smooth = 1.0f64;
    let mut effective_order = BLEU_ORDER;
    for (n, &(correct, total)) in (1..=BLEU_ORDER).zip(&counts) {
        if total == 0 {
            break;
        }
        effective_order = n;
        precisions[n - 1] = if correct == 0 {
            smooth *= 2.0;
            100.0 / (smooth * total as f64)
        } else {
            100.0 * correct as f64 / total as f64
        };
    }
    let log_sum: f64 = precisions[..effective_order]
        .iter()
        .map(|&p| if p == 0.0 { -9_999_999_999.0 } else { p.ln() })
        .sum();
    brevity * (log_sum / effective_order as f64).exp() / 100.0
}

fn word_ngrams<'a>(words: &[&'a str], n: usize) -> HashMap<Vec<&'a str>, usize> {
    let mut counts = HashMap::new();
    if words.len() >= n {
        for gram in words.windows(n) {
            *counts.entry(gram.to_vec()).or_insert(0) += 1;
        }
    }
    counts
}

/// mteval-v13a's tokenization as sacrebleu's `TokenizerV13a` does it: unescape four HTML
/// entities, split off punctuation (periods and commas only when not between digits, a dash
/// after a digit), collapse whitespace.
pub fn tokenize_13a(line: &str) -> String {
    static RULES: OnceLock<[(Regex, &'static str); 4]> = OnceLock::new();
    let rules = RULES.get_or_init(|| {
        [
            (
                Regex::new(r"([\{-~\[-` -&\(-\+:-@/])").expect("BUG: 13a rule 1"),
                " $1 ",
            ),
            (
                Regex::new(r"([^0-9])([\.,])").expect("BUG: 13a rule 2"),
                "$1 $2 ",
            ),
            (
                Regex::new(r"([\.,])([^0-9])").expect("BUG: 13a rule 3"),
                " $1 $2",
            ),
            (
                Regex::new(r"([0-9])(-)").expect("BUG: 13a rule 4"),
                "$1 $2 ",
            ),
        ]
    });
    let mut line = line
        .replace("<skipped>", "")
        .replace("-\n", "")
        .replace('\n', " ");
    if line.contains('&') {
        line = line
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">");
    }
    let mut line = format!(" {line} ");
    for (re, replacement) in rules {
        line = re.replace_all(&line, *replacement).into_owned();
    }
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_score_one() {
        let s = "The cat sat on the mat.";
        assert!((chrf(s, s) - 1.0).abs() < 1e-12);
        assert!((bleu(s, s) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn disjoint_texts_score_near_zero() {
        assert!(chrf("xyz", "abc") < 1e-9);
        assert!(bleu("alpha beta gamma delta", "one two three four") < 0.1);
    }

    #[test]
    fn empty_hypothesis_scores_zero() {
        assert_eq!(bleu("", "a b c"), 0.0);
        assert_eq!(chrf("", "abc"), 0.0);
    }

    #[test]
    fn thirteen_a_splits_punctuation_but_not_numbers() {
        assert_eq!(
            tokenize_13a("Shares rose 4.4%, to A$4.56 (a record)."),
            "Shares rose 4.4 % , to A $ 4.56 ( a record ) ."
        );
        assert_eq!(
            tokenize_13a("1,000 people; 3-4 days"),
            "1,000 people ; 3 - 4 days"
        );
        assert_eq!(tokenize_13a("AT&amp;T"), "AT & T");
    }

    #[test]
    fn shorter_hypotheses_pay_the_brevity_penalty() {
        let r = "the quick brown fox jumps over the lazy dog";
        assert!(bleu("the quick brown fox", r) < bleu("the quick brown fox jumps over the dog", r));
    }
}
