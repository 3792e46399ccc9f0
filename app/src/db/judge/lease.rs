//! Serving pairs: leases on assignments, their expiry, and the open slots they take and give back.
use crate::domain::judge::gate_table::GateCounts;
use crate::domain::judge::schedule::ServingWindows;
use crate::domain::{AssignmentId, CampaignId, PairId, UserId};
use crate::error::AppError;
use sqlx::PgConnection;

use super::gate::{all_cells, stored_counts};
use super::WorkerRow;

/// A pair as served: the same shape for test and ordinary pairs.
#[derive(Debug, Clone)]
pub struct ServedPair {
    /// The assignment the answer will name.
    pub assignment_id: AssignmentId,
    /// The first sentence.
    pub sentence1: String,
    /// The second sentence.
    pub sentence2: String,
}

/// A lease statement's result: the worker's gate counts after it, and the pair leased, if any.
#[derive(Debug, Clone)]
pub struct Lease {
    /// The worker's counts, `WorkerUpdate` and the changes others recorded folded in.
    pub counts: GateCounts,
    /// The pair leased; `None` when there is none for this worker.
    pub pair: Option<ServedPair>,
}

/// How a worker's next pair is served: the campaign's settings, and the server's draws.
#[derive(Debug, Clone, Copy)]
pub struct Serving {
    /// Seconds a lease lasts.
    pub lease_seconds: u32,
    /// One test pair in every this many (0: none).
    pub test_every: u32,
    /// Judgments per pair.
    pub judgments_per_pair: u32,
    /// The test position a new block gets (`schedule::test_position` of a draw).
    pub new_block_position: u32,
    /// Orders a lease's window at random.
    pub random_key: i64,
    /// The windows' sizes.
    pub windows: ServingWindows,
    /// Sweep the campaign's expired leases before leasing.
    pub sweep: bool,
}

/// The worker's next pair and their gate counts brought up to date, in one call of
/// `judge_next_pair` (`migrations/functions/judge_next_pair.sql`, which says how the pair is
/// chosen): the pair they hold, its lease renewed, else a new lease. `worker` is their row as
/// the caller locked it. The changes others recorded for them are folded in (an answer folds
/// its own counts in the same call, `judge_answer`).
pub async fn next_pair(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    worker: &WorkerRow,
    serving: &Serving,
) -> Result<Lease, AppError> {
    let row = sqlx::query!(
        r#"select judgments, tests_answered, tests_correct,
                  kappa_pp, kappa_pn, kappa_np, kappa_nn,
                  lead2_agreed, lead2_disagreed, lead3_agreed, lead3_disagreed,
                  assignment_id as "assignment_id: AssignmentId", sentence1, sentence2
           from judge_next_pair($1, $2, $3, $4, true, $5, $6, $7, $8, $9, $10, $11, $12,
                                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}')"#,
        campaign_id as CampaignId,
        user as UserId,
        worker.served_count,
        worker.test_position,
        f64::from(serving.lease_seconds),
        serving.random_key,
        serving.test_every as i32,
        serving.judgments_per_pair as i32,
        serving.new_block_position as i32,
        serving.windows.ordinary_per_test_pair as i32,
        serving.windows.test as i32,
        serving.sweep
    )
    .fetch_one(&mut *conn)
    .await?;
    let (Some(judgments), Some(tests_answered), Some(tests_correct), Some(table)) = (
        row.judgments,
        row.tests_answered,
        row.tests_correct,
        all_cells([
            row.kappa_pp,
            row.kappa_pn,
            row.kappa_np,
            row.kappa_nn,
            row.lead2_agreed,
            row.lead2_disagreed,
            row.lead3_agreed,
            row.lead3_disagreed,
        ]),
    ) else {
        return Err(AppError::NotFound);
    };
    Ok(Lease {
        counts: stored_counts(judgments, tests_answered, tests_correct, table),
        pair: served(row.assignment_id, row.sentence1, row.sentence2),
    })
}

/// The pair a lease statement returned, if it leased one.
pub(super) fn served(
    assignment_id: Option<AssignmentId>,
    sentence1: Option<String>,
    sentence2: Option<String>,
) -> Option<ServedPair> {
    Some(ServedPair {
        assignment_id: assignment_id?,
        sentence1: sentence1?,
        sentence2: sentence2?,
    })
}

/// The worker's live lease, if any (its assignment).
pub async fn current_lease(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<Option<AssignmentId>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select assignment_id as "assignment_id: AssignmentId" from judge_assignment
           where campaign_id = $1 and app_user_id = $2 and status = 'leased'"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(&mut *conn)
    .await?)
}

/// Gives back a leased pair as though it had never been leased: the assignment goes, and the
/// pair's slot (or test serving) and the worker's serving count are restored. For a lease taken
/// with an answer whose gate then stopped the worker. Nothing when it is no longer leased (it was
/// answered or ran out meanwhile).
pub async fn unlease(conn: &mut PgConnection, assignment_id: AssignmentId) -> Result<(), AppError> {
    sqlx::query!(
        r#"with gone as (
               delete from judge_assignment where assignment_id = $1 and status = 'leased'
               returning campaign_id, app_user_id, pair_id, is_test),
           pair as (
               update judge_pair p
               set open_slots = p.open_slots + (not g.is_test)::int,
                   test_served = p.test_served - g.is_test::int
               from gone g where p.pair_id = g.pair_id)
           update judge_worker w set served_count = w.served_count - 1
           from gone g where w.campaign_id = g.campaign_id and w.app_user_id = g.app_user_id"#,
        assignment_id as AssignmentId
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Waits for, and locks, the first ordinary pair with a free slot that this worker has not seen,
/// if there is one (the leases skip rows others hold; this waits for them). `true` when one was
/// locked: a lease in the same transaction can then take it.
pub async fn wait_for_held_free_pair(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<bool, AppError> {
    let found = sqlx::query_scalar!(
        r#"select p.pair_id as "pair_id: PairId" from judge_pair p
           where p.campaign_id = $1 and not p.slots_full and p.open_slots > 0 and not p.is_test
             and not exists (select 1 from judge_assignment a
                             where a.app_user_id = $2 and a.pair_id = p.pair_id)
           order by p.sort_key limit 1
           for no key update"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(&mut *conn)
    .await?;
    Ok(found.is_some())
}

/// Whether a pair is left for `user` (`judge_pairs_left`): one with a free slot they have not
/// been served, or one whose last slots other workers hold on a lease.
pub async fn pairs_left(
    db: impl sqlx::PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select judge_pairs_left($1, $2) as "left!""#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_one(db)
    .await?)
}
