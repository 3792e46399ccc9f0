//! The session store's records, read directly: the judging calls keep a decoded copy of each
//! session per server (`service::session_cache`) and check it, inside their own first
//! statement, against the record stored now (a [`SessionProof`]). The table is the
//! tower-sessions store's (`tower_sessions.session`; its migration is ours too).
use sqlx::PgExecutor;

use crate::error::AppError;

/// A session as it was read: its id and its stored bytes. A statement that takes one checks that
/// the record is still stored with exactly these bytes and has not expired, so any change to the
/// session since (a login, a logout, a study allowed or completed, an expiry) is noticed there.
#[derive(Debug, Clone, Copy)]
pub struct SessionProof<'a> {
    /// The session id, as the store writes it (`tower_sessions::session::Id`'s `Display`).
    pub id: &'a str,
    /// The record's bytes, as stored.
    pub data: &'a [u8],
}

/// The stored bytes of a session that has not expired, as the store's own `load` reads them.
pub async fn load(db: impl PgExecutor<'_>, id: &str) -> Result<Option<Vec<u8>>, AppError> {
    Ok(sqlx::query_scalar!(
        "select data from tower_sessions.session where id = $1 and expiry_date > now()",
        id
    )
    .fetch_optional(db)
    .await?)
}
