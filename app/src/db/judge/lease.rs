//! Serving pairs: leases on assignments, their expiry, and the open slots they take and give back.
use crate::db::sessions::SessionProof;
use crate::domain::judge::gate_table::{GateCounts, KappaTable};
use crate::domain::judge::schedule::ServingWindows;
use crate::domain::{
    AssignmentId, AssignmentStatus, CampaignId, CampaignStatus, PairId, UserId, UserStatus,
    WorkerStatus,
};
use crate::error::AppError;
use sqlx::PgConnection;

use super::gate::{stored_counts, ChangeColumns};
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

/// What a lease statement writes on the worker's row besides counting the serving, in the same
/// statement (one round trip for an answer's bookkeeping and its next pair): the gate's counts
/// folded as [`super::fold_gate_counts`] folds them, and a new block's test position.
#[derive(Debug, Clone, Copy)]
pub struct WorkerUpdate<'a> {
    /// Added to the worker's counts (their new judgment).
    pub add: GateCounts,
    /// Recorded for the other workers whose tables the judgment changed.
    pub others: &'a [(UserId, KappaTable)],
    /// The test position of the block this lease starts.
    pub test_position: Option<u32>,
}

impl WorkerUpdate<'_> {
    /// Nothing to add: the statement still folds in what others recorded for the worker.
    pub const NONE: WorkerUpdate<'static> = WorkerUpdate {
        add: GateCounts {
            judgments: 0,
            tests_answered: 0,
            tests_correct: 0,
            table: KappaTable {
                pp: 0,
                pn: 0,
                np: 0,
                nn: 0,
            },
        },
        others: &[],
        test_position: None,
    };
}

/// A lease statement's result: the worker's gate counts after it, and the pair leased, if any.
#[derive(Debug, Clone)]
pub struct Lease {
    /// The worker's counts, `WorkerUpdate` and the changes others recorded folded in.
    pub counts: GateCounts,
    /// The pair leased; `None` when there is none for this worker.
    pub pair: Option<ServedPair>,
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
    // The statement is the database function's (migration `judge_answer_in_one_call`), which
    // `judge_answer` calls too.
    let n = sqlx::query_scalar!(
        r#"select judge_expire_leases($1) as "n!""#,
        campaign_id as CampaignId
    )
    .fetch_one(&mut *conn)
    .await?;
    Ok(n as u64)
}

/// Leases an ordinary pair with a free slot that this worker has not seen, taking the slot, in
/// one statement (choose, take the slot, insert the assignment, count it as served). The pair
/// is drawn at random (`random_key`) among those this worker has not seen in the window of the
/// pairs that most need judgments: the first ones with a free slot by `sort_key`, the same
/// window for every worker at a time, `ordinary_per_test_pair` pairs for each pair of the test
/// window (at least one; see `domain::judge::schedule::ServingWindows`), so that two workers
/// share an ordinary pair as often as a test pair. Rows another request holds are skipped, not waited
/// for; when the worker has seen the rest of the window, or others hold it, the first free pair
/// after it is taken (and `judge/next` waits for a held one, [`wait_for_held_free_pair`]).
/// The same statement writes `update` on the worker's row.
#[allow(clippy::too_many_arguments)]
pub async fn lease_pair(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    lease_seconds: u32,
    random_key: i64,
    windows: ServingWindows,
    update: &WorkerUpdate<'_>,
) -> Result<Lease, AppError> {
    let c = ChangeColumns::new(update.others);
    // The statement is the database function's (migration `judge_answer_in_one_call`), which
    // `judge_answer` calls too.
    let row = sqlx::query!(
        r#"select judgments, tests_answered, tests_correct,
                  kappa_pp, kappa_pn, kappa_np, kappa_nn,
                  assignment_id as "assignment_id: AssignmentId", sentence1, sentence2
           from judge_lease_ordinary($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
                                     $14, $15, $16, $17, $18, $19)"#,
        campaign_id as CampaignId,
        user as UserId,
        f64::from(lease_seconds),
        random_key,
        windows.ordinary_per_test_pair as i32,
        windows.test as i32,
        update.add.judgments as i32,
        update.add.tests_answered as i32,
        update.add.tests_correct as i32,
        update.add.table.pp as i32,
        update.add.table.pn as i32,
        update.add.table.np as i32,
        update.add.table.nn as i32,
        &c.users as &[UserId],
        &c.pp,
        &c.pn,
        &c.np,
        &c.nn,
        update.test_position.map(|p| p as i32)
    )
    .fetch_one(&mut *conn)
    .await?;
    lease_of(
        [
            row.judgments,
            row.tests_answered,
            row.tests_correct,
            row.kappa_pp,
            row.kappa_pn,
            row.kappa_np,
            row.kappa_nn,
        ],
        row.assignment_id,
        row.sentence1,
        row.sentence2,
    )
}

/// A lease function's row: the worker's counts (all null when the worker has no row: not
/// found) and the pair leased, if any.
fn lease_of(
    counts: [Option<i32>; 7],
    assignment_id: Option<AssignmentId>,
    sentence1: Option<String>,
    sentence2: Option<String>,
) -> Result<Lease, AppError> {
    let [Some(judgments), Some(tests_answered), Some(tests_correct), Some(pp), Some(pn), Some(np), Some(nn)] =
        counts
    else {
        return Err(AppError::NotFound);
    };
    Ok(Lease {
        counts: stored_counts(judgments, tests_answered, tests_correct, [pp, pn, np, nn]),
        pair: served(assignment_id, sentence1, sentence2),
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

/// Leases a test pair this worker has not seen, in one statement, the way an ordinary one is
/// leased: drawn at random (`random_key`) among those in the window of the test pairs that most
/// need serving, the first by (round, `sort_key`), where a test pair's round goes up after every
/// `judgments_per_pair` servings; its size is `ServingWindows::test_window` of the pool. When the
/// worker has seen all of the window, or others hold it this moment, the first unseen test pair
/// after it. The serving is counted on the pair (`test_served`). The same statement writes
/// `update` on the worker's row, as [`lease_pair`] does.
#[allow(clippy::too_many_arguments)]
pub async fn lease_test_pair(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    lease_seconds: u32,
    random_key: i64,
    windows: ServingWindows,
    judgments_per_pair: u32,
    update: &WorkerUpdate<'_>,
) -> Result<Lease, AppError> {
    let c = ChangeColumns::new(update.others);
    // The statement is the database function's (migration `judge_answer_in_one_call`), which
    // `judge_answer` calls too.
    let row = sqlx::query!(
        r#"select judgments, tests_answered, tests_correct,
                  kappa_pp, kappa_pn, kappa_np, kappa_nn,
                  assignment_id as "assignment_id: AssignmentId", sentence1, sentence2
           from judge_lease_test($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
                                 $14, $15, $16, $17, $18, $19)"#,
        campaign_id as CampaignId,
        user as UserId,
        f64::from(lease_seconds),
        random_key,
        windows.test as i32,
        judgments_per_pair as i32,
        update.add.judgments as i32,
        update.add.tests_answered as i32,
        update.add.tests_correct as i32,
        update.add.table.pp as i32,
        update.add.table.pn as i32,
        update.add.table.np as i32,
        update.add.table.nn as i32,
        &c.users as &[UserId],
        &c.pp,
        &c.pn,
        &c.np,
        &c.nn,
        update.test_position.map(|p| p as i32)
    )
    .fetch_one(&mut *conn)
    .await?;
    lease_of(
        [
            row.judgments,
            row.tests_answered,
            row.tests_correct,
            row.kappa_pp,
            row.kappa_pn,
            row.kappa_np,
            row.kappa_nn,
        ],
        row.assignment_id,
        row.sentence1,
        row.sentence2,
    )
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
           for update"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(&mut *conn)
    .await?;
    Ok(found.is_some())
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
/// the pair ([`super::insert_judgment`]). The worker's row says whether `session` is still
/// stored as presented. `None` when the worker has no such assignment (or no row yet).
pub async fn lock_for_answer(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    assignment_id: AssignmentId,
    session: SessionProof<'_>,
) -> Result<Option<(WorkerRow, AssignmentRow)>, AppError> {
    let row = sqlx::query!(
        r#"select w.status as "status: WorkerStatus", w.gate_overridden, w.served_count,
                  w.test_position, w.judgments, w.tests_answered, w.tests_correct,
                  w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn,
                  c.status as "campaign_status: CampaignStatus", c.version as campaign_version,
                  u.status as "user_status: UserStatus",
                  exists (select 1 from tower_sessions.session s
                          where s.id = $4 and s.data = $5 and s.expiry_date > now())
                      as "session_current!",
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
        assignment_id as AssignmentId,
        session.id,
        session.data
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
                tests_answered: r.tests_answered,
                tests_correct: r.tests_correct,
                kappa_pp: r.kappa_pp,
                kappa_pn: r.kappa_pn,
                kappa_np: r.kappa_np,
                kappa_nn: r.kappa_nn,
                campaign_status: r.campaign_status,
                campaign_version: r.campaign_version,
                user_status: r.user_status,
                session_current: r.session_current,
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
