//! Replaying a past crowd study through the rules a live campaign uses, to choose settings
//! before paying for a study (`paracrowd replay LABELS.tsv`).
//!
//! The study's judgments are read in arrival order. Each is given to the rules as if the pair
//! had been served to that worker then, and is used only if a live campaign would have served
//! it:
//! - a worker the gate stopped is served nothing more ([`super::gate::numbers`] and
//!   [`super::gate::decide`] after every answer, as the answer path does);
//! - a worker never gets a pair twice (a repeated row is skipped);
//! - an ordinary pair is served until [`super::settle::settle`] settles it or declares it
//!   unresolved; its later judgments are not used. Votes are weighted by each worker's
//!   estimated accuracy ([`super::settle::worker_accuracy`] on the gate's pooled evidence,
//!   leaving out the vote's own pair), and a judgment still to come as much as any vote can weigh
//!   ([`super::settle::NEXT_ACCURACY`]), as the live campaign weighs it; with
//!   [`Weighting::Counted`] every vote weighs the prior ([`super::settle::PRIOR_ACCURACY`]) instead,
//!   the count-only rule to compare with.
//! - When the gate stops a worker, their votes stop counting, as live: a pair they helped settle
//!   opens again and takes the judgments that follow in the file.
//! - A pair at its maximum is labelled as a live campaign with the same settings labels it
//!   ([`super::labels::pair_label`]): the vote thresholds under fixed redundancy, the posterior
//!   under adaptive redundancy.
//!
//! Test pairs are taken from the `gold` column: every `test_every`-th item that has a gold label
//! (in order of first appearance) is a hidden test pair, served to every worker and judged
//! against its gold label; the other gold items measure accuracy. Labels come from the chosen
//! aggregator over the used, trusted votes; the reference "all labels" applies the same
//! aggregator to every row of the file (the posterior rule's reference is the majority).
//!
//! Pure: the command reads the file and prints the [`Summary`].
use std::collections::HashMap;

use serde::Serialize;

use super::gate::{self, Comparison, GateDecision, GateNumbers};
use super::gate_table::{GateCounts, KappaTable};
use super::harvest::HarvestCheck;
use super::labels::{default_thresholds, pair_label, LabelRule, PairVotes, VoteLabel};
use super::settings::JudgeSettings;
use super::settle::{self, Redundancy, Settling, Vote};
use crate::domain::agreement::majority;
use crate::domain::dawid_skene::{dawid_skene, Answer};
use crate::domain::glad::glad;
use crate::domain::mace::mace;
use crate::domain::table_file::{self, err, ImportError, TableFormat};

/// The most rows a file may have.
pub const MAX_ROWS: usize = 5_000_000;

/// One judgment of the study, as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The item (pair) judged.
    pub item: String,
    /// Who judged it.
    pub worker: String,
    /// They said "paraphrase".
    pub label: bool,
    /// The item's known label, where the study had one.
    pub gold: Option<bool>,
}

/// How a replay's labels are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aggregator {
    /// The label the campaign's rule gives: settled before the maximum (the leading label once
    /// its posterior reaches the target), or at the maximum as [`Options::label_rule`] says (no
    /// label otherwise).
    Posterior,
    /// The majority of the used votes; a tie has no label.
    Majority,
    /// Dawid-Skene over every used vote.
    DawidSkene,
    /// GLAD over every used vote.
    Glad,
    /// MACE over every used vote.
    Mace,
}

impl Aggregator {
    /// The names the command line takes.
    pub const NAMES: [&'static str; 5] = ["posterior", "majority", "dawid_skene", "glad", "mace"];

    /// Reads one of [`Aggregator::NAMES`] (a hyphen for the underscore is fine).
    pub fn parse(s: &str) -> Option<Aggregator> {
        match s.trim().replace('-', "_").as_str() {
            "posterior" => Some(Aggregator::Posterior),
            "majority" => Some(Aggregator::Majority),
            "dawid_skene" => Some(Aggregator::DawidSkene),
            "glad" => Some(Aggregator::Glad),
            "mace" => Some(Aggregator::Mace),
            _ => None,
        }
    }
}

/// How a replay weighs each vote when it settles an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Weighting {
    /// By the worker's estimated accuracy, as a live campaign weighs it.
    Accuracy,
    /// Every vote alike, at the prior accuracy ([`settle::PRIOR_ACCURACY`]: a lead of 3 settles
    /// at 0.95): the count-only rule the weighting is measured against.
    Counted,
}

impl Weighting {
    /// The names the command line takes.
    pub const NAMES: [&'static str; 2] = ["accuracy", "counted"];

    /// Reads one of [`Weighting::NAMES`].
    pub fn parse(s: &str) -> Option<Weighting> {
        match s.trim() {
            "accuracy" => Some(Weighting::Accuracy),
            "counted" => Some(Weighting::Counted),
            _ => None,
        }
    }
}

/// A replay's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// The gate's settings (rule, minimum, error level, from which judgment); `test_every`
    /// picks the test pairs.
    pub settings: JudgeSettings,
    /// Whether the gate runs at all.
    pub gate: bool,
    /// When a pair has enough judgments.
    pub redundancy: Redundancy,
    /// How labels are made.
    pub aggregator: Aggregator,
    /// How votes are weighed when an item is settled.
    pub weighting: Weighting,
}

impl Options {
    /// How a live campaign with these settings labels a pair at its maximum
    /// ([`JudgeSettings::label_rule`]; the vote thresholds are the default ones for the maximum).
    pub fn label_rule(&self) -> LabelRule {
        let r = self.redundancy;
        JudgeSettings {
            min_judgments_per_pair: r.min,
            judgments_per_pair: r.max,
            settle_confidence: r.confidence,
            thresholds: default_thresholds(r.max),
            ..self.settings
        }
        .label_rule()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            settings: JudgeSettings::default(),
            gate: true,
            redundancy: Redundancy::default(),
            aggregator: Aggregator::Posterior,
            weighting: Weighting::Accuracy,
        }
    }
}

/// What a replay found: one JSON line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Distinct items in the file, test pairs included.
    pub items: usize,
    /// Of which hidden test pairs.
    pub test_items: usize,
    /// Rows in the file.
    pub labels_available: usize,
    /// Rows a live campaign would have served (and paid for), test pairs included.
    pub labels_used: usize,
    /// The share of ordinary items with a gold label whose label equals it, over those with a
    /// label; `None` without any.
    pub accuracy: Option<f64>,
    /// The items `accuracy` is over.
    pub accuracy_items: usize,
    /// The share of ordinary items whose label equals the label from all of their rows, over
    /// items with both.
    pub agreement_with_all_labels: Option<f64>,
    /// Ordinary items without a label.
    pub unresolved: usize,
    /// Ordinary items the campaign's rule labelled: settled before the maximum, or labelled at
    /// it.
    pub settled: usize,
    /// Ordinary items whose rows ran out before the settling rule stopped serving them.
    pub ran_out: usize,
    /// Distinct workers.
    pub workers: usize,
    /// Workers the gate stopped.
    pub workers_stopped: usize,
    /// Workers flagged for answering test pairs far better than ordinary ones
    /// ([`super::harvest`]), at any point of the study.
    pub workers_flagged: usize,
    /// The aggregator.
    pub aggregator: Aggregator,
    /// How votes were weighed when items settled.
    pub weighting: Weighting,
}

fn parse_label(raw: &str) -> Option<bool> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "y" | "paraphrase" => Some(true),
        "0" | "false" | "no" | "n" | "not" | "not_paraphrase" | "not paraphrase" => Some(false),
        _ => None,
    }
}

const LABEL_WORDS: &str = "1/0, true/false, yes/no or paraphrase/not";

/// Reads a tab-separated file with a header and the columns `item`, `worker`, `label` and,
/// optionally, `gold`. The first bad line is refused by its number; an item whose rows give
/// two different gold labels is refused too.
pub fn read_rows(text: &str) -> Result<Vec<Row>, ImportError> {
    let table = table_file::read(text, TableFormat::Tsv, MAX_ROWS)?;
    for column in ["item", "worker", "label"] {
        table.require_column(&[column])?;
    }
    let mut gold_of: HashMap<String, (bool, usize)> = HashMap::new();
    let mut rows = Vec::with_capacity(table.records.len());
    for r in &table.records {
        let field = |name: &str| {
            r.get(&[name])
                .map(str::trim)
                .ok_or_else(|| err(r.line, format!("the `{name}` field is empty")))
        };
        let item = field("item")?.to_string();
        let worker = field("worker")?.to_string();
        let label = parse_label(field("label")?).ok_or_else(|| {
            err(
                r.line,
                format!(
                    "the label {:?} is not one of {LABEL_WORDS}",
                    field("label").unwrap_or("")
                ),
            )
        })?;
        let gold = match r.get(&["gold"]) {
            None => None,
            Some(g) => Some(parse_label(g).ok_or_else(|| {
                err(
                    r.line,
                    format!("the gold label {:?} is not one of {LABEL_WORDS}", g.trim()),
                )
            })?),
        };
        if let Some(g) = gold {
            match gold_of.get(&item) {
                Some(&(other, line)) if other != g => {
                    return Err(err(
                        r.line,
                        format!("item {item:?} has another gold label on line {line}"),
                    ))
                }
                Some(_) => {}
                None => {
                    gold_of.insert(item.clone(), (g, r.line));
                }
            }
        }
        rows.push(Row {
            item,
            worker,
            label,
            gold,
        });
    }
    if rows.is_empty() {
        return Err(err(1, "the file has a header but no judgments"));
    }
    Ok(rows)
}

/// What became of one worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerOutcome {
    /// The worker, as the file names them.
    pub worker: String,
    /// Judgments served to them.
    pub judgments: u32,
    /// The judgment at which the gate stopped them.
    pub stopped_at: Option<u32>,
    /// The judgment at which they were first flagged as answering test pairs far better than
    /// ordinary ones.
    pub flagged_at: Option<u32>,
}

#[derive(Default)]
struct WorkerState {
    stopped: bool,
    stopped_at: Option<u32>,
    flagged_at: Option<u32>,
    judgments: u32,
    tests: Vec<bool>,
    /// Ordinary items answered (used), with the label.
    answered: Vec<(usize, bool)>,
    /// The gate's numbers after their last answer.
    numbers: Option<GateNumbers>,
}

impl WorkerState {
    /// The accuracy without the evidence of one ordinary answer `label` on a pair whose
    /// others' trusted votes are `others` (a vote must not vouch for itself).
    fn accuracy_without(&self, label: bool, others: (u32, u32)) -> f64 {
        match &self.numbers {
            Some(n) => settle::vote_accuracy(label, others.0, others.1, n.agreements, n.evidence),
            None => settle::worker_accuracy(0, 0),
        }
    }
}

struct ItemState {
    gold: Option<bool>,
    test: bool,
    /// Used votes: (worker, label), in order.
    votes: Vec<(usize, bool)>,
    settling: Settling,
}

/// The study's rows as indices: (item, worker, label) and each item's gold label.
struct Indexed<'a> {
    rows: Vec<(usize, usize, bool)>,
    gold: Vec<Option<bool>>,
    workers: Vec<&'a str>,
}

fn index(rows: &[Row]) -> Indexed<'_> {
    let mut items: HashMap<&str, usize> = HashMap::new();
    let mut workers: HashMap<&str, usize> = HashMap::new();
    let mut names = Vec::new();
    let mut gold = Vec::new();
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let next = items.len();
        let i = *items.entry(r.item.as_str()).or_insert(next);
        if i == gold.len() {
            gold.push(None);
        }
        if r.gold.is_some() {
            gold[i] = r.gold;
        }
        let next = workers.len();
        let w = *workers.entry(r.worker.as_str()).or_insert(next);
        if w == names.len() {
            names.push(r.worker.as_str());
        }
        out.push((i, w, r.label));
    }
    Indexed {
        rows: out,
        gold,
        workers: names,
    }
}

/// The hidden test pairs: every `test_every`-th item with a gold label, in order of first
/// appearance (none for 0).
fn test_items(gold: &[Option<bool>], test_every: u32) -> Vec<bool> {
    let mut seen = 0u32;
    gold.iter()
        .map(|g| {
            if g.is_none() || test_every == 0 {
                return false;
            }
            seen += 1;
            seen.is_multiple_of(test_every)
        })
        .collect()
}

struct Replay<'a> {
    o: &'a Options,
    items: Vec<ItemState>,
    workers: Vec<WorkerState>,
    /// Trusted (paraphrase, not) votes per item.
    trusted: Vec<(u32, u32)>,
    used: usize,
    stopped: usize,
}

impl Replay<'_> {
    fn resettle(&mut self, i: usize) {
        let (p, n) = self.trusted[i];
        let votes: Vec<Vote> = self.items[i]
            .votes
            .iter()
            .filter(|(w, _)| !self.workers[*w].stopped)
            .map(|&(w, paraphrase)| {
                let others = if paraphrase { (p - 1, n) } else { (p, n - 1) };
                Vote {
                    paraphrase,
                    accuracy: match self.o.weighting {
                        Weighting::Accuracy => self.workers[w].accuracy_without(paraphrase, others),
                        Weighting::Counted => settle::PRIOR_ACCURACY,
                    },
                }
            })
            .collect();
        // As the live campaign weighs them: a judgment still to come as much as any vote can.
        let r = &self.o.redundancy;
        // A stopped worker's vote keeps its slot, as live (`judge_pair_taken`): an item whose
        // slots are all taken gets no more votes, and its votes that still count get the label a
        // live campaign with these settings gives at the maximum (`labels::pair_label`): the vote
        // thresholds under fixed redundancy, the posterior under adaptive redundancy.
        let taken = self.items[i].votes.len() as u32;
        self.items[i].settling = if taken >= r.max {
            let p = settle::posterior(0.5, &votes);
            let pair = PairVotes {
                judgments: votes.len() as u32,
                paraphrase: votes.iter().filter(|v| v.paraphrase).count() as u32,
                taken,
                settled: None,
                // As live: no posterior below the minimum.
                posterior: (votes.len() as u32 >= r.min).then_some(p),
            };
            match pair_label(pair, self.o.label_rule()) {
                Some(VoteLabel::Paraphrase) => Settling::Settled {
                    paraphrase: true,
                    posterior: p,
                },
                Some(VoteLabel::NotParaphrase) => Settling::Settled {
                    paraphrase: false,
                    posterior: 1.0 - p,
                },
                _ => Settling::Unresolved { posterior: p },
            }
        } else {
            settle::settle(r, 0.5, &votes, settle::NEXT_ACCURACY)
        };
    }

    fn numbers(&self, w: usize) -> GateNumbers {
        let s = &self.workers[w];
        let comparisons: Vec<Comparison> = s
            .answered
            .iter()
            .map(|&(i, label)| {
                let (p, n) = self.trusted[i];
                // The worker's own vote is trusted (they are not stopped): leave it out.
                let (p, n) = if label { (p - 1, n) } else { (p, n - 1) };
                Comparison {
                    label,
                    others_paraphrase: p,
                    others_not: n,
                }
            })
            .collect();
        gate::numbers(s.judgments, &s.tests, &comparisons)
    }

    fn stop(&mut self, w: usize) {
        self.workers[w].stopped = true;
        self.workers[w].stopped_at = Some(self.workers[w].judgments);
        self.stopped += 1;
        let answered = std::mem::take(&mut self.workers[w].answered);
        for &(i, label) in &answered {
            let t = &mut self.trusted[i];
            if label {
                t.0 -= 1;
            } else {
                t.1 -= 1;
            }
            self.resettle(i);
        }
        self.workers[w].answered = answered;
    }

    fn take(&mut self, i: usize, w: usize, label: bool) {
        if self.workers[w].stopped || self.items[i].votes.iter().any(|(v, _)| *v == w) {
            return;
        }
        if self.items[i].test {
            let right = Some(label) == self.items[i].gold;
            self.workers[w].tests.push(right);
            self.items[i].votes.push((w, label));
        } else {
            if self.items[i].settling != Settling::Open {
                return;
            }
            self.items[i].votes.push((w, label));
            self.workers[w].answered.push((i, label));
            let t = &mut self.trusted[i];
            if label {
                t.0 += 1;
            } else {
                t.1 += 1;
            }
        }
        self.used += 1;
        self.workers[w].judgments += 1;
        let numbers = self.numbers(w);
        self.workers[w].numbers = Some(numbers);
        if self.workers[w].flagged_at.is_none() && harvest_flag(&numbers) {
            self.workers[w].flagged_at = Some(numbers.judgments);
        }
        if self.o.gate {
            if let GateDecision::Stop(_) = gate::decide(&self.o.settings, &numbers) {
                self.stop(w);
            }
        }
        if !self.items[i].test {
            self.resettle(i);
        }
    }
}

/// The dashboard's harvest flag on a worker's gate numbers.
fn harvest_flag(n: &GateNumbers) -> bool {
    let [pp, pn, np, nn] = n.by_majority.map(i64::from);
    let [lead2_agreed, lead2_disagreed, lead3_agreed, lead3_disagreed] = n.by_lead.map(i64::from);
    HarvestCheck::of(&GateCounts {
        judgments: n.judgments,
        tests_answered: n.tests_answered,
        tests_correct: n.tests_correct,
        table: KappaTable {
            pp,
            pn,
            np,
            nn,
            lead2_agreed,
            lead2_disagreed,
            lead3_agreed,
            lead3_disagreed,
        },
    })
    .flagged()
}

/// Labels by `aggregator` of `answers` (item, worker, label) over `items` items; items without
/// answers have none. `posterior` is not a model of all answers: it reads as the majority.
fn aggregate(
    aggregator: Aggregator,
    answers: &[(usize, usize, bool)],
    items: usize,
    workers: usize,
) -> Vec<Option<bool>> {
    let mut counts = vec![(0u32, 0u32); items];
    for &(i, _, label) in answers {
        if label {
            counts[i].0 += 1;
        } else {
            counts[i].1 += 1;
        }
    }
    let model: Vec<Answer> = answers
        .iter()
        .map(|&(item, worker, label)| Answer {
            item,
            worker,
            label: usize::from(label),
        })
        .collect();
    let labels: Vec<Option<bool>> = match aggregator {
        Aggregator::Posterior | Aggregator::Majority => counts
            .iter()
            .map(|&(p, n)| {
                majority(
                    std::iter::repeat_n(true, p as usize)
                        .chain(std::iter::repeat_n(false, n as usize)),
                )
            })
            .collect(),
        Aggregator::DawidSkene => dawid_skene(&model, items, workers, 2, 100, 1e-5)
            .labels()
            .into_iter()
            .map(|l| Some(l == 1))
            .collect(),
        Aggregator::Glad => glad(&model, items, workers, 2)
            .labels()
            .into_iter()
            .map(|l| l.map(|l| l == 1))
            .collect(),
        Aggregator::Mace => mace(&model, items, workers, 2)
            .labels()
            .into_iter()
            .map(|l| l.map(|l| l == 1))
            .collect(),
    };
    labels
        .into_iter()
        .zip(&counts)
        .map(|(l, &(p, n))| if p + n == 0 { None } else { l })
        .collect()
}

/// Replays `rows` under `o`.
pub fn replay(rows: &[Row], o: &Options) -> Summary {
    replay_with_workers(rows, o).0
}

/// Replays `rows` under `o`, with what became of each worker (in order of first appearance).
pub fn replay_with_workers(rows: &[Row], o: &Options) -> (Summary, Vec<WorkerOutcome>) {
    let ix = index(rows);
    let worker_count = ix.workers.len();
    let tests = test_items(&ix.gold, o.settings.test_every);
    let mut r = Replay {
        o,
        items: ix
            .gold
            .iter()
            .zip(&tests)
            .map(|(&gold, &test)| ItemState {
                gold,
                test,
                votes: Vec::new(),
                settling: Settling::Open,
            })
            .collect(),
        workers: (0..worker_count).map(|_| WorkerState::default()).collect(),
        trusted: vec![(0, 0); ix.gold.len()],
        used: 0,
        stopped: 0,
    };
    for &(i, w, label) in &ix.rows {
        r.take(i, w, label);
    }

    let ordinary = |i: usize| !r.items[i].test;
    let used: Vec<(usize, usize, bool)> = r
        .items
        .iter()
        .enumerate()
        .filter(|(i, _)| ordinary(*i))
        .flat_map(|(i, item)| {
            item.votes
                .iter()
                .filter(|(w, _)| !r.workers[*w].stopped)
                .map(move |&(w, l)| (i, w, l))
        })
        .collect();
    let labels: Vec<Option<bool>> = match o.aggregator {
        Aggregator::Posterior => r
            .items
            .iter()
            .map(|item| match item.settling {
                Settling::Settled { paraphrase, .. } => Some(paraphrase),
                _ => None,
            })
            .collect(),
        a => aggregate(a, &used, r.items.len(), worker_count),
    };
    let mut seen = std::collections::HashSet::new();
    let everything: Vec<(usize, usize, bool)> = ix
        .rows
        .iter()
        .copied()
        .filter(|&(i, w, _)| ordinary(i) && seen.insert((i, w)))
        .collect();
    let reference = aggregate(o.aggregator, &everything, r.items.len(), worker_count);

    let ordinary_items: Vec<usize> = (0..r.items.len()).filter(|&i| ordinary(i)).collect();
    let share = |pairs: Vec<(bool, bool)>| {
        (!pairs.is_empty())
            .then(|| pairs.iter().filter(|(a, b)| a == b).count() as f64 / pairs.len() as f64)
    };
    let against_gold: Vec<(bool, bool)> = ordinary_items
        .iter()
        .filter_map(|&i| Some((labels[i]?, r.items[i].gold?)))
        .collect();
    let against_all: Vec<(bool, bool)> = ordinary_items
        .iter()
        .filter_map(|&i| Some((labels[i]?, reference[i]?)))
        .collect();
    let count = |f: &dyn Fn(usize) -> bool| ordinary_items.iter().filter(|&&i| f(i)).count();
    let summary = Summary {
        items: r.items.len(),
        test_items: tests.iter().filter(|t| **t).count(),
        labels_available: rows.len(),
        labels_used: r.used,
        accuracy_items: against_gold.len(),
        accuracy: share(against_gold),
        agreement_with_all_labels: share(against_all),
        unresolved: count(&|i| labels[i].is_none()),
        settled: count(&|i| matches!(r.items[i].settling, Settling::Settled { .. })),
        ran_out: count(&|i| r.items[i].settling == Settling::Open),
        workers: worker_count,
        workers_stopped: r.stopped,
        workers_flagged: r.workers.iter().filter(|w| w.flagged_at.is_some()).count(),
        aggregator: o.aggregator,
        weighting: o.weighting,
    };
    let outcomes = r
        .workers
        .iter()
        .zip(&ix.workers)
        .map(|(w, name)| WorkerOutcome {
            worker: name.to_string(),
            judgments: w.judgments,
            stopped_at: w.stopped_at,
            flagged_at: w.flagged_at,
        })
        .collect();
    (summary, outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::judge::settings::GateRule;
    use crate::domain::rng::SplitMix64;

    fn row(item: &str, worker: &str, label: bool, gold: Option<bool>) -> Row {
        Row {
            item: item.into(),
            worker: worker.into(),
            label,
            gold,
        }
    }

    fn no_gate(min: u32, max: u32) -> Options {
        Options {
            gate: false,
            redundancy: Redundancy {
                min,
                max,
                confidence: 0.95,
            },
            aggregator: Aggregator::Majority,
            ..Options::default()
        }
    }

    #[test]
    fn reads_labels_in_any_common_spelling_and_refuses_bad_lines_by_number() {
        let rows = read_rows(
            "item\tworker\tlabel\tgold\na\tw1\t1\t1\na\tw2\tno\t\nb\tw1\tParaphrase\t0\n",
        )
        .unwrap();
        assert_eq!(
            rows,
            [
                row("a", "w1", true, Some(true)),
                row("a", "w2", false, None),
                row("b", "w1", true, Some(false)),
            ]
        );
        let e = read_rows("item\tworker\n a\tw1\n").unwrap_err();
        assert!(e.to_string().contains("`label`"), "{e}");
        let e = read_rows("item\tworker\tlabel\na\tw1\tmaybe\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("\"maybe\""), "{e}");
        let e = read_rows("item\tworker\tlabel\n\tw1\t1\n").unwrap_err();
        assert!(e.to_string().contains("`item`"), "{e}");
        let e = read_rows("item\tworker\tlabel\tgold\na\tw1\t1\t1\na\tw2\t1\t0\n").unwrap_err();
        assert_eq!((e.line, e.to_string().contains("line 2")), (3, true), "{e}");
        assert!(read_rows("item\tworker\tlabel\n").is_err());
    }

    #[test]
    fn fixed_redundancy_uses_the_first_n_votes_of_each_item() {
        // Item a: 2-1 then 3 more "not"; item b: 4 "paraphrase".
        let mut rows = Vec::new();
        for (k, l) in [true, true, false, false, false, false].iter().enumerate() {
            rows.push(row("a", &format!("w{k}"), *l, None));
        }
        for k in 0..4 {
            rows.push(row("b", &format!("w{k}"), true, None));
        }
        let s = replay(&rows, &no_gate(3, 3));
        assert_eq!((s.labels_available, s.labels_used), (10, 6));
        // The first three of a say paraphrase 2-1; all six say not 4-2.
        assert_eq!(s.agreement_with_all_labels, Some(0.5));
        assert_eq!((s.items, s.workers, s.ran_out, s.unresolved), (2, 6, 0, 0));
    }

    #[test]
    fn a_settled_item_takes_no_more_votes_and_a_worker_no_item_twice() {
        let rows = vec![
            row("a", "w1", true, None),
            row("a", "w1", true, None),
            row("a", "w2", true, None),
            row("a", "w3", true, None),
            row("a", "w4", false, None),
            row("b", "w1", true, None),
        ];
        let s = replay(
            &rows,
            &Options {
                gate: false,
                ..Options::default()
            },
        );
        // a settles 3-0 at three votes (a lead of 3 at the prior accuracy); b ran out.
        assert_eq!(
            (s.labels_used, s.settled, s.ran_out, s.unresolved),
            (4, 1, 1, 1)
        );
    }

    #[test]
    fn every_nth_gold_item_is_a_test_pair_and_the_rest_measure_accuracy() {
        assert_eq!(
            test_items(&[Some(true), None, Some(false), Some(true), Some(true)], 2),
            [false, false, true, false, true]
        );
        assert_eq!(test_items(&[Some(true); 3], 0), [false; 3]);
    }

    /// A study of 400 items with gold labels, 30 careful workers (90-97%), an always-"paraphrase"
    /// worker and a random one, each item judged by 10 workers in turn.
    fn study(seed: u64) -> Vec<Row> {
        let mut rng = SplitMix64::new(seed);
        let careful: Vec<f64> = (0..30).map(|_| 0.9 + 0.07 * rng.unit()).collect();
        let mut rows = Vec::new();
        for item in 0..400 {
            let truth = rng.unit() < 0.4;
            let mut who: Vec<usize> = Vec::new();
            while who.len() < 10 {
                let w = rng.below(32) as usize;
                if !who.contains(&w) {
                    who.push(w);
                }
            }
            for w in who {
                let label = match w {
                    30 => true,
                    31 => rng.unit() < 0.5,
                    _ => {
                        if rng.unit() < careful[w] {
                            truth
                        } else {
                            !truth
                        }
                    }
                };
                rows.push(row(
                    &format!("i{item}"),
                    &format!("w{w}"),
                    label,
                    Some(truth),
                ));
            }
        }
        rows
    }

    #[test]
    fn the_live_rules_stop_bad_workers_and_save_judgments_without_losing_accuracy() {
        let rows = study(7);
        let fixed = replay(
            &rows,
            &Options {
                redundancy: Redundancy {
                    min: 10,
                    max: 10,
                    confidence: 0.95,
                },
                aggregator: Aggregator::Majority,
                gate: false,
                ..Options::default()
            },
        );
        let adaptive = replay(
            &rows,
            &Options {
                redundancy: Redundancy {
                    min: 3,
                    max: 10,
                    confidence: 0.95,
                },
                ..Options::default()
            },
        );
        assert_eq!(fixed.labels_used, rows.len());
        assert_eq!(fixed.test_items, 80);
        assert_eq!(adaptive.workers_stopped, 2, "{adaptive:?}");
        assert!(
            adaptive.labels_used * 2 < fixed.labels_used,
            "{adaptive:?} against {fixed:?}"
        );
        let (a, f) = (adaptive.accuracy.unwrap(), fixed.accuracy.unwrap());
        assert!(a >= f - 0.01 && a > 0.97, "{adaptive:?} against {fixed:?}");
        // Without the gate the two bad workers stay.
        let ungated = replay(
            &rows,
            &Options {
                gate: false,
                ..Options::default()
            },
        );
        assert_eq!(ungated.workers_stopped, 0);
        let paper = replay(
            &rows,
            &Options {
                settings: JudgeSettings {
                    gate_rule: GateRule::Paper,
                    ..JudgeSettings::default()
                },
                ..Options::default()
            },
        );
        assert!(paper.workers_stopped >= 2, "{paper:?}");
    }

    #[test]
    fn a_stopped_workers_votes_stop_counting_and_their_items_open_again() {
        // w0 says paraphrase on a test pair whose gold is not, every time; with the paper
        // rule from judgment 1 it is stopped at once, and item x's vote no longer counts.
        let settings = JudgeSettings {
            gate_rule: GateRule::Paper,
            gate_min_judgments: 2,
            test_every: 1,
            ..JudgeSettings::default()
        };
        let rows = vec![
            row("x", "w0", true, None),
            row("t", "w0", true, Some(false)),
            row("x", "w1", true, None),
            row("x", "w2", true, None),
            row("x", "w3", true, None),
        ];
        let s = replay(
            &rows,
            &Options {
                settings,
                redundancy: Redundancy {
                    min: 3,
                    max: 6,
                    confidence: 0.95,
                },
                ..Options::default()
            },
        );
        assert_eq!(s.workers_stopped, 1);
        assert_eq!(s.test_items, 1);
        // All five rows were served; x settled on w1-w3 alone.
        assert_eq!((s.labels_used, s.settled, s.unresolved), (5, 1, 0));

        // x settles on three votes; then one of its voters is stopped, and x takes the next
        // row it would otherwise have skipped.
        let rows = vec![
            row("x", "w1", true, None),
            row("x", "w2", true, None),
            row("x", "w3", true, None),
            row("t", "w3", true, Some(false)),
            row("x", "w4", true, None),
        ];
        let options = Options {
            settings,
            ..Options::default()
        };
        let s = replay(&rows, &options);
        assert_eq!(
            (s.workers_stopped, s.labels_used, s.settled),
            (1, 5, 1),
            "{s:?}"
        );
        // Had nobody been stopped, w4's row would not have been served.
        let kept: Vec<Row> = rows.iter().filter(|r| r.item != "t").cloned().collect();
        assert_eq!(replay(&kept, &options).labels_used, 3);

        // At its maximum, x keeps the stopped voter's slot, as a live pair does: it takes no
        // more rows and is labelled by the two votes that still count, as a live campaign with
        // these settings labels it. Under fixed redundancy that is the vote thresholds (two of
        // three say "paraphrase"); under adaptive redundancy the posterior, 0.94 for two votes
        // at the prior accuracy, short of the target: unresolved.
        let with = |min, max| Options {
            settings,
            redundancy: Redundancy {
                min,
                max,
                confidence: 0.95,
            },
            ..Options::default()
        };
        let s = replay(&rows, &with(3, 3));
        assert_eq!(
            (s.workers_stopped, s.labels_used, s.settled, s.unresolved),
            (1, 4, 1, 0),
            "{s:?}"
        );
        let s = replay(&rows, &with(2, 3));
        assert_eq!(
            (s.workers_stopped, s.labels_used, s.settled, s.unresolved),
            (1, 4, 0, 1),
            "{s:?}"
        );
    }

    #[test]
    fn a_fixed_replay_labels_at_the_maximum_by_the_thresholds_a_live_campaign_uses() {
        // Six votes each, in arrival order: four of a's say "paraphrase", which the thresholds
        // of six call a paraphrase while the posterior of equal workers (0.94) falls short of
        // the target; b is a tie; c says "not" from its first three votes.
        let rows: Vec<Row> = [("a", "YNYNYY"), ("b", "YNYNYN"), ("c", "NNNYNN")]
            .iter()
            .flat_map(|&(item, votes)| {
                votes
                    .chars()
                    .enumerate()
                    .map(move |(k, v)| row(item, &format!("{item}-w{k}"), v == 'Y', None))
            })
            .collect();
        let fixed = Options {
            gate: false,
            redundancy: Redundancy {
                min: 6,
                max: 6,
                confidence: 0.95,
            },
            ..Options::default()
        };
        assert_eq!(
            fixed.label_rule(),
            LabelRule {
                max: 6,
                at_maximum: super::super::labels::AtMaximum::Thresholds(default_thresholds(6)),
            }
        );
        let s = replay(&rows, &fixed);
        assert_eq!(
            (s.labels_used, s.settled, s.unresolved),
            (18, 2, 1),
            "{s:?}"
        );
        // Under adaptive redundancy with the same maximum, c settles on three votes, and a and
        // b are unresolved at the maximum, a for the posterior that falls short.
        let adaptive = Options {
            redundancy: Redundancy {
                min: 3,
                ..fixed.redundancy
            },
            ..fixed
        };
        assert!(matches!(
            adaptive.label_rule().at_maximum,
            super::super::labels::AtMaximum::Posterior { confidence } if confidence == 0.95
        ));
        let s = replay(&rows, &adaptive);
        assert_eq!(
            (s.labels_used, s.settled, s.unresolved),
            (15, 1, 2),
            "{s:?}"
        );
    }

    #[test]
    fn counted_votes_weigh_as_anonymous_workers_and_weighting_uses_what_is_known_of_them() {
        let rows = study(7);
        let counted = Options {
            gate: false,
            weighting: Weighting::Counted,
            ..Options::default()
        };
        // Counting is weighing every vote as a worker nobody knows anything about: each row its
        // own worker, weighted by accuracy, settles every item alike.
        let anonymous: Vec<Row> = rows
            .iter()
            .enumerate()
            .map(|(k, r)| Row {
                worker: format!("anonymous-{k}"),
                ..r.clone()
            })
            .collect();
        let by_accuracy = Options {
            weighting: Weighting::Accuracy,
            ..counted
        };
        let a = replay(&rows, &counted);
        let b = replay(&anonymous, &by_accuracy);
        assert_eq!(
            (a.labels_used, a.settled, a.unresolved, a.accuracy),
            (b.labels_used, b.settled, b.unresolved, b.accuracy)
        );
        // With the workers known, the always-"paraphrase" and the random worker weigh less and
        // the careful ones more: the labels differ, and are at least as accurate.
        let w = replay(&rows, &by_accuracy);
        assert_ne!((w.labels_used, w.settled), (a.labels_used, a.settled));
        assert!(w.accuracy.unwrap() >= a.accuracy.unwrap(), "{w:?} {a:?}");
        assert_eq!(Weighting::parse("counted"), Some(Weighting::Counted));
        assert_eq!(Weighting::parse("votes"), None);
    }

    #[test]
    fn every_aggregator_labels_the_study() {
        let rows = study(11);
        for name in Aggregator::NAMES {
            let aggregator = Aggregator::parse(name).unwrap();
            let s = replay(
                &rows,
                &Options {
                    aggregator,
                    ..Options::default()
                },
            );
            assert!(s.accuracy.unwrap() > 0.95, "{name}: {s:?}");
            assert!(s.agreement_with_all_labels.unwrap() > 0.95, "{name}: {s:?}");
            let json = serde_json::to_string(&s).unwrap();
            assert!(
                json.contains(&format!("\"aggregator\":\"{name}\"")),
                "{json}"
            );
        }
        assert_eq!(
            Aggregator::parse("dawid-skene"),
            Some(Aggregator::DawidSkene)
        );
        assert_eq!(Aggregator::parse("vote"), None);
    }
}
