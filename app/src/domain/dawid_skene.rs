//! Dawid-Skene (Dawid & Skene 1979, "Maximum likelihood estimation of observer error-rates
//! using the EM algorithm"): each worker has a confusion matrix, the items a latent true label;
//! EM estimates the class priors, the confusion matrices and each item's posterior.
//!
//! This follows crowd-kit 1.4's `DawidSkene(n_iter=100, tol=1e-5)` step by step, so the numbers
//! match it: start from majority-vote posteriors; M-step `e_w[observed][true] = sum of the
//! posteriors of true over the worker's answers with that observed label`, floored at 1e-10 and
//! normalised over observed labels (rows only for labels the worker gave); E-step in log2 with
//! priors floored at 1e-10; stop when the evidence lower bound per answer gains less than `tol`.

/// One answer: item, worker, label (indices; labels `0..k`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// The item (pair) answered, as an index.
    pub item: usize,
    /// The worker who answered, as an index.
    pub worker: usize,
    /// The label given, in `0..k`.
    pub label: usize,
}

/// What EM estimated.
#[derive(Debug, Clone, PartialEq)]
pub struct DawidSkene {
    /// `posteriors[item][label]`.
    pub posteriors: Vec<Vec<f64>>,
    /// `priors[label]`.
    pub priors: Vec<f64>,
    /// `confusion[worker][observed][true]`: P(worker answers `observed` | truth `true`);
    /// `None` rows for labels the worker never gave (crowd-kit leaves those out).
    pub confusion: Vec<Vec<Option<Vec<f64>>>>,
    /// EM iterations run before convergence or the cap.
    pub iterations: usize,
}

const EPS: f64 = 1e-10;

impl DawidSkene {
    /// The most probable label of each item (the first on ties, as pandas' `idxmax`).
    pub fn labels(&self) -> Vec<usize> {
        self.posteriors
            .iter()
            .map(|p| {
                let mut best = 0;
                for (c, v) in p.iter().enumerate() {
                    if *v > p[best] {
                        best = c;
                    }
                }
                best
            })
            .collect()
    }

    /// P(answer `observed` | truth `truth`) for `worker`; 0 for a label they never gave.
    pub fn rate(&self, worker: usize, observed: usize, truth: usize) -> f64 {
        self.confusion[worker][observed]
            .as_ref()
            .map_or(0.0, |row| row[truth])
    }
}

/// Runs EM over `answers` with `items` items, `workers` workers and `k` labels.
pub fn dawid_skene(
    answers: &[Answer],
    items: usize,
    workers: usize,
    k: usize,
    max_iter: usize,
    tol: f64,
) -> DawidSkene {
    // Posteriors live in one flat array, `post[item * k + label]`.
    // Majority-vote posteriors: each item's share of answers per label.
    let mut post = vec![0.0; items * k];
    let mut counts = vec![0.0; items];
    for a in answers {
        post[a.item * k + a.label] += 1.0;
        counts[a.item] += 1.0;
    }
    for (i, n) in counts.iter().enumerate() {
        if *n > 0.0 {
            post[i * k..(i + 1) * k].iter_mut().for_each(|v| *v /= n);
        }
    }
    let answered: Vec<usize> = (0..items).filter(|&i| counts[i] > 0.0).collect();
    let mut priors = mean_rows(&post, &answered, k);
    let mut confusion = m_step(answers, &post, workers, k);
    let mut loss = f64::NEG_INFINITY;
    let mut iterations = 0;
    for _ in 0..max_iter {
        iterations += 1;
        e_step(answers, &priors, &confusion, k, &answered, &mut post);
        priors = mean_rows(&post, &answered, k);
        confusion = m_step(answers, &post, workers, k);
        let new_loss = elbo(answers, &mut post, &mut priors, &confusion, k, &answered)
            / answers.len().max(1) as f64;
        if new_loss - loss < tol {
            break;
        }
        loss = new_loss;
    }
    DawidSkene {
        posteriors: post.chunks(k.max(1)).map(<[f64]>::to_vec).collect(),
        priors,
        confusion: confusion
            .into_iter()
            .map(|w| {
                w.chunks(k.max(1))
                    .map(|row| (row[0] >= 0.0).then(|| row.to_vec()))
                    .collect()
            })
            .collect(),
        iterations,
    }
}

fn mean_rows(post: &[f64], answered: &[usize], k: usize) -> Vec<f64> {
    let mut m = vec![0.0; k];
    for &i in answered {
        for c in 0..k {
            m[c] += post[i * k + c];
        }
    }
    let n = answered.len().max(1) as f64;
    m.iter_mut().for_each(|v| *v /= n);
    m
}

/// `conf[worker][observed * k + true]`; a row of -1 marks a label the worker never gave.
type Confusion = Vec<Vec<f64>>;

fn m_step(answers: &[Answer], post: &[f64], workers: usize, k: usize) -> Confusion {
    let mut e: Confusion = vec![vec![-1.0; k * k]; workers];
    for a in answers {
        let row = &mut e[a.worker][a.label * k..(a.label + 1) * k];
        if row[0] < 0.0 {
            row.iter_mut().for_each(|v| *v = 0.0);
        }
        for c in 0..k {
            row[c] += post[a.item * k + c];
        }
    }
    for w in e.iter_mut() {
        for v in w.iter_mut().filter(|v| **v >= 0.0) {
            *v = v.max(EPS);
        }
        for c in 0..k {
            let total: f64 = (0..k).map(|o| w[o * k + c]).filter(|v| *v >= 0.0).sum();
            for o in 0..k {
                if w[o * k + c] >= 0.0 {
                    w[o * k + c] /= total;
                }
            }
        }
    }
    e
}

fn e_step(
    answers: &[Answer],
    priors: &[f64],
    confusion: &Confusion,
    k: usize,
    answered: &[usize],
    post: &mut [f64],
) {
    let log_prior: Vec<f64> = priors.iter().map(|p| p.max(EPS).log2()).collect();
    let log_conf: Vec<Vec<f64>> = confusion
        .iter()
        .map(|w| {
            w.iter()
                .map(|v| if *v >= 0.0 { v.log2() } else { 0.0 })
                .collect()
        })
        .collect();
    post.iter_mut().for_each(|v| *v = 0.0);
    for a in answers {
        let row = &log_conf[a.worker][a.label * k..(a.label + 1) * k];
        let target = &mut post[a.item * k..(a.item + 1) * k];
        for c in 0..k {
            target[c] += row[c];
        }
    }
    for &i in answered {
        let scores = &mut post[i * k..(i + 1) * k];
        let mut max = f64::NEG_INFINITY;
        for (c, s) in scores.iter_mut().enumerate() {
            *s += log_prior[c];
            max = max.max(*s);
        }
        let mut total = 0.0;
        for s in scores.iter_mut() {
            *s = (*s - max).exp2();
            total += *s;
        }
        scores.iter_mut().for_each(|s| *s /= total);
    }
}

/// The evidence lower bound, as crowd-kit computes it (which floors the priors and posteriors
/// at 1e-10 in place; the floored values are what it returns).
fn elbo(
    answers: &[Answer],
    post: &mut [f64],
    priors: &mut [f64],
    confusion: &Confusion,
    k: usize,
    answered: &[usize],
) -> f64 {
    priors.iter_mut().for_each(|p| *p = p.max(EPS));
    let log_prior: Vec<f64> = priors.iter().map(|p| p.ln()).collect();
    let log_conf: Vec<Vec<f64>> = confusion
        .iter()
        .map(|w| {
            w.iter()
                .map(|v| if *v >= 0.0 { v.ln() } else { 0.0 })
                .collect()
        })
        .collect();
    let mut joint = 0.0;
    for a in answers {
        let row = &log_conf[a.worker][a.label * k..(a.label + 1) * k];
        for c in 0..k {
            joint += post[a.item * k + c] * (row[c] + log_prior[c]);
        }
    }
    let mut entropy = 0.0;
    for &i in answered {
        for p in post[i * k..(i + 1) * k].iter_mut() {
            *p = p.max(EPS);
            entropy -= p.ln() * *p;
        }
    }
    joint + entropy
}

/// Answers the models' unit tests share.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::Answer;

    /// `(item, worker, label)` rows as answers.
    pub(crate) fn answers(rows: &[(usize, usize, usize)]) -> Vec<Answer> {
        rows.iter()
            .map(|&(item, worker, label)| Answer {
                item,
                worker,
                label,
            })
            .collect()
    }

    /// 20 items of two labels (item `i`'s truth is `i % 2`) judged by four workers: 0 and 1
    /// give the truth, 2 errs on the first four items, and 3 answers `fourth(truth)`.
    pub(crate) fn three_honest_and(fourth: impl Fn(usize) -> usize) -> Vec<Answer> {
        let mut rows = Vec::new();
        for item in 0..20 {
            let truth = item % 2;
            rows.push((item, 0, truth));
            rows.push((item, 1, truth));
            rows.push((item, 2, if item < 4 { 1 - truth } else { truth }));
            rows.push((item, 3, fourth(truth)));
        }
        answers(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::fixtures::{answers, three_honest_and};

    #[test]
    fn unanimous_items_get_their_label_and_posteriors_sum_to_one() {
        let a = answers(&[
            (0, 0, 1),
            (0, 1, 1),
            (0, 2, 1),
            (1, 0, 0),
            (1, 1, 0),
            (1, 2, 0),
        ]);
        let ds = dawid_skene(&a, 2, 3, 2, 100, 1e-5);
        assert_eq!(ds.labels(), [1, 0]);
        for p in &ds.posteriors {
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        assert!((ds.priors[0] - 0.5).abs() < 1e-6);
    }

    #[test]
    fn an_always_yes_worker_is_seen_through() {
        // Workers 0-2 are right (worker 2 errs on four items); worker 3 always answers 1.
        let ds = dawid_skene(&three_honest_and(|_| 1), 20, 4, 2, 100, 1e-5);
        assert_eq!(ds.labels(), (0..20).map(|i| i % 2).collect::<Vec<_>>());
        // Worker 3 never said 0: crowd-kit keeps no row for it; they say 1 whatever the truth.
        assert!(ds.confusion[3][0].is_none());
        assert!(ds.rate(3, 1, 0) > 0.99);
        assert!(ds.rate(0, 1, 1) > 0.99 && ds.rate(0, 0, 0) > 0.99);
        assert!(ds.rate(2, 0, 0) < 0.9);
    }
}
