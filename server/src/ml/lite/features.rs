//! The lite scorer's pair features: what a small head needs to imitate the paper's mutual
//! implication judge and BLEURT from two sentences and their all-MiniLM-L6-v2 embeddings.
//! Every feature is symmetric (the same for (a, b) and (b, a)), as mutual implication and the
//! study's BLEURT (the mean of both directions) are. Plain functions, no I/O.
use std::collections::BTreeSet;

use super::text_metrics::{bleu, chrf, tokenize_13a};

/// Names of the scalar features, in the order [`pair_features`] writes them; the embedding
/// products (`uv_i`) and distances (`ud_i`) follow.
pub const SCALAR_FEATURES: [&str; 14] = [
    "cosine",
    "chrf",
    "bleu",
    "word_edit_similarity",
    "char_edit_similarity",
    "word_length_ratio",
    "char_length_ratio",
    "new_word_share_max",
    "new_word_share_min",
    "word_jaccard",
    "numbers_differ",
    "number_share_unmatched",
    "negation_differs",
    "log_words",
];

/// Every feature's name for embeddings of `dim` dimensions, in order.
pub fn feature_names(dim: usize) -> Vec<String> {
    SCALAR_FEATURES
        .iter()
        .map(|s| s.to_string())
        .chain((0..dim).map(|i| format!("uv_{i}")))
        .chain((0..dim).map(|i| format!("ud_{i}")))
        .collect()
}

/// Words that turn a statement around; a pair in which only one side has an odd number of them
/// rarely means the same.
const NEGATIONS: [&str; 12] = [
    "not", "no", "never", "n't", "none", "nobody", "nothing", "neither", "nor", "without",
    "cannot", "nowhere",
];

/// The features of the pair `(a, b)` given their L2-normalised embeddings `u` and `v`.
pub fn pair_features(a: &str, b: &str, u: &[f32], v: &[f32]) -> Vec<f64> {
    assert_eq!(u.len(), v.len(), "BUG: embeddings of different sizes");
    let wa = words(a);
    let wb = words(b);
    let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (sa, sb): (BTreeSet<&str>, BTreeSet<&str>) = (
        wa.iter().map(String::as_str).collect(),
        wb.iter().map(String::as_str).collect(),
    );
    let new_in = |x: &BTreeSet<&str>, y: &BTreeSet<&str>| -> f64 {
        if x.is_empty() {
            0.0
        } else {
            x.difference(y).count() as f64 / x.len() as f64
        }
    };
    let (new_b, new_a) = (new_in(&sb, &sa), new_in(&sa, &sb));
    let union = sa.union(&sb).count();
    let jaccard = if union == 0 {
        1.0
    } else {
        sa.intersection(&sb).count() as f64 / union as f64
    };
    let numbers = |s: &BTreeSet<&str>| -> BTreeSet<String> {
        s.iter()
            .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
            .map(|w| w.to_string())
            .collect()
    };
    let (na, nb) = (numbers(&sa), numbers(&sb));
    let number_union = na.union(&nb).count();
    let number_unmatched = if number_union == 0 {
        0.0
    } else {
        na.symmetric_difference(&nb).count() as f64 / number_union as f64
    };
    let negations = |w: &[String]| w.iter().filter(|t| NEGATIONS.contains(&t.as_str())).count();
    let cosine: f64 = u
        .iter()
        .zip(v)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let mut f = vec![
        cosine,
        (chrf(a, b) + chrf(b, a)) / 2.0,
        (bleu(a, b) + bleu(b, a)) / 2.0,
        edit_similarity(&wa, &wb),
        edit_similarity(&ca, &cb),
        ratio(wa.len(), wb.len()),
        ratio(ca.len(), cb.len()),
        new_a.max(new_b),
        new_a.min(new_b),
        jaccard,
        f64::from(u8::from(na != nb)),
        number_unmatched,
        f64::from(u8::from(negations(&wa) % 2 != negations(&wb) % 2)),
        ((wa.len() + wb.len()) as f64 / 2.0 + 1.0).ln(),
    ];
    f.extend(u.iter().zip(v).map(|(x, y)| f64::from(*x) * f64::from(*y)));
    f.extend(
        u.iter()
            .zip(v)
            .map(|(x, y)| (f64::from(*x) - f64::from(*y)).abs()),
    );
    f
}

/// Lower-cased 13a tokens, with "n't" split off as its own word ("don't" -> "do", "n't").
pub fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in tokenize_13a(&s.to_lowercase()).split(' ') {
        if w.is_empty() {
            continue;
        }
        match w.strip_suffix("n't") {
            Some(stem) if !stem.is_empty() => {
                out.push(stem.to_owned());
                out.push("n't".to_owned());
            }
            _ => out.push(w.to_owned()),
        }
    }
    out
}

/// The shorter length over the longer (1 when both are empty).
fn ratio(x: usize, y: usize) -> f64 {
    if x.max(y) == 0 {
        1.0
    } else {
        x.min(y) as f64 / x.max(y) as f64
    }
}

/// 1 - Levenshtein distance / the longer length (1 when both are empty).
pub fn edit_similarity<T: PartialEq>(x: &[T], y: &[T]) -> f64 {
    let longest = x.len().max(y.len());
    if longest == 0 {
        return 1.0;
    }
    let mut row: Vec<usize> = (0..=y.len()).collect();
    for (i, xi) in x.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, yj) in y.iter().enumerate() {
            let substitution = diagonal + usize::from(xi != yj);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    1.0 - row[y.len()] as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn features_are_symmetric() {
        let (a, b) = (
            "Tab shares rose 19 cents, or 4.4%, to A$4.56.",
            "Shares in Tab didn't climb 20 cents to A$4.56 on Monday.",
        );
        let (u, v) = (unit(&[0.1, 0.5, -0.2, 0.7]), unit(&[0.3, 0.1, 0.4, 0.2]));
        let ab = pair_features(a, b, &u, &v);
        let ba = pair_features(b, a, &v, &u);
        assert_eq!(ab.len(), feature_names(4).len());
        for (i, (x, y)) in ab.iter().zip(&ba).enumerate() {
            assert!((x - y).abs() < 1e-12, "feature {i}: {x} vs {y}");
        }
    }

    #[test]
    fn numbers_and_negations_are_noticed() {
        let u = unit(&[1.0, 0.0]);
        let f = pair_features("He paid 20 dollars.", "He didn't pay 25 dollars.", &u, &u);
        let at = |name: &str| f[SCALAR_FEATURES.iter().position(|n| *n == name).unwrap()];
        assert_eq!(at("numbers_differ"), 1.0);
        assert_eq!(at("number_share_unmatched"), 1.0);
        assert_eq!(at("negation_differs"), 1.0);
        assert!((at("cosine") - 1.0).abs() < 1e-6);
        let same = pair_features("He paid 20 dollars.", "20 dollars, he paid.", &u, &u);
        assert_eq!(
            same[SCALAR_FEATURES
                .iter()
                .position(|n| *n == "numbers_differ")
                .unwrap()],
            0.0
        );
    }

    #[test]
    fn edit_similarity_is_levenshtein() {
        let (k, s): (Vec<char>, Vec<char>) =
            ("kitten".chars().collect(), "sitting".chars().collect());
        assert!((edit_similarity(&k, &s) - (1.0 - 3.0 / 7.0)).abs() < 1e-12);
        assert_eq!(edit_similarity::<char>(&[], &[]), 1.0);
    }

    #[test]
    fn words_split_off_negation() {
        assert_eq!(words("I don't know."), ["i", "do", "n't", "know", "."]);
    }
}
