//! Password hashing (server only). Login throttling is `domain::login_throttle`, its counts in
//! `db::login_failures`.
//!
//! argon2id with explicit parameters (OWASP's 19 MiB, 2 passes, 1 lane), always on the blocking
//! pool so a login never stalls the async runtime. Unknown users are verified against a dummy hash
//! so they take as long as known ones and get the same answer.
//!
//! At most one hash per core runs at a time ([`HashGate`]): each takes 19 MiB and tens of
//! milliseconds of a core, so a flood of logins or registrations would otherwise start hundreds
//! at once, hold gigabytes and slow every other request. A few more wait their turn; beyond
//! that the caller is told the server is busy.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

use tokio::sync::Semaphore;

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::error::AppError;

/// The stored "hash" of an account that has no password: a worker recruited through a study
/// link, who signs in only by opening it. No password verifies against it.
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

/// Bounds the password hashes running at once, and those waiting to run.
pub struct HashGate {
    running: Arc<Semaphore>,
    waiting: AtomicUsize,
    most_waiting: usize,
}

/// Hashes that may wait for a turn, per hash running at once (a turn takes tens of ms).
const WAITING_PER_RUNNING: usize = 8;

impl HashGate {
    /// `running` hashes at once, and at most `most_waiting` more queued for a turn.
    pub fn new(running: usize, most_waiting: usize) -> Self {
        Self {
            running: Arc::new(Semaphore::new(running.max(1))),
            waiting: AtomicUsize::new(0),
            most_waiting,
        }
    }

    /// One hash per core.
    fn for_this_machine() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::new(cores, cores * WAITING_PER_RUNNING)
    }

    /// Runs `job` on the blocking pool once a turn is free; `Overloaded` at once when too many
    /// already wait.
    pub async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, AppError> {
        let turn = match self.running.clone().try_acquire_owned() {
            Ok(turn) => turn,
            Err(_) => {
                // Counted while waiting, and no longer once the wait ends, however it ends (a
                // caller that went away drops this future mid-wait).
                let waiting =
                    Waiting::enter(&self.waiting, self.most_waiting).ok_or(AppError::Overloaded)?;
                let turn = self.running.clone().acquire_owned().await;
                drop(waiting);
                turn.map_err(|_| AppError::Internal)?
            }
        };
        let done = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            job()
        })
        .await;
        done.map_err(|e| {
            tracing::error!(error.message = %e, "password hashing task failed");
            AppError::Internal
        })
    }
}

/// One caller counted among those waiting for a turn, until dropped.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    /// Counts one more waiting caller, unless `most` already wait.
    fn enter(count: &'a AtomicUsize, most: usize) -> Option<Self> {
        if count.fetch_add(1, Ordering::SeqCst) >= most {
            count.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Self(count))
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

static GATE: LazyLock<HashGate> = LazyLock::new(HashGate::for_this_machine);

/// Hashes a new password with argon2id, off the async runtime.
pub async fn hash_password(password: String) -> Result<String, AppError> {
    GATE.run(move || hash_blocking(&password))
        .await?
        .map_err(|e| {
            tracing::error!(error.message = %e, "password hashing failed");
            AppError::Internal
        })
}

/// Verifies `password` against `phc`, or against a dummy hash when there is no user, so both
/// cases cost the same. Off the async runtime.
pub async fn verify_password(password: String, phc: Option<String>) -> Result<bool, AppError> {
    GATE.run(move || match phc {
        Some(phc) if phc != NO_PASSWORD => verify_blocking(&password, &phc),
        // No such user, or one without a password: the same cost and the same answer.
        _ => {
            verify_blocking(&password, &DUMMY_HASH);
            false
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_gate_runs_so_many_at_once_queues_so_many_more_and_refuses_the_rest() {
        let gate = Arc::new(HashGate::new(2, 3));
        let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let calls = (0..20).map(|_| {
            let (gate, now, most) = (gate.clone(), now.clone(), most.clone());
            tokio::spawn(async move {
                gate.run(move || {
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(300));
                    now.fetch_sub(1, Ordering::SeqCst);
                })
                .await
            })
        });
        let results = futures_util::future::join_all(calls).await;
        let done = results
            .iter()
            .filter(|r| r.as_ref().unwrap().is_ok())
            .count();
        let busy = results
            .iter()
            .filter(|r| r.as_ref().unwrap() == &Err(AppError::Overloaded))
            .count();
        assert_eq!(most.load(Ordering::SeqCst), 2, "two at once, never more");
        // Two running and three waiting when the rest arrive (all within the first 300 ms).
        assert_eq!((done, busy), (5, 15));
        // Once the queue drained, the gate takes work again.
        assert_eq!(gate.run(|| 7).await, Ok(7));
        assert_eq!(gate.waiting.load(Ordering::SeqCst), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_caller_that_goes_away_while_waiting_leaves_no_count_behind() {
        let gate = Arc::new(HashGate::new(1, 2));
        let busy = {
            let gate = gate.clone();
            tokio::spawn(async move {
                gate.run(|| std::thread::sleep(Duration::from_millis(300)))
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        for _ in 0..5 {
            // Waits for the turn, and is given up (a client that disconnected).
            let gone = tokio::time::timeout(Duration::from_millis(10), gate.run(|| ())).await;
            assert!(gone.is_err(), "it had to wait");
        }
        assert_eq!(gate.waiting.load(Ordering::SeqCst), 0);
        busy.await.unwrap().unwrap();
        assert_eq!(gate.run(|| 1).await, Ok(1));
    }
}
