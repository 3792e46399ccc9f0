//! Limits on requests: registrations and new study-link accounts per client address, and
//! server-function calls per account. A script could otherwise make hundreds a minute (an outside
//! probe made 300 registrations in 20 s, 1,000 study-link accounts in 9.5 s from one address and
//! 10,000 calls in 37 s from one account). The counts are kept in PostgreSQL in fixed windows
//! (`db::rate_counts`), so every server behind a load balancer counts the same requests; this
//! rule decides on a count. Calls, too many to write one by one, are counted in batches
//! ([`BatchedCount`]).
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
    /// Server-function calls per signed-in account (`PARACROWD_RATE_CALLS`).
    pub calls: RateLimit,
    /// Server-function calls made without an account (visitors, study-link arrivals), per
    /// address (`PARACROWD_RATE_ANONYMOUS_CALLS`).
    pub anonymous_calls: RateLimit,
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
            // Ten a second for a minute: a person answering, reloading and opening pages in
            // several tabs stays far below it.
            calls: RateLimit {
                most: 600,
                window: Duration::from_secs(60),
            },
            // Twice that per address: several people behind one address (a lab, a campus NAT)
            // open pages before they sign in.
            anonymous_calls: RateLimit {
                most: 1_200,
                window: Duration::from_secs(60),
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
    /// A server-function call of a signed-in account.
    Call,
    /// A server-function call made without an account, counted per address.
    AnonymousCall,
}

impl Counted {
    /// The value stored in `rate_count.action`.
    pub fn as_str(self) -> &'static str {
        match self {
            Counted::Registration => "registration",
            Counted::StudyAccount => "study_account",
            Counted::Call => "call",
            Counted::AnonymousCall => "anonymous_call",
        }
    }
}

impl RateLimit {
    /// The window holding `epoch_secs` (seconds since the epoch): its index, counted from the
    /// epoch, and the seconds left of it.
    pub fn window_at(&self, epoch_secs: f64) -> (i64, f64) {
        let len = self.window.as_secs_f64();
        let index = (epoch_secs / len).floor();
        (index as i64, (index + 1.0) * len - epoch_secs)
    }

    /// How many calls one server counts before it adds them to the shared count: a twentieth
    /// of the limit, so with `n` servers an account can pass the limit by at most `n` times
    /// that in a window (none with one server: it refuses on its own count too).
    pub fn batch(&self) -> u32 {
        (self.most / 20).max(1)
    }
}

/// One server's count of one subject's requests in the current window, added to the count in
/// PostgreSQL in batches ([`RateLimit::batch`]) rather than one write per request. It decides on
/// the shared count as last read plus what it has not added yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchedCount {
    /// The window counted (its index).
    window: i64,
    /// The shared count as last read, this server's added calls included.
    known: i64,
    /// Calls counted here and not added yet.
    unadded: u32,
}

/// What a request counted by a [`BatchedCount`] does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counting {
    /// Go ahead.
    Go,
    /// Add this many to the shared count, then decide with [`BatchedCount::added`].
    Add(u32),
    /// Refused: past the limit (not counted).
    Refuse,
}

impl BatchedCount {
    /// Counts one request in `window`. A new window starts from nothing.
    pub fn count(&mut self, window: i64, limit: &RateLimit) -> Counting {
        if window != self.window {
            *self = Self {
                window,
                ..Self::default()
            };
        }
        if self.known + i64::from(self.unadded) >= i64::from(limit.most) {
            return Counting::Refuse;
        }
        self.unadded += 1;
        if self.unadded >= limit.batch() {
            let n = self.unadded;
            self.unadded = 0;
            Counting::Add(n)
        } else {
            Counting::Go
        }
    }

    /// The shared count read back after adding (everything every server added in `window`);
    /// whether the request that added may go ahead.
    pub fn added(&mut self, window: i64, total: i64, limit: &RateLimit) -> bool {
        if window == self.window {
            self.known = self.known.max(total);
        }
        total <= i64::from(limit.most)
    }

    /// The window counted.
    pub fn window(&self) -> i64 {
        self.window
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
    fn windows_are_whole_multiples_of_their_length() {
        let l = RateLimit::parse("10/60").unwrap();
        assert_eq!(l.window_at(120.0), (2, 60.0));
        assert_eq!(l.window_at(179.5), (2, 0.5));
        assert_eq!(l.batch(), 1);
        assert_eq!(RateLimit::parse("600/60").unwrap().batch(), 30);
    }

    /// One server alone: exact; its requests reach PostgreSQL once a batch.
    #[test]
    fn one_server_counts_exactly_and_adds_in_batches() {
        let l = RateLimit::parse("100/60").unwrap();
        let mut c = BatchedCount::default();
        let mut shared = 0i64;
        let mut adds = 0;
        let mut allowed = 0;
        for _ in 0..150 {
            match c.count(7, &l) {
                Counting::Go => allowed += 1,
                Counting::Add(n) => {
                    adds += 1;
                    shared += i64::from(n);
                    if c.added(7, shared, &l) {
                        allowed += 1;
                    }
                }
                Counting::Refuse => {}
            }
        }
        assert_eq!(allowed, 100);
        assert_eq!(adds, 100 / l.batch() as i32);
        // The next window starts afresh.
        assert_eq!(c.count(8, &l), Counting::Go);
    }

    /// Several servers sharing one count: an account spread over them passes the limit by at
    /// most one batch per server.
    #[test]
    fn several_servers_pass_the_limit_by_at_most_a_batch_each() {
        let l = RateLimit::parse("600/60").unwrap();
        for servers in [2usize, 3, 8] {
            let mut counts = vec![BatchedCount::default(); servers];
            let mut shared = 0i64;
            let mut allowed = 0i64;
            for i in 0..10_000 {
                let c = &mut counts[(i * 7 + i / 3) % servers];
                match c.count(1, &l) {
                    Counting::Go => allowed += 1,
                    Counting::Add(n) => {
                        shared += i64::from(n);
                        if c.added(1, shared, &l) {
                            allowed += 1;
                        }
                    }
                    Counting::Refuse => {}
                }
            }
            assert!(allowed >= 600, "{servers}: {allowed}");
            assert!(
                allowed <= 600 + (servers as i64) * i64::from(l.batch()),
                "{servers}: {allowed}"
            );
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
