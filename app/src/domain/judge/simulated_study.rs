//! A whole simulated judging study, served as a live campaign serves it, written as a replay file
//! ([`super::replay`]): used to measure what the rules do to a group of colluders who share the
//! test pairs' answers (Checco, Bates & Demartini 2019) among honest workers.
//!
//! Serving: every worker's 5th, 10th, ... judgment is a test pair from a pool of 20 they have
//! not seen (gold half the time "paraphrase"); the others are the ordinary pair with the fewest
//! judgments among those they have not seen and that have fewer than 6 (a new pair when none),
//! paraphrases 40% of the time. Workers take turns at random.
use super::replay::{self, Aggregator, Options, Row};
use super::settle::Redundancy;

/// Test pairs in the pool.
pub const TEST_POOL: usize = 20;
/// Judgments per ordinary pair.
pub const PER_PAIR: usize = 6;

/// A simulated worker of a study.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Member {
    /// Right with this probability on every pair.
    Honest(f64),
    /// Knows every test pair's answer (shared by the group) and answers ordinary pairs at random.
    Colluder,
    /// Knows every test pair's answer and shares ordinary answers with the other copiers: the
    /// first of them to meet a pair guesses, the rest give the same answer (one person with
    /// several accounts, or a group with a shared answer sheet).
    Copier,
}

/// The rows of a study in which `members` each make `judgments` judgments. `unit` draws uniform
/// numbers in [0, 1). Workers are named `h<i>` (honest) and `c<i>` (colluders).
pub fn rows(members: &[Member], judgments: u32, unit: &mut impl FnMut() -> f64) -> Vec<Row> {
    let gold: Vec<bool> = (0..TEST_POOL).map(|_| unit() < 0.5).collect();
    // Ordinary pairs: (truth, judgments so far, who judged).
    let mut pairs: Vec<(bool, Vec<usize>)> = Vec::new();
    let mut done = vec![0u32; members.len()];
    let mut seen_tests: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
    // The copiers' answer sheet, by ordinary pair.
    let mut sheet: std::collections::HashMap<usize, bool> = Default::default();
    let mut out = Vec::new();
    let name = |w: usize| match members[w] {
        Member::Honest(_) => format!("h{w}"),
        Member::Colluder => format!("c{w}"),
        Member::Copier => format!("r{w}"),
    };
    loop {
        let waiting: Vec<usize> = (0..members.len())
            .filter(|&w| done[w] < judgments)
            .collect();
        if waiting.is_empty() {
            return out;
        }
        let w = waiting[((unit() * waiting.len() as f64) as usize).min(waiting.len() - 1)];
        done[w] += 1;
        let right = |u: &mut dyn FnMut() -> f64, truth: bool| match members[w] {
            Member::Honest(a) => (u() < a) == truth,
            Member::Colluder | Member::Copier => u() < 0.5,
        };
        if done[w].is_multiple_of(5) && seen_tests[w].len() < TEST_POOL {
            let unseen: Vec<usize> = (0..TEST_POOL)
                .filter(|t| !seen_tests[w].contains(t))
                .collect();
            let t = unseen[((unit() * unseen.len() as f64) as usize).min(unseen.len() - 1)];
            seen_tests[w].push(t);
            let label = match members[w] {
                Member::Colluder | Member::Copier => gold[t],
                Member::Honest(_) => right(unit, gold[t]),
            };
            out.push(Row {
                item: format!("t{t}"),
                worker: name(w),
                label,
                gold: Some(gold[t]),
            });
            continue;
        }
        let open = pairs
            .iter()
            .enumerate()
            .filter(|(_, (_, who))| who.len() < PER_PAIR && !who.contains(&w))
            .min_by_key(|(_, (_, who))| who.len())
            .map(|(i, _)| i);
        let p = open.unwrap_or_else(|| {
            pairs.push((unit() < 0.4, Vec::new()));
            pairs.len() - 1
        });
        pairs[p].1.push(w);
        let label = match members[w] {
            Member::Copier => *sheet.entry(p).or_insert_with(|| unit() < 0.5),
            _ => right(unit, pairs[p].0),
        };
        out.push(Row {
            item: format!("p{p}"),
            worker: name(w),
            label,
            gold: None,
        });
    }
}

/// How a group of colluders and the honest workers beside them fared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollusionRates {
    /// Colluders flagged (tests far better than ordinary pairs) by their 40th judgment.
    pub colluders_flagged_40: f64,
    /// Colluders flagged or stopped by the gate by their 40th judgment.
    pub colluders_caught_40: f64,
    /// Honest workers flagged at any point of the study.
    pub honest_flagged: f64,
    /// Honest workers stopped by the gate at any point of the study.
    pub honest_stopped: f64,
}

/// [`CollusionRates`] over `runs` studies, each of 25 honest workers (accuracy uniform in
/// 90-97%) and 5 colluders making 60 judgments each, replayed with `options` (its
/// `test_every` is set to 1: the study's only gold items are its test pairs).
pub fn collusion_rates(
    options: &Options,
    runs: u32,
    unit: &mut impl FnMut() -> f64,
) -> CollusionRates {
    let mut options = *options;
    options.settings.test_every = 1;
    let (mut flagged, mut caught, mut colluders) = (0u32, 0u32, 0u32);
    let (mut honest_flagged, mut honest_stopped, mut honest) = (0u32, 0u32, 0u32);
    for _ in 0..runs {
        let mut members: Vec<Member> = (0..25)
            .map(|_| Member::Honest(0.9 + 0.07 * unit()))
            .collect();
        members.extend([Member::Colluder; 5]);
        let rows = rows(&members, 60, unit);
        let (_, outcomes) = replay::replay_with_workers(&rows, &options);
        for o in outcomes {
            let by_40 = |at: Option<u32>| at.is_some_and(|j| j <= 40);
            if o.worker.starts_with('c') {
                colluders += 1;
                flagged += u32::from(by_40(o.flagged_at));
                caught += u32::from(by_40(o.flagged_at) || by_40(o.stopped_at));
            } else {
                honest += 1;
                honest_flagged += u32::from(o.flagged_at.is_some());
                honest_stopped += u32::from(o.stopped_at.is_some());
            }
        }
    }
    let share = |n: u32, of: u32| f64::from(n) / f64::from(of.max(1));
    CollusionRates {
        colluders_flagged_40: share(flagged, colluders),
        colluders_caught_40: share(caught, colluders),
        honest_flagged: share(honest_flagged, honest),
        honest_stopped: share(honest_stopped, honest),
    }
}

/// How a ring of copiers and the honest workers beside them fared under
/// [`super::alike::answer_alike`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RingRates {
    /// Copiers in a flagged group once each member has made the study's judgments.
    pub copiers_grouped: f64,
    /// Honest workers in a flagged group.
    pub honest_grouped: f64,
    /// Studies with any honest worker in a group.
    pub studies_with_honest_grouped: f64,
}

/// [`RingRates`] over `runs` studies, each of 25 honest workers (90-97%) and `copiers` copiers
/// who share their answers, served as live, checked once everyone has made `judgments`.
pub fn ring_rates(
    copiers: usize,
    judgments: u32,
    runs: u32,
    unit: &mut impl FnMut() -> f64,
) -> RingRates {
    let (mut grouped, mut copiers_seen) = (0u32, 0u32);
    let (mut honest_grouped, mut honest, mut bad_studies) = (0u32, 0u32, 0u32);
    for _ in 0..runs {
        let mut members: Vec<Member> = (0..25)
            .map(|_| Member::Honest(0.9 + 0.07 * unit()))
            .collect();
        members.extend(std::iter::repeat_n(Member::Copier, copiers));
        let rows = rows(&members, judgments, unit);
        let (ordinary, pairs, workers) = ordinary_judgments(&rows);
        let alike = super::alike::answer_alike(&ordinary, pairs, workers.len());
        let in_group: std::collections::HashSet<usize> =
            alike.groups.iter().flatten().copied().collect();
        let mut any_honest = false;
        for (i, name) in workers.iter().enumerate() {
            let g = in_group.contains(&i);
            if name.starts_with('r') {
                copiers_seen += 1;
                grouped += u32::from(g);
            } else {
                honest += 1;
                honest_grouped += u32::from(g);
                any_honest |= g;
            }
        }
        bad_studies += u32::from(any_honest);
    }
    let share = |n: u32, of: u32| f64::from(n) / f64::from(of.max(1));
    RingRates {
        copiers_grouped: share(grouped, copiers_seen),
        honest_grouped: share(honest_grouped, honest),
        studies_with_honest_grouped: share(bad_studies, runs),
    }
}

/// The ordinary rows (no gold) as judgments, with the number of pairs and the workers' names
/// by index.
fn ordinary_judgments(rows: &[Row]) -> (Vec<super::report::Judgment>, usize, Vec<String>) {
    let mut pairs: std::collections::HashMap<&str, usize> = Default::default();
    let mut workers: Vec<String> = Vec::new();
    let mut worker_index: std::collections::HashMap<&str, usize> = Default::default();
    let mut out = Vec::new();
    for r in rows.iter().filter(|r| r.gold.is_none()) {
        let next = pairs.len();
        let pair = *pairs.entry(r.item.as_str()).or_insert(next);
        let worker = *worker_index.entry(r.worker.as_str()).or_insert_with(|| {
            workers.push(r.worker.clone());
            workers.len() - 1
        });
        out.push(super::report::Judgment {
            pair,
            worker,
            is_paraphrase: r.label,
            seconds: 1.0,
        });
    }
    (out, pairs.len(), workers)
}

/// The replay options a live campaign would have by default, at fixed redundancy (the study's
/// pairs have six judgments each).
pub fn fixed_six() -> Options {
    Options {
        redundancy: Redundancy {
            min: PER_PAIR as u32,
            max: PER_PAIR as u32,
            confidence: 0.95,
        },
        aggregator: Aggregator::Majority,
        ..Options::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_study_is_served_as_live() {
        let mut rng = crate::domain::rng::SplitMix64::new(5);
        let members = [Member::Honest(0.95), Member::Colluder, Member::Honest(0.9)];
        let rows = rows(&members, 30, &mut || rng.unit());
        assert_eq!(rows.len(), 90);
        for w in ["h0", "c1", "h2"] {
            let mine: Vec<&Row> = rows.iter().filter(|r| r.worker == w).collect();
            assert_eq!(mine.len(), 30);
            // Every fifth is a test pair, never the same one twice.
            let tests: Vec<&str> = mine
                .iter()
                .filter(|r| r.gold.is_some())
                .map(|r| r.item.as_str())
                .collect();
            assert_eq!(tests.len(), 6, "{w}");
            let mut unique = tests.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), 6);
        }
        // The colluder knows every test answer.
        assert!(rows
            .iter()
            .filter(|r| r.worker == "c1" && r.gold.is_some())
            .all(|r| Some(r.label) == r.gold));
        // No ordinary pair gets more than six judgments.
        let mut per: std::collections::HashMap<&str, usize> = Default::default();
        for r in rows.iter().filter(|r| r.gold.is_none()) {
            *per.entry(&r.item).or_default() += 1;
        }
        assert!(per.values().all(|&n| n <= PER_PAIR));
    }

    #[test]
    fn a_ring_that_shares_its_answers_is_grouped_and_honest_workers_are_not() {
        let mut rng = crate::domain::rng::SplitMix64::new(17);
        // 40 studies: 200 copiers and 1,000 honest workers (1,000 studies in
        // `bench-agreement`).
        let r = ring_rates(5, 150, 40, &mut || rng.unit());
        assert!(r.copiers_grouped >= 0.95, "{r:?}");
        assert!(r.honest_grouped <= 0.01, "{r:?}");
        // Two accounts of one person are found as well.
        let r = ring_rates(2, 150, 40, &mut || rng.unit());
        assert!(r.copiers_grouped >= 0.9, "{r:?}");
    }

    #[test]
    fn colluders_are_caught_and_honest_workers_are_left_alone() {
        let mut rng = crate::domain::rng::SplitMix64::new(9);
        // 40 studies: 200 colluders and 1,000 honest workers a side (over 1,000 studies in
        // `bench-agreement`, about 95% and 0.01%).
        let r = collusion_rates(&fixed_six(), 40, &mut || rng.unit());
        assert!(r.colluders_caught_40 >= 0.9, "{r:?}");
        assert!(
            r.honest_flagged <= 0.01 && r.honest_stopped <= 0.01,
            "{r:?}"
        );
        // Without the gate the flag alone finds them (Fisher's test alone, the flag before the
        // likelihood ratio, found about half).
        let mut ungated = fixed_six();
        ungated.gate = false;
        let r = collusion_rates(&ungated, 40, &mut || rng.unit());
        assert!(
            r.colluders_flagged_40 >= 0.9 && r.honest_flagged <= 0.01,
            "{r:?}"
        );
    }
}
