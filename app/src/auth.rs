//! Password hashing and login throttling (server only).
//!
//! argon2id with explicit parameters (OWASP's 19 MiB, 2 passes, 1 lane), always on the blocking
//! pool so a login never stalls the async runtime. Unknown users are verified against a dummy hash
//! so they take as long as known ones and get the same answer.
use std::net::IpAddr;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::domain::{AttemptLimiter, LimitPolicy};
use crate::error::AppError;

fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("BUG: argon2 parameters are constant");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// A PHC string for a password nobody has, verified when the username is unknown.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| {
    hash_blocking("paracrowd-dummy-password").expect("BUG: hashing a constant cannot fail")
});

fn hash_blocking(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    Ok(hasher()
        .hash_password(password.as_bytes(), &salt)?
        .to_string())
}

fn verify_blocking(password: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(parsed) => hasher()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(e) => {
            tracing::error!(error.message = %e, "stored password hash is not a PHC string");
            false
        }
    }
}

/// Hashes a new password with argon2id, off the async runtime.
pub async fn hash_password(password: String) -> Result<String, AppError> {
    tokio::task::spawn_blocking(move || hash_blocking(&password))
        .await
        .map_err(|e| {
            tracing::error!(error.message = %e, "password hashing task failed");
            AppError::Internal
        })?
        .map_err(|e| {
            tracing::error!(error.message = %e, "password hashing failed");
            AppError::Internal
        })
}

/// Verifies `password` against `phc`, or against a dummy hash when there is no user, so both
/// cases cost the same. Off the async runtime.
pub async fn verify_password(password: String, phc: Option<String>) -> Result<bool, AppError> {
    tokio::task::spawn_blocking(move || match phc {
        Some(phc) => verify_blocking(&password, &phc),
        None => {
            verify_blocking(&password, &DUMMY_HASH);
            false
        }
    })
    .await
    .map_err(|e| {
        tracing::error!(error.message = %e, "password verification task failed");
        AppError::Internal
    })
}

/// Failed-login limits per account and per client address.
pub struct LoginThrottle {
    per_account: LimitPolicy,
    per_address: LimitPolicy,
    limiter: Mutex<AttemptLimiter>,
}

impl Default for LoginThrottle {
    /// 5 failures per account and 20 per address in 15 minutes.
    fn default() -> Self {
        Self::new(
            LimitPolicy {
                max_failures: 5,
                window: Duration::from_secs(15 * 60),
            },
            LimitPolicy {
                max_failures: 20,
                window: Duration::from_secs(15 * 60),
            },
        )
    }
}

impl LoginThrottle {
    pub fn new(per_account: LimitPolicy, per_address: LimitPolicy) -> Self {
        Self {
            per_account,
            per_address,
            limiter: Mutex::new(AttemptLimiter::new()),
        }
    }

    fn keys(username: &str, addr: Option<IpAddr>) -> (String, Option<String>) {
        (
            format!("user:{}", username.to_lowercase()),
            addr.map(|a| format!("addr:{a}")),
        )
    }

    /// Refuses the attempt when the account or the address has used up its failures.
    pub fn check(&self, username: &str, addr: Option<IpAddr>) -> Result<(), AppError> {
        let (user_key, addr_key) = Self::keys(username, addr);
        let now = Instant::now();
        let mut limiter = self.limiter.lock().unwrap_or_else(|p| p.into_inner());
        let wait = limiter
            .retry_after(&user_key, self.per_account, now)
            .into_iter()
            .chain(addr_key.and_then(|k| limiter.retry_after(&k, self.per_address, now)))
            .max();
        match wait {
            Some(wait) => Err(AppError::RateLimited {
                retry_after_secs: wait.as_secs().max(1),
            }),
            None => Ok(()),
        }
    }

    pub fn record_failure(&self, username: &str, addr: Option<IpAddr>) {
        let (user_key, addr_key) = Self::keys(username, addr);
        let now = Instant::now();
        let mut limiter = self.limiter.lock().unwrap_or_else(|p| p.into_inner());
        limiter.record_failure(&user_key, now);
        if let Some(k) = addr_key {
            limiter.record_failure(&k, now);
        }
        // Keep memory bounded under a spray of usernames.
        if limiter.tracked_keys() > 10_000 {
            limiter.prune(self.per_account.window.max(self.per_address.window), now);
        }
    }

    pub fn record_success(&self, username: &str) {
        let (user_key, _) = Self::keys(username, None);
        self.limiter
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear(&user_key);
    }
}
