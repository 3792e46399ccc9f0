//! A judging campaign's agreement, computed from its trusted judgments of ordinary pairs: the
//! statistics of `domain::agreement` and the models of the workers (`domain::dawid_skene`,
//! `domain::glad`, `domain::mace`) put together for the researcher's dashboard. Pure: the caller
//! loads the judgments and maps ids to indices.
use serde::{Deserialize, Serialize};

use super::labels::{vote_label, Thresholds, VoteLabel};
use crate::domain::agreement::{
    cohen_kappa, fleiss_kappa, gwet_ac1, krippendorff_alpha_nominal, majority,
};
use crate::domain::dawid_skene::{dawid_skene, Answer};
use crate::domain::glad::glad;
use crate::domain::mace::mace;
use crate::domain::percentile::median;

/// One trusted judgment of an ordinary pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgment {
    /// The pair judged, as an index.
    pub pair: usize,
    /// The worker who judged, as an index.
    pub worker: usize,
    /// The worker said "paraphrase".
    pub is_paraphrase: bool,
    /// How long the worker took to answer, in seconds.
    pub seconds: f64,
}

/// A worker's agreement numbers (all empty for a worker without trusted judgments).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerAgreement {
    /// The worker's trusted judgments of ordinary pairs.
    pub judgments: u64,
    /// Cohen's kappa against the leave-one-out majority of the others (ties left out).
    pub kappa_vs_majority: Option<f64>,
    /// Dawid-Skene: P(says paraphrase | paraphrase) and P(says not | not).
    pub sensitivity: Option<f64>,
    /// Dawid-Skene: P(says not | not).
    pub specificity: Option<f64>,
    /// GLAD: the worker's ability α (0: guessing; below 0: worse than guessing).
    pub glad_ability: Option<f64>,
    /// MACE: the probability that the worker knows the label rather than guesses.
    pub mace_competence: Option<f64>,
    /// The worker's median time per judgment, in seconds.
    pub median_seconds: Option<f64>,
}

/// The campaign's agreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Pairs with at least one trusted judgment.
    pub pairs_judged: u64,
    /// Trusted judgments of ordinary pairs.
    pub judgments: u64,
    /// Fleiss' kappa over the pairs with all their judgments (under adaptive redundancy, the
    /// first `fleiss_judgments` of every pair with that many; see [`agreement`]).
    pub fleiss: Option<f64>,
    /// Pairs that Fleiss' kappa and the vote distribution were computed over.
    pub fleiss_pairs: u64,
    /// The judgments per pair they count: the maximum at fixed redundancy, else the minimum.
    pub fleiss_judgments: u32,
    /// Krippendorff's alpha (nominal) over the judged pairs.
    pub alpha: Option<f64>,
    /// Gwet's AC1 over the judged pairs.
    pub ac1: Option<f64>,
    /// The mean of the workers' kappa against the majority (MultiPIT reports 0.70).
    pub mean_kappa_vs_majority: Option<f64>,
    /// How many of those pairs got 0, 1, ..., `fleiss_judgments` "paraphrase" votes.
    pub vote_distribution: Vec<u64>,
    /// Complete pairs (under adaptive redundancy, pairs with at least the minimum) by vote label
    /// (paraphrase, not, unresolved) and Dawid-Skene label (paraphrase, not): `[vote][ds]`.
    pub vote_vs_dawid_skene: [[u64; 2]; 3],
    /// The same for GLAD's labels.
    pub vote_vs_glad: [[u64; 2]; 3],
    /// The same for MACE's labels.
    pub vote_vs_mace: [[u64; 2]; 3],
    /// Dawid-Skene's estimated share of paraphrase pairs (its class prior).
    pub ds_prior_paraphrase: Option<f64>,
    /// Each worker's agreement numbers, by worker index.
    pub workers: Vec<WorkerAgreement>,
}

/// Each worker's Cohen's kappa against the leave-one-out majority of the others on the pairs
/// they judged (ties left out); `by_pair[pair]` lists (worker, said paraphrase).
fn kappas_vs_majority(by_pair: &[Vec<(usize, bool)>], workers: usize) -> Vec<Option<f64>> {
    let mut pairs_vs_majority: Vec<Vec<(bool, bool)>> = vec![Vec::new(); workers];
    for votes in by_pair {
        for &(w, mine) in votes {
            let others = votes.iter().filter(|(u, _)| *u != w).map(|(_, l)| *l);
            if let Some(m) = majority(others) {
                pairs_vs_majority[w].push((mine, m));
            }
        }
    }
    pairs_vs_majority
        .iter()
        .map(|p| if p.is_empty() { None } else { cohen_kappa(p) })
        .collect()
}

/// Only the kappa of each worker against the others' majority (what republishing needs,
/// without Dawid-Skene and the rest of the dashboard).
pub fn worker_kappas(judgments: &[Judgment], pairs: usize, workers: usize) -> Vec<Option<f64>> {
    let mut by_pair: Vec<Vec<(usize, bool)>> = vec![Vec::new(); pairs];
    for j in judgments {
        by_pair[j.pair].push((j.worker, j.is_paraphrase));
    }
    kappas_vs_majority(&by_pair, workers)
}

/// Everything on the dashboard for `pairs` pairs and `workers` workers of a campaign that gives
/// a pair `min` to `max` judgments (`judgments` in the order they were made).
///
/// Fleiss' kappa and the vote distribution need the same number of judgments per pair. At
/// fixed redundancy (`min == max`) they are over the pairs with all their judgments. Under
/// adaptive redundancy they are over the *first `min`* judgments of every pair that has that
/// many: the pairs with all `max` are the ones whose votes split (the agreeing ones settled
/// early), so counting only those would make the crowd look far less in agreement than it is.
/// The labels against the models' are then over the pairs with at least `min` judgments,
/// labelled by the majority of all their votes (a tie unresolved): a settled pair's label.
pub fn agreement(
    judgments: &[Judgment],
    pairs: usize,
    workers: usize,
    redundancy: (u32, u32),
    thresholds: Thresholds,
) -> Agreement {
    let (min, max) = (redundancy.0.min(redundancy.1), redundancy.1);
    let fixed = min == max;
    let mut table = vec![vec![0u32; 2]; pairs];
    // The first `min` votes of each pair.
    let mut first = vec![vec![0u32; 2]; pairs];
    let mut by_pair: Vec<Vec<(usize, bool)>> = vec![Vec::new(); pairs];
    let mut seconds: Vec<Vec<f64>> = vec![Vec::new(); workers];
    for j in judgments {
        table[j.pair][usize::from(j.is_paraphrase)] += 1;
        if first[j.pair][0] + first[j.pair][1] < min {
            first[j.pair][usize::from(j.is_paraphrase)] += 1;
        }
        by_pair[j.pair].push((j.worker, j.is_paraphrase));
        seconds[j.worker].push(j.seconds);
    }
    let judged: Vec<Vec<u32>> = table.iter().filter(|r| r[0] + r[1] > 0).cloned().collect();
    let counted = |r: &Vec<u32>| {
        if fixed {
            r[0] + r[1] == max
        } else {
            r[0] + r[1] >= min
        }
    };
    let complete: Vec<Vec<u32>> = (0..pairs)
        .filter(|&i| counted(&table[i]))
        .map(|i| {
            if fixed {
                table[i].clone()
            } else {
                first[i].clone()
            }
        })
        .collect();
    let mut vote_distribution = vec![0u64; min as usize + 1];
    for r in &complete {
        vote_distribution[r[1] as usize] += 1;
    }

    let kappas = kappas_vs_majority(&by_pair, workers);
    let defined: Vec<f64> = kappas.iter().flatten().copied().collect();
    let mean_kappa_vs_majority =
        (!defined.is_empty()).then(|| defined.iter().sum::<f64>() / defined.len() as f64);

    let answers: Vec<Answer> = judgments
        .iter()
        .map(|j| Answer {
            item: j.pair,
            worker: j.worker,
            label: usize::from(j.is_paraphrase),
        })
        .collect();
    let ds = (!answers.is_empty()).then(|| dawid_skene(&answers, pairs, workers, 2, 100, 1e-5));
    let glad = (!answers.is_empty()).then(|| glad(&answers, pairs, workers, 2));
    let mace = (!answers.is_empty()).then(|| mace(&answers, pairs, workers, 2));
    // Complete pairs by vote label (rows) and a model's label (columns).
    let against_votes = |labels: &[Option<usize>]| {
        let mut t = [[0u64; 2]; 3];
        for (i, r) in table.iter().enumerate() {
            if !counted(r) {
                continue;
            }
            let label = if fixed {
                vote_label(r[1], thresholds)
            } else {
                match r[1].cmp(&r[0]) {
                    std::cmp::Ordering::Greater => VoteLabel::Paraphrase,
                    std::cmp::Ordering::Less => VoteLabel::NotParaphrase,
                    std::cmp::Ordering::Equal => VoteLabel::Unresolved,
                }
            };
            let v = match label {
                VoteLabel::Paraphrase => 0,
                VoteLabel::NotParaphrase => 1,
                VoteLabel::Unresolved => 2,
            };
            if let Some(label) = labels[i] {
                t[v][usize::from(label == 0)] += 1;
            }
        }
        t
    };
    let vote_vs_dawid_skene = ds.as_ref().map_or([[0; 2]; 3], |d| {
        against_votes(&d.labels().into_iter().map(Some).collect::<Vec<_>>())
    });
    let vote_vs_glad = glad
        .as_ref()
        .map_or([[0; 2]; 3], |g| against_votes(&g.labels()));
    let vote_vs_mace = mace
        .as_ref()
        .map_or([[0; 2]; 3], |m| against_votes(&m.labels()));
    let workers_out = (0..workers)
        .map(|w| WorkerAgreement {
            judgments: seconds[w].len() as u64,
            kappa_vs_majority: kappas[w],
            sensitivity: ds
                .as_ref()
                .filter(|_| !seconds[w].is_empty())
                .map(|d| d.rate(w, 1, 1)),
            specificity: ds
                .as_ref()
                .filter(|_| !seconds[w].is_empty())
                .map(|d| d.rate(w, 0, 0)),
            glad_ability: glad
                .as_ref()
                .filter(|_| !seconds[w].is_empty())
                .map(|g| g.abilities[w]),
            mace_competence: mace
                .as_ref()
                .filter(|_| !seconds[w].is_empty())
                .map(|m| m.competence[w]),
            median_seconds: median(seconds[w].clone()),
        })
        .collect();
    Agreement {
        pairs_judged: judged.len() as u64,
        judgments: judgments.len() as u64,
        fleiss: fleiss_kappa(&complete),
        fleiss_pairs: complete.len() as u64,
        fleiss_judgments: min,
        alpha: krippendorff_alpha_nominal(&judged),
        ac1: gwet_ac1(&judged, 2),
        mean_kappa_vs_majority,
        vote_distribution,
        vote_vs_dawid_skene,
        vote_vs_glad,
        vote_vs_mace,
        ds_prior_paraphrase: ds.as_ref().map(|d| d.priors[1]),
        workers: workers_out,
    }
}

/// The vote distribution as an SVG bar chart (numbers only go into the markup).
pub fn vote_distribution_svg(counts: &[u64]) -> String {
    const W: f64 = 480.0;
    const H: f64 = 220.0;
    const LEFT: f64 = 48.0;
    const BOTTOM: f64 = 36.0;
    const TOP: f64 = 16.0;
    let peak = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let plot_w = W - LEFT - 8.0;
    let plot_h = H - TOP - BOTTOM;
    let slot = plot_w / counts.len().max(1) as f64;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" role="img" aria-label="Pairs by number of paraphrase votes" class="chart votes">"#
    );
    for (k, &n) in counts.iter().enumerate() {
        let h = plot_h * n as f64 / peak;
        let x = LEFT + k as f64 * slot;
        svg.push_str(&format!(
            r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="#2456c7"><title>{k} votes: {n} pairs</title></rect><text x="{:.2}" y="{:.2}" font-size="11" fill="#5b6474" text-anchor="middle">{k}</text><text x="{:.2}" y="{:.2}" font-size="10" fill="#1d2330" text-anchor="middle">{n}</text>"##,
            x + slot * 0.15,
            TOP + plot_h - h,
            slot * 0.7,
            h,
            x + slot / 2.0,
            TOP + plot_h + 14.0,
            x + slot / 2.0,
            TOP + plot_h - h - 3.0,
        ));
    }
    svg.push_str(&format!(
        r##"<line x1="{LEFT}" y1="{b}" x2="{r}" y2="{b}" stroke="#5b6474"/><text x="{c}" y="{t}" font-size="11" fill="#5b6474" text-anchor="middle">"paraphrase" votes per complete pair</text></svg>"##,
        b = TOP + plot_h,
        r = LEFT + plot_w,
        c = LEFT + plot_w / 2.0,
        t = H - 4.0
    ));
    svg
}

/// One point of agreement over time: after the first `judgments` judgments (in the order they
/// were made), Krippendorff's alpha over everything judged so far.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimePoint {
    /// Judgments made so far.
    pub judgments: u64,
    /// Krippendorff's alpha over the pairs judged so far; `None` while undefined.
    pub alpha: Option<f64>,
}

/// Alpha after each of `points` equal steps through `judgments` (which are in time order).
pub fn agreement_over_time(judgments: &[Judgment], pairs: usize, points: usize) -> Vec<TimePoint> {
    if judgments.is_empty() || points == 0 {
        return Vec::new();
    }
    let mut table = vec![vec![0u32; 2]; pairs];
    let mut out = Vec::with_capacity(points);
    let mut done = 0;
    for p in 1..=points {
        let upto = (judgments.len() * p).div_ceil(points);
        for j in &judgments[done..upto] {
            table[j.pair][usize::from(j.is_paraphrase)] += 1;
        }
        done = upto;
        out.push(TimePoint {
            judgments: upto as u64,
            alpha: krippendorff_alpha_nominal(&table),
        });
    }
    out.dedup_by_key(|t| t.judgments);
    out
}

/// Agreement over time as an SVG line chart (undefined points skipped). Alpha runs from -0.2 to
/// 1, or down to the lowest value's step of 0.2 below that, with the bottom numbered.
pub fn agreement_over_time_svg(points: &[TimePoint]) -> String {
    const W: f64 = 480.0;
    const H: f64 = 220.0;
    const LEFT: f64 = 40.0;
    const BOTTOM: f64 = 36.0;
    const TOP: f64 = 12.0;
    let lowest = points
        .iter()
        .filter_map(|p| p.alpha)
        .fold(-0.2_f64, f64::min);
    let (lo, hi) = (alpha_floor(lowest), 1.0);
    let plot_w = W - LEFT - 10.0;
    let plot_h = H - TOP - BOTTOM;
    let max_x = points.last().map_or(1, |p| p.judgments.max(1)) as f64;
    let x = |n: u64| LEFT + plot_w * n as f64 / max_x;
    let y = |a: f64| TOP + plot_h * (1.0 - (a.clamp(lo, hi) - lo) / (hi - lo));
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" role="img" aria-label="Krippendorff's alpha as judgments came in" class="chart over-time">"#
    );
    for a in [lo, 0.0, 0.4, 0.8] {
        svg.push_str(&format!(
            r##"<line x1="{LEFT}" y1="{y:.2}" x2="{r}" y2="{y:.2}" stroke="#e1e5ee"/><text x="{t}" y="{ty:.2}" font-size="10" fill="#5b6474" text-anchor="end" class="y-tick">{a:.1}</text>"##,
            y = y(a),
            r = LEFT + plot_w,
            t = LEFT - 4.0,
            ty = y(a) + 3.0
        ));
    }
    let path: Vec<String> = points
        .iter()
        .filter_map(|p| {
            p.alpha
                .map(|a| format!("{:.2},{:.2}", x(p.judgments), y(a)))
        })
        .collect();
    if !path.is_empty() {
        svg.push_str(&format!(
            r##"<polyline fill="none" stroke="#2456c7" stroke-width="2" points="{}"/>"##,
            path.join(" ")
        ));
    }
    // The x-axis, with its ends and middle numbered.
    svg.push_str(&format!(
        r##"<line x1="{LEFT}" y1="{b:.2}" x2="{r}" y2="{b:.2}" stroke="#5b6474"/>"##,
        b = TOP + plot_h,
        r = LEFT + plot_w,
    ));
    for n in [0, max_x as u64 / 2, max_x as u64] {
        svg.push_str(&format!(
            r##"<text x="{:.2}" y="{:.2}" font-size="10" fill="#5b6474" text-anchor="middle" class="x-tick">{n}</text>"##,
            x(n),
            TOP + plot_h + 13.0,
        ));
    }
    svg.push_str(&format!(
        r##"<text x="{c}" y="{t}" font-size="11" fill="#5b6474" text-anchor="middle">judgments so far (up to {max_x}); line: Krippendorff's alpha</text></svg>"##,
        c = LEFT + plot_w / 2.0,
        t = H - 6.0
    ));
    svg
}

/// The bottom of the alpha chart for a lowest value of `lowest` (at most -0.2): the step of 0.2
/// at or below it, so every point is drawn where its value is and the bottom is numbered.
fn alpha_floor(lowest: f64) -> f64 {
    // Rounded first, so -0.2 itself (-1.0000000000000002 steps in binary) stays -0.2.
    let steps = (lowest.min(-0.2) / 0.2 * 1e9).round() / 1e9;
    steps.floor() * 0.2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::judge::labels::default_thresholds;

    #[test]
    fn alpha_below_the_usual_bottom_is_drawn_at_its_value_with_a_numbered_bottom() {
        assert!((alpha_floor(0.3) + 0.2).abs() < 1e-12);
        assert!((alpha_floor(-0.2) + 0.2).abs() < 1e-12);
        assert!((alpha_floor(-0.21) + 0.4).abs() < 1e-12);
        assert!((alpha_floor(-0.55) + 0.6).abs() < 1e-12);
        let point = |judgments, alpha| TimePoint { judgments, alpha };
        let usual = agreement_over_time_svg(&[point(10, Some(0.1)), point(20, Some(0.5))]);
        assert!(usual.contains(r#"class="y-tick">-0.2<"#), "{usual}");
        let low = agreement_over_time_svg(&[point(10, Some(-0.5)), point(20, Some(0.5))]);
        assert!(low.contains(r#"class="y-tick">-0.6<"#), "{low}");
        // The -0.5 point is above the bottom line (y grows downwards), not flat on it.
        let points = low
            .split(r#"points=""#)
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let first_y: f64 = points
            .split(' ')
            .next()
            .unwrap()
            .split(',')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let bottom = 220.0 - 36.0;
        assert!(first_y < bottom - 5.0, "{first_y} vs {bottom}");
    }

    fn j(pair: usize, worker: usize, p: bool) -> Judgment {
        Judgment {
            pair,
            worker,
            is_paraphrase: p,
            seconds: (worker + 1) as f64,
        }
    }

    #[test]
    fn a_small_campaign_adds_up() {
        // 3 pairs x 3 workers, unanimous except one dissent on pair 2.
        let js = vec![
            j(0, 0, true),
            j(0, 1, true),
            j(0, 2, true),
            j(1, 0, false),
            j(1, 1, false),
            j(1, 2, false),
            j(2, 0, true),
            j(2, 1, true),
            j(2, 2, false),
        ];
        let a = agreement(&js, 3, 3, (3, 3), default_thresholds(3));
        assert_eq!((a.pairs_judged, a.judgments, a.fleiss_pairs), (3, 9, 3));
        assert_eq!(a.vote_distribution, [1, 0, 1, 1]);
        assert!(a.fleiss.unwrap() > 0.5 && a.alpha.unwrap() > 0.5);
        // Vote labels: paraphrase (pairs 0, 2), not (pair 1); every model agrees.
        assert_eq!(a.vote_vs_dawid_skene, [[2, 0], [0, 1], [0, 0]]);
        assert_eq!(a.vote_vs_glad, [[2, 0], [0, 1], [0, 0]]);
        assert_eq!(a.vote_vs_mace, [[2, 0], [0, 1], [0, 0]]);
        // The dissenting worker is trusted least by both.
        let ability: Vec<f64> = a.workers.iter().map(|w| w.glad_ability.unwrap()).collect();
        let competence: Vec<f64> = a
            .workers
            .iter()
            .map(|w| w.mace_competence.unwrap())
            .collect();
        assert!(ability[2] < ability[0], "{ability:?}");
        assert!(competence[2] < competence[0], "{competence:?}");
        assert_eq!(a.workers[2].median_seconds, Some(3.0));
        assert_eq!(a.workers[0].kappa_vs_majority, Some(1.0));
        let kappas: Vec<Option<f64>> = a.workers.iter().map(|w| w.kappa_vs_majority).collect();
        assert_eq!(worker_kappas(&js, 3, 3), kappas);
        let svg = vote_distribution_svg(&a.vote_distribution);
        assert_eq!(svg.matches("<rect").count(), 4);
    }

    #[test]
    fn under_adaptive_redundancy_the_tables_count_every_pairs_first_judgments() {
        // Min 3, max 6: pairs 0-3 unanimous and settled at 3; pair 4 split and taken to 6
        // (3 paraphrase, then 3 not); pair 5 has 2 (not counted).
        let mut js = Vec::new();
        for p in 0..4 {
            for w in 0..3 {
                js.push(j(p, w, p % 2 == 0));
            }
        }
        for (w, l) in [true, true, false, false, false, false]
            .into_iter()
            .enumerate()
        {
            js.push(j(4, w, l));
        }
        js.push(j(5, 0, true));
        js.push(j(5, 1, true));
        let a = agreement(&js, 6, 6, (3, 6), default_thresholds(6));
        assert_eq!((a.fleiss_pairs, a.fleiss_judgments), (5, 3));
        // The split pair counts by its first three votes: two paraphrase.
        assert_eq!(a.vote_distribution, [2, 0, 1, 2]);
        let three: Vec<Vec<u32>> = vec![vec![0, 3], vec![3, 0], vec![0, 3], vec![3, 0], vec![1, 2]];
        assert_eq!(a.fleiss, crate::domain::agreement::fleiss_kappa(&three));
        // Labels by the majority of all votes: pair 4 is "not" (4 of 6).
        let rows: Vec<u64> = a.vote_vs_dawid_skene.iter().map(|r| r[0] + r[1]).collect();
        assert_eq!(rows, [2, 3, 0]);
        // Counting only pairs with all six would have left one pair, the split one.
        let only_full = agreement(&js, 6, 6, (6, 6), default_thresholds(6));
        assert_eq!(only_full.fleiss_pairs, 1);
    }

    #[test]
    fn agreement_over_time_grows_with_the_judgments() {
        let js: Vec<Judgment> = (0..40).map(|i| j(i / 4, i % 4, (i / 4) % 2 == 0)).collect();
        let t = agreement_over_time(&js, 10, 4);
        assert_eq!(
            t.iter().map(|p| p.judgments).collect::<Vec<_>>(),
            [10, 20, 30, 40]
        );
        assert_eq!(t.last().unwrap().alpha, Some(1.0));
        let svg = agreement_over_time_svg(&t);
        assert!(svg.contains("<polyline"));
        // The x-axis says where it starts and ends.
        for tick in [">0<", ">20<", ">40<"] {
            assert!(
                svg.contains(&format!(r#"class="x-tick"{tick}"#)),
                "{tick}: {svg}"
            );
        }
        assert!(agreement_over_time(&[], 3, 5).is_empty());
    }

    #[test]
    fn no_judgments_gives_undefined_not_zero() {
        let a = agreement(&[], 5, 2, (6, 6), default_thresholds(6));
        assert_eq!(
            (a.fleiss, a.alpha, a.ac1, a.mean_kappa_vs_majority),
            (None, None, None, None)
        );
        assert_eq!(a.workers[0].sensitivity, None);
        assert_eq!(
            (a.workers[0].glad_ability, a.workers[0].mace_competence),
            (None, None)
        );
    }
}
