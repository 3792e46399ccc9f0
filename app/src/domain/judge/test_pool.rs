//! The hidden test pool as the admin should watch it: whether it is big enough for the
//! schedule, and which workers look like they are collecting its answers.

/// A warning for the admin when the test pool runs out within the gate's first decision: a
/// worker is never shown a test pair twice, so once they have seen every test pair their test
/// slots get ordinary pairs and the gate has fewer tests to go on than the schedule promises;
/// and with so few test pairs, workers who compare notes find the same ones.
pub fn small_test_pool(test_pool: u32, every: u32, gate_min_judgments: u32) -> Option<String> {
    if every == 0 || test_pool == 0 {
        return None;
    }
    let needed = gate_min_judgments.div_ceil(every).max(1);
    (test_pool < 2 * needed).then(|| {
        format!(
            "Only {test_pool} test pairs: a worker meets one in every {every} pairs, so they see {needed} before the gate first decides (after {gate_min_judgments} judgments) and, never shown one twice, run out of test pairs after {} judgments. Workers who compare notes will find the same test pairs. Add test pairs: at least {} are advised.",
            test_pool * every,
            2 * needed
        )
    })
}

/// Fewest missed test pairs before a worker is flagged as possibly collecting the answers.
pub const HARVEST_MIN_MISSES: i64 = 3;

/// An ordinary pair is promoted to a test pair only when its label settled at this posterior
/// or above ...
pub const PROMOTE_MIN_POSTERIOR: f64 = 0.99;
/// ... and every trusted vote on it came from a worker estimated at least this accurate
/// (`settle::worker_accuracy` on their pooled evidence): POTATO's auto-promotion, with a bar.
pub const PROMOTE_MIN_WORKER_ACCURACY: f64 = 0.9;

/// Whether a worker looks like a throwaway account collecting the test pairs' answers: a miss
/// shows the right answer (and its explanation), so someone who answers test pairs at random or
/// worse and then leaves has been shown gold. Flagged once they missed at least
/// [`HARVEST_MIN_MISSES`] test pairs and no more than half of their test answers were right (no
/// better than a coin); an honest worker this far below the gate's threshold is stopped by it
/// too, so the flag only names them for the admin, who may want to retire those test pairs.
pub fn looks_like_gold_harvesting(tests_answered: i64, tests_correct: i64) -> bool {
    let missed = tests_answered - tests_correct;
    missed >= HARVEST_MIN_MISSES && 2 * tests_correct <= tests_answered
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_pool_that_runs_out_before_the_gate_decides_is_flagged() {
        // 30 judgments at one test in 5: 6 tests before the gate decides; 12 advised.
        let warning = small_test_pool(11, 5, 30).unwrap();
        assert!(warning.contains("Only 11 test pairs"), "{warning}");
        assert!(warning.contains("after 55 judgments"), "{warning}");
        assert!(warning.contains("at least 12"), "{warning}");
        assert_eq!(small_test_pool(12, 5, 30), None);
        assert_eq!(
            small_test_pool(0, 5, 30),
            None,
            "no tests: another warning's job"
        );
        assert_eq!(small_test_pool(3, 0, 30), None);
    }

    #[test]
    fn workers_who_miss_most_tests_are_flagged_as_collecting_answers() {
        assert!(looks_like_gold_harvesting(3, 0));
        assert!(looks_like_gold_harvesting(6, 3));
        assert!(!looks_like_gold_harvesting(7, 4), "better than a coin");
        assert!(!looks_like_gold_harvesting(2, 0), "too few misses to tell");
        assert!(
            !looks_like_gold_harvesting(40, 34),
            "an honest worker's misses"
        );
    }
}
