//! An answer's cost against the worker's history: a few judges work side by
//! side until each has made `judgments` judgments, so every pair is judged by all of them and
//! every answer has the others' votes for the quality gate to compare with. The answer's
//! latency is kept by judgment number; [`render`] compares the worker's 10th with their last.
use std::time::Instant;

use anyhow::bail;
use serde_json::Value;

use crate::report::percentile;
use crate::setup::{call, Prepared};

/// Answer latencies in seconds: `answers[k]` holds every judge's (k+1)-th answer.
#[derive(Debug, Default)]
pub struct History {
    pub answers: Vec<Vec<f64>>,
}

/// One judge's `judgments` answers, each timed (an answer also leases the next pair; a
/// `judge/next`, needed only when an answer brings none, is not timed).
async fn judge(
    c: &reqwest::Client,
    base: &str,
    campaign: &str,
    judgments: usize,
    seed: u64,
) -> anyhow::Result<Vec<f64>> {
    let mut out = Vec::with_capacity(judgments);
    let mut rng = crate::Rng::new(seed);
    let mut ahead: Option<Value> = None;
    while out.len() < judgments {
        let task = match ahead.take() {
            Some(task) => task,
            None => call(c, base, "judge/next", &[("campaign_id", campaign)]).await?,
        };
        let Some(assignment) = task["Judge"]["assignment_id"].as_str() else {
            bail!(
                "judge ran out of pairs after {} judgments: {task}",
                out.len()
            );
        };
        let answer = rng.next_u64().is_multiple_of(2);
        let started = Instant::now();
        let outcome = call(
            c,
            base,
            "judge/answer",
            &[
                ("campaign_id", campaign),
                ("assignment_id", assignment),
                ("is_paraphrase", if answer { "true" } else { "false" }),
            ],
        )
        .await?;
        out.push(started.elapsed().as_secs_f64());
        ahead = outcome["next"].is_object().then(|| outcome["next"].clone());
    }
    Ok(out)
}

/// Every judge of `prepared` makes `judgments` judgments, all at once.
pub async fn run(prepared: &Prepared, base: &str, judgments: usize) -> anyhow::Result<History> {
    let runs = prepared.judges.iter().enumerate().map(|(i, c)| {
        judge(
            c,
            base,
            &prepared.judge_campaign,
            judgments,
            0x5EED + i as u64,
        )
    });
    let per_judge = futures::future::try_join_all(runs).await?;
    let mut answers = vec![Vec::new(); judgments];
    for latencies in per_judge {
        for (k, s) in latencies.into_iter().enumerate() {
            answers[k].push(s);
        }
    }
    Ok(History { answers })
}

/// The answers with judgment numbers `from..=to` (1-based), pooled over the judges.
fn window(h: &History, from: usize, to: usize) -> Vec<f64> {
    let mut v: Vec<f64> = h.answers[from - 1..to].iter().flatten().copied().collect();
    v.sort_by(f64::total_cmp);
    v
}

/// Median and p90 of the answers around the 10th judgment (6th-15th) and around the last (the
/// last ten), and their ratio.
pub fn render(h: &History) -> String {
    let n = h.answers.len();
    if n < 25 {
        return format!("history: {n} judgments per judge are too few to compare\n");
    }
    let judges = h.answers[0].len();
    let early = window(h, 6, 15);
    let late = window(h, n - 9, n);
    let ms = |v: &[f64], q: f64| percentile(v, q).unwrap_or(f64::NAN) * 1000.0;
    format!(
        "answer latency by the worker's judgment count ({judges} judges side by side, every pair judged by each):\n\
         \x20 judgments 6-15:       p50 {:.1} ms   p90 {:.1} ms\n\
         \x20 judgments {}-{}: p50 {:.1} ms   p90 {:.1} ms\n\
         \x20 ratio (late / early): p50 {:.2}x   p90 {:.2}x\n",
        ms(&early, 0.5),
        ms(&early, 0.9),
        n - 9,
        n,
        ms(&late, 0.5),
        ms(&late, 0.9),
        ms(&late, 0.5) / ms(&early, 0.5),
        ms(&late, 0.9) / ms(&early, 0.9),
    ) + &wide(h)
}

/// The same comparison over 100 judgments a side (judgments 6-105 against the last 100): ten
/// times the answers, so run-to-run noise on a shared machine weighs less.
fn wide(h: &History) -> String {
    let n = h.answers.len();
    if n < 210 {
        return String::new();
    }
    let early = window(h, 6, 105);
    let late = window(h, n - 99, n);
    let ms = |v: &[f64], q: f64| percentile(v, q).unwrap_or(f64::NAN) * 1000.0;
    format!(
        "\x20 judgments 6-105:      p50 {:.1} ms   p90 {:.1} ms\n\
         \x20 judgments {}-{}: p50 {:.1} ms   p90 {:.1} ms\n\
         \x20 ratio over 100 a side: p50 {:.2}x   p90 {:.2}x\n",
        ms(&early, 0.5),
        ms(&early, 0.9),
        n - 99,
        n,
        ms(&late, 0.5),
        ms(&late, 0.9),
        ms(&late, 0.5) / ms(&early, 0.5),
        ms(&late, 0.9) / ms(&early, 0.9),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_printout_compares_the_early_and_late_windows() {
        // Answers get slower by 1 ms per judgment: the late window is much slower.
        let h = History {
            answers: (0..100).map(|k| vec![0.001 * (k + 1) as f64; 3]).collect(),
        };
        let text = render(&h);
        assert!(text.contains("judgments 91-100"), "{text}");
        assert!(
            !text.contains("100 a side"),
            "too few for the wide windows: {text}"
        );
        let long = History {
            answers: (0..300).map(|k| vec![0.001 * (k + 1) as f64; 3]).collect(),
        };
        let text = render(&long);
        assert!(text.contains("judgments 201-300"), "{text}");
        assert!(text.contains("judgments 6-105"), "{text}");
        // Median of 6..=15 ms is 10.5 (or 10/11 by the percentile's rule); late ~95.5.
        let early = percentile(&window(&h, 6, 15), 0.5).unwrap();
        let late = percentile(&window(&h, 91, 100), 0.5).unwrap();
        assert!(late / early > 8.0, "{early} {late}");
        assert!(render(&History {
            answers: vec![vec![0.001]; 10]
        })
        .contains("too few"));
    }
}
