//! Serving pairs: leases on assignments, their expiry, and the open slots they take and give back.
use crate::domain::{
    AssignmentId, AssignmentStatus, CampaignId, CampaignStatus, PairId, UserId, UserStatus,
    WorkerStatus,
};
use crate::error::AppError;
use sqlx::PgConnection;

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

/// The worker's live assignment, its lease renewed.
pub async fn renew_current(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    lease_seconds: u32,
) -> Result<Option<ServedPair>, AppError> {
    Ok(sqlx::query_as!(
        ServedPair,
        r#"with a as (
               update judge_assignment
               set lease_expires_at = now() + make_interval(secs => $3)
               where campaign_id = $1 and app_user_id = $2 and status = 'leased'
               returning assignment_id, pair_id)
           select a.assignment_id as "assignment_id!: _", p.sentence1, p.sentence2
           from a join judge_pair p using (pair_id)"#,
        campaign_id as CampaignId,
        user as UserId,
        f64::from(lease_seconds)
    )
    .fetch_optional(&mut *conn)
    .await?)
}

/// Ends the leases that ran out in a campaign and gives their slots back; returns how many.
pub async fn expire_leases(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
) -> Result<u64, AppError> {
    let n: i64 = sqlx::query_scalar!(
        r#"with expired as (
               update judge_assignment set status = 'expired'
               where campaign_id = $1 and status = 'leased' and lease_expires_at < now()
               returning pair_id, is_test),
           freed as (
               update judge_pair p set open_slots = p.open_slots + e.n
               from (select pair_id, count(*)::int as n from expired where not is_test
                     group by pair_id) e
               where p.pair_id = e.pair_id)
           select count(*) as "n!" from expired"#,
        campaign_id as CampaignId
    )
    .fetch_one(&mut *conn)
    .await?;
    Ok(n as u64)
}

/// Leases an ordinary pair with a free slot that this worker has not seen, taking the slot, in
/// one statement (choose, take the slot, insert the assignment, count it as served). Rows
/// another request holds are skipped, not waited for.
pub async fn lease_pair(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    lease_seconds: u32,
) -> Result<Option<ServedPair>, AppError> {
    Ok(sqlx::query_as!(
        ServedPair,
        r#"with chosen as (
               select p.pair_id from judge_pair p
               where p.campaign_id = $1 and not p.slots_full and p.open_slots > 0
                 and not p.is_test
                 and not exists (select 1 from judge_assignment a
                                 where a.app_user_id = $2 and a.pair_id = p.pair_id)
               order by p.sort_key limit 1
               for update skip locked),
           taken as (
               update judge_pair p set open_slots = p.open_slots - 1
               from chosen where p.pair_id = chosen.pair_id
               returning p.pair_id, p.sentence1, p.sentence2),
           a as (
               insert into judge_assignment (campaign_id, pair_id, app_user_id, is_test,
                   lease_expires_at)
               select $1, pair_id, $2, false, now() + make_interval(secs => $3) from taken
               returning assignment_id, pair_id),
           counted as (
               update judge_worker set served_count = served_count + 1
               where campaign_id = $1 and app_user_id = $2 and exists (select 1 from a))
           select a.assignment_id as "assignment_id!: _", t.sentence1 as "sentence1!",
                  t.sentence2 as "sentence2!"
           from a join taken t using (pair_id)"#,
        campaign_id as CampaignId,
        user as UserId,
        f64::from(lease_seconds)
    )
    .fetch_optional(&mut *conn)
    .await?)
}

/// Leases a test pair this worker has not seen, the first in the order `random_key` gives, in
/// one statement. Test pairs have no slot limit.
pub async fn lease_test_pair(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    lease_seconds: u32,
    random_key: i64,
) -> Result<Option<ServedPair>, AppError> {
    Ok(sqlx::query_as!(
        ServedPair,
        r#"with chosen as (
               select p.pair_id, p.sentence1, p.sentence2 from judge_pair p
               where p.campaign_id = $1 and p.is_test
                 and not exists (select 1 from judge_assignment a
                                 where a.app_user_id = $2 and a.pair_id = p.pair_id)
               order by md5(p.sort_key::text || ($4::int8)::text), p.pair_id limit 1),
           a as (
               insert into judge_assignment (campaign_id, pair_id, app_user_id, is_test,
                   lease_expires_at)
               select $1, pair_id, $2, true, now() + make_interval(secs => $3) from chosen
               returning assignment_id, pair_id),
           counted as (
               update judge_worker set served_count = served_count + 1
               where campaign_id = $1 and app_user_id = $2 and exists (select 1 from a))
           select a.assignment_id as "assignment_id!: _", c.sentence1 as "sentence1!",
                  c.sentence2 as "sentence2!"
           from a join chosen c using (pair_id)"#,
        campaign_id as CampaignId,
        user as UserId,
        f64::from(lease_seconds),
        random_key
    )
    .fetch_optional(&mut *conn)
    .await?)
}

/// An assignment being answered, locked.
#[derive(Debug, Clone)]
pub struct AssignmentRow {
    /// The pair served.
    pub pair_id: PairId,
    /// A hidden test pair.
    pub is_test: bool,
    /// Leased, judged or expired.
    pub status: AssignmentStatus,
    /// Seconds since it was served.
    pub seconds_since_served: f64,
    /// The test pair's right answer.
    pub gold_label: Option<bool>,
    /// Shown when the test pair is missed.
    pub gold_explanation: Option<String>,
}

/// For an answer: the worker's row (as [`super::lock_worker`] reads it), their assignment with
/// this id and its pair, all three locked until the transaction ends, in one statement (in the
/// order every judging statement locks them: worker, assignment, pair). The pair's lock is
/// taken before the judgment is written, so the statement that writes it sees every judgment on
/// the pair ([`super::insert_judgment`]). `None` when the worker has no such assignment (or no
/// row yet).
pub async fn lock_for_answer(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    assignment_id: AssignmentId,
) -> Result<Option<(WorkerRow, AssignmentRow)>, AppError> {
    let row = sqlx::query!(
        r#"select w.status as "status: WorkerStatus", w.gate_overridden, w.served_count,
                  w.test_position, w.judgments,
                  c.status as "campaign_status: CampaignStatus", c.version as campaign_version,
                  u.status as "user_status: UserStatus",
                  a.pair_id as "pair_id: PairId", a.is_test,
                  a.status as "assignment_status: AssignmentStatus",
                  extract(epoch from now() - a.served_at)::float8 as "seconds_since_served!",
                  p.gold_label, p.gold_explanation
           from judge_worker w join campaign c using (campaign_id)
                join app_user u on u.app_user_id = w.app_user_id
                join judge_assignment a on a.assignment_id = $3 and a.campaign_id = w.campaign_id
                                       and a.app_user_id = w.app_user_id
                join judge_pair p on p.pair_id = a.pair_id
           where w.campaign_id = $1 and w.app_user_id = $2
           for update of w, a, p"#,
        campaign_id as CampaignId,
        user as UserId,
        assignment_id as AssignmentId
    )
    .fetch_optional(&mut *conn)
    .await?;
    Ok(row.map(|r| {
        (
            WorkerRow {
                status: r.status,
                gate_overridden: r.gate_overridden,
                served_count: r.served_count,
                test_position: r.test_position,
                judgments: r.judgments,
                campaign_status: r.campaign_status,
                campaign_version: r.campaign_version,
                user_status: r.user_status,
            },
            AssignmentRow {
                pair_id: r.pair_id,
                is_test: r.is_test,
                status: r.assignment_status,
                seconds_since_served: r.seconds_since_served,
                gold_label: r.gold_label,
                gold_explanation: r.gold_explanation,
            },
        )
    }))
}

/// Takes a slot again for an assignment whose lease ran out; `false` if none is free.
pub async fn retake_slot(conn: &mut PgConnection, pair_id: PairId) -> Result<bool, AppError> {
    let done = sqlx::query!(
        "update judge_pair set open_slots = open_slots - 1 where pair_id = $1 and open_slots > 0",
        pair_id as PairId
    )
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}
