//! Login throttling without lock-outs. Failed logins are counted per
//! (account, address) pair, per account and per address over a window; the caller keeps them
//! (in PostgreSQL, so every server sees the same counts) and passes them in, so this rule is
//! tested without a clock or a database.
//!
//! The rule:
//! - An address with no recent failure on an account is never made to wait for it: the owner's
//!   right password from their own address works while someone else hammers their account, and
//!   users behind one proxy are not locked out by a neighbour.
//! - An address that has failed on an account waits before its next try there, once the pair,
//!   the account or the address has used its free failures (with 3 free failures per pair, the
//!   4th try waits 1 s); the wait doubles with every further failure (1 s, 2 s, 4 s, ... up to
//!   `max_wait`) and is counted from the pair's last failure. A guesser on one address gets a handful of tries per account, then a few per hour;
//!   a guesser with many addresses gets about one try per address per account once the account
//!   is hot. Guessing one password across many accounts (spraying) gets one try per account per
//!   address: the password-strength rule (`Password::check_not_guessable`) answers that.
//! - A success clears the pair's failures, not the account's or the address's.
use std::time::Duration;

/// The thresholds and waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoginPolicy {
    /// Failures counted: those younger than this.
    pub window: Duration,
    /// Failures of one address on one account after which it waits before its next try.
    pub free_per_pair: u32,
    /// Failures on one account (any address) after which every address that failed on it waits.
    pub free_per_account: u32,
    /// Failures from one address (any account) after which it waits on every account it failed
    /// on.
    pub free_per_address: u32,
    /// The first wait.
    pub first_wait: Duration,
    /// The longest wait.
    pub max_wait: Duration,
}

impl Default for LoginPolicy {
    fn default() -> Self {
        Self {
            window: Duration::from_secs(60 * 60),
            free_per_pair: 3,
            free_per_account: 10,
            free_per_address: 20,
            first_wait: Duration::from_secs(1),
            max_wait: Duration::from_secs(15 * 60),
        }
    }
}

/// The recent failures that bear on one attempt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FailureCounts {
    /// This address on this account.
    pub pair: u32,
    /// This account, from any address.
    pub account: u32,
    /// This address, on any account.
    pub address: u32,
    /// Time since this address last failed on this account (`None` without such a failure).
    pub since_pair_failure: Option<Duration>,
}

impl LoginPolicy {
    /// How long the attempt must wait, or `None` if it may go ahead now.
    pub fn wait(&self, counts: &FailureCounts) -> Option<Duration> {
        let since = counts.since_pair_failure?;
        if counts.pair == 0 {
            return None;
        }
        // The try after the free failures is the first that waits.
        let excess = [
            (counts.pair, self.free_per_pair),
            (counts.account, self.free_per_account),
            (counts.address, self.free_per_address),
        ]
        .map(|(failures, free)| failures.saturating_add(1).saturating_sub(free));
        let excess = excess.into_iter().max().unwrap_or(0);
        if excess == 0 {
            return None;
        }
        let doublings = (excess - 1).min(30);
        let delay = self
            .first_wait
            .saturating_mul(1u32 << doublings)
            .min(self.max_wait);
        let left = delay.saturating_sub(since);
        (!left.is_zero()).then_some(left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pair: u32, account: u32, address: u32, since_secs: u64) -> FailureCounts {
        FailureCounts {
            pair,
            account,
            address,
            since_pair_failure: (pair > 0).then(|| Duration::from_secs(since_secs)),
        }
    }

    #[test]
    fn an_address_without_failures_on_the_account_never_waits() {
        let p = LoginPolicy::default();
        // The account is under attack from elsewhere, and this address has failed elsewhere.
        assert_eq!(p.wait(&counts(0, 10_000, 10_000, 0)), None);
    }

    #[test]
    fn the_free_failures_pass_then_the_wait_doubles_up_to_the_cap() {
        let p = LoginPolicy::default();
        // Three free failures: the try after the third waits.
        for pair in 1..=2 {
            assert_eq!(p.wait(&counts(pair, pair, pair, 0)), None, "{pair}");
        }
        let waits: Vec<u64> = (3..=15)
            .map(|n| p.wait(&counts(n, n, n, 0)).unwrap().as_secs())
            .collect();
        assert_eq!(
            waits,
            [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]
        );
    }

    #[test]
    fn the_wait_counts_from_the_pairs_last_failure() {
        let p = LoginPolicy::default();
        // Five failures (the third wait): 4 s after the last one.
        assert_eq!(p.wait(&counts(5, 5, 5, 3)), Some(Duration::from_secs(1)));
        assert_eq!(p.wait(&counts(5, 5, 5, 4)), None);
        assert_eq!(p.wait(&counts(5, 5, 5, 100)), None);
    }

    #[test]
    fn a_hot_account_or_address_makes_any_address_that_failed_there_wait() {
        let p = LoginPolicy::default();
        // One failure from this address, but the account has 12 (the third wait past its 10).
        assert_eq!(p.wait(&counts(1, 12, 1, 0)), Some(Duration::from_secs(4)));
        // One failure here, but this address has failed 20 times across accounts.
        assert_eq!(p.wait(&counts(1, 1, 20, 0)), Some(Duration::from_secs(1)));
        // Just under every threshold: no wait.
        assert_eq!(p.wait(&counts(2, 9, 19, 0)), None);
    }

    #[test]
    fn huge_counts_do_not_overflow() {
        let p = LoginPolicy::default();
        assert_eq!(
            p.wait(&counts(u32::MAX, u32::MAX, u32::MAX, 0)),
            Some(p.max_wait)
        );
    }
}
