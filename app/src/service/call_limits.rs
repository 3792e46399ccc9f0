//! Server-function calls per signed-in account (`RateLimits::calls`) and, made without an
//! account, per address (`RateLimits::anonymous_calls`), counted by every server in PostgreSQL.
//! Each server keeps its own count of each caller's calls in the current window and adds it to
//! the shared count a batch at a time (`domain::rate_limit::BatchedCount`), so the limit costs
//! one write per batch, not one per call.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::PgPool;

use crate::db::rate_counts;
use crate::domain::rate_limit::{BatchedCount, Counted, Counting, RateLimit, RateLimits};
use crate::domain::UserId;
use crate::error::AppError;

/// Accounts kept before the ones counted in past windows are dropped.
const KEEP: usize = 4_096;

/// Who a call is counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Caller {
    /// A signed-in account.
    Account(UserId),
    /// A visitor without one, by the address the per-address limits count
    /// (`client_addr::counted_as`).
    Address(std::net::IpAddr),
}

/// This server's counts of the callers' calls.
#[derive(Debug)]
pub struct CallLimits {
    accounts: RateLimit,
    addresses: RateLimit,
    counts: Mutex<HashMap<Caller, BatchedCount>>,
}

impl CallLimits {
    pub fn new(limits: &RateLimits) -> Self {
        Self {
            accounts: limits.calls,
            addresses: limits.anonymous_calls,
            counts: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a call of `user`'s, refused (`RateLimited`, with the seconds to the window's end)
    /// past the limit.
    pub async fn take(&self, pool: &PgPool, user: UserId) -> Result<(), AppError> {
        self.count(pool, Caller::Account(user)).await
    }

    /// Counts a call made without an account from `address` (none: not counted).
    pub async fn take_anonymous(
        &self,
        pool: &PgPool,
        address: Option<std::net::IpAddr>,
    ) -> Result<(), AppError> {
        match address {
            Some(a) => {
                let a = crate::client_addr::counted_as(a);
                self.count(pool, Caller::Address(a)).await
            }
            None => Ok(()),
        }
    }

    async fn count(&self, pool: &PgPool, caller: Caller) -> Result<(), AppError> {
        let (limit, action, subject) = match caller {
            Caller::Account(user) => (self.accounts, Counted::Call, user.to_string()),
            Caller::Address(a) => (self.addresses, Counted::AnonymousCall, a.to_string()),
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let (window, left) = limit.window_at(now);
        let refused = || AppError::RateLimited {
            retry_after_secs: left.ceil().max(1.0) as u64,
        };
        let step = {
            let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
            if counts.len() > KEEP {
                counts.retain(|_, c| c.window() == window);
            }
            counts.entry(caller).or_default().count(window, &limit)
        };
        match step {
            Counting::Go => Ok(()),
            Counting::Refuse => Err(refused()),
            Counting::Add(n) => {
                let total =
                    rate_counts::add(pool, action, &subject, limit.window, window, n).await?;
                let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
                let allowed = counts
                    .entry(caller)
                    .or_default()
                    .added(window, total, &limit);
                if allowed {
                    Ok(())
                } else {
                    Err(refused())
                }
            }
        }
    }
}
