//! The `confidence` gate rule: MultiPIT's accuracy threshold, decided by a sequential test so
//! that a worker is stopped only when their answers show, at the campaign's error level, that
//! they are below it.
//!
//! **The evidence.** A test pair's answer is right or wrong with the worker's accuracy `a`. An
//! ordinary pair with a majority of other workers' trusted votes is evidence too: the worker
//! agrees with that majority with probability `q(a) = m·a + (1 − m)·(1 − a)`, where `m` is how
//! often the majority is right. `m` is not known, but trusted votes come from workers the gate
//! has not found below the minimum `a₀`; taking each to be right at least `a₀` of the time,
//! independent votes make a majority that leads by `L` votes right with probability at least
//! `1 / (1 + ((1 − a₀)/a₀)^L)`
//! on a pair equally likely either way ([`majority_accuracy`]: 0.85, 0.97 and 0.99, capped, for
//! leads of 1, 2 and 3 or more at MultiPIT's 85%). So the worker's table keeps the agreements
//! by lead (`gate_table::KappaTable`), and a lone vote counts for far less than five that agree.
//! Where trusted workers are worse than the minimum (careless ones not yet stopped, early in a
//! campaign) a majority is right less often than that and the guarantee below does not hold
//! exactly; the simulation (`simulation.rs`, `Crowd::Early`: 1 to 5 other votes, one in five
//! at random) measures what happens instead.
//!
//! **The test.** Wald's likelihood ratio between "at the threshold" (`a = a₀`) and a stated
//! worse level (`a₁ = a₀ − d`, the campaign's `gate_worse_by`, [`DEFAULT_WORSE_BY`] unless it
//! says otherwise), over all of a worker's tests and majority
//! agreements, looked at after every answer. The worker is stopped when it reaches
//! `1 / (α · OVERALL_SHARE)`. If each majority is right at least as often as its lead says,
//! then under any `a ≥ a₀` each new factor has expectation at most 1, the ratio is a
//! non-negative supermartingale, and by Ville's inequality the chance it *ever* reaches the
//! bound is at most its share of `α`, however many looks. Two things make this approximate in
//! the running campaign: majorities made of workers below the minimum, and majorities that
//! change after the worker answered (a later vote or a stopped worker moves a pair's majority,
//! and the gate's table with it). The simulation measures the first (`Crowd::Early`, numbers in
//! docs/quality.md); it draws each pair's other votes once, so it does not measure the second.
//!
//! **The worse level.** It sets what the test is tuned to detect: on average the ratio rises
//! for a worker below about half way between `a₁` and `a₀` and falls above, and the `a₁` that
//! stops a worker of accuracy `a` soonest is `a` itself. At `d = 0.1` (85% against 75%, the
//! default) most workers at 75% are stopped within 100 judgments and workers at chance within
//! 30; at `d = 0.2` (85% against 65%) a worker at 75% is nearly a coin toss (the break-even
//! point is about 76%). The default error level, [`super::settings::DEFAULT_GATE_ALPHA`], is
//! what telling 75% from 85% within about 100 observations costs: a worker exactly at the
//! minimum is stopped at most that often (measured: well under it). `simulation.rs` measures
//! the trade.
//!
//! **Chance-level workers.** Someone who always answers "paraphrase" agrees with most
//! majorities in a campaign of mostly paraphrases. So two more ratios look at each class of
//! pair on its own: on pairs whose majority says "paraphrase", and on those whose majority says
//! "not", each at `2·a₀ − 1` against [`CLASS_WORSE`] (a worker whose *balanced* accuracy is at
//! least `a₀` is right at least `2·a₀ − 1` of the time on each class). They are a check for
//! answers no better than chance on one kind of pair, with `α · (1 − OVERALL_SHARE −
//! KAPPA_SHARE) / 2` each;
//! a worker accurate overall but weak on a rare class can be stopped by them.
//!
//! **Kappa.** MultiPIT's second threshold, kappa against the others' majority (0.2), is tested
//! too, at the worker's judgment [`KAPPA_FIRST_LOOK`] and at every doubling (50, 100, 200, ...):
//! the worker is stopped when their kappa is below the minimum by more than the look's normal
//! quantile times its standard error, taken under the hypothesis that kappa *is* the minimum
//! (Fleiss-Cohen-Everitt's variance on the table with the worker's and the majority's label
//! rates as observed and kappa at the minimum, `agreement::cohen_kappa_se_at`: the error at the
//! estimate shrinks to nothing when one class is rare, and would stop careful workers there).
//! The look is skipped while either of the majority's labels has fewer than
//! [`KAPPA_MIN_CLASS`] pairs. Look `k` (from 0) spends `α · KAPPA_SHARE / 2^(k+2)`, so all the
//! looks together spend at most `α · KAPPA_SHARE / 2` nominally (Bonferroni), the other half
//! left for the large-sample test's heavier tails ([`kappa_look_level`]); measured, workers at
//! the minimum are stopped less often than `α · KAPPA_SHARE`. The looks are counted in the worker's own judgments, which rise by one with each
//! answer, so each look is taken at a single answer (the pair counts move with other workers'
//! votes and trust; a reload at the same judgment decides again, a second look the bound does
//! not count). A worker whose label rate makes kappa at the minimum impossible against the
//! majority's (about 90% one label on balanced pairs) is left to the class ratios. It
//! is the slow check: telling kappa 0.2 from 0 at these levels takes a few hundred pairs, and
//! the per-class ratios stop the workers no better than chance long before (`simulation.rs`
//! measures both). The `paper` and `evidence` rules (`gate.rs`) stay selectable.
use crate::domain::agreement::{cohen_kappa_2x2, cohen_kappa_se_at};
use serde::{Deserialize, Serialize};

/// How often the majority of the other workers' trusted votes is taken to be right by the
/// per-class ratios and the harvest check (the pooled ratio takes it from the majority's lead:
/// [`majority_accuracy`]).
pub const MAJORITY_ACCURACY: f64 = 0.95;
/// The most a majority is taken to be right, however far it leads.
pub const MAJORITY_ACCURACY_CAP: f64 = 0.99;
/// The worse accuracy the pooled ratio tests against unless a campaign says otherwise: the
/// threshold minus this.
pub const DEFAULT_WORSE_BY: f64 = 0.1;
/// The accuracy on one class of pairs the per-class ratios test against.
pub const CLASS_WORSE: f64 = 0.05;
/// The share of the error level spent on the pooled ratio ...
pub const OVERALL_SHARE: f64 = 0.8;
/// ... and on the kappa check, over all its looks; each class ratio gets half the rest.
pub const KAPPA_SHARE: f64 = 0.1;
/// The kappa check's first look, at this judgment of the worker's (test pairs included); it
/// looks again at every doubling.
pub const KAPPA_FIRST_LOOK: u32 = 50;
/// The kappa check skips a look while the others' majority has said either label on fewer
/// pairs of the worker's than this.
pub const KAPPA_MIN_CLASS: u64 = 10;
// The shares leave some of the error level to the class ratios.
const _: () = assert!(OVERALL_SHARE + KAPPA_SHARE < 1.0);

/// The sequential test a campaign runs: its accuracy minimum, the worse level it is tested
/// against (the minimum minus `worse_by`) and its error level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Test {
    /// The accuracy a worker must be above (MultiPIT: 85%).
    pub minimum: f64,
    /// How far below the minimum the alternative lies.
    pub worse_by: f64,
    /// The most often a worker at the minimum is stopped, over any number of looks.
    pub alpha: f64,
    /// The kappa against the others' majority a worker must be above (MultiPIT: 0.2).
    pub min_kappa: f64,
}

/// A worker's evidence, as counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Test pairs answered correctly ...
    pub tests_correct: u32,
    /// ... and wrongly.
    pub tests_wrong: u32,
    /// Ordinary pairs whose others' majority says "paraphrase": the worker agreed ...
    pub paraphrase_agreed: u32,
    /// ... or not.
    pub paraphrase_disagreed: u32,
    /// Ordinary pairs whose others' majority says "not paraphrase": the worker agreed ...
    pub not_agreed: u32,
    /// ... or not.
    pub not_disagreed: u32,
    /// Of all those ordinary pairs, the worker agreed with a majority 2 or more votes ahead ...
    pub lead2_agreed: u32,
    /// ... or disagreed with it ...
    pub lead2_disagreed: u32,
    /// ... and the same with a majority 3 or more votes ahead: agreed ...
    pub lead3_agreed: u32,
    /// ... or disagreed.
    pub lead3_disagreed: u32,
    /// The worker's judgments, test pairs included: the kappa check looks at set counts of them.
    #[serde(default)]
    pub judgments: u32,
}

impl Evidence {
    /// Agreements with the others' majority, both classes.
    pub fn agreed(&self) -> u32 {
        self.paraphrase_agreed + self.not_agreed
    }

    /// Disagreements with the others' majority, both classes.
    pub fn disagreed(&self) -> u32 {
        self.paraphrase_disagreed + self.not_disagreed
    }

    /// The 2×2 table of (the worker's label, the others' majority), as
    /// [`cohen_kappa_2x2`] reads it: `[label][majority]`, index 1 "paraphrase".
    pub fn kappa_table(&self) -> [[u64; 2]; 2] {
        let n = u64::from;
        [
            [n(self.not_agreed), n(self.paraphrase_disagreed)],
            [n(self.not_disagreed), n(self.paraphrase_agreed)],
        ]
    }

    /// (agreed, disagreed) with majorities that lead by exactly 1, exactly 2, and 3 or more.
    pub fn by_lead(&self) -> [(u32, u32); 3] {
        let (a3, d3) = (
            self.lead3_agreed.min(self.lead2_agreed),
            self.lead3_disagreed.min(self.lead2_disagreed),
        );
        let (a2, d2) = (
            self.lead2_agreed.min(self.agreed()),
            self.lead2_disagreed.min(self.disagreed()),
        );
        [
            (self.agreed() - a2, self.disagreed() - d2),
            (a2 - a3, d2 - d3),
            (a3, d3),
        ]
    }
}

/// How often a majority of the others that leads by `lead` votes (1, 2, 3 or more: the index
/// of [`Evidence::by_lead`] plus one) is taken to be right, when the gate keeps each of them
/// right at least `minimum` of the time: independent votes each right `a` of the time, on a pair
/// equally likely either way, make a majority `lead` ahead right with probability
/// `1 / (1 + ((1 − a) / a)^lead)`, at least the value at `a = minimum`; capped at
/// [`MAJORITY_ACCURACY_CAP`] (no majority is proof against a shared mistake). At MultiPIT's 85%:
/// 0.85, 0.97 and 0.99.
pub fn majority_accuracy(minimum: f64, lead: u32) -> f64 {
    let a = minimum.clamp(0.5, 0.999);
    let odds = ((1.0 - a) / a).powi(lead.max(1) as i32);
    (1.0 / (1.0 + odds)).min(MAJORITY_ACCURACY_CAP)
}

/// Which ratio reached its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ground {
    /// Tests and majority agreements together.
    Overall,
    /// Pairs the others' majority calls paraphrases.
    ParaphrasePairs,
    /// Pairs the others' majority calls not paraphrases.
    NotPairs,
    /// Kappa against the others' majority, at one of its looks.
    Kappa,
}

/// The kappa check at one of its looks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KappaLook {
    /// The worker's judgment the look is taken at ...
    pub judgments: u32,
    /// ... and their pairs with a majority of others then.
    pub items: u32,
    /// Kappa against the others' majority.
    pub kappa: f64,
    /// The most kappa can be given the evidence at this look: the estimate plus the look's
    /// quantile times the standard error at the minimum. Below the minimum exactly when the
    /// test stops the worker.
    pub upper: f64,
    /// The look's confidence level (one minus its share of the error level).
    pub confidence: f64,
}

impl KappaLook {
    /// The confidence level in percent to one decimal, rounded down so as not to claim more
    /// (99.953% is "99.9").
    pub fn confidence_percent(&self) -> f64 {
        (self.confidence * 1000.0 + 1e-9).floor() / 10.0
    }
}

/// The one-sided error level the kappa check spends at the worker's judgment `judgments`,
/// `None` when it does not look there: `α · KAPPA_SHARE / 2^(k+2)` at `KAPPA_FIRST_LOOK · 2^k`,
/// half the share in all. The test's normal approximation is a large-sample one whose tails run
/// heavier than nominal at these sizes (measured by simulation: about a fifth heavier with
/// balanced label rates at α 0.3, where 1.6-1.8% of workers at the minimum fall below −2.17
/// standard errors against 1.5% nominal; up to 1.6-1.8 times with the worker's and the
/// majority's rates far apart at α 0.1), so the looks spend half the share nominally and the
/// measured rate stays within the whole share
/// (`a_worker_at_the_kappa_minimum_is_stopped_by_it_less_often_than_its_share`).
pub fn kappa_look_level(alpha: f64, judgments: u32) -> Option<f64> {
    if judgments < KAPPA_FIRST_LOOK || !judgments.is_multiple_of(KAPPA_FIRST_LOOK) {
        return None;
    }
    let doublings = judgments / KAPPA_FIRST_LOOK;
    doublings
        .is_power_of_two()
        .then(|| alpha * KAPPA_SHARE / 2f64.powi(doublings.trailing_zeros() as i32 + 2))
}

/// The judgments at which the kappa check looks in a campaign whose gate applies from judgment
/// `from` on: the doublings of [`KAPPA_FIRST_LOOK`] at or after it (the gate decides nothing
/// before `from`, so a look before it is never taken).
pub fn kappa_looks_from(from: u32) -> impl Iterator<Item = u32> {
    (0..u32::BITS)
        .map_while(|k| KAPPA_FIRST_LOOK.checked_mul(1u32.checked_shl(k)?))
        .filter(move |&n| n >= from)
}

/// The kappa check on `e` at the campaign's error level `alpha` and minimum `min_kappa`: `None`
/// between its looks, while a class of the majority's has fewer than [`KAPPA_MIN_CLASS`] pairs,
/// and where kappa or its error at the minimum is undefined.
pub fn kappa_look(alpha: f64, min_kappa: f64, e: &Evidence) -> Option<KappaLook> {
    let level = kappa_look_level(alpha, e.judgments)?;
    let table = e.kappa_table();
    let (not_pairs, paraphrase_pairs) = (table[0][0] + table[1][0], table[0][1] + table[1][1]);
    if not_pairs.min(paraphrase_pairs) < KAPPA_MIN_CLASS {
        return None;
    }
    let kappa = cohen_kappa_2x2(table)?;
    let se = cohen_kappa_se_at(table, min_kappa)?;
    Some(KappaLook {
        judgments: e.judgments,
        items: e.agreed() + e.disagreed(),
        kappa,
        upper: kappa + normal_quantile(1.0 - level) * se,
        confidence: 1.0 - level,
    })
}

/// The standard normal quantile (Acklam's rational approximation, relative error below
/// 1.2e-9), for `p` in (0, 1).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.383_577_518_672_69e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// What the rule makes of a worker's evidence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Assessment {
    /// The most likely accuracy given the evidence (`None` without any).
    pub estimate: Option<f64>,
    /// The upper confidence bound on the accuracy at the campaign's level, valid after any
    /// number of looks (`None` without evidence).
    pub upper: Option<f64>,
    /// The pooled ratio's logarithm ...
    pub log_ratio: f64,
    /// ... and the bound it stops at, `ln(1 / (α · OVERALL_SHARE))`.
    pub log_bound: f64,
    /// How far the further of the two class ratios is towards its own bound (0 to 1).
    pub class_progress: f64,
    /// The kappa check, when the evidence is at one of its looks.
    pub kappa: Option<KappaLook>,
    /// The ratio or check that reached its bound, if one did.
    pub stop: Option<Ground>,
}

impl Assessment {
    /// How far the evidence is towards a stop, the furthest of the three ratios: 0 = nothing
    /// against the worker, 1 = stopped.
    pub fn progress(&self) -> f64 {
        (self.log_ratio / self.log_bound)
            .clamp(0.0, 1.0)
            .max(self.class_progress)
    }
}

/// `ln` of the likelihood ratio of accuracy `a1` against `a0` for `right` agreeing and `wrong`
/// disagreeing observations with a reference right `m` of the time (`m = 1`: test pairs).
pub fn log_ratio(a0: f64, a1: f64, m: f64, right: u32, wrong: u32) -> f64 {
    let q = |a: f64| m * a + (1.0 - m) * (1.0 - a);
    let (q0, q1) = (q(a0), q(a1));
    let term = |count: u32, p1: f64, p0: f64| {
        if count == 0 {
            0.0
        } else {
            f64::from(count) * (p1.max(1e-12).ln() - p0.max(1e-12).ln())
        }
    };
    term(right, q1, q0) + term(wrong, 1.0 - q1, 1.0 - q0)
}

/// The pooled ratio of `a0` against `a0 − worse_by`, with majorities right as often as their
/// lead says for trusted workers at `minimum`.
fn pooled(a0: f64, worse_by: f64, minimum: f64, e: &Evidence) -> f64 {
    let a1 = (a0 - worse_by).max(0.0);
    let majorities: f64 = (1..)
        .zip(e.by_lead())
        .map(|(lead, (agreed, disagreed))| {
            log_ratio(a0, a1, majority_accuracy(minimum, lead), agreed, disagreed)
        })
        .sum();
    log_ratio(a0, a1, 1.0, e.tests_correct, e.tests_wrong) + majorities
}

/// The rule `t` on `e`.
pub fn assess(t: &Test, e: &Evidence) -> Assessment {
    let (threshold, alpha) = (t.minimum, t.alpha);
    let log_bound = (1.0 / (alpha * OVERALL_SHARE)).ln();
    let log_ratio_now = pooled(threshold, t.worse_by, threshold, e);
    let class_bound = (2.0 / (alpha * (1.0 - OVERALL_SHARE - KAPPA_SHARE))).ln();
    let t0 = 2.0 * threshold - 1.0;
    // Each class ratio as a share of its bound (0 where the class test does not apply).
    let class = |agreed: u32, disagreed: u32| {
        if t0 > CLASS_WORSE {
            (log_ratio(t0, CLASS_WORSE, MAJORITY_ACCURACY, agreed, disagreed) / class_bound)
                .clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let paraphrase = class(e.paraphrase_agreed, e.paraphrase_disagreed);
    let not = class(e.not_agreed, e.not_disagreed);
    let kappa = kappa_look(alpha, t.min_kappa, e);
    let stop = if log_ratio_now >= log_bound {
        Some(Ground::Overall)
    } else if paraphrase >= 1.0 {
        Some(Ground::ParaphrasePairs)
    } else if not >= 1.0 {
        Some(Ground::NotPairs)
    } else if kappa.is_some_and(|k| k.upper < t.min_kappa) {
        Some(Ground::Kappa)
    } else {
        None
    };
    let any = e.tests_correct + e.tests_wrong + e.agreed() + e.disagreed() > 0;
    Assessment {
        estimate: any.then(|| estimate(threshold, e)),
        upper: any.then(|| upper_bound(log_bound, t.worse_by, threshold, e)),
        log_ratio: log_ratio_now,
        log_bound,
        class_progress: paraphrase.max(not),
        kappa,
        stop,
    }
}

/// The largest accuracy the pooled ratio does not reject: every accuracy above it would have
/// been rejected by now.
fn upper_bound(log_bound: f64, worse_by: f64, minimum: f64, e: &Evidence) -> f64 {
    if pooled(1.0 - 1e-9, worse_by, minimum, e) < log_bound {
        return 1.0;
    }
    // The ratio against a0 grows as a0 rises past the evidence: bisect for where it crosses.
    let (mut lo, mut hi) = (1e-6, 1.0 - 1e-9);
    if pooled(lo, worse_by, minimum, e) >= log_bound {
        return lo;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if pooled(mid, worse_by, minimum, e) >= log_bound {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo
}

/// The accuracy that makes the evidence most likely, majorities right as the pooled ratio takes
/// them (golden-section search on a concave log-likelihood).
fn estimate(minimum: f64, e: &Evidence) -> f64 {
    let t = |n: u32, p: f64| {
        if n == 0 {
            0.0
        } else {
            f64::from(n) * p.max(1e-12).ln()
        }
    };
    let ll = |a: f64| {
        let majorities: f64 = (1..)
            .zip(e.by_lead())
            .map(|(lead, (agreed, disagreed))| {
                let m = majority_accuracy(minimum, lead);
                let q = m * a + (1.0 - m) * (1.0 - a);
                t(agreed, q) + t(disagreed, 1.0 - q)
            })
            .sum();
        t(e.tests_correct, a) + t(e.tests_wrong, 1.0 - a) + majorities
    };
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    let g = (5.0_f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let x1 = hi - g * (hi - lo);
        let x2 = lo + g * (hi - lo);
        if ll(x1) < ll(x2) {
            lo = x1;
        } else {
            hi = x2;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test at `minimum` and `alpha`, against the minimum minus 0.2 (the cases below were
    /// worked out for it; the closer default has its own test).
    fn at(minimum: f64, alpha: f64) -> Test {
        Test {
            minimum,
            worse_by: 0.2,
            alpha,
            min_kappa: 0.2,
        }
    }

    #[test]
    fn a_majority_is_trusted_as_far_as_it_leads() {
        // At MultiPIT's 85%: 0.85 for one vote ahead, 0.97 for two, capped at 0.99 from three.
        assert!((majority_accuracy(0.85, 1) - 0.85).abs() < 1e-12);
        let two = 1.0 / (1.0 + (0.15f64 / 0.85).powi(2));
        assert!((majority_accuracy(0.85, 2) - two).abs() < 1e-12);
        assert!((two - 0.9698).abs() < 1e-4);
        assert_eq!(majority_accuracy(0.85, 3), MAJORITY_ACCURACY_CAP);
        assert_eq!(majority_accuracy(0.85, 9), MAJORITY_ACCURACY_CAP);
        // A lower minimum trusts a majority less; never below a coin toss.
        assert!(majority_accuracy(0.7, 2) < two);
        assert_eq!(majority_accuracy(0.2, 1), 0.5);
    }

    #[test]
    fn the_leads_split_the_agreements_and_wide_leads_weigh_more() {
        let thin = Evidence {
            paraphrase_agreed: 15,
            paraphrase_disagreed: 6,
            not_agreed: 15,
            not_disagreed: 6,
            ..Evidence::default()
        };
        let wide = Evidence {
            lead2_agreed: 30,
            lead2_disagreed: 12,
            lead3_agreed: 30,
            lead3_disagreed: 12,
            ..thin
        };
        let mixed = Evidence {
            lead2_agreed: 20,
            lead2_disagreed: 6,
            lead3_agreed: 9,
            lead3_disagreed: 2,
            ..thin
        };
        assert_eq!(thin.by_lead(), [(30, 12), (0, 0), (0, 0)]);
        assert_eq!(wide.by_lead(), [(0, 0), (0, 0), (30, 12)]);
        assert_eq!(mixed.by_lead(), [(10, 6), (11, 4), (9, 2)]);
        // Counts out of step (which the stored tables rule out) never underflow.
        let odd = Evidence {
            lead2_agreed: 50,
            lead3_disagreed: 3,
            ..thin
        };
        assert_eq!(odd.by_lead(), [(0, 12), (30, 0), (0, 0)]);
        // 71% agreement: thin majorities (right perhaps 85% of the time) leave it open whether
        // the worker is at 85%; wide ones (right 99% of the time) show they are not.
        let t = Test {
            minimum: 0.85,
            worse_by: DEFAULT_WORSE_BY,
            alpha: 0.3,
            min_kappa: 0.2,
        };
        let (a_thin, a_wide) = (assess(&t, &thin), assess(&t, &wide));
        assert_eq!(a_thin.stop, None, "{a_thin:?}");
        assert_eq!(a_wide.stop, Some(Ground::Overall), "{a_wide:?}");
        assert!(a_wide.upper.unwrap() < a_thin.upper.unwrap());
        // The estimate reads the same agreement share as a lower accuracy when the majority is
        // more often right.
        assert!(a_wide.estimate.unwrap() < a_thin.estimate.unwrap());
        assert!((a_wide.estimate.unwrap() - 0.72).abs() < 0.02, "{a_wide:?}");
        assert!((a_thin.estimate.unwrap() - 0.81).abs() < 0.02, "{a_thin:?}");
    }

    fn tests_only(correct: u32, wrong: u32) -> Evidence {
        Evidence {
            tests_correct: correct,
            tests_wrong: wrong,
            ..Evidence::default()
        }
    }

    #[test]
    fn the_log_ratio_is_walds() {
        // One wrong test: ln(0.4 / 0.15); one right: ln(0.6 / 0.85).
        let l = log_ratio(0.85, 0.6, 1.0, 1, 1);
        assert!((l - ((0.4f64 / 0.15).ln() + (0.6f64 / 0.85).ln())).abs() < 1e-12);
        // A reference right half the time carries no evidence.
        assert!(log_ratio(0.85, 0.6, 0.5, 7, 3).abs() < 1e-12);
    }

    #[test]
    fn no_evidence_keeps_and_says_nothing() {
        let a = assess(&at(0.85, 0.1), &Evidence::default());
        assert_eq!((a.stop, a.estimate, a.upper), (None, None, None));
        assert_eq!(a.progress(), 0.0);
    }

    #[test]
    fn one_miss_in_six_does_not_stop_but_three_do() {
        // The paper's point rule stops at 5 of 6 (83%); the test does not.
        let a = assess(&at(0.85, 0.1), &tests_only(5, 1));
        assert_eq!(a.stop, None);
        assert!(a.upper.unwrap() > 0.85);
        // 3 of 6 is not enough on test pairs alone either (a one in 20 chance at 85%) ...
        assert_eq!(assess(&at(0.85, 0.1), &tests_only(3, 3)).stop, None);
        // ... but 3 of 6 with matching disagreement on ordinary pairs is.
        let e = Evidence {
            paraphrase_agreed: 6,
            paraphrase_disagreed: 5,
            not_agreed: 6,
            not_disagreed: 5,
            ..tests_only(3, 3)
        };
        let a = assess(&at(0.85, 0.1), &e);
        assert_eq!(a.stop, Some(Ground::Overall));
        assert!(a.upper.unwrap() < 0.85, "{a:?}");
    }

    #[test]
    fn the_upper_bound_and_the_stop_agree() {
        let mut rng = crate::domain::rng::SplitMix64::new(5);
        for _ in 0..500 {
            let mut n = || (rng.unit() * 30.0) as u32;
            let mut e = Evidence {
                tests_correct: n(),
                tests_wrong: n() / 4,
                paraphrase_agreed: n(),
                paraphrase_disagreed: n() / 3,
                not_agreed: n(),
                not_disagreed: n() / 3,
                ..Evidence::default()
            };
            // Some of the agreements with wide leads, as many as there are at most.
            let mut share = |of: u32| (rng.unit() * f64::from(of + 1)) as u32;
            e.lead2_agreed = share(e.agreed());
            e.lead2_disagreed = share(e.disagreed());
            e.lead3_agreed = share(e.lead2_agreed);
            e.lead3_disagreed = share(e.lead2_disagreed);
            let a = assess(&at(0.85, 0.1), &e);
            let upper = a.upper.unwrap();
            if a.stop == Some(Ground::Overall) {
                assert!(upper <= 0.85 + 1e-6, "{e:?} {a:?}");
            } else {
                assert!(upper >= 0.85 - 1e-6, "{e:?} {a:?}");
            }
            let est = a.estimate.unwrap();
            assert!((0.0..=1.0).contains(&est));
        }
    }

    #[test]
    fn an_always_paraphrase_worker_is_stopped_on_the_other_class() {
        // Mostly paraphrases: 80% agreement overall, but every "not" majority missed.
        let e = Evidence {
            tests_correct: 3,
            tests_wrong: 3,
            paraphrase_agreed: 20,
            not_disagreed: 6,
            ..Evidence::default()
        };
        assert_eq!(assess(&at(0.85, 0.1), &e).stop, Some(Ground::NotPairs));
        let mirrored = Evidence {
            tests_correct: 3,
            tests_wrong: 3,
            not_agreed: 20,
            paraphrase_disagreed: 6,
            ..Evidence::default()
        };
        assert_eq!(
            assess(&at(0.85, 0.1), &mirrored).stop,
            Some(Ground::ParaphrasePairs)
        );
    }

    #[test]
    fn any_threshold_gives_a_bound_that_agrees_with_the_stop() {
        for threshold in [0.0, 0.1, 0.5, 0.85, 1.0] {
            for e in [tests_only(0, 10), tests_only(5, 5), tests_only(10, 0)] {
                let a = assess(&at(threshold, 0.1), &e);
                let upper = a.upper.unwrap();
                assert!((0.0..=1.0).contains(&upper), "{threshold} {e:?} {a:?}");
                if a.stop == Some(Ground::Overall) {
                    assert!(upper <= threshold + 1e-6, "{threshold} {e:?} {a:?}");
                }
            }
        }
        // Nothing is ever below a threshold of 0; everything is below 1 once there is a miss.
        assert_eq!(assess(&at(0.0, 0.1), &tests_only(0, 50)).stop, None);
        assert_eq!(
            assess(&at(1.0, 0.1), &tests_only(50, 1)).stop,
            Some(Ground::Overall)
        );
    }

    #[test]
    fn a_lower_error_level_asks_for_more_evidence() {
        let e = tests_only(6, 6);
        assert_eq!(assess(&at(0.85, 0.1), &e).stop, Some(Ground::Overall));
        assert_eq!(assess(&at(0.85, 0.001), &e).stop, None);
    }

    #[test]
    fn a_closer_worse_level_finds_workers_just_below_sooner_and_guessers_later() {
        let closer = Test {
            worse_by: 0.1,
            ..at(0.85, 0.1)
        };
        // 75% of 80 checks: a coin toss for 85% against 65%, clear for 85% against 75%.
        let near = tests_only(60, 20);
        assert_eq!(assess(&at(0.85, 0.1), &near).stop, None);
        assert_eq!(assess(&closer, &near).stop, Some(Ground::Overall));
        // Half of 12: the other way round.
        let guessing = tests_only(6, 6);
        assert_eq!(
            assess(&at(0.85, 0.1), &guessing).stop,
            Some(Ground::Overall)
        );
        assert_eq!(assess(&closer, &guessing).stop, None);
        // The bound agrees with the stop under either level.
        assert!(assess(&closer, &near).upper.unwrap() <= 0.85 + 1e-6);
        assert!(assess(&closer, &guessing).upper.unwrap() >= 0.85 - 1e-6);
    }

    #[test]
    fn the_normal_quantile_is_accurate() {
        for (p, z) in [
            (0.5, 0.0),
            (0.975, 1.959_963_984_540_054),
            (0.99, 2.326_347_874_040_841),
            (0.999, 3.090_232_306_167_813),
            (0.01, -2.326_347_874_040_841),
            (0.999_99, 4.264_890_793_922_602),
        ] {
            assert!(
                (normal_quantile(p) - z).abs() < 1e-8,
                "{p}: {}",
                normal_quantile(p)
            );
        }
    }

    #[test]
    fn kappa_is_looked_at_every_doubling_and_spends_its_share_at_most() {
        let looks: Vec<u32> = (0..=5_000)
            .filter(|&n| kappa_look_level(0.3, n).is_some())
            .collect();
        assert_eq!(looks, [50, 100, 200, 400, 800, 1600, 3200]);
        assert_eq!(kappa_look_level(0.3, 50), Some(0.3 * KAPPA_SHARE / 4.0));
        assert_eq!(kappa_look_level(0.3, 200), Some(0.3 * KAPPA_SHARE / 16.0));
        let spent: f64 = (0..=1_000_000)
            .filter_map(|n| kappa_look_level(0.3, n))
            .sum();
        assert!(spent < 0.3 * KAPPA_SHARE / 2.0, "{spent}");
    }

    #[test]
    fn the_looks_a_campaign_takes_start_where_its_gate_does() {
        let first = |from: u32| kappa_looks_from(from).take(3).collect::<Vec<_>>();
        assert_eq!(first(1), [50, 100, 200]);
        assert_eq!(first(50), [50, 100, 200]);
        assert_eq!(first(51), [100, 200, 400]);
        assert_eq!(first(300), [400, 800, 1600]);
        // Every look it names is one the check takes, and none it takes is left out.
        let named: Vec<u32> = kappa_looks_from(0).take_while(|&n| n <= 100_000).collect();
        let taken: Vec<u32> = (0..=100_000)
            .filter(|&n| kappa_look_level(0.3, n).is_some())
            .collect();
        assert_eq!(named, taken);
        assert_eq!(kappa_looks_from(u32::MAX).count(), 0);
    }

    /// At judgment 800 (with `extra` more), 640 pairs with a majority of others, seven in eight
    /// of them called paraphrases: the worker agrees with 437 of 560 "paraphrase" majorities and
    /// 28 of 80 "not" ones, 73% in all on majorities one vote ahead. The accuracy ratios find
    /// nothing clear; kappa is 0.09.
    fn weak_kappa(extra: u32) -> Evidence {
        Evidence {
            paraphrase_agreed: 437,
            paraphrase_disagreed: 123,
            not_agreed: 28,
            not_disagreed: 52,
            judgments: 800 + extra,
            ..Evidence::default()
        }
    }

    #[test]
    fn kappa_stops_a_worker_only_at_a_look_and_when_it_is_clearly_below_the_minimum() {
        let t = |min_kappa: f64| Test {
            min_kappa,
            ..at(0.85, 0.3)
        };
        let e = weak_kappa(0);
        let a = assess(&t(0.4), &e);
        let look = a.kappa.unwrap();
        assert_eq!((look.judgments, look.items), (800, 640));
        assert!((look.kappa - 0.095).abs() < 0.01, "{look:?}");
        assert!(look.upper > look.kappa && look.upper < 0.4, "{look:?}");
        assert_eq!(a.stop, Some(Ground::Kappa), "{a:?}");
        // The accuracy ratios alone keep this worker.
        assert!(a.log_ratio < a.log_bound && a.class_progress < 1.0, "{a:?}");
        // At 0.2 it is not clear enough; one judgment later there is no look.
        let at_02 = assess(&t(0.2), &e);
        assert!(at_02.kappa.unwrap().upper > 0.2, "{at_02:?}");
        assert_eq!(at_02.stop, None);
        let off_look = assess(&t(0.4), &weak_kappa(1));
        assert_eq!((off_look.kappa, off_look.stop), (None, None));
    }

    /// The share of `workers` simulated workers the kappa check alone stops over `judgments`
    /// judgments each, every judgment an ordinary pair whose majority says "paraphrase" with
    /// probability `paraphrase`, the worker agreeing with it with probability `agree_p` there
    /// and `agree_n` on the others.
    fn kappa_stop_rate(
        seed: u64,
        workers: u32,
        judgments: u32,
        paraphrase: f64,
        (agree_p, agree_n): (f64, f64),
    ) -> f64 {
        let mut rng = crate::domain::rng::SplitMix64::new(seed);
        let t = at(0.85, 0.3);
        let mut stopped = 0;
        for _ in 0..workers {
            let mut e = Evidence::default();
            for _ in 0..judgments {
                e.judgments += 1;
                if rng.unit() < paraphrase {
                    if rng.unit() < agree_p {
                        e.paraphrase_agreed += 1;
                    } else {
                        e.paraphrase_disagreed += 1;
                    }
                } else if rng.unit() < agree_n {
                    e.not_agreed += 1;
                } else {
                    e.not_disagreed += 1;
                }
                if kappa_look(t.alpha, t.min_kappa, &e).is_some_and(|k| k.upper < t.min_kappa) {
                    stopped += 1;
                    break;
                }
            }
        }
        f64::from(stopped) / f64::from(workers)
    }

    #[test]
    fn a_worker_at_the_kappa_minimum_is_stopped_by_it_less_often_than_its_share() {
        // Agreeing 60% of the time on each class, half the majorities each way: kappa 0.2, the
        // minimum; looked at up to judgment 3,200.
        let rate = kappa_stop_rate(11, 4_000, 3_200, 0.5, (0.6, 0.6));
        assert!(rate < 0.3 * KAPPA_SHARE, "{rate}");
        // Four in five majorities "paraphrase", the worker agreeing with 85% of those and 34.6%
        // of the others: kappa 0.2 again, the two label rates apart.
        let rate = kappa_stop_rate(12, 4_000, 1_600, 0.8, (0.85, 0.346));
        assert!(rate < 0.3 * KAPPA_SHARE, "{rate}");
    }

    #[test]
    fn careful_workers_on_a_rare_class_are_not_stopped_by_kappa() {
        // 90% and 95% of the majorities "paraphrase", the worker right 90-95% on each class:
        // kappa well above 0.2, the error at the estimate small. None stopped.
        for (paraphrase, agree) in [(0.9, 0.9), (0.95, 0.95)] {
            let rate = kappa_stop_rate(12, 2_000, 800, paraphrase, (agree, agree));
            assert_eq!(rate, 0.0, "{paraphrase} {agree}");
        }
        // Every majority "paraphrase" but one, one miss: kappa 0, no evidence of anything.
        let e = Evidence {
            paraphrase_agreed: 39,
            not_disagreed: 1,
            judgments: 50,
            ..Evidence::default()
        };
        assert_eq!(kappa_look(0.3, 0.2, &e), None);
    }

    #[test]
    fn a_worker_at_chance_is_stopped_by_kappa_within_800_judgments() {
        // Answers unrelated to the majority's (kappa 0), half the majorities each way: nearly
        // all are found by judgment 800 on kappa alone (the class ratios find them far sooner).
        let rate = kappa_stop_rate(13, 1_000, 800, 0.5, (0.5, 0.5));
        assert!(rate > 0.95, "{rate}");
    }

    #[test]
    fn the_ratio_is_a_supermartingale_at_the_threshold() {
        // The expectation of one factor under a = a0 is 1 with the true m, and below 1 when the
        // majority is right more often than assumed.
        let factor = |a: f64, m_true: f64| {
            let m = MAJORITY_ACCURACY;
            let q = |a: f64, m: f64| m * a + (1.0 - m) * (1.0 - a);
            let (q0, q1) = (q(0.85, m), q(0.6, m));
            let p = q(a, m_true);
            p * q1 / q0 + (1.0 - p) * (1.0 - q1) / (1.0 - q0)
        };
        assert!((factor(0.85, MAJORITY_ACCURACY) - 1.0).abs() < 1e-12);
        assert!(factor(0.85, 0.99) < 1.0);
        assert!(factor(0.95, MAJORITY_ACCURACY) < 1.0);
    }
}
