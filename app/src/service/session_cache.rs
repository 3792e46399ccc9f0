//! The judging calls' sessions, kept decoded per server. A judgment is the request a worker
//! sends thousands of times, and reading its session from the store was a round trip of its
//! own on every one. Instead each server keeps the record it last read for a session id, with
//! the record's stored bytes, and every judging call checks those bytes inside its own first
//! statement (the worker lock, `db::judge::lock_worker` and `lock_for_answer`): the record must
//! still be stored with exactly those bytes and must not have expired. The store rewrites the
//! bytes on every change (login, logout, a study allowed or completed; the record holds its
//! expiry too), so a change made through any server, or a deletion, fails the check; the call
//! then starts over from a fresh read ([`crate::api::judging_call`]). Nothing is trusted that the
//! database did not confirm in the call's own transaction, and no code path has to invalidate
//! anything.
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use sqlx::PgPool;
use tower_sessions::session::Record;

use crate::db::sessions::{self as db, SessionProof};
use crate::error::AppError;
use crate::session::SessionView;

/// More sessions than this and the cache starts over (each is a few hundred bytes).
const MAX_ENTRIES: usize = 50_000;

/// A session as this server last read it.
#[derive(Debug)]
pub struct CachedSession {
    /// The session id, as the store writes it.
    pub id: String,
    /// The record's bytes, as stored.
    pub data: Vec<u8>,
    /// What the access checks need of it.
    pub view: SessionView,
}

impl CachedSession {
    /// Decodes a stored record (the store's encoding, MessagePack of
    /// `tower_sessions::session::Record`).
    pub fn decode(id: String, data: Vec<u8>) -> Result<Self, AppError> {
        let record: Record = rmp_serde::from_slice(&data).map_err(|e| {
            tracing::error!(error.message = %e, "a stored session cannot be decoded");
            AppError::Internal
        })?;
        let view = SessionView::from_data(&record.data).map_err(|e| {
            tracing::error!(error.message = %e, "a stored session holds an unreadable value");
            AppError::Internal
        })?;
        Ok(CachedSession { id, data, view })
    }

    /// What a statement checks against the stored record.
    pub fn proof(&self) -> SessionProof<'_> {
        SessionProof {
            id: &self.id,
            data: &self.data,
        }
    }
}

/// Sessions as last read by this server, keyed by id.
#[derive(Default)]
pub struct SessionCache {
    entries: RwLock<HashMap<String, Arc<CachedSession>>>,
}

impl SessionCache {
    /// The copy held for `id`, if any (possibly out of date: check its [`CachedSession::proof`]).
    pub fn get(&self, id: &str) -> Option<Arc<CachedSession>> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries.get(id).cloned()
    }

    /// Keeps `session`, replacing any copy held for its id; returns the copy kept.
    pub fn put(&self, session: CachedSession) -> Arc<CachedSession> {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(&session.id) {
            entries.clear();
        }
        let session = Arc::new(session);
        entries.insert(session.id.clone(), session.clone());
        session
    }

    /// Drops the copy held for `id`.
    pub fn forget(&self, id: &str) {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        entries.remove(id);
    }

    /// How many sessions are held.
    pub fn len(&self) -> usize {
        self.entries.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether no session is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reads session `id` from the store and keeps it; `None` (and nothing kept) when it is not
/// stored or has expired.
pub async fn load(
    pool: &PgPool,
    cache: &SessionCache,
    id: &str,
) -> Result<Option<Arc<CachedSession>>, AppError> {
    match db::load(pool, id).await? {
        Some(data) => Ok(Some(cache.put(CachedSession::decode(id.to_owned(), data)?))),
        None => {
            cache.forget(id);
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{CampaignId, UserId};
    use tower_sessions::session::Id;

    fn stored(data: serde_json::Value) -> Vec<u8> {
        let record = Record {
            id: Id::default(),
            data: serde_json::from_value(data).unwrap(),
            expiry_date: time::OffsetDateTime::now_utc(),
        };
        // As tower-sessions-sqlx-store writes it.
        rmp_serde::to_vec(&record).unwrap()
    }

    #[test]
    fn a_stored_record_decodes_to_its_user_and_studies() {
        let user: UserId = "7c2a1e52-3f7e-4d55-9a43-51a0b4c0e001".parse().unwrap();
        let study: CampaignId = "7c2a1e52-3f7e-4d55-9a43-51a0b4c0e002".parse().unwrap();
        let done: CampaignId = "7c2a1e52-3f7e-4d55-9a43-51a0b4c0e003".parse().unwrap();
        let data = stored(serde_json::json!({
            "user_id": user, "study_worker": true, "studies": [study], "completed_studies": [done],
        }));
        let s = CachedSession::decode("sid".into(), data.clone()).unwrap();
        assert_eq!(s.data, data);
        assert_eq!(s.proof().id, "sid");
        assert_eq!(
            s.view,
            SessionView {
                user: Some(user),
                study_worker: true,
                studies: vec![study],
                completed: vec![done],
            }
        );
        assert!(s.view.check_study_access(study).is_ok());
        assert!(matches!(
            s.view.check_study_access(done),
            Err(AppError::Conflict(m)) if m.contains("completed")
        ));
        assert!(matches!(
            s.view.check_study_access(user_campaign()),
            Err(AppError::Conflict(m)) if m.contains("from its link")
        ));
    }

    fn user_campaign() -> CampaignId {
        "7c2a1e52-3f7e-4d55-9a43-51a0b4c0e004".parse().unwrap()
    }

    #[test]
    fn a_session_without_a_login_has_no_user_and_passes_the_study_check() {
        let s = CachedSession::decode("sid".into(), stored(serde_json::json!({}))).unwrap();
        assert_eq!(s.view, SessionView::default());
        assert!(s.view.check_study_access(user_campaign()).is_ok());
    }

    #[test]
    fn an_unreadable_record_is_an_internal_error_not_a_login() {
        assert_eq!(
            CachedSession::decode("sid".into(), vec![0xc1, 0x00]).unwrap_err(),
            AppError::Internal
        );
        let wrong = stored(serde_json::json!({ "user_id": 5 }));
        assert_eq!(
            CachedSession::decode("sid".into(), wrong).unwrap_err(),
            AppError::Internal
        );
    }

    #[test]
    fn the_cache_replaces_forgets_and_starts_over_when_full() {
        let cache = SessionCache::default();
        let empty = || stored(serde_json::json!({}));
        cache.put(CachedSession::decode("a".into(), empty()).unwrap());
        let again = CachedSession::decode(
            "a".into(),
            stored(serde_json::json!({"study_worker": true})),
        );
        cache.put(again.unwrap());
        assert_eq!(cache.len(), 1);
        assert!(cache.get("a").unwrap().view.study_worker);
        cache.forget("a");
        assert!(cache.get("a").is_none());
        for i in 0..MAX_ENTRIES {
            cache.put(CachedSession::decode(format!("s{i}"), empty()).unwrap());
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        cache.put(CachedSession::decode("one more".into(), empty()).unwrap());
        assert_eq!(cache.len(), 1);
    }
}
