//! Limits on requests that create accounts, per client address: registrations, and new accounts
//! made by study links. A script could otherwise make hundreds a minute (an outside probe made
//! 300 registrations in 20 s and 1,000 study-link accounts in 9.5 s from one address). The
//! counts are kept in PostgreSQL in fixed windows (`db::rate_counts`), so every server behind a
//! load balancer counts the same requests; this rule decides on a count.
use std::time::Duration;

/// At most `most` requests per address in each window of `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed in one window.
    pub most: u32,
    /// The window's length.
    pub window: Duration,
}

impl RateLimit {
    /// `N/SECONDS`, e.g. `20/600`: 20 every 10 minutes.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("'{text}' is not N/SECONDS (for example 20/600)");
        let (most, seconds) = text.trim().split_once('/').ok_or_else(bad)?;
        let most: u32 = most.trim().parse().map_err(|_| bad())?;
        let seconds: u64 = seconds.trim().parse().map_err(|_| bad())?;
        if most == 0 || seconds == 0 || seconds > 86_400 {
            return Err(format!(
                "'{text}': at least 1 request in a window of 1 s to 1 day"
            ));
        }
        Ok(Self {
            most,
            window: Duration::from_secs(seconds),
        })
    }

    /// The seconds to wait when the request counted `count` in its window (itself included) is
    /// over the limit, given the seconds left of that window; `None` when it may go ahead.
    pub fn retry_after(&self, count: i64, window_left_secs: f64) -> Option<u64> {
        (count > i64::from(self.most)).then(|| window_left_secs.ceil().max(1.0) as u64)
    }
}

/// The limits the server enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// Registrations of password accounts (`PARACROWD_RATE_REGISTRATIONS`).
    pub registrations: RateLimit,
    /// New accounts made by study links (`PARACROWD_RATE_STUDY_ACCOUNTS`); a worker coming
    /// back is not counted.
    pub study_accounts: RateLimit,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            registrations: RateLimit {
                most: 20,
                window: Duration::from_secs(600),
            },
            study_accounts: RateLimit {
                most: 30,
                window: Duration::from_secs(600),
            },
        }
    }
}

/// What is counted, as stored in `rate_count.action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// A password account registered.
    Registration,
    /// A platform id new to the server, arriving through a study link.
    StudyAccount,
}

impl Counted {
    /// The value stored in `rate_count.action`.
    pub fn as_str(self) -> &'static str {
        match self {
            Counted::Registration => "registration",
            Counted::StudyAccount => "study_account",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_as_n_per_seconds() {
        assert_eq!(
            RateLimit::parse(" 20/600 "),
            Ok(RateLimit {
                most: 20,
                window: Duration::from_secs(600)
            })
        );
        for bad in ["20", "x/600", "20/x", "0/600", "20/0", "20/100000", "-1/60"] {
            assert!(RateLimit::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_request_past_the_limit_waits_for_the_window_to_end() {
        let l = RateLimit::parse("3/60").unwrap();
        for count in 1..=3 {
            assert_eq!(l.retry_after(count, 59.2), None, "{count}");
        }
        assert_eq!(l.retry_after(4, 59.2), Some(60));
        assert_eq!(l.retry_after(400, 0.2), Some(1), "never 0 s");
    }
}
