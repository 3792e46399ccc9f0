//! Agreement benchmark (a README command, not a test): every statistic of the researcher's
//! dashboard on a synthetic campaign of 125,000 pairs x 6 judgments (750,000 judgments by 200
//! workers of mixed quality), timed; `scripts/bench-agreement.sh` runs the Python references on
//! the same data next to it.
//!
//! Usage: bench-agreement [PAIRS] [OUT.tsv]   (OUT: the judgments, for the Python side)
use std::io::Write;
use std::time::Instant;

use app::domain::dawid_skene::{dawid_skene, Answer};
use app::domain::glad::glad;
use app::domain::judge::labels::{
    default_thresholds, pair_label, AtMaximum, LabelRule, PairVotes, VoteLabel,
};
use app::domain::judge::replay::{self, Aggregator, Options, Row};
use app::domain::judge::report::{agreement, Judgment};
use app::domain::judge::settings::GateRule;
use app::domain::judge::settings::JudgeSettings;
use app::domain::judge::settle::{settle, Redundancy, Settling, Vote, NEXT_ACCURACY};
use app::domain::judge::simulated_study::{collusion_rates, fixed_six, ring_rates};
use app::domain::judge::simulation::{goal_rates, stop_rates, Crowd};
use app::domain::mace::mace;

// Seeded (`domain::rng`), so every run sees the same data.
use app::domain::rng::SplitMix64 as Rng;

fn synthetic(pairs: usize, workers: usize) -> Vec<Judgment> {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let quality: Vec<f64> = (0..workers)
        .map(|w| match w % 10 {
            0 => -1.0, // always "paraphrase"
            1 => 0.5,  // random
            _ => 0.8 + 0.15 * rng.unit(),
        })
        .collect();
    let mut out = Vec::with_capacity(pairs * 6);
    for pair in 0..pairs {
        let truth = rng.unit() < 0.4;
        let mut chosen: Vec<usize> = Vec::with_capacity(6);
        while chosen.len() < 6 {
            let w = (rng.next_u64() % workers as u64) as usize;
            if !chosen.contains(&w) {
                chosen.push(w);
            }
        }
        for w in chosen {
            let q = quality[w];
            let label = if q < 0.0 {
                true
            } else if rng.unit() < q {
                truth
            } else {
                !truth
            };
            out.push(Judgment {
                pair,
                worker: w,
                is_paraphrase: label,
                seconds: 3.0 + 10.0 * rng.unit(),
            });
        }
    }
    out
}

/// Each rule as new campaigns get it: the confidence rule from judgment 20 (the default), the
/// older rules from 30, as they were designed.
fn settings_of(rule: GateRule) -> JudgeSettings {
    JudgeSettings {
        gate_rule: rule,
        gate_min_judgments: if rule == GateRule::Confidence { 20 } else { 30 },
        ..JudgeSettings::default()
    }
}

fn gate_goals() {
    let mut rng = Rng::new(0x5eed_1234_abcd_0002);
    let runs = 1000;
    // Each rule as new campaigns get it, then the confidence rule at other error and worse
    // levels: the trade between stopping workers just below the minimum sooner and keeping
    // those at it.
    let mut variants: Vec<(String, JudgeSettings)> =
        [GateRule::Confidence, GateRule::Evidence, GateRule::Paper]
            .into_iter()
            .map(|rule| (format!("{} rule", rule.as_str()), settings_of(rule)))
            .collect();
    for (alpha, worse_by) in [(0.1, 0.2), (0.1, 0.1), (0.2, 0.1), (0.4, 0.1)] {
        variants.push((
            format!("confidence rule at error level {alpha}, worse by {worse_by}"),
            JudgeSettings {
                gate_alpha: alpha,
                gate_worse_by: worse_by,
                ..settings_of(GateRule::Confidence)
            },
        ));
    }
    for (name, s) in variants {
        for crowd in [Crowd::FiveHonest, Crowd::Early] {
            let r = goal_rates(&s, crowd, runs, &mut || rng.unit());
            println!(
                "gate goals, {name}, others {crowd:?} ({runs} workers per kind): honest 90-97% stopped within 300 {:.1}% (goal <= 2%); at 85% within 300 {:.1}% (error level {}); within 30: always paraphrase {:.1}%, always not {:.1}%, random {:.1}% (goal >= 95%); 75% within 100 {:.1}% (goal >= 80%)",
                r.honest_300 * 100.0,
                r.at_threshold_300 * 100.0,
                s.gate_alpha,
                r.always_paraphrase_30 * 100.0,
                r.always_not_30 * 100.0,
                r.random_30 * 100.0,
                r.at_75_100 * 100.0
            );
        }
    }
}

/// Adaptive redundancy against fixed redundancy, on a simulated crowd whose workers differ
/// (70% careful at 85-97%, 20% at 65-80%, 10% at random), each worker's accuracy estimated from
/// their 10 test answers as the gate would know it: the share of pairs whose label equals the
/// truth, the share left unresolved (a tie; under adaptive redundancy a pair at its maximum whose
/// posterior is short of the target), and the judgments spent per pair. The adaptive rules label
/// as a live campaign does (`labels::pair_label`).
fn redundancy_simulation() {
    let mut rng = Rng::new(0x5eed_1234_abcd_0003);
    let workers: Vec<(f64, f64)> = (0..60)
        .map(|w| {
            let accuracy = match w % 10 {
                0 => 0.5,
                1 | 2 => 0.65 + 0.15 * rng.unit(),
                _ => 0.85 + 0.12 * rng.unit(),
            };
            let right = (0..10).filter(|_| rng.unit() < accuracy).count() as f64;
            (accuracy, (right + 1.0) / 12.0)
        })
        .collect();
    let pairs = 20_000;
    let max = 10u32;
    let redundancy = |confidence| Redundancy {
        min: 3,
        max,
        confidence,
    };
    let rule = |confidence| LabelRule {
        max,
        at_maximum: AtMaximum::Posterior { confidence },
    };
    // (right labels, unresolved, judgments) per rule: fixed 6, fixed 10, then counted and
    // weighted at a target of 0.95, and again at 0.99.
    let mut tally = [(0u32, 0u32, 0u64); 6];
    for _ in 0..pairs {
        let truth = rng.unit() < 0.4;
        let mut order: Vec<usize> = Vec::new();
        while order.len() < max as usize {
            let w = (rng.next_u64() % workers.len() as u64) as usize;
            if !order.contains(&w) {
                order.push(w);
            }
        }
        let votes: Vec<(bool, f64)> = order
            .iter()
            .map(|&w| {
                let (accuracy, estimate) = workers[w];
                (if rng.unit() < accuracy { truth } else { !truth }, estimate)
            })
            .collect();
        let fixed = |n: usize| {
            let yes = votes[..n].iter().filter(|v| v.0).count();
            (2 * yes != n).then_some(2 * yes > n)
        };
        for (i, n) in [(0, 6), (1, 10)] {
            let label = fixed(n);
            tally[i].0 += u32::from(label == Some(truth));
            tally[i].1 += u32::from(label.is_none());
            tally[i].2 += n as u64;
        }
        for (i, weighted, confidence) in [
            (2, false, 0.95),
            (3, true, 0.95),
            (4, false, 0.99),
            (5, true, 0.99),
        ] {
            let (r, rule) = (redundancy(confidence), rule(confidence));
            let mut seen = Vec::new();
            for &(paraphrase, estimate) in &votes {
                seen.push(Vote {
                    paraphrase,
                    accuracy: if weighted { estimate } else { 0.8 },
                });
                // A coming judgment weighs as the live rule weighs it; a pair keeps a settled
                // label only below its maximum (`judge_pair_settlement.sql`), and its posterior
                // of "paraphrase" always.
                let (settled, posterior) = match settle(&r, 0.5, &seen, NEXT_ACCURACY) {
                    Settling::Open => continue,
                    Settling::Settled {
                        paraphrase,
                        posterior,
                    } => (
                        (seen.len() < max as usize).then_some(paraphrase),
                        if paraphrase {
                            posterior
                        } else {
                            1.0 - posterior
                        },
                    ),
                    Settling::Unresolved { posterior } => (None, posterior),
                };
                let label = pair_label(
                    PairVotes {
                        judgments: seen.len() as u32,
                        paraphrase: seen.iter().filter(|v| v.paraphrase).count() as u32,
                        taken: seen.len() as u32,
                        settled,
                        posterior: Some(posterior),
                    },
                    rule,
                );
                let right = if truth {
                    VoteLabel::Paraphrase
                } else {
                    VoteLabel::NotParaphrase
                };
                tally[i].0 += u32::from(label == Some(right));
                tally[i].1 += u32::from(label == Some(VoteLabel::Unresolved));
                break;
            }
            tally[i].2 += seen.len() as u64;
        }
    }
    println!("adaptive redundancy, simulated ({pairs} pairs, 60 workers of mixed quality, at most {max} judgments):");
    for (name, (right, unresolved, judgments)) in [
        "fixed 6, majority",
        "fixed 10, majority",
        "adaptive at 0.95, votes counted (lead of 3)",
        "adaptive at 0.95, votes weighted by accuracy",
        "adaptive at 0.99, votes counted (lead of 4)",
        "adaptive at 0.99, votes weighted by accuracy",
    ]
    .iter()
    .zip(tally)
    {
        let labelled = pairs - unresolved;
        println!(
            "  {name:48} accuracy {:5.2}% (of the {labelled} labelled {:5.2}%, unresolved {:4.2}%)  judgments per pair {:5.2} ({:3.0}% of fixed 10)",
            f64::from(right) * 100.0 / f64::from(pairs),
            f64::from(right) * 100.0 / f64::from(labelled.max(1)),
            f64::from(unresolved) * 100.0 / f64::from(pairs),
            judgments as f64 / f64::from(pairs),
            judgments as f64 * 100.0 / (f64::from(pairs) * f64::from(max))
        );
    }
}

fn gate_simulation() {
    let mut rng = Rng::new(0x5eed_1234_abcd_0001);
    let runs = 2000;
    for rule in [GateRule::Paper, GateRule::Evidence, GateRule::Confidence] {
        let s = settings_of(rule);
        println!(
            "gate simulation, {} rule ({runs} workers per kind; test 1 in {}, from {} judgments):",
            rule.as_str(),
            s.test_every,
            s.gate_min_judgments
        );
        for limit in [30, 60] {
            let [honest, always, random] = stop_rates(&s, runs, limit, &mut || rng.unit());
            println!(
                "  stopped within {limit} judgments: honest 80-95% {:5.1}%, always paraphrase {:5.1}%, random {:5.1}%",
                honest * 100.0,
                always * 100.0,
                random * 100.0
            );
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let pairs: usize = args
        .get(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(125_000);
    let workers = 200;
    let judgments = synthetic(pairs, workers);
    if let Some(path) = args.get(2) {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        writeln!(f, "task\tworker\tlabel")?;
        for j in &judgments {
            writeln!(f, "{}\t{}\t{}", j.pair, j.worker, u8::from(j.is_paraphrase))?;
        }
    }
    let started = Instant::now();
    let a = agreement(&judgments, pairs, workers, (6, 6), default_thresholds(6));
    let took = started.elapsed().as_secs_f64();
    println!(
        "paracrowd (Rust): {pairs} pairs x 6 = {} judgments, {workers} workers",
        judgments.len()
    );
    println!(
        "  all statistics (Fleiss, alpha, AC1, kappa vs majority per worker, Dawid-Skene, GLAD, MACE, vote distribution): {:.3} s",
        took
    );
    // The three models of the workers on their own (each is part of the above).
    let answers: Vec<Answer> = judgments
        .iter()
        .map(|j| Answer {
            item: j.pair,
            worker: j.worker,
            label: usize::from(j.is_paraphrase),
        })
        .collect();
    let timed = |f: &dyn Fn() -> Vec<Option<usize>>| {
        let started = Instant::now();
        let labels = f();
        (started.elapsed().as_secs_f64(), labels)
    };
    let (ds_s, ds) = timed(&|| {
        dawid_skene(&answers, pairs, workers, 2, 100, 1e-5)
            .labels()
            .into_iter()
            .map(Some)
            .collect()
    });
    let glad_iterations = std::cell::Cell::new(0);
    let (glad_s, gl) = timed(&|| {
        let g = glad(&answers, pairs, workers, 2);
        glad_iterations.set(g.iterations);
        g.labels()
    });
    let (mace_s, ma) = timed(&|| mace(&answers, pairs, workers, 2).labels());
    let same = |x: &[Option<usize>]| x.iter().zip(&ds).filter(|(a, b)| a == b).count();
    println!(
        "  Dawid-Skene {ds_s:.3} s, GLAD {glad_s:.3} s ({} EM iterations), MACE {mace_s:.3} s; labels equal to Dawid-Skene's: GLAD {}, MACE {} of {pairs}",
        glad_iterations.get(),
        same(&gl),
        same(&ma)
    );
    println!(
        "  fleiss {:.6}  alpha {:.6}  ac1 {:.6}  mean kappa vs majority {:.6}  DS prior {:.6}",
        a.fleiss.unwrap_or(f64::NAN),
        a.alpha.unwrap_or(f64::NAN),
        a.ac1.unwrap_or(f64::NAN),
        a.mean_kappa_vs_majority.unwrap_or(f64::NAN),
        a.ds_prior_paraphrase.unwrap_or(f64::NAN)
    );
    gate_simulation();
    gate_goals();
    redundancy_simulation();
    collusion();
    twitter_replay()?;
    Ok(())
}

/// Five colluders who share the test pairs' answers and answer ordinary pairs at random, among
/// 25 honest workers (`simulated_study.rs`), 1,000 studies.
fn collusion() {
    let mut rng = Rng::new(0x5eed_1234_abcd_0004);
    let runs = 1000;
    for gate in [true, false] {
        let options = Options {
            gate,
            ..fixed_six()
        };
        let r = collusion_rates(&options, runs, &mut || rng.unit());
        println!(
            "colluders ({runs} studies of 25 honest workers and 5 colluders, 60 judgments each, gate {}): colluders flagged by judgment 40 {:.1}% (goal >= 95%), flagged or stopped {:.1}%; honest workers flagged {:.1}% (goal <= 1%), stopped {:.1}%",
            if gate { "on" } else { "off" },
            r.colluders_flagged_40 * 100.0,
            r.colluders_caught_40 * 100.0,
            r.honest_flagged * 100.0,
            r.honest_stopped * 100.0
        );
    }
    // Rings that share every answer, found as groups (`domain/judge/alike.rs`).
    for (copiers, judgments) in [(5, 40), (5, 80), (5, 150), (2, 150)] {
        let r = ring_rates(copiers, judgments, runs, &mut || rng.unit());
        println!(
            "answer rings ({runs} studies of 25 honest workers and {copiers} accounts sharing every answer, {judgments} judgments each): ring members grouped {:.1}%; honest workers grouped {:.2}%, studies with any {:.1}%",
            r.copiers_grouped * 100.0,
            r.honest_grouped * 100.0,
            r.studies_with_honest_grouped * 100.0
        );
    }
}

/// `paracrowd replay` on the Twitter URL test set's six votes per pair (`../shared`, where it
/// is), each pair's votes in a seeded random order, every vote its own anonymous worker.
fn twitter_replay() -> anyhow::Result<()> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/twitter_url/test_votes.tsv"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        println!("replay of the Twitter URL votes: skipped, {path} is not here");
        return Ok(());
    };
    let mut rng = Rng::new(0x5eed_1234_abcd_0005);
    let mut rows = Vec::new();
    for (n, line) in text.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        let (Some(pos), Some(raters)) = (f.get(2), f.get(3)) else {
            continue;
        };
        let (pos, raters): (usize, usize) = (pos.parse()?, raters.parse()?);
        let mut votes: Vec<bool> = (0..raters).map(|i| i < pos).collect();
        for i in (1..votes.len()).rev() {
            votes.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for (k, label) in votes.into_iter().enumerate() {
            rows.push(Row {
                item: format!("p{n}"),
                worker: format!("p{n}-{k}"),
                label,
                gold: None,
            });
        }
    }
    println!(
        "replay of the Twitter URL test set's votes ({} judgments):",
        rows.len()
    );
    // The last row spends at most half the judgments: a lead of two settles (0.94 at 0.8 a
    // vote), and the labels part from all six where the later votes would have turned them.
    for (min, max, confidence, aggregator) in [
        (6, 6, 0.95, Aggregator::Majority),
        (3, 6, 0.95, Aggregator::Majority),
        (3, 6, 0.95, Aggregator::Posterior),
        (1, 6, 0.95, Aggregator::Majority),
        (2, 6, 0.9, Aggregator::Majority),
    ] {
        let options = Options {
            redundancy: Redundancy {
                min,
                max,
                confidence,
            },
            aggregator,
            ..Options::default()
        };
        let s = replay::replay(&rows, &options);
        println!(
            "  --min {min} --max {max} --confidence {confidence:.2} --aggregator {:9}  labels used {:6} ({:5.1}%)  unresolved {:4}  agreement with all six {:.2}%",
            serde_json::to_value(aggregator)?.as_str().unwrap_or("?"),
            s.labels_used,
            s.labels_used as f64 * 100.0 / s.labels_available as f64,
            s.unresolved,
            s.agreement_with_all_labels.unwrap_or(f64::NAN) * 100.0
        );
    }
    Ok(())
}
