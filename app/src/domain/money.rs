//! Money as the app writes it: one formatter for every amount a page, a file or a message shows,
//! negative amounts included (a refund or a correction: `-$1.50`, never `$-1.-50`).

/// Dollars with two decimals and no sign for positive amounts, as the platforms' bonus files
/// want them (`1234` → `12.34`, `-150` → `-1.50`).
pub fn dollars(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let c = cents.unsigned_abs();
    format!("{sign}{}.{:02}", c / 100, c % 100)
}

/// Dollars with three decimals from thousandths, as a form shows a pay per item for editing
/// (`15` → `0.015`, `-1005` → `-1.005`).
pub fn dollars_mills(mills: i64) -> String {
    let sign = if mills < 0 { "-" } else { "" };
    let m = mills.unsigned_abs();
    format!("{sign}{}.{:03}", m / 1000, m % 1000)
}

/// An amount in cents for people to read (`1234` → `$12.34`, `-150` → `-$1.50`).
pub fn usd(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}${}", dollars(cents.saturating_abs()))
}

/// An amount in thousandths of a dollar, with two decimals or three when the third is not 0
/// (`15` → `$0.015`, `20` → `$0.02`, `-1005` → `-$1.005`).
pub fn usd_mills(mills: i64) -> String {
    if mills % 10 == 0 {
        usd(mills / 10)
    } else {
        let sign = if mills < 0 { "-" } else { "" };
        format!("{sign}${}", dollars_mills(mills.saturating_abs()))
    }
}

/// Cents an hour for people to read (`1234.4` → `$12.34/h`, `-150.0` → `-$1.50/h`).
pub fn usd_per_hour(cents: f64) -> String {
    format!("{}/h", usd(cents.round() as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_keep_their_sign_in_front() {
        assert_eq!(dollars(1234), "12.34");
        assert_eq!(dollars(5), "0.05");
        assert_eq!(dollars(-150), "-1.50");
        assert_eq!(dollars(-5), "-0.05");
        assert_eq!(usd(0), "$0.00");
        assert_eq!(usd(1234), "$12.34");
        assert_eq!(usd(-150), "-$1.50");
        assert_eq!(usd(-1), "-$0.01");
        assert_eq!(usd(i64::MIN + 1), format!("-${}", dollars(i64::MAX)));
    }

    #[test]
    fn thousandths_show_a_third_decimal_only_when_needed() {
        assert_eq!(usd_mills(15), "$0.015");
        assert_eq!(usd_mills(20), "$0.02");
        assert_eq!(usd_mills(1250), "$1.25");
        assert_eq!(usd_mills(1005), "$1.005");
        assert_eq!(usd_mills(-1005), "-$1.005");
        assert_eq!(usd_mills(-20), "-$0.02");
        assert_eq!(dollars_mills(15), "0.015");
        assert_eq!(dollars_mills(1250), "1.250");
        assert_eq!(dollars_mills(-1005), "-1.005");
    }

    #[test]
    fn hourly_rates_round_to_the_cent() {
        assert_eq!(usd_per_hour(1234.4), "$12.34/h");
        assert_eq!(usd_per_hour(1234.5), "$12.35/h");
        assert_eq!(usd_per_hour(-150.0), "-$1.50/h");
    }
}
