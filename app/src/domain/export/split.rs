//! Train/dev/test splits of exported rows, reproducible from a seed.
//!
//! - By group ([`SplitBy::Group`], as APT §4 split AP_H by source sentence): groups are
//!   shuffled with SplitMix64 from the seed, and whole groups fill the test part to its share of
//!   the rows, then dev, and the rest is train.
//! - By time ([`SplitBy::Time`], as MultiPIT split by date): groups ordered by their earliest
//!   row (ties by first appearance), oldest to train, then dev, newest to test; whole groups
//!   again, so a trend or URL never spans two parts.
//!
//! Rows without a group are their own group. Either way no group is in two parts (a property
//! test below checks it on random inputs), and a part holds its share up to one group's rows.
use crate::domain::invalid::Invalid;
use std::collections::HashMap;
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::domain::rng::SplitMix64;

/// A part of a train/dev/test split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Part {
    /// Training data.
    Train,
    /// Development (validation) data.
    Dev,
    /// Held-out test data.
    Test,
}

impl Part {
    /// `train`, `dev` or `test`.
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Train => "train",
            Part::Dev => "dev",
            Part::Test => "test",
        }
    }
    /// `train`, `dev` (or `validation`) or `test`, surrounding blanks ignored.
    pub fn parse(s: &str) -> Option<Part> {
        match s.trim() {
            "train" => Some(Part::Train),
            "dev" | "validation" => Some(Part::Dev),
            "test" => Some(Part::Test),
            _ => None,
        }
    }
}

/// How rows are divided between parts, whole groups at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SplitBy {
    /// Shuffle groups with the seed, then fill test, dev and train.
    Group,
    /// Order groups by their earliest row: oldest to train, newest to test.
    Time,
}

/// Shares of the rows; 80/10/10 by default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Shares {
    /// Share of rows for training, 0 to 1.
    pub train: f64,
    /// Share of rows for development, 0 to 1.
    pub dev: f64,
    /// Share of rows for testing, 0 to 1.
    pub test: f64,
}

impl Default for Shares {
    fn default() -> Self {
        Shares {
            train: 0.8,
            dev: 0.1,
            test: 0.1,
        }
    }
}

impl Shares {
    /// Shares are non-negative and add up to 1 (within 0.001); the error names the field.
    pub fn check(&self) -> Result<(), Invalid> {
        for (name, v) in [
            ("train", self.train),
            ("dev", self.dev),
            ("test", self.test),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(Invalid::new(name, format!("The {name} share is 0 to 1.")));
            }
        }
        let sum = self.train + self.dev + self.test;
        if (sum - 1.0).abs() > 1e-3 {
            return Err(Invalid::new(
                "train",
                format!("The shares add up to {sum:.3}, not 1."),
            ));
        }
        Ok(())
    }
}

/// One row to split: its group (source sentence, trend, URL) and its time (any order key).
#[derive(Debug, Clone, PartialEq)]
pub struct Row<G, T> {
    /// The group the row must share a part with; `None` makes it a group of its own.
    pub group: Option<G>,
    /// The row's time, used to order groups in a split by time.
    pub time: T,
}

/// The part of each row, in order.
pub fn split<G: Eq + Hash + Clone, T: Ord + Clone>(
    rows: &[Row<G, T>],
    shares: Shares,
    by: SplitBy,
    seed: u64,
) -> Vec<Part> {
    // Groups in first-appearance order, with their size and earliest time.
    let mut index: HashMap<G, usize> = HashMap::new();
    let mut groups: Vec<(usize, T)> = Vec::new();
    let row_group: Vec<usize> = rows
        .iter()
        .map(|r| {
            let g = match &r.group {
                Some(key) => *index.entry(key.clone()).or_insert_with(|| {
                    groups.push((0, r.time.clone()));
                    groups.len() - 1
                }),
                None => {
                    groups.push((0, r.time.clone()));
                    groups.len() - 1
                }
            };
            groups[g].0 += 1;
            if r.time < groups[g].1 {
                groups[g].1 = r.time.clone();
            }
            g
        })
        .collect();
    let mut order: Vec<usize> = (0..groups.len()).collect();
    let fill = match by {
        SplitBy::Group => {
            let mut rng = SplitMix64::new(seed);
            for i in (1..order.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
            [Part::Test, Part::Dev, Part::Train]
        }
        SplitBy::Time => {
            // Newest first, so the test part takes the most recent groups.
            order.sort_by(|&a, &b| groups[b].1.cmp(&groups[a].1).then(b.cmp(&a)));
            [Part::Test, Part::Dev, Part::Train]
        }
    };
    let n = rows.len() as f64;
    let targets = [
        (shares.test * n).round() as usize,
        (shares.dev * n).round() as usize,
        usize::MAX,
    ];
    let mut part_of_group = vec![Part::Train; groups.len()];
    let (mut k, mut taken) = (0, 0usize);
    for g in order {
        while taken >= targets[k] {
            k += 1;
            taken = 0;
        }
        part_of_group[g] = fill[k];
        taken += groups[g].0;
    }
    row_group.into_iter().map(|g| part_of_group[g]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(parts: &[Part], p: Part) -> usize {
        parts.iter().filter(|&&x| x == p).count()
    }

    /// Random rows: `n` rows in up to `groups` groups (sizes skewed), some without a group.
    fn random_rows(seed: u64, n: usize, groups: u64) -> Vec<Row<u64, u64>> {
        let mut r = SplitMix64::new(seed);
        (0..n)
            .map(|i| {
                let g = r.below(groups);
                let group = (r.below(10) > 0).then_some(g * g % (groups.max(1)));
                Row {
                    group,
                    time: r.below(1000) + i as u64 % 7,
                }
            })
            .collect()
    }

    #[test]
    fn no_group_is_in_two_parts_on_random_inputs() {
        for case in 0..200u64 {
            let mut r = SplitMix64::new(case);
            let n = r.below(500) as usize;
            let rows = random_rows(case, n, r.below(200) + 1);
            for by in [SplitBy::Group, SplitBy::Time] {
                let parts = split(&rows, Shares::default(), by, case);
                assert_eq!(parts.len(), rows.len());
                let mut seen: HashMap<u64, Part> = HashMap::new();
                for (row, part) in rows.iter().zip(&parts) {
                    if let Some(g) = row.group {
                        assert_eq!(*seen.entry(g).or_insert(*part), *part, "case {case} {by:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn parts_hold_their_share_up_to_one_group() {
        // 1,000 rows in groups of 1 to 4.
        let rows: Vec<Row<u32, u32>> = (0..1000u32)
            .map(|i| Row {
                group: Some(i / 3 + (i % 7) / 4),
                time: i,
            })
            .collect();
        for by in [SplitBy::Group, SplitBy::Time] {
            let parts = split(&rows, Shares::default(), by, 42);
            for (p, share) in [(Part::Test, 100), (Part::Dev, 100), (Part::Train, 800)] {
                let c = count(&parts, p) as i64;
                assert!((c - share).abs() <= 8, "{by:?} {p:?}: {c}");
            }
        }
    }

    #[test]
    fn by_time_the_oldest_groups_train_and_the_newest_test() {
        let rows: Vec<Row<u32, u32>> = (0..100u32)
            .map(|i| Row {
                group: None,
                time: 1000 - i,
            })
            .collect();
        let parts = split(&rows, Shares::default(), SplitBy::Time, 0);
        // Times fall as i grows: the last 10 rows are the oldest... and train.
        assert!(parts[..10].iter().all(|&p| p == Part::Test), "{parts:?}");
        assert!(parts[10..20].iter().all(|&p| p == Part::Dev));
        assert!(parts[20..].iter().all(|&p| p == Part::Train));
        // A group is as old as its earliest row: the newest row joins its old group in train.
        let mut rows = rows;
        rows[0].group = Some(7);
        rows[99].group = Some(7);
        let parts = split(&rows, Shares::default(), SplitBy::Time, 0);
        assert_eq!((parts[0], parts[99]), (Part::Train, Part::Train));
    }

    #[test]
    fn the_same_seed_gives_the_same_split_and_another_seed_another() {
        let rows = random_rows(9, 400, 150);
        let a = split(&rows, Shares::default(), SplitBy::Group, 1);
        assert_eq!(a, split(&rows, Shares::default(), SplitBy::Group, 1));
        assert_ne!(a, split(&rows, Shares::default(), SplitBy::Group, 2));
        // Time splits do not depend on the seed.
        assert_eq!(
            split(&rows, Shares::default(), SplitBy::Time, 1),
            split(&rows, Shares::default(), SplitBy::Time, 2)
        );
    }

    #[test]
    fn shares_are_checked_and_edge_shares_work() {
        assert_eq!(Shares::default().check(), Ok(()));
        assert_eq!(
            Shares {
                train: 0.8,
                dev: 0.1,
                test: 0.2
            }
            .check()
            .unwrap_err()
            .field,
            "train"
        );
        assert_eq!(
            Shares {
                train: 1.2,
                dev: -0.1,
                test: -0.1
            }
            .check()
            .unwrap_err()
            .field,
            "train"
        );
        let rows = random_rows(3, 50, 20);
        let all_train = split(
            &rows,
            Shares {
                train: 1.0,
                dev: 0.0,
                test: 0.0,
            },
            SplitBy::Group,
            0,
        );
        assert!(all_train.iter().all(|&p| p == Part::Train));
        let all_test = split(
            &rows,
            Shares {
                train: 0.0,
                dev: 0.0,
                test: 1.0,
            },
            SplitBy::Group,
            0,
        );
        assert!(all_test.iter().all(|&p| p == Part::Test));
        assert!(split::<u32, u32>(&[], Shares::default(), SplitBy::Time, 0).is_empty());
    }
}
