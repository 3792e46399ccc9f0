//! The quality gate in the words a worker reads: the rule before the first
//! pair, and a gentle warning while a worker is heading for the bar, so that being stopped is
//! never a surprise. Pure: the numbers come from `gate::numbers` / `GateCounts::numbers`.
use super::confidence;
use super::gate::{GateNumbers, EVIDENCE_MAX_SHARE, MIN_EVIDENCE};
use super::settings::{GateRule, JudgeSettings};

/// Fewest check answers before a worker is warned about their accuracy on them.
pub const WARN_AFTER_TESTS: u32 = 2;
/// With the `evidence` rule, a worker whose agreeing share is within this of the bar is warned.
pub const WARN_MARGIN: f64 = 0.10;

/// The rule, said once before the first pair.
pub fn quality_rule(s: &JudgeSettings) -> String {
    let checks = if s.test_every == 0 {
        String::new()
    } else {
        format!(
            "About one pair in every {} is a check question whose answer is known; if you miss one, you are shown the answer. ",
            s.test_every
        )
    };
    let bar = match (s.gate_rule, s.test_every) {
        (GateRule::Paper, 0) => format!(
            "You can keep judging while your answers agree with other annotators' more than chance would (Cohen's kappa above {:.2})",
            s.min_kappa
        ),
        (GateRule::Paper, _) => format!(
            "You can keep judging while more than {:.0}% of your check answers are right and your answers agree with other annotators' (Cohen's kappa above {:.2})",
            s.min_test_accuracy * 100.0,
            s.min_kappa
        ),
        (GateRule::Evidence, 0) => format!(
            "You can keep judging while your answers agree with other annotators' majority more than {:.0}% of the time, and more than chance would",
            EVIDENCE_MAX_SHARE * 100.0
        ),
        (GateRule::Evidence, _) => format!(
            "You can keep judging while your answers, check questions and other pairs together, agree with the known answers and other annotators' majority more than {:.0}% of the time, and more than chance would",
            EVIDENCE_MAX_SHARE * 100.0
        ),
        (GateRule::Confidence, _) => format!(
            "You can keep judging unless your answers ({}agreement with other annotators' majority) show clearly that you are right less than {:.0}% of the time, or that your agreement with the majority is below a Cohen's kappa of {:.2}; someone right exactly that often is stopped at most {} time{} in 100, however long they work",
            if s.test_every == 0 { "" } else { "check questions, and " },
            s.min_test_accuracy * 100.0,
            s.min_kappa,
            fmt_rate(s.gate_alpha * 100.0),
            if (s.gate_alpha * 100.0 - 1.0).abs() < 1e-9 { "" } else { "s" }
        ),
    };
    format!(
        "{checks}{bar}, checked from your {} judgment on. If you are stopped, the judgments you made are kept.",
        ordinal(s.gate_min_judgments)
    )
}

/// The rule as a study participant who makes `items` judgments reads it: when they stop before
/// the gate's first decision, it says so instead of describing a bar they never meet.
pub fn quality_rule_within(s: &JudgeSettings, items: Option<u32>) -> String {
    match items {
        Some(n) if n < s.gate_min_judgments => format!(
            "{}The quality rule starts at the {} judgment, after the {n} this study asks of you, so it will not stop you. Please answer carefully all the same: your answers are compared with the known answers and with other annotators'.",
            if s.test_every == 0 {
                String::new()
            } else {
                format!(
                    "About one pair in every {} is a check question whose answer is known; if you miss one, you are shown the answer. ",
                    s.test_every
                )
            },
            ordinal(s.gate_min_judgments)
        ),
        _ => quality_rule(s),
    }
}

/// A warning for a worker the gate keeps but who is heading for its bar; `None` while they are
/// comfortably above it.
pub fn warning(s: &JudgeSettings, n: &GateNumbers) -> Option<String> {
    let checks = |right: u32| {
        format!(
            "you have answered {right} of {} check questions as expected",
            n.tests_answered
        )
    };
    let right = n
        .test_accuracy
        .map_or(0, |a| (a * f64::from(n.tests_answered)).round() as u32);
    let advice = "Take your time, and open the definition if you are unsure.";
    match s.gate_rule {
        GateRule::Confidence => confidence_warning(s, n, &checks(right)),
        GateRule::Paper => {
            if let Some(accuracy) = n.test_accuracy {
                if n.tests_answered >= WARN_AFTER_TESTS && accuracy <= s.min_test_accuracy {
                    return Some(format!(
                        "Careful: {}. Workers who stay at or below {:.0}% on the check questions are stopped{}. {advice}",
                        checks(right),
                        s.min_test_accuracy * 100.0,
                        from_judgment(s, n)
                    ));
                }
            }
            match n.kappa {
                Some(kappa) if kappa <= s.min_kappa + WARN_MARGIN => Some(format!(
                    "Careful: your answers agree little with other annotators' (kappa {kappa:.2}); workers at or below {:.2} are stopped{}. {advice}",
                    s.min_kappa,
                    from_judgment(s, n)
                )),
                _ => None,
            }
        }
        // The evidence rule stops on the pooled share (checks and pairs with a majority of
        // others together), never on the checks alone: the warning says that share.
        GateRule::Evidence => {
            let enough = n.tests_answered >= WARN_AFTER_TESTS || n.evidence >= MIN_EVIDENCE / 2;
            if !enough || n.evidence == 0 {
                return None;
            }
            let share = f64::from(n.agreements) / f64::from(n.evidence);
            (share <= EVIDENCE_MAX_SHARE + WARN_MARGIN).then(|| {
                let head = if n.tests_answered > 0 {
                    format!("{}, and ", checks(right))
                } else {
                    String::new()
                };
                format!(
                    "Careful: {head}your answers have matched the known answers and other annotators' majority {:.0}% of the time; workers at or below {:.0}% are stopped{}. {advice}",
                    share * 100.0,
                    EVIDENCE_MAX_SHARE * 100.0,
                    from_judgment(s, n)
                )
            })
        }
    }
}

/// A rate in plain figures: `10`, `2.5`.
fn fmt_rate(x: f64) -> String {
    let s = format!("{x:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_owned)
}

/// Under the `confidence` rule, a worker whose evidence is at least this far towards the stop
/// (as a share of the log-likelihood ratio's bound) is warned.
pub const WARN_PROGRESS: f64 = 0.5;

fn confidence_warning(s: &JudgeSettings, n: &GateNumbers, checks: &str) -> Option<String> {
    if n.tests_answered < WARN_AFTER_TESTS {
        return None;
    }
    let a = confidence::assess(&s.sequential_test(), &n.evidence());
    if a.progress() < WARN_PROGRESS {
        return None;
    }
    // The estimate only, rounded: exact counts of agreement with the others' majority, compared
    // between two warnings, would tell the worker how others voted on a pair.
    Some(format!(
        "Careful: {checks}. With your other answers, that suggests you are right about {:.0}% of the time; this study needs more than {:.0}%, and stops a worker once their answers show clearly that they are below it{}. Take your time, and open the definition if you are unsure.",
        a.estimate.unwrap_or(0.0) * 100.0,
        s.min_test_accuracy * 100.0,
        from_judgment(s, n)
    ))
}

/// Why the gate keeps or stops a worker with these numbers, for the researcher: the estimate,
/// its bound and what would change the decision, in the rule's own terms.
pub fn standing(s: &JudgeSettings, n: &GateNumbers) -> String {
    match s.gate_rule {
        GateRule::Confidence => {
            let a = confidence::assess(&s.sequential_test(), &n.evidence());
            let (Some(estimate), Some(upper)) = (a.estimate, a.upper) else {
                return "No evidence yet: no check answer and no pair with a majority of others."
                    .to_owned();
            };
            let level = fmt_rate((1.0 - s.gate_alpha) * 100.0);
            let head = format!(
                "Accuracy about {:.0}%, at most {:.0}% ({level}% upper bound, any number of looks)",
                estimate * 100.0,
                upper * 100.0
            );
            if n.judgments < s.gate_min_judgments {
                let already = if a.stop.is_some() {
                    " The evidence already shows them below the minimum."
                } else {
                    ""
                };
                return format!(
                    "{head}; the gate applies from judgment {}.{already}",
                    s.gate_min_judgments
                );
            }
            match a.stop {
                Some(confidence::Ground::Overall) => format!(
                    "{head}: below the minimum of {:.0}%, so stopped.",
                    s.min_test_accuracy * 100.0
                ),
                Some(confidence::Ground::ParaphrasePairs) => format!(
                    "{head}; but on pairs the others call paraphrases they agree with them no better than chance, so stopped."
                ),
                Some(confidence::Ground::NotPairs) => format!(
                    "{head}; but on pairs the others call not paraphrases they agree with them no better than chance, so stopped."
                ),
                Some(confidence::Ground::Kappa) => {
                    let look = a.kappa.expect("a kappa stop is made at a look");
                    format!(
                        "{head}; but kappa against the others' majority is {:.2}, at most {:.2} ({}% bound at its look at judgment {}, over {} pairs), below the minimum of {:.2}, so stopped.",
                        look.kappa,
                        look.upper,
                        fmt_rate(look.confidence_percent()),
                        look.judgments,
                        look.items,
                        s.min_kappa
                    )
                }
                None if a.progress() < 0.05 => format!(
                    "{head}: kept; nothing points below the minimum of {:.0}%.",
                    s.min_test_accuracy * 100.0
                ),
                None => format!(
                    "{head}: kept until the bound falls to {:.0}% (the evidence is {:.0}% of the way there).",
                    s.min_test_accuracy * 100.0,
                    a.progress() * 100.0
                ),
            }
        }
        GateRule::Evidence => {
            let share = (n.evidence > 0)
                .then(|| f64::from(n.agreements) * 100.0 / f64::from(n.evidence));
            match share {
                Some(share) => format!(
                    "Agreed with the check answers and the others' majority {share:.0}% of {} times; stopped at or below {:.0}% from {MIN_EVIDENCE} observations on, or at kappa ≤ 0.",
                    n.evidence,
                    EVIDENCE_MAX_SHARE * 100.0
                ),
                None => "No evidence yet.".to_owned(),
            }
        }
        GateRule::Paper => format!(
            "Stopped when test accuracy is at or below {:.0}% or kappa at or below {:.2}, as point estimates.",
            s.min_test_accuracy * 100.0,
            s.min_kappa
        ),
    }
}

fn from_judgment(s: &JudgeSettings, n: &GateNumbers) -> String {
    if n.judgments < s.gate_min_judgments {
        format!(" from their {} judgment on", ordinal(s.gate_min_judgments))
    } else {
        String::new()
    }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(
        judgments: u32,
        tests: u32,
        right: u32,
        agreements: u32,
        evidence: u32,
    ) -> GateNumbers {
        GateNumbers {
            judgments,
            tests_answered: tests,
            test_accuracy: (tests > 0).then(|| f64::from(right) / f64::from(tests)),
            tests_correct: right,
            kappa: None,
            kappa_items: evidence - tests,
            agreements,
            evidence,
            by_majority: [0; 4],
            by_lead: [0; 4],
        }
    }

    fn evidence() -> JudgeSettings {
        JudgeSettings {
            gate_rule: GateRule::Evidence,
            gate_min_judgments: 30,
            ..JudgeSettings::default()
        }
    }

    fn with_table(mut n: GateNumbers, by_majority: [u32; 4]) -> GateNumbers {
        n.by_majority = by_majority;
        n
    }

    #[test]
    fn the_confidence_rule_warns_and_explains_with_the_same_numbers() {
        let s = JudgeSettings::default();
        // 3 of 6 checks and 12 of 22 pairs with the majority: heading for the stop.
        let n = with_table(numbers(18, 6, 3, 15, 28), [6, 5, 5, 6]);
        let w = warning(&s, &n).expect("a warning");
        assert!(w.contains("3 of 6 check questions"), "{w}");
        assert!(!w.contains("12 of 22"), "no exact counts of agreement: {w}");
        assert!(w.contains("right about"), "{w}");
        assert!(w.contains("from their 20th judgment on"), "{w}");
        let why = standing(&s, &n);
        assert!(why.contains("the gate applies from judgment 20"), "{why}");
        assert!(why.contains("70% upper bound"), "{why}");
        // The estimate the worker reads is the one the researcher reads.
        let estimate = w
            .split("right about ")
            .nth(1)
            .unwrap()
            .split('%')
            .next()
            .unwrap();
        assert!(
            why.contains(&format!("Accuracy about {estimate}%")),
            "{why} / {w}"
        );
        // Five of six checks and the majority matched on 20 of 22: no warning, kept.
        let good = with_table(numbers(40, 6, 5, 25, 28), [10, 1, 1, 10]);
        assert_eq!(warning(&s, &good), None);
        // One check answered: too early to warn, whatever else.
        let one = with_table(numbers(18, 1, 0, 5, 22), [3, 8, 8, 3]);
        assert_eq!(warning(&s, &one), None);
        let why = standing(&s, &good);
        assert!(why.contains(": kept"), "{why}");
        // Some evidence against, not enough: how far it has come.
        let some = with_table(numbers(40, 6, 4, 20, 28), [8, 3, 3, 8]);
        let why = standing(&s, &some);
        assert!(
            why.contains("kept until the bound falls to 85% (the evidence is"),
            "{why}"
        );
        assert!(standing(&s, &numbers(3, 0, 0, 0, 0)).starts_with("No evidence yet"));
    }

    #[test]
    fn a_kappa_stop_is_explained_with_its_look() {
        // 640 pairs with a majority of others, most called paraphrases, 73% agreement on
        // majorities one vote ahead, kappa 0.09: kept at MultiPIT's 0.2, stopped at 0.4.
        let n = with_table(numbers(800, 0, 0, 465, 640), [437, 52, 123, 28]);
        let s = |min_kappa: f64| JudgeSettings {
            min_kappa,
            ..JudgeSettings::default()
        };
        let why = standing(&s(0.4), &n);
        assert!(
            why.contains("but kappa against the others' majority is 0.09, at most 0.")
                && why.contains("(99.9% bound at its look at judgment 800, over 640 pairs), below the minimum of 0.40, so stopped."),
            "{why}"
        );
        assert!(matches!(
            super::super::gate::decide(&s(0.4), &n),
            super::super::gate::GateDecision::Stop(
                super::super::gate::StopReason::ConfidentKappa { .. }
            )
        ));
        assert!(
            standing(&s(0.2), &n).contains(": kept"),
            "{}",
            standing(&s(0.2), &n)
        );
    }

    #[test]
    fn the_rule_names_the_checks_the_bar_and_when_it_applies() {
        let paper = JudgeSettings {
            gate_rule: GateRule::Paper,
            gate_min_judgments: 30,
            ..JudgeSettings::default()
        };
        let r = quality_rule(&paper);
        assert!(r.contains("one pair in every 5 is a check question"), "{r}");
        assert!(r.contains("more than 85% of your check answers"), "{r}");
        assert!(r.contains("kappa above 0.20"), "{r}");
        assert!(r.contains("from your 30th judgment on"), "{r}");
        let r = quality_rule(&evidence());
        assert!(
            r.contains("more than 66% of the time, and more than chance would"),
            "{r}"
        );
        let r = quality_rule(&JudgeSettings::default());
        assert!(
            r.contains("right less than 85% of the time, or that your agreement with the majority is below a Cohen's kappa of 0.20; someone right exactly that often is stopped at most 30 times in 100"),
            "{r}"
        );
        let none = JudgeSettings {
            test_every: 0,
            ..JudgeSettings::default()
        };
        assert!(quality_rule(&none).contains("(agreement with other annotators' majority)"));
        // A study of 10 pairs ends before the gate's first decision at 20.
        let short = quality_rule_within(&JudgeSettings::default(), Some(10));
        assert!(
            short.contains("starts at the 20th judgment, after the 10 this study asks of you, so it will not stop you"),
            "{short}"
        );
        assert!(!short.contains("checked from"), "{short}");
        assert_eq!(
            quality_rule_within(&JudgeSettings::default(), Some(20)),
            quality_rule(&JudgeSettings::default())
        );
        assert_eq!(
            quality_rule_within(&JudgeSettings::default(), None),
            quality_rule(&JudgeSettings::default())
        );
        assert!(!quality_rule(&none).contains("check question"));
    }

    #[test]
    fn missed_checks_warn_before_the_gate_applies() {
        let s = evidence();
        // Five missed checks in a row (the case), long before judgment 30.
        let w = warning(&s, &numbers(25, 5, 0, 10, 15)).expect("a warning");
        assert!(w.contains("0 of 5 check questions"), "{w}");
        // The default rule stops on the pooled share, and the warning says that share.
        assert!(w.contains("majority 67% of the time"), "{w}");
        assert!(w.contains("from their 30th judgment on"), "{w}");
        // Two checks missed, nothing else to compare yet: 0%.
        let w = warning(&s, &numbers(8, 2, 0, 0, 2)).expect("a warning");
        assert!(
            w.contains("0 of 2 check questions") && w.contains(" 0% of the time"),
            "{w}"
        );
        // Under MultiPIT's rule the checks' accuracy itself is the bar.
        let paper = JudgeSettings {
            gate_rule: GateRule::Paper,
            gate_min_judgments: 30,
            ..JudgeSettings::default()
        };
        let w = warning(&paper, &numbers(25, 5, 0, 10, 15)).expect("a warning");
        assert!(w.contains("at or below 85% on the check questions"), "{w}");
        // One check, missed: too early to say anything.
        assert_eq!(warning(&s, &numbers(5, 1, 0, 1, 1)), None);
    }

    #[test]
    fn a_worker_well_above_the_bar_is_not_warned() {
        let s = evidence();
        assert_eq!(warning(&s, &numbers(40, 8, 8, 28, 32)), None);
        let paper = JudgeSettings {
            gate_rule: GateRule::Paper,
            ..JudgeSettings::default()
        };
        // 9 of 10 right is above 85%.
        assert_eq!(warning(&paper, &numbers(50, 10, 9, 30, 30)), None);
        // 8 of 10 is not.
        assert!(warning(&paper, &numbers(50, 10, 8, 30, 30)).is_some());
    }

    #[test]
    fn low_agreement_with_the_majority_warns_under_the_evidence_rule() {
        let s = evidence();
        // No checks answered, 7 of 10 pairs with the majority: 70%, within 10 points of 66%.
        let w = warning(&s, &numbers(12, 0, 0, 7, 10)).expect("a warning");
        assert!(w.contains("70% of the time"), "{w}");
        assert_eq!(warning(&s, &numbers(12, 0, 0, 9, 10)), None);
    }

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 30, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            got,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "30th",
                "101st", "111th"
            ]
        );
    }
}
