//! The quality gate's inputs as running counts, so an answer costs the same at a worker's
//! 2,000th judgment as at their 10th.
//!
//! [`super::gate::numbers`] reads a worker's whole history: every test answer, and for every
//! ordinary pair they judged, their label against the majority of the *other* workers' trusted
//! votes. All it keeps of the second list is the 2×2 table of (worker's label, others'
//! majority), ties and unjudged pairs left out, and how many of those answers agree and
//! disagree with a majority 2 and 3 or more votes ahead; kappa, the kappa item count, the
//! agreements and the leads come from those counts alone ([`GateCounts::numbers`] gives exactly
//! what `numbers` gives on the lists — a test below says so on random histories).
//!
//! So the database keeps the table per worker and changes it only where an input changes. One
//! judgment's cell depends on its label, its own trust, and its pair's trusted vote counts; all
//! three change only in a statement that holds the pair's row lock (a new judgment, a worker
//! stopped or reinstated, a republish). Each such statement reads every judgment on the pair
//! after taking the lock and records, per worker, the difference between each judgment's cell
//! before and after ([`table_changes`]). Invariant: a worker's stored table plus their recorded
//! differences is the sum of their judgments' current cells — the table `numbers` would build.
//! The gate folds the differences into the stored table when it reads it.
use std::collections::BTreeMap;

use super::gate::{Comparison, GateNumbers};

/// Trusted votes on one pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Votes {
    /// "Paraphrase" votes.
    pub paraphrase: i64,
    /// "Not paraphrase" votes.
    pub not: i64,
}

impl Votes {
    /// All the trusted votes.
    pub fn total(self) -> i64 {
        self.paraphrase + self.not
    }

    /// The votes of everyone but a judgment whose own trusted vote is `own` (`None`: it does
    /// not count, being untrusted or not there).
    pub fn without(self, own: Option<bool>) -> Votes {
        match own {
            Some(true) => Votes {
                paraphrase: self.paraphrase - 1,
                ..self
            },
            Some(false) => Votes {
                not: self.not - 1,
                ..self
            },
            None => self,
        }
    }

    /// How many votes the majority is ahead by (0 for a tie or no votes).
    pub fn lead(self) -> i64 {
        (self.paraphrase - self.not).abs()
    }

    /// The majority; `None` for a tie or no votes.
    fn majority(self) -> Option<bool> {
        match self.paraphrase.cmp(&self.not) {
            std::cmp::Ordering::Greater => Some(true),
            std::cmp::Ordering::Less => Some(false),
            std::cmp::Ordering::Equal => None,
        }
    }
}

/// Counts of (worker's label, others' majority) over a worker's ordinary pairs, and of the
/// agreements and disagreements among them with a majority that leads by at least 2 and at
/// least 3 votes (the `confidence` rule trusts a wider lead more: `confidence::majority_accuracy`);
/// a difference between two such tables when recorded as a change (cells may then be negative).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KappaTable {
    /// Worker "paraphrase", majority "paraphrase".
    pub pp: i64,
    /// Worker "paraphrase", majority "not".
    pub pn: i64,
    /// Worker "not", majority "paraphrase".
    pub np: i64,
    /// Worker "not", majority "not".
    pub nn: i64,
    /// Of the four cells: the worker agreed with a majority 2 or more votes ahead ...
    pub lead2_agreed: i64,
    /// ... or disagreed with it.
    pub lead2_disagreed: i64,
    /// The same with a majority 3 or more votes ahead: agreed ...
    pub lead3_agreed: i64,
    /// ... or disagreed.
    pub lead3_disagreed: i64,
}

impl KappaTable {
    /// The cell of one judgment: its label against the majority of the others' votes, counted
    /// among the agreements or disagreements with a wide lead where the lead is 2 or 3 or more.
    pub fn of(label: bool, others: Votes) -> KappaTable {
        let mut t = KappaTable::default();
        if let Some(m) = others.majority() {
            match (label, m) {
                (true, true) => t.pp = 1,
                (true, false) => t.pn = 1,
                (false, true) => t.np = 1,
                (false, false) => t.nn = 1,
            }
            let lead = others.lead();
            let (agreed, disagreed) = (i64::from(label == m), i64::from(label != m));
            if lead >= 2 {
                (t.lead2_agreed, t.lead2_disagreed) = (agreed, disagreed);
            }
            if lead >= 3 {
                (t.lead3_agreed, t.lead3_disagreed) = (agreed, disagreed);
            }
        }
        t
    }

    /// The cells in order: `pp, pn, np, nn`, then the wide leads' `lead2_agreed,
    /// lead2_disagreed, lead3_agreed, lead3_disagreed` (the order the database's
    /// `judge_cell_change` returns them in).
    pub fn cells(&self) -> [i64; 8] {
        [
            self.pp,
            self.pn,
            self.np,
            self.nn,
            self.lead2_agreed,
            self.lead2_disagreed,
            self.lead3_agreed,
            self.lead3_disagreed,
        ]
    }

    /// The table of [`KappaTable::cells`].
    pub fn from_cells(c: [i64; 8]) -> KappaTable {
        KappaTable {
            pp: c[0],
            pn: c[1],
            np: c[2],
            nn: c[3],
            lead2_agreed: c[4],
            lead2_disagreed: c[5],
            lead3_agreed: c[6],
            lead3_disagreed: c[7],
        }
    }

    /// Cell by cell sum.
    pub fn plus(self, o: KappaTable) -> KappaTable {
        let (a, b) = (self.cells(), o.cells());
        KappaTable::from_cells(std::array::from_fn(|i| a[i] + b[i]))
    }

    /// Cell by cell difference.
    pub fn minus(self, o: KappaTable) -> KappaTable {
        let (a, b) = (self.cells(), o.cells());
        KappaTable::from_cells(std::array::from_fn(|i| a[i] - b[i]))
    }

    /// No change.
    pub fn is_zero(&self) -> bool {
        *self == KappaTable::default()
    }

    /// The table as [`crate::domain::agreement::cohen_kappa_2x2`] takes it (`[label][majority]`,
    /// index 1 for "paraphrase"); a negative count, which the invariant rules out, reads as 0.
    pub fn counts(&self) -> [[u64; 2]; 2] {
        let c = |v: i64| v.max(0) as u64;
        [[c(self.nn), c(self.np)], [c(self.pn), c(self.pp)]]
    }

    /// The table of a list of comparisons, as `gate::numbers` sees them.
    pub fn tally(comparisons: &[Comparison]) -> KappaTable {
        comparisons.iter().fold(KappaTable::default(), |t, c| {
            t.plus(KappaTable::of(
                c.label,
                Votes {
                    paraphrase: i64::from(c.others_paraphrase),
                    not: i64::from(c.others_not),
                },
            ))
        })
    }
}

/// One judgment on a pair whose votes changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judged<K> {
    /// Whose judgment it is.
    pub worker: K,
    /// Their answer.
    pub label: bool,
    /// Whether it was trusted before the change; `None` when the change created it.
    pub trusted_before: Option<bool>,
    /// Whether it is trusted after the change.
    pub trusted_after: bool,
}

/// How each worker's table changes when a pair's trusted votes go from `before` to `after`:
/// every judgment on the pair (all of them, new ones included) loses its old cell and gains its
/// new one. Workers whose table does not change are left out.
pub fn table_changes<K: Ord + Copy>(
    before: Votes,
    after: Votes,
    judgments: &[Judged<K>],
) -> BTreeMap<K, KappaTable> {
    let mut out: BTreeMap<K, KappaTable> = BTreeMap::new();
    for j in judgments {
        let old = match j.trusted_before {
            None => KappaTable::default(),
            Some(trusted) => KappaTable::of(j.label, before.without(trusted.then_some(j.label))),
        };
        let new = KappaTable::of(j.label, after.without(j.trusted_after.then_some(j.label)));
        let change = new.minus(old);
        if !change.is_zero() {
            let e = out.entry(j.worker).or_default();
            *e = e.plus(change);
        }
    }
    out.retain(|_, t| !t.is_zero());
    out
}

/// Everything the gate reads about a worker, as kept on their row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateCounts {
    /// Judgments, test pairs included.
    pub judgments: u32,
    /// Test pairs answered.
    pub tests_answered: u32,
    /// Test pairs answered correctly.
    pub tests_correct: u32,
    /// Their ordinary pairs: label against the others' majority.
    pub table: KappaTable,
}

impl GateCounts {
    /// The gate's numbers, equal to `gate::numbers` on the history these counts sum up.
    pub fn numbers(&self) -> GateNumbers {
        let t = self.table.counts();
        let items = (t[0][0] + t[0][1] + t[1][0] + t[1][1]) as u32;
        let agreeing = (t[0][0] + t[1][1]) as u32;
        let kappa = if items as usize >= super::gate::MIN_KAPPA_ITEMS {
            crate::domain::agreement::cohen_kappa_2x2(t)
        } else {
            None
        };
        GateNumbers {
            judgments: self.judgments,
            tests_answered: self.tests_answered,
            test_accuracy: (self.tests_answered > 0)
                .then(|| f64::from(self.tests_correct) / f64::from(self.tests_answered)),
            tests_correct: self.tests_correct,
            kappa,
            kappa_items: items,
            agreements: self.tests_correct + agreeing,
            evidence: self.tests_answered + items,
            by_majority: [t[1][1], t[1][0], t[0][1], t[0][0]].map(|c| c as u32),
            by_lead: [
                self.table.lead2_agreed,
                self.table.lead2_disagreed,
                self.table.lead3_agreed,
                self.table.lead3_disagreed,
            ]
            .map(|c| c.max(0) as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::judge::gate::numbers;
    use crate::domain::rng::SplitMix64;

    fn votes(paraphrase: i64, not: i64) -> Votes {
        Votes { paraphrase, not }
    }

    #[test]
    fn a_new_judgment_counts_for_itself_and_moves_the_others() {
        // Two trusted votes (yes by 1, no by 2); worker 3 says yes.
        let judged = [
            Judged {
                worker: 1,
                label: true,
                trusted_before: Some(true),
                trusted_after: true,
            },
            Judged {
                worker: 2,
                label: false,
                trusted_before: Some(true),
                trusted_after: true,
            },
            Judged {
                worker: 3,
                label: true,
                trusted_before: None,
                trusted_after: true,
            },
        ];
        let c = table_changes(votes(1, 1), votes(2, 1), &judged);
        // Worker 1's others went from (0 yes, 1 no) to (1, 1): the "no" majority is gone.
        assert_eq!(
            c[&1],
            KappaTable {
                pn: -1,
                ..Default::default()
            }
        );
        // Worker 2's others went from (1, 0) to (2, 0): still "yes", now two votes ahead, so
        // their "no" disagrees with a wide lead.
        assert_eq!(
            c[&2],
            KappaTable {
                lead2_disagreed: 1,
                ..Default::default()
            }
        );
        // Worker 3's others are (1, 1): a tie, no cell.
        assert!(!c.contains_key(&3));
    }

    #[test]
    fn a_stopped_workers_votes_leave_the_others_majorities() {
        // Worker 9's "yes" becomes untrusted: (2, 1) -> (1, 1).
        let judged = [
            Judged {
                worker: 9,
                label: true,
                trusted_before: Some(true),
                trusted_after: false,
            },
            Judged {
                worker: 1,
                label: false,
                trusted_before: Some(true),
                trusted_after: true,
            },
            Judged {
                worker: 2,
                label: true,
                trusted_before: Some(true),
                trusted_after: true,
            },
        ];
        let c = table_changes(votes(2, 1), votes(1, 1), &judged);
        // Worker 9's own cell is unchanged: their own vote never counts for them.
        assert!(!c.contains_key(&9));
        // Worker 1: others (2 yes) -> (1 yes): still "yes", no longer two ahead.
        assert_eq!(
            c[&1],
            KappaTable {
                lead2_disagreed: -1,
                ..Default::default()
            }
        );
        // Worker 2: others (1 yes, 1 no) -> (0, 1): from a tie to "no".
        assert_eq!(
            c[&2],
            KappaTable {
                pn: 1,
                ..Default::default()
            }
        );
    }

    /// A random history of judgments, trust flips and new votes, replayed change by change,
    /// gives every worker the table `gate::numbers` builds from scratch, and the same numbers.
    #[test]
    fn running_tables_equal_the_full_count_on_random_histories() {
        let mut rng = SplitMix64::new(20);
        for _round in 0..200 {
            let workers = 6usize;
            let pairs = 8usize;
            // Per pair: each worker's (label, trusted) if they judged it.
            let mut judged: Vec<Vec<Option<(bool, bool)>>> = vec![vec![None; workers]; pairs];
            let mut running: BTreeMap<usize, KappaTable> = BTreeMap::new();
            let count = |j: &[Option<(bool, bool)>]| {
                j.iter()
                    .flatten()
                    .fold(Votes::default(), |v, &(label, trusted)| {
                        if !trusted {
                            v
                        } else if label {
                            Votes {
                                paraphrase: v.paraphrase + 1,
                                ..v
                            }
                        } else {
                            Votes {
                                not: v.not + 1,
                                ..v
                            }
                        }
                    })
            };
            for _step in 0..40 {
                let p = (rng.next_u64() % pairs as u64) as usize;
                let w = (rng.next_u64() % workers as u64) as usize;
                let before_state = judged[p].clone();
                match judged[p][w] {
                    None => judged[p][w] = Some((rng.next_u64().is_multiple_of(2), true)),
                    Some((label, trusted)) => judged[p][w] = Some((label, !trusted)),
                }
                let list: Vec<Judged<usize>> = (0..workers)
                    .filter_map(|k| {
                        let (label, trusted_after) = judged[p][k]?;
                        Some(Judged {
                            worker: k,
                            label,
                            trusted_before: before_state[k].map(|(_, t)| t),
                            trusted_after,
                        })
                    })
                    .collect();
                for (k, change) in table_changes(count(&before_state), count(&judged[p]), &list) {
                    let e = running.entry(k).or_default();
                    *e = e.plus(change);
                }
            }
            for w in 0..workers {
                let comparisons: Vec<Comparison> = judged
                    .iter()
                    .filter_map(|on_pair| {
                        let (label, trusted) = on_pair[w]?;
                        let others = count(on_pair).without(trusted.then_some(label));
                        Some(Comparison {
                            label,
                            others_paraphrase: others.paraphrase as u32,
                            others_not: others.not as u32,
                        })
                    })
                    .collect();
                let table = running.get(&w).copied().unwrap_or_default();
                assert_eq!(table, KappaTable::tally(&comparisons));
                let tests = [true, false, true];
                let counts = GateCounts {
                    judgments: 30,
                    tests_answered: 3,
                    tests_correct: 2,
                    table,
                };
                assert_eq!(counts.numbers(), numbers(30, &tests, &comparisons));
            }
        }
    }

    #[test]
    fn kappa_from_counts_equals_kappa_from_lists_with_enough_items() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..500 {
            let n = (rng.next_u64() % 30) as usize;
            let comparisons: Vec<Comparison> = (0..n)
                .map(|_| Comparison {
                    label: rng.next_u64().is_multiple_of(2),
                    others_paraphrase: (rng.next_u64() % 4) as u32,
                    others_not: (rng.next_u64() % 4) as u32,
                })
                .collect();
            let tests: Vec<bool> = (0..rng.next_u64() % 6)
                .map(|_| !rng.next_u64().is_multiple_of(3))
                .collect();
            let counts = GateCounts {
                judgments: 40,
                tests_answered: tests.len() as u32,
                tests_correct: tests.iter().filter(|t| **t).count() as u32,
                table: KappaTable::tally(&comparisons),
            };
            assert_eq!(counts.numbers(), numbers(40, &tests, &comparisons));
        }
    }
}
