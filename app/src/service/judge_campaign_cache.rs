//! What a judging request needs of its campaign (title, instructions, settings), kept per server
//! and checked on every request against the campaign's version. The worker-lock statement every
//! judging request sends reads the campaign's current status and version with the worker's row
//! (`db::judge::lock_worker`), and the database bumps the version on any change to the campaign
//! or its settings (migration `20261125000011_campaign_version.sql`). So a request served from
//! the cache sends no statement for its campaign, a change made through any server (or in SQL)
//! is seen by the next request on every server, and no code path has to invalidate anything.
//!
//! It also keeps when this server last swept a campaign's expired leases, so a lease need not
//! send that sweep every time (see `judging::lease_next`).
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use sqlx::{PgConnection, PgPool};

use crate::db::judge::{self as db, JudgeCampaign, WorkerRow};
use crate::domain::{CampaignId, CampaignStatus};
use crate::error::AppError;

/// More campaigns than this and the cache starts over (a server sees a handful at a time).
const MAX_ENTRIES: usize = 256;

/// How often a server sweeps a campaign's expired leases before leasing (a lease that finds
/// nothing sweeps at once).
pub const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// Judging campaigns as last read by this server, keyed by id.
#[derive(Default)]
pub struct JudgeCampaignCache {
    entries: RwLock<HashMap<CampaignId, Arc<JudgeCampaign>>>,
    swept: Mutex<HashMap<CampaignId, Instant>>,
}

impl JudgeCampaignCache {
    /// The copy held for `id`, if any (possibly out of date: see [`current`]).
    pub fn get(&self, id: CampaignId) -> Option<Arc<JudgeCampaign>> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries.get(&id).cloned()
    }

    /// Keeps `campaign` unless a newer version is already held; returns the copy kept.
    pub fn put(&self, campaign: JudgeCampaign) -> Arc<JudgeCampaign> {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        if let Some(held) = entries.get(&campaign.campaign_id) {
            if held.version > campaign.version {
                return held.clone();
            }
        } else if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        let campaign = Arc::new(campaign);
        entries.insert(campaign.campaign_id, campaign.clone());
        campaign
    }

    /// How many campaigns are held.
    pub fn len(&self) -> usize {
        self.entries.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether no campaign is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this server should sweep `id`'s expired leases now (none in the last
    /// [`SWEEP_EVERY`]); if so, the sweep is counted as done.
    pub fn sweep_due(&self, id: CampaignId) -> bool {
        self.sweep_due_at(id, Instant::now())
    }

    fn sweep_due_at(&self, id: CampaignId, now: Instant) -> bool {
        let mut swept = self.swept.lock().unwrap_or_else(|e| e.into_inner());
        match swept.get(&id) {
            Some(last) if now.saturating_duration_since(*last) < SWEEP_EVERY => false,
            _ => {
                if swept.len() >= MAX_ENTRIES && !swept.contains_key(&id) {
                    swept.clear();
                }
                swept.insert(id, now);
                true
            }
        }
    }
}

/// The refusal for a campaign that is not open.
pub fn not_open() -> AppError {
    AppError::Conflict("This study is not open.".into())
}

/// The judging campaign `id` before the request's transaction: the cached copy when it says the
/// campaign is open (the worker-lock statement checks that it still is), else read afresh (one
/// statement). Not found when there is no such judging campaign, a conflict when it is not open.
pub async fn open_campaign(
    pool: &PgPool,
    cache: &JudgeCampaignCache,
    id: CampaignId,
) -> Result<Arc<JudgeCampaign>, AppError> {
    if let Some(held) = cache.get(id).filter(|c| c.status == CampaignStatus::Open) {
        return Ok(held);
    }
    let campaign = db::judge_campaign(pool, id)
        .await?
        .ok_or(AppError::NotFound)?;
    if campaign.status != CampaignStatus::Open {
        return Err(not_open());
    }
    Ok(cache.put(campaign))
}

/// The judging campaign `id` read afresh (a call found the cached copy's version out of date):
/// kept in the cache; not found when there is none, a conflict when it is not open.
pub async fn reload(
    pool: &PgPool,
    cache: &JudgeCampaignCache,
    id: CampaignId,
) -> Result<Arc<JudgeCampaign>, AppError> {
    let fresh = db::judge_campaign(pool, id)
        .await?
        .ok_or(AppError::NotFound)?;
    if fresh.status != CampaignStatus::Open {
        return Err(not_open());
    }
    Ok(cache.put(fresh))
}

/// The campaign as of the worker-lock statement: a conflict unless it is still open, and read
/// again in the transaction when `held` is older than the version that statement saw.
pub async fn current(
    tx: &mut PgConnection,
    cache: &JudgeCampaignCache,
    held: Arc<JudgeCampaign>,
    worker: &WorkerRow,
) -> Result<Arc<JudgeCampaign>, AppError> {
    if worker.campaign_status != CampaignStatus::Open {
        return Err(not_open());
    }
    if worker.campaign_version == held.version {
        return Ok(held);
    }
    let fresh = db::judge_campaign(&mut *tx, held.campaign_id)
        .await?
        .ok_or(AppError::NotFound)?;
    if fresh.status != CampaignStatus::Open {
        return Err(not_open());
    }
    Ok(cache.put(fresh))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::judge::settings::JudgeSettings;

    fn campaign(id: CampaignId, version: i64, title: &str) -> JudgeCampaign {
        JudgeCampaign {
            campaign_id: id,
            version,
            status: CampaignStatus::Open,
            title: title.into(),
            instructions: String::new(),
            settings: JudgeSettings::default(),
        }
    }

    #[test]
    fn a_newer_version_replaces_an_older_one_and_never_the_reverse() {
        let cache = JudgeCampaignCache::default();
        let id = CampaignId(uuid::Uuid::from_u128(1));
        cache.put(campaign(id, 2, "two"));
        assert_eq!(cache.put(campaign(id, 1, "one")).title, "two");
        assert_eq!(cache.get(id).unwrap().title, "two");
        assert_eq!(cache.put(campaign(id, 3, "three")).title, "three");
        assert_eq!(cache.get(id).unwrap().version, 3);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn a_sweep_is_due_once_per_interval_per_campaign() {
        let cache = JudgeCampaignCache::default();
        let (a, b) = (
            CampaignId(uuid::Uuid::from_u128(1)),
            CampaignId(uuid::Uuid::from_u128(2)),
        );
        let t0 = Instant::now();
        assert!(cache.sweep_due_at(a, t0));
        assert!(!cache.sweep_due_at(a, t0 + SWEEP_EVERY / 2));
        assert!(cache.sweep_due_at(b, t0 + SWEEP_EVERY / 2));
        assert!(cache.sweep_due_at(a, t0 + SWEEP_EVERY));
        assert!(!cache.sweep_due_at(a, t0 + SWEEP_EVERY));
    }

    #[test]
    fn the_cache_never_holds_more_than_its_bound() {
        let cache = JudgeCampaignCache::default();
        for i in 0..(MAX_ENTRIES * 3 + 7) {
            cache.put(campaign(
                CampaignId(uuid::Uuid::from_u128(i as u128)),
                1,
                "c",
            ));
            assert!(cache.len() <= MAX_ENTRIES);
        }
        assert!(!cache.is_empty());
    }
}
