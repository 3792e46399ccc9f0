//! GLAD, Generative model of Labels, Abilities and Difficulties (Whitehill, Ruvolo, Wu, Bergsma
//! & Movellan, NIPS 2009, "Whose Vote Should Count More"): a worker of ability α answers an item
//! of inverse difficulty β correctly with probability σ(α·β), and otherwise gives any other
//! label alike. EM estimates each worker's ability, each item's difficulty and its posterior: a
//! pair that good workers split on is a hard pair, and a worker is not blamed much for it.
//!
//! This follows crowd-kit 1.4's `GLAD()` (100 EM iterations at most, `tol` 1e-5; uniform class
//! priors, not re-estimated; N(1, 1) priors on α and on log β, which it optimises in place of β):
//! E-step as it writes it; M-step by nonlinear conjugate gradients (Polak–Ribière, at most 25
//! iterations, stopped when no partial derivative exceeds 1e-2, as its `scipy.optimize.minimize`
//! call); stop when the expected log-likelihood per row of its table gains less than `tol`;
//! posteriors from the last E-step. Its M-step's line search is SciPy's (MINPACK's `dcsrch`);
//! this one is a textbook strong-Wolfe search from the same first step, so the two stop at
//! slightly different points of the same optimum: labels equal, posteriors within 1e-2 in the
//! reference test (`tests/stats`).
use crate::domain::dawid_skene::Answer;
use crate::domain::mace::most_probable;

/// crowd-kit's defaults.
pub const MAX_ITER: usize = 100;
/// ... the EM's tolerance ...
pub const TOL: f64 = 1e-5;
const M_STEP_MAX_ITER: usize = 25;
const M_STEP_GTOL: f64 = 1e-2;
const PRIOR_MEAN: f64 = 1.0;

/// What GLAD estimated.
#[derive(Debug, Clone, PartialEq)]
pub struct Glad {
    /// `posteriors[item][label]`; an item nobody answered has all zeros.
    pub posteriors: Vec<Vec<f64>>,
    /// `abilities[worker]`: α (0: guessing; negative: worse than guessing).
    pub abilities: Vec<f64>,
    /// `log_easiness[item]`: log β, crowd-kit's `betas_` (higher: easier).
    pub log_easiness: Vec<f64>,
    /// EM iterations run.
    pub iterations: usize,
}

impl Glad {
    /// The most probable label of each item (the first on ties); `None` for an item nobody
    /// answered.
    pub fn labels(&self) -> Vec<Option<usize>> {
        self.posteriors.iter().map(|p| most_probable(p)).collect()
    }
}

/// `log(1 + e^x)` without overflow.
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x
    } else if x < -30.0 {
        0.0
    } else {
        x.exp().ln_1p()
    }
}

struct Model<'a> {
    answers: &'a [Answer],
    items: usize,
    workers: usize,
    k: usize,
    answered: Vec<bool>,
}

impl Model<'_> {
    /// Posteriors, `post[item * k + label]`, under uniform priors.
    fn e_step(&self, alpha: &[f64], log_beta: &[f64]) -> Vec<f64> {
        let k = self.k;
        let wrong_share = ((k - 1) as f64).ln();
        let beta: Vec<f64> = log_beta.iter().map(|b| b.exp()).collect();
        let mut post = vec![0.0; self.items * k];
        for a in self.answers {
            // log σ(x) and log(1 − σ(x)) − log(k − 1), with x = α·β.
            let x = alpha[a.worker] * beta[a.item];
            let right = -softplus(-x);
            let wrong = right - x - wrong_share;
            for c in 0..k {
                post[a.item * k + c] += if c == a.label { right } else { wrong };
            }
        }
        for i in 0..self.items {
            let row = &mut post[i * k..(i + 1) * k];
            if !self.answered[i] {
                row.iter_mut().for_each(|v| *v = 0.0);
                continue;
            }
            // Uniform priors add the same to every label: they cancel.
            let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mut total = 0.0;
            for v in row.iter_mut() {
                *v = (*v - max).exp();
                total += *v;
            }
            row.iter_mut().for_each(|v| *v /= total);
        }
        post
    }

    /// The expected complete log-likelihood with the priors on α and log β (crowd-kit's `Q`,
    /// `log(norm.pdf(x - 1))` per parameter), and with `gradient`, ∂Q/∂α and ∂Q/∂log β, in one
    /// pass over the answers. Per answer, the posterior mass of the other labels is
    /// `1 − post[given]`, so the cost does not grow with the labels.
    fn q(
        &self,
        post: &[f64],
        alpha: &[f64],
        log_beta: &[f64],
        gradient: Option<(&mut [f64], &mut [f64])>,
    ) -> f64 {
        let k = self.k;
        let wrong_share = ((k - 1) as f64).ln();
        let beta: Vec<f64> = log_beta.iter().map(|b| b.exp()).collect();
        let mut q = 0.0;
        let mut gradient = gradient;
        if let Some((da, db)) = gradient.as_mut() {
            for (d, a) in da.iter_mut().zip(alpha) {
                *d = -(a - PRIOR_MEAN);
            }
            for (i, (d, b)) in db.iter_mut().zip(log_beta).enumerate() {
                *d = if self.answered[i] {
                    -(b - PRIOR_MEAN)
                } else {
                    0.0
                };
            }
        }
        for a in self.answers {
            let b = beta[a.item];
            let x = alpha[a.worker] * b;
            // One exponential serves −log σ(x) = log(1 + e^−x) (as `softplus`, exact beyond
            // ±30 as crowd-kit's) and σ(x) = 1 / (1 + e^−x).
            let e = (-x).exp();
            let minus_log_sigma = if x > 30.0 {
                0.0
            } else if x < -30.0 {
                -x
            } else {
                e.ln_1p()
            };
            let right = -minus_log_sigma;
            let wrong = right - x - wrong_share;
            let p = post[a.item * k + a.label];
            q += p * right + (1.0 - p) * wrong;
            if let Some((da, db)) = gradient.as_mut() {
                // Σ_c post[c] (δ(c = given) − σ(x)) = post[given] − σ(x).
                let g = p - 1.0 / (1.0 + e);
                da[a.worker] += g * b;
                db[a.item] += g * alpha[a.worker] * b;
            }
        }
        let log_pdf =
            |x: f64| -0.5 * (x - PRIOR_MEAN).powi(2) - 0.5 * (2.0 * std::f64::consts::PI).ln();
        q += alpha.iter().map(|&a| log_pdf(a)).sum::<f64>();
        q += log_beta
            .iter()
            .enumerate()
            .filter(|(i, _)| self.answered[*i])
            .map(|(_, &b)| log_pdf(b))
            .sum::<f64>();
        q
    }
}

/// Runs GLAD over `answers` with `items` items, `workers` workers and `k ≥ 2` labels.
pub fn glad(answers: &[Answer], items: usize, workers: usize, k: usize) -> Glad {
    let mut answered = vec![false; items];
    for a in answers {
        answered[a.item] = true;
    }
    let model = Model {
        answers,
        items,
        workers,
        k,
        answered,
    };
    let mut alpha = vec![1.0; workers];
    let mut log_beta = vec![1.0; items];
    let mut post = model.e_step(&alpha, &log_beta);
    // crowd-kit's first `Q` is not divided by the rows: the first iteration always runs on.
    let mut q = model.q(&post, &alpha, &log_beta, None);
    let rows = (answers.len() * k).max(1) as f64;
    let mut iterations = 0;
    for _ in 0..MAX_ITER {
        iterations += 1;
        let last = q;
        post = model.e_step(&alpha, &log_beta);
        m_step(&model, &post, &mut alpha, &mut log_beta);
        q = model.q(&post, &alpha, &log_beta, None) / rows;
        // crowd-kit reads a Q that is not a number as −∞, which ends the iterations.
        if !q.is_finite() || q - last < TOL {
            break;
        }
    }
    Glad {
        posteriors: post.chunks(k).map(<[f64]>::to_vec).collect(),
        abilities: alpha,
        log_easiness: log_beta,
        iterations,
    }
}

/// Maximises Q over (α, log β) with the posteriors fixed: conjugate gradients on −Q.
fn m_step(model: &Model, post: &[f64], alpha: &mut Vec<f64>, log_beta: &mut Vec<f64>) {
    let w = model.workers;
    let value_and_gradient = |x: &[f64], g: &mut [f64]| {
        let (a, b) = x.split_at(w);
        let (ga, gb) = g.split_at_mut(w);
        let q = model.q(post, a, b, Some((ga, gb)));
        g.iter_mut().for_each(|v| *v = -*v);
        -q
    };
    let mut x: Vec<f64> = alpha.iter().chain(log_beta.iter()).copied().collect();
    conjugate_gradient(&value_and_gradient, &mut x, M_STEP_GTOL, M_STEP_MAX_ITER);
    let (a, b) = x.split_at(w);
    *alpha = a.to_vec();
    *log_beta = b.to_vec();
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// A function's value at `x`, its gradient written into the second argument.
type ValueAndGradient<'a> = dyn Fn(&[f64], &mut [f64]) -> f64 + 'a;

/// Nonlinear conjugate gradients (Polak–Ribière, restarted when not a descent direction) as
/// SciPy's `minimize(method="CG")` runs it: stop when the largest partial derivative is at most
/// `gtol`, or after `max_iter` iterations.
fn conjugate_gradient(fg: &ValueAndGradient, x: &mut [f64], gtol: f64, max_iter: usize) {
    let mut g = vec![0.0; x.len()];
    let mut fx = fg(x, &mut g);
    let mut old_fx = fx + (dot(&g, &g)).sqrt() / 2.0;
    let mut p: Vec<f64> = g.iter().map(|v| -v).collect();
    for _ in 0..max_iter {
        if max_abs(&g) <= gtol {
            break;
        }
        let slope = dot(&g, &p);
        // SciPy's first step: from the last decrease, at most 1.
        let mut step = if slope != 0.0 {
            (1.01 * 2.0 * (fx - old_fx) / slope).min(1.0)
        } else {
            1.0
        };
        if step <= 0.0 {
            step = 1.0;
        }
        let Some((t, f_new, g_new)) = wolfe_line_search(fg, x, &p, fx, slope, step) else {
            break;
        };
        for (xi, pi) in x.iter_mut().zip(&p) {
            *xi += t * pi;
        }
        let gg = dot(&g, &g);
        let beta = ((dot(&g_new, &g_new) - dot(&g_new, &g)) / gg).max(0.0);
        for (pi, gn) in p.iter_mut().zip(&g_new) {
            *pi = -gn + beta * *pi;
        }
        if dot(&p, &g_new) > -0.01 * dot(&g_new, &g_new) {
            p = g_new.iter().map(|v| -v).collect();
        }
        old_fx = fx;
        fx = f_new;
        g = g_new;
    }
}

/// A step along `p` meeting the strong Wolfe conditions (c1 = 1e-4, c2 = 0.4, SciPy's for CG):
/// bracketing, then a zoom by cubic interpolation, safeguarded by bisection. `None` when none
/// is found.
fn wolfe_line_search(
    fg: &ValueAndGradient,
    x: &[f64],
    p: &[f64],
    f0: f64,
    slope0: f64,
    first: f64,
) -> Option<(f64, f64, Vec<f64>)> {
    const C1: f64 = 1e-4;
    const C2: f64 = 0.4;
    if slope0 >= 0.0 {
        return None;
    }
    // The sufficient-decrease test fails at `t`; a value that is not a number fails it too.
    let too_high = |ft: f64, t: f64| ft.is_nan() || ft > f0 + C1 * t * slope0;
    let at = |t: f64| {
        let xt: Vec<f64> = x.iter().zip(p).map(|(xi, pi)| xi + t * pi).collect();
        let mut g = vec![0.0; x.len()];
        let f = fg(&xt, &mut g);
        let slope = dot(&g, p);
        (f, slope, g)
    };
    // (t, f, slope) at the two ends of an interval holding a step; `lo` meets the decrease
    // condition.
    let zoom = |mut lo: (f64, f64, f64), mut hi: (f64, f64, f64)| {
        for _ in 0..40 {
            let t = cubic_min(lo, hi).unwrap_or((lo.0 + hi.0) / 2.0);
            let (ft, st, gt) = at(t);
            if too_high(ft, t) || ft >= lo.1 {
                hi = (t, ft, st);
            } else {
                if st.abs() <= -C2 * slope0 {
                    return Some((t, ft, gt));
                }
                if st * (hi.0 - lo.0) >= 0.0 {
                    hi = lo;
                }
                lo = (t, ft, st);
            }
            if (hi.0 - lo.0).abs() < 1e-14 {
                break;
            }
        }
        None
    };
    let mut prev = (0.0, f0, slope0);
    let mut t = first;
    for i in 0..40 {
        let (ft, st, gt) = at(t);
        if too_high(ft, t) || (i > 0 && ft >= prev.1) {
            return zoom(prev, (t, ft, st));
        }
        if st.abs() <= -C2 * slope0 {
            return Some((t, ft, gt));
        }
        if st >= 0.0 {
            return zoom((t, ft, st), prev);
        }
        prev = (t, ft, st);
        t *= 2.0;
    }
    None
}

/// The minimiser of the cubic through two points with their slopes, if it lies strictly inside
/// the interval (away from its ends).
fn cubic_min(a: (f64, f64, f64), b: (f64, f64, f64)) -> Option<f64> {
    let (ta, fa, sa) = a;
    let (tb, fb, sb) = b;
    let d1 = sa + sb - 3.0 * (fa - fb) / (ta - tb);
    let disc = d1 * d1 - sa * sb;
    if disc < 0.0 {
        return None;
    }
    let d2 = (tb - ta).signum() * disc.sqrt();
    let t = tb - (tb - ta) * (sb + d2 - d1) / (sb - sa + 2.0 * d2);
    let (lo, hi) = if ta < tb { (ta, tb) } else { (tb, ta) };
    let margin = 0.1 * (hi - lo);
    (t.is_finite() && t > lo + margin && t < hi - margin).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::domain::dawid_skene::fixtures::three_honest_and;

    #[test]
    fn a_worker_who_always_disagrees_gets_a_low_ability() {
        // Workers 0-2 give the truth (worker 2 errs on four items); worker 3 gives the other
        // label everywhere.
        let g = glad(&three_honest_and(|truth| 1 - truth), 21, 4, 2);
        let labels = g.labels();
        assert_eq!(
            labels[..20],
            (0..20).map(|i| Some(i % 2)).collect::<Vec<_>>()[..]
        );
        assert_eq!(labels[20], None);
        assert!(g.abilities[0] > g.abilities[2], "{:?}", g.abilities);
        assert!(g.abilities[3] < 0.0, "{:?}", g.abilities);
        for p in &g.posteriors[..20] {
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn conjugate_gradients_find_a_quadratic_s_minimum() {
        // f(x) = (x0 - 3)² + 10 (x1 + 1)² + x0 x1
        let fg = |x: &[f64], g: &mut [f64]| {
            g[0] = 2.0 * (x[0] - 3.0) + x[1];
            g[1] = 20.0 * (x[1] + 1.0) + x[0];
            (x[0] - 3.0).powi(2) + 10.0 * (x[1] + 1.0).powi(2) + x[0] * x[1]
        };
        let mut x = vec![0.0, 0.0];
        conjugate_gradient(&fg, &mut x, 1e-8, 100);
        // 2x0 + x1 = 6, x0 + 20x1 = -20.
        let x1 = (-20.0 - 3.0) / (20.0 - 0.5);
        let x0 = (6.0 - x1) / 2.0;
        assert!(
            (x[0] - x0).abs() < 1e-6 && (x[1] - x1).abs() < 1e-6,
            "{x:?}"
        );
    }
}
