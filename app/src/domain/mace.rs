//! MACE, Multi-Annotator Competence Estimation (Hovy, Berg-Kirkpatrick, Vaswani & Hovy,
//! NAACL 2013, "Learning Whom to Trust with MACE"): on each item a worker either knows the true
//! label and gives it, with probability `competence`, or "spams", answering from a distribution
//! of their own (`strategy`). Variational Bayes estimates both per worker and each item's
//! posterior; a worker who answers the same label everywhere, or at random, gets a low
//! competence, whatever the others' majority.
//!
//! This follows crowd-kit 1.4's `MACE()` (method `vb`, 50 iterations, Beta(0.5, 0.5) prior on the
//! competence, symmetric Dirichlet(10) prior on the strategies) step by step, so the numbers
//! match it: the start is NumPy's `RandomState(0)` uniform draws on [1, 2.5), normalised per
//! worker (crowd-kit draws the same start for each of its 10 restarts, so one run is its
//! result); the E-step and the variational M-step (`exp(digamma(count + prior)) /
//! exp(digamma(total))`, not renormalised) as it writes them; posteriors from the last E-step.
//! Workers, items and labels are the indices given (crowd-kit orders them by first appearance).
use rand_mt::Mt;

use crate::domain::dawid_skene::Answer;

/// crowd-kit's defaults.
pub const ITERATIONS: usize = 50;
const COMPETENCE_PRIOR: [f64; 2] = [0.5, 0.5];
const STRATEGY_PRIOR: f64 = 10.0;
const NOISE: f64 = 0.5;

/// What MACE estimated.
#[derive(Debug, Clone, PartialEq)]
pub struct Mace {
    /// `posteriors[item][label]`; an item nobody answered has all zeros.
    pub posteriors: Vec<Vec<f64>>,
    /// `competence[worker]`: the probability that the worker knows the label and gives it
    /// (crowd-kit's `spamming_[:, 1]`).
    pub competence: Vec<f64>,
    /// `strategy[worker][label]`: how the worker answers when they do not know
    /// (crowd-kit's `thetas_`).
    pub strategy: Vec<Vec<f64>>,
}

impl Mace {
    /// The most probable label of each item (the first on ties, as pandas' `idxmax`); `None`
    /// for an item nobody answered.
    pub fn labels(&self) -> Vec<Option<usize>> {
        self.posteriors.iter().map(|p| most_probable(p)).collect()
    }
}

/// The index of the largest value, the first on ties; `None` when all are 0 (no answers).
pub(crate) fn most_probable(p: &[f64]) -> Option<usize> {
    let mut best = 0;
    for (c, v) in p.iter().enumerate() {
        if *v > p[best] {
            best = c;
        }
    }
    (p.get(best).copied().unwrap_or(0.0) > 0.0).then_some(best)
}

/// Runs MACE over `answers` with `items` items, `workers` workers and `k` labels.
pub fn mace(answers: &[Answer], items: usize, workers: usize, k: usize) -> Mace {
    // `spam[w] = [P(spams), P(knows)]`, `strategy[w][label]`.
    let mut spam = seeded_rows(workers, 2);
    let mut strategy = seeded_rows(workers, k);
    let strategy_prior = vec![STRATEGY_PRIOR; k];
    let mut e = e_step(answers, items, workers, k, &spam, &strategy);
    for _ in 0..ITERATIONS {
        for w in 0..workers {
            spam[w] = variational_normalize(&e.knowing[w], &COMPETENCE_PRIOR);
            strategy[w] = variational_normalize(&e.strategy[w], &strategy_prior);
        }
        e = e_step(answers, items, workers, k, &spam, &strategy);
    }
    let posteriors = e
        .gold
        .iter()
        .map(|g| {
            let total: f64 = g.iter().sum();
            if total > 0.0 {
                g.iter().map(|v| v / total).collect()
            } else {
                vec![0.0; k]
            }
        })
        .collect();
    Mace {
        posteriors,
        competence: spam.iter().map(|s| s[1]).collect(),
        strategy,
    }
}

/// crowd-kit's start: `scipy.stats.uniform(1, 1.5).rvs(size=(rows, cols), random_state=0)`,
/// each row normalised to sum to 1.
fn seeded_rows(rows: usize, cols: usize) -> Vec<Vec<f64>> {
    let draws = numpy_random_sample(0, rows * cols);
    draws
        .chunks(cols.max(1))
        .take(rows)
        .map(|row| {
            let row: Vec<f64> = row.iter().map(|u| 1.0 + (1.0 + NOISE) * u).collect();
            let total: f64 = row.iter().sum();
            row.iter().map(|v| v / total).collect()
        })
        .collect()
}

/// NumPy's `RandomState(seed).random_sample(n)`: Mersenne Twister MT19937 seeded with
/// `init_genrand(seed)`, two 32-bit outputs per double (27 + 26 bits).
pub(crate) fn numpy_random_sample(seed: u32, n: usize) -> Vec<f64> {
    let mut mt = Mt::new(seed);
    (0..n)
        .map(|_| {
            let a = f64::from(mt.next_u32() >> 5);
            let b = f64::from(mt.next_u32() >> 6);
            (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
        })
        .collect()
}

/// `exp(digamma(x + prior)) / exp(digamma(sum(x + prior)))`, per value.
fn variational_normalize(x: &[f64], prior: &[f64]) -> Vec<f64> {
    let total: f64 = x.iter().zip(prior).map(|(x, p)| x + p).sum();
    let norm = digamma(total).exp();
    x.iter()
        .zip(prior)
        .map(|(x, p)| digamma(x + p).exp() / norm)
        .collect()
}

struct Expected {
    /// Unnormalised item marginals, `gold[item][label]`.
    gold: Vec<Vec<f64>>,
    /// `knowing[worker] = [expected answers spammed, expected answers known]`.
    knowing: Vec<[f64; 2]>,
    /// `strategy[worker][label]`: expected answers of `label` spammed.
    strategy: Vec<Vec<f64>>,
}

fn e_step(
    answers: &[Answer],
    items: usize,
    workers: usize,
    k: usize,
    spam: &[Vec<f64>],
    strategy: &[Vec<f64>],
) -> Expected {
    // P(the answer | truth = label): spammed as this label, or known.
    let likelihood = |a: &Answer, label: usize| {
        spam[a.worker][0] * strategy[a.worker][a.label]
            + spam[a.worker][1] * f64::from(u8::from(a.label == label))
    };
    let mut gold = vec![vec![0.0; k]; items];
    let mut answered = vec![false; items];
    for a in answers {
        answered[a.item] = true;
    }
    for (i, row) in gold.iter_mut().enumerate() {
        if answered[i] {
            row.iter_mut().for_each(|v| *v = 1.0);
        }
    }
    for a in answers {
        for (label, g) in gold[a.item].iter_mut().enumerate() {
            *g *= likelihood(a, label);
        }
    }
    for row in gold.iter_mut() {
        row.iter_mut().for_each(|v| *v /= k as f64);
    }
    let instance: Vec<f64> = gold.iter().map(|g| g.iter().sum()).collect();
    let mut knowing = vec![[0.0; 2]; workers];
    let mut spammed = vec![vec![0.0; k]; workers];
    for a in answers {
        let guess = spam[a.worker][0] * strategy[a.worker][a.label];
        let s: f64 = (0..k)
            .map(|label| gold[a.item][label] / likelihood(a, label))
            .sum::<f64>()
            * guess
            / instance[a.item];
        let known = gold[a.item][a.label] * spam[a.worker][1]
            / (guess + spam[a.worker][1])
            / instance[a.item];
        spammed[a.worker][a.label] += s;
        knowing[a.worker][0] += s;
        knowing[a.worker][1] += known;
    }
    Expected {
        gold,
        knowing,
        strategy: spammed,
    }
}

/// The digamma function ψ(x) for x > 0: the recurrence ψ(x) = ψ(x + 1) − 1/x up to x ≥ 10, then
/// the asymptotic series to its x⁻¹² term (the next is below 1e-15 there).
pub(crate) fn digamma(mut x: f64) -> f64 {
    let mut result = 0.0;
    while x < 10.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    result + x.ln()
        - 0.5 / x
        - f * (1.0 / 12.0
            - f * (1.0 / 120.0
                - f * (1.0 / 252.0 - f * (1.0 / 240.0 - f * (1.0 / 132.0 - f * 691.0 / 32760.0)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_s_first_draws_from_seed_0() {
        // `numpy.random.RandomState(0).random_sample(3)`.
        let d = numpy_random_sample(0, 3);
        assert_eq!(
            d,
            [0.5488135039273248, 0.7151893663724195, 0.6027633760716439]
        );
    }

    #[test]
    fn digamma_at_known_points() {
        // ψ(1) = −γ, ψ(1/2) = −γ − 2 ln 2, ψ(10) from tables.
        let gamma = 0.577_215_664_901_532_9;
        assert!((digamma(1.0) + gamma).abs() < 1e-14);
        assert!((digamma(0.5) + gamma + 2.0 * 2f64.ln()).abs() < 1e-14);
        assert!((digamma(10.0) - 2.251_752_589_066_721).abs() < 1e-14);
    }

    use crate::domain::dawid_skene::fixtures::three_honest_and;

    #[test]
    fn a_worker_who_always_says_yes_is_not_trusted() {
        // Workers 0-2 give the truth (worker 2 errs on four items); worker 3 always says 1.
        let m = mace(&three_honest_and(|_| 1), 21, 4, 2);
        let labels = m.labels();
        assert_eq!(
            labels[..20],
            (0..20).map(|i| Some(i % 2)).collect::<Vec<_>>()[..]
        );
        assert_eq!(labels[20], None, "an item nobody answered has no label");
        assert!(m.competence[0] > 0.9 && m.competence[1] > 0.9);
        assert!(m.competence[3] < 0.5, "{:?}", m.competence);
        assert!(m.strategy[3][1] > m.strategy[3][0]);
        for p in &m.posteriors[..20] {
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}
