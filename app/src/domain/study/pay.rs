//! What a study worker is owed: the time they worked, read from the server's
//! timestamps, their bonus, their effective hourly rate and the top-up that brings it to the
//! study's minimum.

/// A pause longer than this (seconds) between two of a worker's actions counts as this long: a
/// worker who leaves the tab open overnight did not work overnight. Ten minutes is longer than
/// any single item takes (a writing task's Checks are seconds to minutes apart).
pub const IDLE_CAP_SECONDS: f64 = 600.0;

/// Seconds worked: from the arrival through each action (a judgment, a Check, a Submit) to the
/// completion, each gap counted up to [`IDLE_CAP_SECONDS`]. Times are seconds since any fixed
/// origin; they need not be sorted. Times before the arrival, or after the completion, do not
/// count.
pub fn seconds_worked(arrival: f64, actions: &[f64], completed: Option<f64>) -> f64 {
    let mut times: Vec<f64> = actions
        .iter()
        .copied()
        .chain(completed)
        .filter(|t| t.is_finite() && *t >= arrival && completed.is_none_or(|c| *t <= c))
        .collect();
    times.sort_by(f64::total_cmp);
    let mut last = arrival;
    let mut total = 0.0;
    for t in times {
        total += (t - last).min(IDLE_CAP_SECONDS);
        last = t;
    }
    total
}

/// The judging bonus in cents: `judgments` at `mills` thousandths of a dollar each, rounded to
/// the nearest cent (half a cent up).
pub fn judgment_bonus_cents(judgments: i64, mills: i32) -> i64 {
    (judgments.max(0) * i64::from(mills.max(0)) + 5) / 10
}

/// Cents per hour for `cents` earned in `seconds` (none under a minute: too short to say).
pub fn hourly_cents(cents: i64, seconds: f64) -> Option<f64> {
    (seconds >= 60.0).then(|| cents as f64 * 3600.0 / seconds)
}

/// What brings a worker who earned `earned_cents` (base and bonus) in `seconds` up to
/// `min_hourly_cents` an hour: whole cents, rounded up, never negative.
pub fn top_up_cents(min_hourly_cents: i32, seconds: f64, earned_cents: i64) -> i64 {
    let due = (f64::from(min_hourly_cents) * seconds / 3600.0).ceil() as i64;
    (due - earned_cents).max(0)
}

/// A worker's pay, as the payments page shows it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pay {
    /// The platform's fixed reward (counted once the worker completed).
    pub base_cents: i64,
    /// The bonus their work earned.
    pub bonus_cents: i64,
    /// What brings them to the minimum hourly rate (0 when none is set, they are above it, or
    /// they have not completed: their time is still running).
    pub top_up_cents: i64,
    /// Base and bonus per hour worked.
    pub hourly_cents: Option<f64>,
    /// Whether the hourly rate is under the study's minimum.
    pub under_minimum: bool,
}

/// The terms a study pays by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Terms {
    /// The platform's fixed reward for a completed study.
    pub base_pay_cents: i32,
    /// The lowest hourly rate the study pays (none: no minimum).
    pub min_hourly_cents: Option<i32>,
}

/// A worker's pay from their bonus, time and completion.
pub fn pay(terms: Terms, bonus_cents: i64, seconds: f64, completed: bool) -> Pay {
    let base_cents = if completed {
        i64::from(terms.base_pay_cents)
    } else {
        0
    };
    let earned = base_cents + bonus_cents;
    let hourly = hourly_cents(earned, seconds);
    let under_minimum = match (terms.min_hourly_cents, hourly) {
        (Some(min), Some(h)) => h < f64::from(min),
        _ => false,
    };
    let top_up = match terms.min_hourly_cents {
        Some(min) if completed => top_up_cents(min, seconds, earned),
        _ => 0,
    };
    Pay {
        base_cents,
        bonus_cents,
        top_up_cents: top_up,
        hourly_cents: hourly,
        under_minimum,
    }
}

pub use crate::domain::money::dollars;

/// Reads an amount of dollars typed by a researcher (`1.50`, `$0.015`, `2`) as units of
/// `10^-places` dollars (`places` 2: cents, 3: thousandths); `None` when it is not a
/// non-negative amount with at most `places` decimals.
pub fn parse_dollars(raw: &str, places: u32) -> Option<i64> {
    let s = raw.trim().trim_start_matches('$').trim();
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() && frac.is_empty()
        || frac.len() > places as usize
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || whole.len() > 9
    {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac_units: i64 = if frac.is_empty() {
        0
    } else {
        frac.parse::<i64>().ok()? * 10_i64.pow(places - frac.len() as u32)
    };
    Some(whole * 10_i64.pow(places) + frac_units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_worked_counts_each_pause_up_to_the_idle_cap() {
        // Arrive at 0, judge at 30, 50 and 90 s, complete at 100 s: 100 s.
        assert_eq!(seconds_worked(0.0, &[50.0, 30.0, 90.0], Some(100.0)), 100.0);
        // A night away between two judgments counts ten minutes.
        let t = seconds_worked(0.0, &[30.0, 30.0 + 8.0 * 3600.0], None);
        assert_eq!(t, 30.0 + IDLE_CAP_SECONDS);
        // Nothing done yet: nothing worked; a time before the arrival is ignored.
        assert_eq!(seconds_worked(10.0, &[], None), 0.0);
        assert_eq!(seconds_worked(10.0, &[5.0, 20.0], None), 10.0);
        // An action after the completion (a second device) is not time worked for the study.
        assert_eq!(seconds_worked(0.0, &[30.0, 500.0], Some(100.0)), 100.0);
    }

    #[test]
    fn the_judging_bonus_rounds_to_the_nearest_cent() {
        assert_eq!(judgment_bonus_cents(100, 15), 150); // 100 × $0.015
        assert_eq!(judgment_bonus_cents(3, 15), 5); // 4.5 cents → 5
        assert_eq!(judgment_bonus_cents(1, 14), 1); // 1.4 cents → 1
        assert_eq!(judgment_bonus_cents(0, 15), 0);
        assert_eq!(judgment_bonus_cents(10, 0), 0);
    }

    #[test]
    fn a_worker_under_the_minimum_is_topped_up_once_complete() {
        let terms = Terms {
            base_pay_cents: 100,
            min_hourly_cents: Some(900),
        };
        // 20 minutes for $1 base and $0.50 bonus: $4.50 an hour, $1.50 short of $3.00.
        let p = pay(terms, 50, 1200.0, true);
        assert_eq!(p.base_cents, 100);
        assert!((p.hourly_cents.unwrap() - 450.0).abs() < 1e-9);
        assert!(p.under_minimum);
        assert_eq!(p.top_up_cents, 150);
        // Not complete: no base yet and no top-up (their time is still running).
        let p = pay(terms, 50, 1200.0, false);
        assert_eq!((p.base_cents, p.top_up_cents), (0, 0));
        assert!(p.under_minimum);
        // Above the minimum: nothing to add.
        let p = pay(terms, 500, 1200.0, true);
        assert!(!p.under_minimum);
        assert_eq!(p.top_up_cents, 0);
        // No minimum: nothing to add, nobody under it.
        let p = pay(Terms::default(), 0, 1200.0, true);
        assert_eq!((p.top_up_cents, p.under_minimum), (0, false));
        // Under a minute the rate is not stated.
        assert_eq!(hourly_cents(100, 30.0), None);
    }

    #[test]
    fn the_top_up_rounds_up_to_a_whole_cent() {
        // $9.00 an hour for 61 s is 15.25 cents: 16 cents.
        assert_eq!(top_up_cents(900, 61.0, 0), 16);
        assert_eq!(top_up_cents(900, 61.0, 20), 0);
    }

    #[test]
    fn typed_amounts_read_as_cents_or_thousandths() {
        assert_eq!(parse_dollars("1.50", 2), Some(150));
        assert_eq!(parse_dollars(" $2 ", 2), Some(200));
        assert_eq!(parse_dollars(".5", 2), Some(50));
        assert_eq!(parse_dollars("0.015", 3), Some(15));
        assert_eq!(parse_dollars("0.015", 2), None);
        assert_eq!(parse_dollars("-1", 2), None);
        assert_eq!(parse_dollars("1,50", 2), None);
        assert_eq!(parse_dollars("", 2), None);
        assert_eq!(parse_dollars(".", 2), None);
        assert_eq!(parse_dollars("9999999999", 2), None);
    }
}
