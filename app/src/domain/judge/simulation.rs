//! Simulated workers through the gate: the same schedule and gate functions the server runs
//! after every answer, with answers drawn at random. Used by the simulation test and the
//! agreement benchmark to say how often a rule stops honest and bad workers.
use super::gate::{self, Comparison, GateDecision};
use super::schedule;
use super::settings::JudgeSettings;

/// A simulated worker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Worker {
    /// Right with this probability, on test pairs and ordinary pairs alike.
    Honest(f64),
    /// Answers "paraphrase" every time.
    AlwaysParaphrase,
    /// Answers at random, each label half the time.
    Random,
}

/// Whether `worker` is stopped within `limit` judgments. `unit` draws uniform numbers in [0, 1).
/// Ordinary pairs are paraphrases 40% of the time and their 5 other votes come from honest
/// workers of accuracy 0.875; test pairs are half paraphrases (a balanced gold set).
pub fn stopped_within(
    settings: &JudgeSettings,
    worker: Worker,
    limit: u32,
    unit: &mut impl FnMut() -> f64,
) -> bool {
    let (mut tests, mut comparisons) = (Vec::new(), Vec::new());
    let mut position = 0;
    for served in 0..limit {
        if schedule::starts_block(served, settings.test_every) {
            position = schedule::test_position(settings.test_every, unit());
        }
        let is_test = schedule::is_test_slot(served, settings.test_every, position);
        let truth = unit() < if is_test { 0.5 } else { 0.4 };
        let answer = match worker {
            Worker::AlwaysParaphrase => true,
            Worker::Random => unit() < 0.5,
            Worker::Honest(accuracy) => {
                if unit() < accuracy {
                    truth
                } else {
                    !truth
                }
            }
        };
        if is_test {
            tests.push(answer == truth);
        } else {
            let yes = (0..5).filter(|_| (unit() < 0.875) == truth).count() as u32;
            comparisons.push(Comparison {
                label: answer,
                others_paraphrase: yes,
                others_not: 5 - yes,
            });
        }
        let numbers = gate::numbers(served + 1, &tests, &comparisons);
        if let GateDecision::Stop(_) = gate::decide(settings, &numbers) {
            return true;
        }
    }
    false
}

/// Shares of honest (accuracy uniform in 80-95%), always-"paraphrase" and random workers
/// stopped within `limit` judgments, over `runs` workers of each kind.
pub fn stop_rates(
    settings: &JudgeSettings,
    runs: u32,
    limit: u32,
    unit: &mut impl FnMut() -> f64,
) -> [f64; 3] {
    let mut rate = |pick: &mut dyn FnMut(&mut dyn FnMut() -> f64) -> Worker| {
        let mut stopped = 0;
        for _ in 0..runs {
            let w = pick(&mut *unit);
            stopped += u32::from(stopped_within(settings, w, limit, &mut *unit));
        }
        f64::from(stopped) / f64::from(runs)
    };
    [
        rate(&mut |u| Worker::Honest(0.8 + 0.15 * u())),
        rate(&mut |_| Worker::AlwaysParaphrase),
        rate(&mut |_| Worker::Random),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::judge::settings::GateRule;

    /// Seeded (`domain::rng`): the simulation is the same on every run.
    fn generator(seed: u64) -> impl FnMut() -> f64 {
        let mut rng = crate::domain::rng::SplitMix64::new(seed);
        move || rng.unit()
    }

    #[test]
    fn the_evidence_rule_stops_bad_workers_within_30_judgments_and_keeps_honest_ones() {
        let settings = JudgeSettings {
            gate_rule: GateRule::Evidence,
            ..JudgeSettings::default()
        };
        let [honest, always, random] = stop_rates(&settings, 2000, 30, &mut generator(7));
        assert!(honest <= 0.02, "honest workers stopped: {honest}");
        assert!(
            (always + random) / 2.0 >= 0.95,
            "bad workers stopped: {always}, {random}"
        );
        assert!(always >= 0.99, "{always}");
    }

    #[test]
    fn the_papers_rule_stops_bad_workers_but_also_many_honest_ones() {
        let settings = JudgeSettings {
            gate_rule: GateRule::Paper,
            ..JudgeSettings::default()
        };
        let [honest, always, random] = stop_rates(&settings, 2000, 30, &mut generator(11));
        assert!(always >= 0.99 && random >= 0.95, "{always} {random}");
        // Documented in the README: about half of honest 80-95% workers.
        assert!(honest > 0.3, "{honest}");
    }
}
