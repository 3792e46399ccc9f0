//! Accounts that answer alike: two accounts run by one person, or a group that shares its
//! answers, agree with each other where honest workers part. Agreeing on the clear pairs says
//! nothing (every careful worker does); erring together does. So, as in the detection of
//! copying in exams (Harpp & Hogan 1993, "exact errors in common" against "differences"), for
//! every two workers this counts, on the ordinary pairs both judged, the pairs where both part
//! from the majority of the *other* votes on the pair (an error in common: with two answers,
//! both give the same one) and the pairs where exactly one of them does (a difference).
//!
//! Two workers who answer independently err together on a pair, given that one of them errs,
//! with probability `q = d₁·d₂ / (d₁ + d₂ − d₁·d₂)`, where `d` is each one's rate of parting
//! from the others' majority over all their pairs (Laplace-smoothed). Errors in common are then
//! binomial over the disputed pairs, and the one-sided exact test gives a p-value. Two workers
//! are flagged when that p-value is below [`ALPHA`] divided by the number of worker pairs tested
//! (Bonferroni: at most [`ALPHA`] chance of any false flag in a campaign of independent workers)
//! and at least [`MIN_SHARE`] of their disputed pairs are errors in common: honest workers do
//! err together on hard pairs more than independence says (item difficulty), about one disputed
//! pair in five where a fifth of the pairs are hard, so the p-value alone would, given enough
//! pairs, flag them; accounts that copy each other err together on every disputed pair.
//!
//! Flagged pairs of workers join into groups (connected components); the check runs again with
//! the groups' votes left out of everyone else's "others" ([`answer_alike`]). What is not seen:
//! a group that forms the majority on a pair (the "others" are then mostly itself), and a group whose
//! members rarely meet on the same pair. Measured on simulated studies
//! ([`super::simulated_study::ring_rates`], `bench-agreement`).
use std::collections::HashMap;

use super::report::Judgment;
use crate::domain::agreement::majority;

/// The family-wise error level over all the worker pairs tested in a campaign.
pub const ALPHA: f64 = 0.01;
/// The least share of disputed pairs that are errors in common.
pub const MIN_SHARE: f64 = 0.5;
/// Fewest disputed pairs (errors in common plus differences) before two workers are tested.
pub const MIN_DISPUTED: u32 = 6;

/// Two workers' answers on the ordinary pairs both judged, against the other votes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AlikePair {
    /// One worker, as an index ...
    pub a: usize,
    /// ... and the other (`a < b`).
    pub b: usize,
    /// Pairs both judged where the other votes have a majority.
    pub shared: u32,
    /// Of those, pairs where both part from that majority.
    pub errors_in_common: u32,
    /// ... and where exactly one does.
    pub differences: u32,
    /// The share of disputed pairs expected to be errors in common if the two answer
    /// independently.
    pub expected_share: f64,
    /// The one-sided exact binomial p-value of at least `errors_in_common`.
    pub p_value: f64,
    /// Below the corrected level with at least [`MIN_SHARE`] errors in common.
    pub flagged: bool,
}

impl AlikePair {
    /// Errors in common plus differences.
    pub fn disputed(&self) -> u32 {
        self.errors_in_common + self.differences
    }
}

/// What the check found in a campaign.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Alike {
    /// The flagged pairs of workers.
    pub flagged: Vec<AlikePair>,
    /// Worker pairs with at least [`MIN_DISPUTED`] disputed pairs (the Bonferroni divisor).
    pub tested: usize,
    /// Groups of workers joined by flagged pairs, each sorted, largest first.
    pub groups: Vec<Vec<usize>>,
}

/// Checks every two of `workers` workers on their judgments of `pairs` ordinary pairs.
///
/// A group that shares its answers also skews the "others" of everyone else: where two of its
/// members are wrong together beside two honest workers of whom one errs, the majority of the
/// others is wrong, and the two honest workers who got the pair right seem to err together. So
/// the check runs again with the members of the groups it has found left out of every other pair
/// of workers' "others" (and of the rates), until no new member is found (at most
/// [`MAX_ROUNDS`]; the set left out only grows, so the rounds cannot alternate).
pub fn answer_alike(judgments: &[Judgment], pairs: usize, workers: usize) -> Alike {
    let mut by_pair: Vec<Vec<(usize, bool)>> = vec![Vec::new(); pairs];
    for j in judgments {
        by_pair[j.pair].push((j.worker, j.is_paraphrase));
    }
    let mut left_out = vec![false; workers];
    let mut found = check_round(&by_pair, workers, &left_out);
    for _ in 1..MAX_ROUNDS {
        let mut next = left_out.clone();
        for &w in found.groups.iter().flatten() {
            next[w] = true;
        }
        if next == left_out {
            break;
        }
        left_out = next;
        found = check_round(&by_pair, workers, &left_out);
    }
    found
}

/// The most rounds [`answer_alike`] runs.
pub const MAX_ROUNDS: usize = 4;

/// One round of [`answer_alike`]: votes of workers `left_out` do not count in the majority of
/// the others, except their own.
fn check_round(by_pair: &[Vec<(usize, bool)>], workers: usize, left_out: &[bool]) -> Alike {
    // The majority of the votes on a pair other than `a`'s and `b`'s (and the left-out ones).
    let majority_without = |votes: &[(usize, bool)], a: usize, b: usize| {
        majority(
            votes
                .iter()
                .filter(|(u, _)| *u != a && *u != b && !left_out[*u])
                .map(|(_, l)| *l),
        )
    };
    // Each worker's rate of parting from the majority of the others.
    let mut parted = vec![(0u32, 0u32); workers];
    for votes in by_pair {
        for &(w, mine) in votes {
            if let Some(m) = majority_without(votes, w, w) {
                parted[w].0 += u32::from(mine != m);
                parted[w].1 += 1;
            }
        }
    }
    let rate: Vec<f64> = parted
        .iter()
        .map(|&(d, n)| (f64::from(d) + 1.0) / (f64::from(n) + 2.0))
        .collect();
    // (shared, errors in common, differences) by (a, b).
    let mut counts: HashMap<(usize, usize), (u32, u32, u32)> = HashMap::new();
    for votes in by_pair {
        for (i, &(a, la)) in votes.iter().enumerate() {
            for &(b, lb) in &votes[i + 1..] {
                if a == b {
                    continue;
                }
                let Some(m) = majority_without(votes, a, b) else {
                    continue;
                };
                let c = counts.entry((a.min(b), a.max(b))).or_default();
                c.0 += 1;
                match (la != m, lb != m) {
                    (true, true) => c.1 += 1,
                    (true, false) | (false, true) => c.2 += 1,
                    (false, false) => {}
                }
            }
        }
    }
    let mut checked: Vec<AlikePair> = counts
        .into_iter()
        .filter(|(_, (_, e, d))| e + d >= MIN_DISPUTED)
        .map(|((a, b), (shared, e, d))| {
            let (da, db) = (rate[a], rate[b]);
            let q = da * db / (da + db - da * db);
            AlikePair {
                a,
                b,
                shared,
                errors_in_common: e,
                differences: d,
                expected_share: q,
                p_value: binomial_at_least(e, e + d, q),
                flagged: false,
            }
        })
        .collect();
    let tested = checked.len();
    for c in &mut checked {
        c.flagged = c.p_value < ALPHA / tested as f64
            && f64::from(c.errors_in_common) >= MIN_SHARE * f64::from(c.disputed());
    }
    let mut flagged: Vec<AlikePair> = checked.into_iter().filter(|c| c.flagged).collect();
    flagged.sort_by_key(|x| (x.a, x.b));
    let groups = components(workers, flagged.iter().map(|c| (c.a, c.b)));
    Alike {
        flagged,
        tested,
        groups,
    }
}

/// Why two workers are flagged, in words (without their names).
pub fn evidence_text(
    errors_in_common: u32,
    differences: u32,
    expected_share: f64,
    p: f64,
) -> String {
    let disputed = errors_in_common + differences;
    let p = if p < 1e-6 {
        "p < 0.000001".to_owned()
    } else {
        format!("p = {p:.6}")
    };
    format!(
        "both parted from the other workers' majority on {errors_in_common} of the {disputed} shared pairs where either did ({:.1} expected of two workers answering on their own; {p})",
        expected_share * f64::from(disputed)
    )
}

/// The groups of two or more that `edges` join among `n` nodes, each sorted, largest first
/// (then by first member).
pub fn components(n: usize, edges: impl IntoIterator<Item = (usize, usize)>) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for (a, b) in edges {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut by_root: HashMap<usize, Vec<usize>> = HashMap::new();
    for x in 0..n {
        let r = root(&mut parent, x);
        by_root.entry(r).or_default().push(x);
    }
    let mut groups: Vec<Vec<usize>> = by_root.into_values().filter(|g| g.len() > 1).collect();
    groups.sort_by(|x, y| y.len().cmp(&x.len()).then(x[0].cmp(&y[0])));
    groups
}

/// P(X ≥ k) for X ~ Binomial(n, p) (SciPy's `binomtest(k, n, p, alternative="greater")`),
/// summed in log space from the largest term down.
pub fn binomial_at_least(k: u32, n: u32, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let (ln_p, ln_q) = (p.ln(), (1.0 - p).ln());
    let terms: Vec<f64> = (k..=n)
        .map(|x| {
            super::harvest::ln_choose(u64::from(n), u64::from(x))
                + f64::from(x) * ln_p
                + f64::from(n - x) * ln_q
        })
        .collect();
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = terms.iter().map(|t| (t - top).exp()).sum();
    (top + sum.ln()).exp().min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(pair: usize, worker: usize, is_paraphrase: bool) -> Judgment {
        Judgment {
            pair,
            worker,
            is_paraphrase,
            seconds: 1.0,
        }
    }

    #[test]
    fn the_binomial_tail_is_the_exact_sum() {
        // Exact sums with Python's fractions: sum(comb(n, x) p^x (1-p)^(n-x) for x >= k).
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.max(1e-300);
        assert!(close(binomial_at_least(3, 10, 0.1), 0.0701908264));
        assert!(close(binomial_at_least(10, 10, 0.25), 9.5367431640625e-07));
        assert!(close(binomial_at_least(1, 5, 0.5), 0.96875));
        assert!(close(
            binomial_at_least(40, 60, 0.05),
            1.4026565286767547e-37
        ));
        assert_eq!(binomial_at_least(0, 5, 0.3), 1.0);
        assert_eq!(binomial_at_least(6, 5, 0.3), 0.0);
    }

    #[test]
    fn the_evidence_says_what_was_counted() {
        assert_eq!(
            evidence_text(9, 0, 0.2, 5e-7),
            "both parted from the other workers' majority on 9 of the 9 shared pairs where either did (1.8 expected of two workers answering on their own; p < 0.000001)"
        );
        assert!(evidence_text(5, 1, 0.1, 0.00012)
            .ends_with("(0.6 expected of two workers answering on their own; p = 0.000120)"));
    }

    #[test]
    fn components_join_what_edges_touch() {
        let g = components(7, [(0, 3), (3, 5), (1, 2)]);
        assert_eq!(g, vec![vec![0, 3, 5], vec![1, 2]]);
        assert!(components(3, []).is_empty());
    }

    /// A study of `honest` workers right with `accuracy` on every pair and two accounts that
    /// give one answer between them, each pair judged by 6.
    fn study(copy: bool, seed: u64) -> Vec<Judgment> {
        let mut rng = crate::domain::rng::SplitMix64::new(seed);
        let mut out = Vec::new();
        let workers = 12;
        for pair in 0..300 {
            let truth = rng.unit() < 0.4;
            // Six distinct workers, the two accounts (10 and 11) on every other pair.
            let mut who: Vec<usize> = Vec::new();
            if pair % 2 == 0 {
                who.extend([10, 11]);
            }
            while who.len() < 6 {
                let w = (rng.unit() * 10.0) as usize;
                if !who.contains(&w) {
                    who.push(w);
                }
            }
            let shared = rng.unit() < 0.5;
            for w in who {
                let label = if w >= 10 && copy {
                    shared
                } else if w >= 10 {
                    rng.unit() < 0.5
                } else {
                    (rng.unit() < 0.9) == truth
                };
                out.push(j(pair, w, label));
            }
        }
        assert!(out.iter().all(|x| x.worker < workers));
        out
    }

    #[test]
    fn two_accounts_that_share_their_guesses_are_grouped() {
        for seed in 0..5 {
            let a = answer_alike(&study(true, seed), 300, 12);
            assert_eq!(a.groups, vec![vec![10, 11]], "seed {seed}: {a:?}");
            let f = a.flagged[0];
            assert_eq!(f.differences, 0);
            assert!(
                f.errors_in_common >= MIN_DISPUTED && f.p_value < 1e-6,
                "{f:?}"
            );
        }
    }

    #[test]
    fn guessing_alone_is_not_answering_alike() {
        // The same two accounts guessing each on their own, beside honest workers: nobody.
        for seed in 0..5 {
            let a = answer_alike(&study(false, seed), 300, 12);
            assert!(a.flagged.is_empty(), "seed {seed}: {:?}", a.flagged);
            assert!(a.tested > 0);
        }
    }

    #[test]
    fn honest_workers_who_miss_the_same_hard_pairs_are_not_grouped() {
        // A fifth of the pairs are hard (60% right), the rest easy (97%): honest workers err
        // together more than independence says, but far less than half of their disputes.
        let mut rng = crate::domain::rng::SplitMix64::new(3);
        let mut js = Vec::new();
        for pair in 0..2000 {
            let truth = rng.unit() < 0.4;
            let a = if rng.unit() < 0.2 { 0.6 } else { 0.97 };
            let mut who: Vec<usize> = Vec::new();
            while who.len() < 6 {
                let w = (rng.unit() * 12.0) as usize;
                if !who.contains(&w) {
                    who.push(w);
                }
            }
            for w in who {
                js.push(j(pair, w, (rng.unit() < a) == truth));
            }
        }
        let a = answer_alike(&js, 2000, 12);
        assert_eq!(a.tested, 66);
        assert!(a.flagged.is_empty(), "{:?}", a.flagged);
    }

    #[test]
    fn too_few_disputed_pairs_are_not_tested() {
        // Pair 0: only the two (no other vote); pair 1: one other vote. Too few disputes to test.
        let js = [
            j(0, 0, true),
            j(0, 1, true),
            j(1, 0, false),
            j(1, 1, false),
            j(1, 2, true),
        ];
        let a = answer_alike(&js, 2, 3);
        assert_eq!(a.tested, 0);
        assert!(a.groups.is_empty());
    }
}
