//! A worker's standing in a campaign: their row (locked per request), status changes with the
//! numbers behind them, the admin's list.
use crate::db::sessions::SessionProof;
use crate::domain::judge::gate::GateNumbers;
use crate::domain::{CampaignId, CampaignStatus, UserId, UserStatus, WorkerStatus};
use crate::error::AppError;

use super::gate::stored_counts;
use super::TrustFlip;
use crate::domain::judge::gate_table::{GateCounts, KappaTable};
use sqlx::{PgConnection, PgExecutor};

/// A worker's standing, locked for the rest of the transaction (created on first use).
#[derive(Debug, Clone)]
pub struct WorkerRow {
    /// Active or stopped.
    pub status: WorkerStatus,
    /// An admin reinstated them: the gate no longer stops them.
    pub gate_overridden: bool,
    /// Pairs served so far (test pairs included).
    pub served_count: i32,
    /// Where the test pair falls in the current block of served pairs.
    pub test_position: i32,
    /// Judgments so far (test pairs included).
    pub judgments: i32,
    /// Test pairs answered.
    pub tests_answered: i32,
    /// Test pairs answered correctly.
    pub tests_correct: i32,
    /// The gate's table as stored (`domain::judge::gate_table::KappaTable`): worker
    /// "paraphrase", majority "paraphrase" ...
    pub kappa_pp: i32,
    /// ... worker "paraphrase", majority "not" ...
    pub kappa_pn: i32,
    /// ... worker "not", majority "paraphrase" ...
    pub kappa_np: i32,
    /// ... worker "not", majority "not" ...
    pub kappa_nn: i32,
    /// ... agreeing with a majority 2 or more votes ahead ...
    pub lead2_agreed: i32,
    /// ... disagreeing with one ...
    pub lead2_disagreed: i32,
    /// ... agreeing with a majority 3 or more votes ahead ...
    pub lead3_agreed: i32,
    /// ... and disagreeing with one.
    pub lead3_disagreed: i32,
    /// The campaign's status, read in the same statement.
    pub campaign_status: CampaignStatus,
    /// The campaign's version, read in the same statement (checks a cached copy of the campaign's
    /// settings: `service::judge_campaign_cache`).
    pub campaign_version: i64,
    /// The account's status, read in the same statement (a judging request does not reload the
    /// user separately: `api::judging_call`).
    pub user_status: UserStatus,
    /// Whether the caller's session is still stored as they presented it, read in the same
    /// statement ([`SessionProof`]; `service::session_cache`).
    pub session_current: bool,
}

impl WorkerRow {
    /// The gate's counts as the row stores them (changes others recorded since not folded in).
    pub fn counts(&self) -> GateCounts {
        stored_counts(
            self.judgments,
            self.tests_answered,
            self.tests_correct,
            [
                self.kappa_pp,
                self.kappa_pn,
                self.kappa_np,
                self.kappa_nn,
                self.lead2_agreed,
                self.lead2_disagreed,
                self.lead3_agreed,
                self.lead3_disagreed,
            ],
        )
    }
}

/// Creates the worker's row if needed and locks it until the transaction ends (one statement
/// once the row exists), with the campaign's current status and version and the account's
/// status, and whether `session` is still stored as presented. `None` when the account no longer
/// exists.
pub async fn lock_worker(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    session: SessionProof<'_>,
) -> Result<Option<WorkerRow>, AppError> {
    for _ in 0..2 {
        let row = sqlx::query_as!(
            WorkerRow,
            r#"select w.status as "status: WorkerStatus", w.gate_overridden, w.served_count,
                      w.test_position, w.judgments, w.tests_answered, w.tests_correct,
                      w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn, w.lead2_agreed,
                      w.lead2_disagreed, w.lead3_agreed, w.lead3_disagreed,
                      c.status as "campaign_status: CampaignStatus", c.version as campaign_version,
                      u.status as "user_status: UserStatus",
                      exists (select 1 from tower_sessions.session s
                              where s.id = $3 and s.data = $4 and s.expiry_date > now())
                          as "session_current!"
               from judge_worker w join campaign c using (campaign_id)
                    join app_user u on u.app_user_id = w.app_user_id
               where w.campaign_id = $1 and w.app_user_id = $2 for no key update of w"#,
            campaign_id as CampaignId,
            user as UserId,
            session.id,
            session.data
        )
        .fetch_optional(&mut *conn)
        .await?;
        if row.is_some() {
            return Ok(row);
        }
        // First use: create the row (or find that another tab just did), then lock it. An
        // account deleted since its session began gets no row.
        sqlx::query!(
            r#"insert into judge_worker (campaign_id, app_user_id)
               select $1, app_user_id from app_user where app_user_id = $2
               on conflict (campaign_id, app_user_id) do nothing"#,
            campaign_id as CampaignId,
            user as UserId
        )
        .execute(&mut *conn)
        .await?;
    }
    Ok(None)
}

/// Sets a worker's status, records why, and marks their judgments untrusted (stopped) or
/// trusted again (reinstated), keeping the pairs' vote counts in step. Returns every judgment it
/// flipped, test answers included (on a test pair judged as an ordinary pair first they are
/// votes beside its ordinary judgments, which `service::gate_table::after_flips` reads once it
/// holds the pair's lock), for the gate's running counts.
pub async fn set_worker_status(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    status: WorkerStatus,
    reason: &str,
    numbers: &GateNumbers,
    changed_by: Option<UserId>,
) -> Result<Vec<TrustFlip>, AppError> {
    let trusted = status == WorkerStatus::Active;
    sqlx::query!(
        r#"update judge_worker set status = $3, gate_overridden = gate_overridden or $4
           where campaign_id = $1 and app_user_id = $2"#,
        campaign_id as CampaignId,
        user as UserId,
        status as WorkerStatus,
        trusted && changed_by.is_some()
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!(
        r#"insert into judge_worker_event (campaign_id, app_user_id, status, reason, judgments,
               tests_answered, test_accuracy, kappa, changed_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)"#,
        campaign_id as CampaignId,
        user as UserId,
        status as WorkerStatus,
        reason,
        numbers.judgments as i32,
        numbers.tests_answered as i32,
        numbers.test_accuracy,
        numbers.kappa,
        changed_by as Option<UserId>
    )
    .execute(&mut *conn)
    .await?;
    // Flip the judgments whose trust changes, and move their votes on the pairs.
    let sign: i32 = if trusted { 1 } else { -1 };
    Ok(sqlx::query_as!(
        TrustFlip,
        r#"with flipped as (
               update judge_judgment set trusted = $3
               where campaign_id = $1 and app_user_id = $2 and trusted <> $3 and not republished
               returning pair_id, app_user_id, is_paraphrase),
           per_pair as (
               select pair_id, count(*)::int as n, count(*) filter (where is_paraphrase)::int as np
               from flipped group by pair_id),
           moved as (
               update judge_pair p
               set n_judgments = p.n_judgments + $4 * f.n, n_paraphrase = p.n_paraphrase + $4 * f.np
               from per_pair f where p.pair_id = f.pair_id
               returning p.pair_id, p.n_judgments, p.n_paraphrase, $4 * f.n as moved,
                         $4 * f.np as moved_paraphrase)
           select f.pair_id as "pair_id: _", f.app_user_id as "app_user_id: _",
                  $3 as "trusted!", m.n_judgments, m.n_paraphrase,
                  m.moved as "moved!", m.moved_paraphrase as "moved_paraphrase!"
           from flipped f join moved m using (pair_id)"#,
        campaign_id as CampaignId,
        user as UserId,
        trusted,
        sign
    )
    .fetch_all(&mut *conn)
    .await?)
}

/// A worker's line in the admin's list.
#[derive(Debug, Clone)]
pub struct WorkerSummary {
    /// The worker's account.
    pub app_user_id: UserId,
    /// Their username.
    pub username: String,
    /// Active or stopped.
    pub status: WorkerStatus,
    /// An admin reinstated them.
    pub gate_overridden: bool,
    /// Judgments in the campaign (test pairs included).
    pub judgments: i64,
    /// Test pairs answered.
    pub tests_answered: i64,
    /// Test pairs answered correctly.
    pub tests_correct: i64,
    /// Test pairs served to them (their assignments are the record of which).
    pub tests_seen: i64,
    /// Why their status last changed.
    pub last_reason: Option<String>,
    /// A stopped worker's judgments of ordinary pairs that still hold their pairs' slots (not set
    /// aside: excluding them would give the slots back); 0 for an active worker.
    pub held_slots: i64,
    /// Their gate table (label against the others' majority on ordinary pairs), the changes
    /// recorded for them and not yet folded in included: "paraphrase" where the majority says
    /// "paraphrase" ...
    pub kappa_pp: i64,
    /// ... "paraphrase" where it says "not" ...
    pub kappa_pn: i64,
    /// ... "not" where it says "paraphrase" ...
    pub kappa_np: i64,
    /// ... and "not" where it says "not"; of all four, ...
    pub kappa_nn: i64,
    /// ... agreeing with a majority 2 or more votes ahead ...
    pub lead2_agreed: i64,
    /// ... disagreeing with one ...
    pub lead2_disagreed: i64,
    /// ... agreeing with a majority 3 or more votes ahead ...
    pub lead3_agreed: i64,
    /// ... and disagreeing with one.
    pub lead3_disagreed: i64,
}

impl WorkerSummary {
    /// The share of test pairs answered correctly; `None` before the first.
    pub fn test_accuracy(&self) -> Option<f64> {
        (self.tests_answered > 0).then(|| self.tests_correct as f64 / self.tests_answered as f64)
    }

    /// The counts the gate reads, as they stand.
    pub fn counts(&self) -> GateCounts {
        let clamp = |n: i64| u32::try_from(n.max(0)).unwrap_or(u32::MAX);
        GateCounts {
            judgments: clamp(self.judgments),
            tests_answered: clamp(self.tests_answered),
            tests_correct: clamp(self.tests_correct),
            table: KappaTable {
                pp: self.kappa_pp,
                pn: self.kappa_pn,
                np: self.kappa_np,
                nn: self.kappa_nn,
                lead2_agreed: self.lead2_agreed,
                lead2_disagreed: self.lead2_disagreed,
                lead3_agreed: self.lead3_agreed,
                lead3_disagreed: self.lead3_disagreed,
            },
        }
    }
}

/// The campaign's workers, by username.
pub async fn list_workers(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<WorkerSummary>, AppError> {
    Ok(sqlx::query_as!(
        WorkerSummary,
        r#"select w.app_user_id as "app_user_id: _", u.username, w.status as "status: WorkerStatus", w.gate_overridden,
                  w.judgments::int8 as "judgments!", w.tests_answered::int8 as "tests_answered!",
                  w.tests_correct::int8 as "tests_correct!",
                  (select count(*) from judge_assignment a
                   where a.app_user_id = w.app_user_id and a.campaign_id = w.campaign_id
                     and a.is_test) as "tests_seen!",
                  (select e.reason from judge_worker_event e
                   where e.campaign_id = w.campaign_id and e.app_user_id = w.app_user_id
                   order by e.created_at desc, e.event_id desc limit 1) as last_reason,
                  case when w.status = 'stopped' then
                      (select count(*) from judge_judgment j
                       where j.campaign_id = w.campaign_id and j.app_user_id = w.app_user_id
                         and not j.is_test and not j.republished)
                  else 0 end as "held_slots!",
                  w.kappa_pp::int8 + coalesce(c.pp, 0) as "kappa_pp!",
                  w.kappa_pn::int8 + coalesce(c.pn, 0) as "kappa_pn!",
                  w.kappa_np::int8 + coalesce(c.np, 0) as "kappa_np!",
                  w.kappa_nn::int8 + coalesce(c.nn, 0) as "kappa_nn!",
                  w.lead2_agreed::int8 + coalesce(c.l2a, 0) as "lead2_agreed!",
                  w.lead2_disagreed::int8 + coalesce(c.l2d, 0) as "lead2_disagreed!",
                  w.lead3_agreed::int8 + coalesce(c.l3a, 0) as "lead3_agreed!",
                  w.lead3_disagreed::int8 + coalesce(c.l3d, 0) as "lead3_disagreed!"
           from judge_worker w join app_user u using (app_user_id)
                left join lateral (
                    select sum(g.pp)::int8 as pp, sum(g.pn)::int8 as pn, sum(g.np)::int8 as np,
                           sum(g.nn)::int8 as nn, sum(g.lead2_agreed)::int8 as l2a,
                           sum(g.lead2_disagreed)::int8 as l2d,
                           sum(g.lead3_agreed)::int8 as l3a,
                           sum(g.lead3_disagreed)::int8 as l3d
                    from judge_gate_change g
                    where g.campaign_id = w.campaign_id and g.app_user_id = w.app_user_id) c
                  on true
           where w.campaign_id = $1
           order by u.username"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?)
}

/// A worker's standing, their row locked until the transaction ends: their status and whether
/// an admin reinstated them. `None` when they have no row in the campaign.
pub async fn lock_standing(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<Option<(WorkerStatus, bool)>, AppError> {
    let row = sqlx::query!(
        r#"select status as "status: WorkerStatus", gate_overridden from judge_worker
           where campaign_id = $1 and app_user_id = $2 for no key update"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.map(|r| (r.status, r.gate_overridden)))
}

/// Locks a worker's row if they have one in the campaign.
pub async fn lock_existing_worker(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<bool, AppError> {
    let found = sqlx::query_scalar!(
        "select 1 from judge_worker where campaign_id = $1 and app_user_id = $2 for no key update",
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(&mut *conn)
    .await?;
    Ok(found.is_some())
}

/// The reason of the worker's latest status change.
pub async fn last_reason(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<Option<String>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select reason from judge_worker_event where campaign_id = $1 and app_user_id = $2
           order by created_at desc, event_id desc limit 1"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(db)
    .await?)
}
