//! Password hashing (server only). Login throttling is `domain::login_throttle`, its counts in
//! `db::login_failures`.
//!
//! argon2id with explicit parameters (OWASP's 19 MiB, 2 passes, 1 lane), always on the blocking
//! pool so a login never stalls the async runtime. Unknown users are verified against a dummy hash
//! so they take as long as known ones and get the same answer.
use std::sync::LazyLock;

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::error::AppError;

/// The stored "hash" of an account that has no password: a worker recruited through a study
/// link (issue #23), who signs in only by opening it. No password verifies against it.
pub const NO_PASSWORD: &str = "!study-link";

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
        Some(phc) if phc != NO_PASSWORD => verify_blocking(&password, &phc),
        // No such user, or one without a password: the same cost and the same answer.
        _ => {
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
