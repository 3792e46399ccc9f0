//! Connections kept back from the pool for one-statement calls on the hot path (an answer is
//! one call of the database: `db::judge::answer`).
//!
//! sqlx's pool tests every connection given back to it with a round trip of its own (a `Sync`
//! and its answer), and that cannot be turned off. For a call that is itself one round trip,
//! that doubled the traffic to PostgreSQL. So such a call takes its connection from here: the
//! connections the last calls used, still checked out of the pool and kept a short while. A
//! call that finished cleanly ([`Quick::done`]) puts its connection back here untested, as the
//! pool itself does not test one that has just answered ([`FRESH`]); any other end (an error, a
//! request dropped halfway) gives the connection back to the pool, which tests it then.
//!
//! Calls take their turn first ([`QuickConnections::acquire`] waits, first come first served,
//! for one of as many turns as connections may be kept): a kept connection must not go to a call
//! that has just arrived while others wait in the pool's queue, or under load a few calls would
//! wait seconds while the rest went through in milliseconds.
//!
//! Nothing here is shared between servers: it is a per-process cache of connections.
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, PgPool, Postgres};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::error::AppError;

/// A connection that answered within this long is used again untested; one idle for longer
/// goes back to the pool, which tests it before it is used again (the pool's own rule,
/// `server::startup::connect_and_migrate`).
pub const FRESH: Duration = Duration::from_millis(250);

/// The connections kept, at most half of the pool's, so everything else always has the other
/// half.
pub struct QuickConnections {
    pool: PgPool,
    idle: Mutex<Vec<(PoolConnection<Postgres>, Instant)>>,
    max_idle: usize,
    /// One per connection that may be kept: a call holds one from before it takes a connection
    /// until it has put it back (tokio's semaphore serves waiters in order).
    turns: Semaphore,
}

impl QuickConnections {
    /// Keeps connections of `pool`; they all go back to it when it starts closing (a shutdown
    /// waits for every checked-out connection).
    pub fn new(pool: PgPool) -> Arc<Self> {
        let max_idle = (pool.options().get_max_connections() as usize / 2).max(1);
        let quick = Arc::new(Self {
            pool: pool.clone(),
            idle: Mutex::new(Vec::new()),
            max_idle,
            turns: Semaphore::new(max_idle),
        });
        let closing = pool.close_event();
        let weak = Arc::downgrade(&quick);
        tokio::spawn(async move {
            closing.await;
            if let Some(quick) = weak.upgrade() {
                quick.clear();
            }
        });
        quick
    }

    /// A connection, in turn: the one used last when it is fresh, else one from the pool. Waiting
    /// longer than the pool would ([`sqlx::pool::PoolOptions::acquire_timeout`]) is answered
    /// busy, as the pool answers it.
    pub async fn acquire(&self) -> Result<Quick<'_>, AppError> {
        let wait = self.pool.options().get_acquire_timeout();
        let turn = match tokio::time::timeout(wait, self.turns.acquire()).await {
            Ok(Ok(turn)) => turn,
            Ok(Err(_closed)) => return Err(sqlx::Error::PoolClosed.into()),
            Err(_elapsed) => return Err(sqlx::Error::PoolTimedOut.into()),
        };
        let kept = self.lock().pop();
        let conn = match kept {
            Some((conn, at)) if at.elapsed() < FRESH && !self.pool.is_closed() => conn,
            stale => {
                // Back to the pool (tested there) before a fresh one is taken.
                drop(stale);
                self.pool.acquire().await?
            }
        };
        Ok(Quick {
            conn: Some(conn),
            home: self,
            done: false,
            _turn: turn,
        })
    }

    /// How many connections are kept now.
    pub fn kept(&self) -> usize {
        self.lock().len()
    }

    /// Gives every kept connection back to the pool.
    pub fn clear(&self) {
        let drained: Vec<_> = std::mem::take(&mut *self.lock());
        drop(drained);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(PoolConnection<Postgres>, Instant)>> {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn put_back(&self, conn: PoolConnection<Postgres>) {
        if self.pool.is_closed() {
            return;
        }
        let mut idle = self.lock();
        // Those kept too long go back to the pool (they would be tested before use anyway).
        idle.retain(|(_, at)| at.elapsed() < FRESH);
        if idle.len() < self.max_idle {
            idle.push((conn, Instant::now()));
        }
    }
}

/// A connection for one call. Call [`Quick::done`] after the call succeeded; dropped without
/// it, the connection goes back to the pool, which tests it.
pub struct Quick<'a> {
    conn: Option<PoolConnection<Postgres>>,
    home: &'a QuickConnections,
    done: bool,
    // Given back after the connection (fields drop after `Drop::drop`).
    _turn: SemaphorePermit<'a>,
}

impl Quick<'_> {
    /// The connection.
    pub fn conn(&mut self) -> &mut PgConnection {
        self.conn.as_mut().expect("held until dropped")
    }

    /// The call answered: the connection is kept for the next one.
    pub fn done(mut self) {
        self.done = true;
    }
}

impl Drop for Quick<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if self.done {
                self.home.put_back(conn);
            }
        }
    }
}
