//! Judging tables: settings, pairs, leased assignments, judgments, worker standing and events.
//!
//! Slot accounting: `judge_pair.open_slots` starts at the campaign's judgments per pair; a lease
//! takes a slot, an expired lease gives it back, a judgment keeps it. `open_slots >= 0` is a
//! check constraint, so no interleaving of requests can give a pair more judgments than it has
//! slots: the database decides.
use sqlx::{FromRow, PgConnection, PgExecutor};
use uuid::Uuid;

use crate::domain::judge::gate::{Comparison, GateNumbers, GateRule};
use crate::domain::judge::labels::Thresholds;
use crate::domain::judge::pair_import::PairRow;
use crate::domain::judge::settings::{Definition, JudgeSettings};
use crate::error::AppError;

#[derive(Debug, Clone, FromRow)]
struct SettingsRow {
    definition: String,
    judgments_per_pair: i32,
    test_every: i32,
    min_test_accuracy: f64,
    min_kappa: f64,
    gate_min_judgments: i32,
    gate_rule: String,
    paraphrase_min_votes: i32,
    non_paraphrase_max_votes: i32,
    lease_seconds: i32,
}

impl From<SettingsRow> for JudgeSettings {
    fn from(r: SettingsRow) -> Self {
        JudgeSettings {
            definition: Definition::parse(&r.definition).unwrap_or(Definition::Loose),
            judgments_per_pair: r.judgments_per_pair as u32,
            test_every: r.test_every as u32,
            min_test_accuracy: r.min_test_accuracy,
            min_kappa: r.min_kappa,
            gate_min_judgments: r.gate_min_judgments as u32,
            gate_rule: GateRule::parse(&r.gate_rule).unwrap_or(GateRule::Evidence),
            thresholds: Thresholds {
                paraphrase_min: r.paraphrase_min_votes as u32,
                not_max: r.non_paraphrase_max_votes as u32,
            },
            lease_seconds: r.lease_seconds as u32,
        }
    }
}

pub async fn insert_settings(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
    s: &JudgeSettings,
) -> Result<(), AppError> {
    sqlx::query(
        r#"insert into judge_settings (campaign_id, definition, judgments_per_pair, test_every,
               min_test_accuracy, min_kappa, gate_min_judgments, paraphrase_min_votes,
               non_paraphrase_max_votes, lease_seconds, gate_rule)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"#,
    )
    .bind(campaign_id)
    .bind(s.definition.as_str())
    .bind(s.judgments_per_pair as i32)
    .bind(s.test_every as i32)
    .bind(s.min_test_accuracy)
    .bind(s.min_kappa)
    .bind(s.gate_min_judgments as i32)
    .bind(s.thresholds.paraphrase_min as i32)
    .bind(s.thresholds.not_max as i32)
    .bind(s.lease_seconds as i32)
    .bind(s.gate_rule.as_str())
    .execute(db)
    .await?;
    Ok(())
}

pub async fn settings(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<Option<JudgeSettings>, AppError> {
    Ok(sqlx::query_as::<_, SettingsRow>(
        r#"select definition, judgments_per_pair, test_every, min_test_accuracy, min_kappa,
                  gate_min_judgments, gate_rule, paraphrase_min_votes, non_paraphrase_max_votes,
                  lease_seconds
           from judge_settings where campaign_id = $1"#,
    )
    .bind(campaign_id)
    .fetch_optional(db)
    .await?
    .map(Into::into))
}

/// Inserts pairs, skipping those already in the campaign; returns (inserted, skipped).
pub async fn insert_pairs(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    rows: &[PairRow],
    judgments_per_pair: u32,
) -> Result<(u64, u64), AppError> {
    let mut inserted = 0;
    for chunk in rows.chunks(2000) {
        let s1: Vec<&str> = chunk.iter().map(|r| r.sentence1.as_str()).collect();
        let s2: Vec<&str> = chunk.iter().map(|r| r.sentence2.as_str()).collect();
        let group: Vec<Option<&str>> = chunk.iter().map(|r| r.group_key.as_deref()).collect();
        let ext: Vec<Option<&str>> = chunk.iter().map(|r| r.external_id.as_deref()).collect();
        let label: Vec<Option<bool>> = chunk.iter().map(|r| r.label).collect();
        let expl: Vec<Option<&str>> = chunk.iter().map(|r| r.explanation.as_deref()).collect();
        let test: Vec<bool> = chunk.iter().map(|r| r.is_test).collect();
        let done = sqlx::query(
            r#"insert into judge_pair (campaign_id, sentence1, sentence2, group_key, external_id,
                   gold_label, gold_explanation, is_test, open_slots)
               select $1, s1, s2, g, e, l, x, t, $9
               from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[],
                           $8::bool[]) as u(s1, s2, g, e, l, x, t)
               on conflict on constraint judge_pair_campaign_sentences_key do nothing"#,
        )
        .bind(campaign_id)
        .bind(&s1)
        .bind(&s2)
        .bind(&group)
        .bind(&ext)
        .bind(&label)
        .bind(&expl)
        .bind(&test)
        .bind(judgments_per_pair as i32)
        .execute(&mut *conn)
        .await?;
        inserted += done.rows_affected();
    }
    Ok((inserted, rows.len() as u64 - inserted))
}

/// A worker's standing, locked for the rest of the transaction (created on first use).
#[derive(Debug, Clone, FromRow)]
pub struct WorkerRow {
    pub status: String,
    pub gate_overridden: bool,
    pub served_count: i32,
    pub test_position: i32,
}

pub async fn lock_worker(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
) -> Result<WorkerRow, AppError> {
    sqlx::query(
        r#"insert into judge_worker (campaign_id, app_user_id) values ($1, $2)
           on conflict (campaign_id, app_user_id) do nothing"#,
    )
    .bind(campaign_id)
    .bind(user)
    .execute(&mut *conn)
    .await?;
    Ok(sqlx::query_as::<_, WorkerRow>(
        r#"select status, gate_overridden, served_count, test_position from judge_worker
           where campaign_id = $1 and app_user_id = $2 for update"#,
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_one(&mut *conn)
    .await?)
}

/// A pair as served: the same shape for test and ordinary pairs.
#[derive(Debug, Clone, FromRow)]
pub struct ServedPair {
    pub assignment_id: Uuid,
    pub sentence1: String,
    pub sentence2: String,
}

/// The worker's live assignment, its lease renewed.
pub async fn renew_current(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    lease_seconds: u32,
) -> Result<Option<ServedPair>, AppError> {
    Ok(sqlx::query_as::<_, ServedPair>(
        r#"with a as (
               update judge_assignment
               set lease_expires_at = now() + make_interval(secs => $3)
               where campaign_id = $1 and app_user_id = $2 and status = 'leased'
               returning assignment_id, pair_id)
           select a.assignment_id, p.sentence1, p.sentence2
           from a join judge_pair p using (pair_id)"#,
    )
    .bind(campaign_id)
    .bind(user)
    .bind(f64::from(lease_seconds))
    .fetch_optional(&mut *conn)
    .await?)
}

/// Ends the leases that ran out in a campaign and gives their slots back; returns how many.
pub async fn expire_leases(conn: &mut PgConnection, campaign_id: Uuid) -> Result<u64, AppError> {
    let n: i64 = sqlx::query_scalar(
        r#"with expired as (
               update judge_assignment set status = 'expired'
               where campaign_id = $1 and status = 'leased' and lease_expires_at < now()
               returning pair_id, is_test),
           freed as (
               update judge_pair p set open_slots = p.open_slots + e.n
               from (select pair_id, count(*)::int as n from expired where not is_test
                     group by pair_id) e
               where p.pair_id = e.pair_id)
           select count(*) from expired"#,
    )
    .bind(campaign_id)
    .fetch_one(&mut *conn)
    .await?;
    Ok(n as u64)
}

/// Starts a new block of test positions for the worker.
pub async fn set_test_position(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    position: u32,
) -> Result<(), AppError> {
    sqlx::query(
        "update judge_worker set test_position = $3 where campaign_id = $1 and app_user_id = $2",
    )
    .bind(campaign_id)
    .bind(user)
    .bind(position as i32)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Leases a test pair this worker has not seen, the first in the order `random_key` gives. Test
/// pairs have no slot limit.
pub async fn lease_test_pair(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    lease_seconds: u32,
    random_key: i64,
) -> Result<Option<ServedPair>, AppError> {
    let pair: Option<Uuid> = sqlx::query_scalar(
        r#"select p.pair_id from judge_pair p
           where p.campaign_id = $1 and p.is_test
             and not exists (select 1 from judge_assignment a
                             where a.app_user_id = $2 and a.pair_id = p.pair_id)
           order by md5(p.sort_key::text || $3::text), p.pair_id limit 1"#,
    )
    .bind(campaign_id)
    .bind(user)
    .bind(random_key)
    .fetch_optional(&mut *conn)
    .await?;
    match pair {
        Some(pair) => insert_assignment(conn, campaign_id, user, pair, true, lease_seconds)
            .await
            .map(Some),
        None => Ok(None),
    }
}

/// Leases an ordinary pair with a free slot that this worker has not seen, taking the slot.
/// Rows another request holds are skipped, not waited for.
pub async fn lease_pair(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    lease_seconds: u32,
) -> Result<Option<ServedPair>, AppError> {
    let pair: Option<Uuid> = sqlx::query_scalar(
        r#"with chosen as (
               select p.pair_id from judge_pair p
               where p.campaign_id = $1 and p.open_slots > 0 and not p.is_test
                 and not exists (select 1 from judge_assignment a
                                 where a.app_user_id = $2 and a.pair_id = p.pair_id)
               order by p.sort_key limit 1
               for update skip locked)
           update judge_pair p set open_slots = p.open_slots - 1
           from chosen where p.pair_id = chosen.pair_id
           returning p.pair_id"#,
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_optional(&mut *conn)
    .await?;
    match pair {
        Some(pair) => insert_assignment(conn, campaign_id, user, pair, false, lease_seconds)
            .await
            .map(Some),
        None => Ok(None),
    }
}

async fn insert_assignment(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    pair_id: Uuid,
    is_test: bool,
    lease_seconds: u32,
) -> Result<ServedPair, AppError> {
    let served = sqlx::query_as::<_, ServedPair>(
        r#"with a as (
               insert into judge_assignment (campaign_id, pair_id, app_user_id, is_test, lease_expires_at)
               values ($1, $2, $3, $4, now() + make_interval(secs => $5))
               returning assignment_id, pair_id)
           select a.assignment_id, p.sentence1, p.sentence2 from a join judge_pair p using (pair_id)"#,
    )
    .bind(campaign_id)
    .bind(pair_id)
    .bind(user)
    .bind(is_test)
    .bind(f64::from(lease_seconds))
    .fetch_one(&mut *conn)
    .await?;
    sqlx::query(
        r#"update judge_worker set served_count = served_count + 1
           where campaign_id = $1 and app_user_id = $2"#,
    )
    .bind(campaign_id)
    .bind(user)
    .execute(&mut *conn)
    .await?;
    Ok(served)
}

/// An assignment being answered, locked.
#[derive(Debug, Clone, FromRow)]
pub struct AssignmentRow {
    pub pair_id: Uuid,
    pub is_test: bool,
    pub status: String,
    pub seconds_since_served: f64,
    pub gold_label: Option<bool>,
    pub gold_explanation: Option<String>,
}

pub async fn lock_assignment(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    assignment_id: Uuid,
) -> Result<Option<AssignmentRow>, AppError> {
    Ok(sqlx::query_as::<_, AssignmentRow>(
        r#"select a.pair_id, a.is_test, a.status,
                  extract(epoch from now() - a.served_at)::float8 as seconds_since_served,
                  p.gold_label, p.gold_explanation
           from judge_assignment a join judge_pair p using (pair_id)
           where a.assignment_id = $1 and a.campaign_id = $2 and a.app_user_id = $3
           for update of a"#,
    )
    .bind(assignment_id)
    .bind(campaign_id)
    .bind(user)
    .fetch_optional(&mut *conn)
    .await?)
}

/// Takes a slot again for an assignment whose lease ran out; `false` if none is free.
pub async fn retake_slot(conn: &mut PgConnection, pair_id: Uuid) -> Result<bool, AppError> {
    let done = sqlx::query(
        "update judge_pair set open_slots = open_slots - 1 where pair_id = $1 and open_slots > 0",
    )
    .bind(pair_id)
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The answer stored for an assignment already judged.
pub async fn find_judgment(
    db: impl PgExecutor<'_>,
    assignment_id: Uuid,
) -> Result<Option<(bool, Option<bool>)>, AppError> {
    Ok(sqlx::query_as::<_, (bool, Option<bool>)>(
        "select is_paraphrase, is_correct from judge_judgment where assignment_id = $1",
    )
    .bind(assignment_id)
    .fetch_optional(db)
    .await?)
}

/// Stores a judgment, closes the assignment and counts the vote on the pair.
#[allow(clippy::too_many_arguments)]
pub async fn insert_judgment(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    assignment_id: Uuid,
    a: &AssignmentRow,
    is_paraphrase: bool,
    is_correct: Option<bool>,
    seconds: f64,
) -> Result<(), AppError> {
    sqlx::query(
        r#"insert into judge_judgment (assignment_id, campaign_id, pair_id, app_user_id,
               is_paraphrase, is_test, is_correct, seconds)
           values ($1, $2, $3, $4, $5, $6, $7, $8)"#,
    )
    .bind(assignment_id)
    .bind(campaign_id)
    .bind(a.pair_id)
    .bind(user)
    .bind(is_paraphrase)
    .bind(a.is_test)
    .bind(is_correct)
    .bind(seconds)
    .execute(&mut *conn)
    .await?;
    sqlx::query("update judge_assignment set status = 'judged' where assignment_id = $1")
        .bind(assignment_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        r#"update judge_pair set n_judgments = n_judgments + 1,
               n_paraphrase = n_paraphrase + $2::int
           where pair_id = $1"#,
    )
    .bind(a.pair_id)
    .bind(is_paraphrase as i32)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        r#"update judge_worker set judgments = judgments + 1,
               tests_answered = tests_answered + $3::int, tests_correct = tests_correct + $4::int
           where campaign_id = $1 and app_user_id = $2"#,
    )
    .bind(campaign_id)
    .bind(user)
    .bind(a.is_test as i32)
    .bind((is_correct == Some(true)) as i32)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// How many judgments the worker has in the campaign.
pub async fn count_judgments(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
    user: Uuid,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar(
        "select count(*) from judge_judgment where campaign_id = $1 and app_user_id = $2",
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_one(db)
    .await?)
}

/// The worker's test answers (correct or not) and, for each ordinary pair they judged, the
/// other workers' trusted votes (the pair's counts minus the worker's own trusted vote).
pub async fn gate_evidence(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
) -> Result<(Vec<bool>, Vec<Comparison>), AppError> {
    let tests: Vec<bool> = sqlx::query_scalar(
        r#"select is_correct from judge_judgment
           where campaign_id = $1 and app_user_id = $2 and is_test and is_correct is not null"#,
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_all(&mut *conn)
    .await?;
    let rows: Vec<(bool, i32, i32)> = sqlx::query_as(
        r#"select j.is_paraphrase,
                  p.n_paraphrase - (j.trusted and j.is_paraphrase)::int,
                  p.n_judgments - p.n_paraphrase - (j.trusted and not j.is_paraphrase)::int
           from judge_judgment j join judge_pair p using (pair_id)
           where j.campaign_id = $1 and j.app_user_id = $2 and not j.is_test"#,
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_all(&mut *conn)
    .await?;
    let comparisons = rows
        .into_iter()
        .map(|(label, p, n)| Comparison {
            label,
            others_paraphrase: p.max(0) as u32,
            others_not: n.max(0) as u32,
        })
        .collect();
    Ok((tests, comparisons))
}

/// Sets a worker's status, records why, and marks their judgments untrusted (stopped) or
/// trusted again (reinstated), keeping the pairs' vote counts in step.
pub async fn set_worker_status(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    status: &str,
    reason: &str,
    numbers: &GateNumbers,
    changed_by: Option<Uuid>,
) -> Result<(), AppError> {
    let trusted = status == "active";
    sqlx::query(
        r#"update judge_worker set status = $3, gate_overridden = gate_overridden or $4
           where campaign_id = $1 and app_user_id = $2"#,
    )
    .bind(campaign_id)
    .bind(user)
    .bind(status)
    .bind(trusted && changed_by.is_some())
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        r#"insert into judge_worker_event (campaign_id, app_user_id, status, reason, judgments,
               tests_answered, test_accuracy, kappa, changed_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)"#,
    )
    .bind(campaign_id)
    .bind(user)
    .bind(status)
    .bind(reason)
    .bind(numbers.judgments as i32)
    .bind(numbers.tests_answered as i32)
    .bind(numbers.test_accuracy)
    .bind(numbers.kappa)
    .bind(changed_by)
    .execute(&mut *conn)
    .await?;
    // Flip the judgments whose trust changes, and move their votes on the pairs.
    let sign = if trusted { 1 } else { -1 };
    sqlx::query(
        r#"with flipped as (
               update judge_judgment set trusted = $3
               where campaign_id = $1 and app_user_id = $2 and trusted <> $3 and not republished
               returning pair_id, is_paraphrase)
           update judge_pair p
           set n_judgments = p.n_judgments + $4 * f.n, n_paraphrase = p.n_paraphrase + $4 * f.np
           from (select pair_id, count(*)::int as n, count(*) filter (where is_paraphrase)::int as np
                 from flipped group by pair_id) f
           where p.pair_id = f.pair_id"#,
    )
    .bind(campaign_id)
    .bind(user)
    .bind(trusted)
    .bind(sign)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// A campaign's progress for its workers and admins.
#[derive(Debug, Clone, FromRow)]
pub struct Progress {
    pub pairs: i64,
    pub test_pairs: i64,
    pub complete_pairs: i64,
    pub judgments: i64,
    /// Trusted "paraphrase" votes on ordinary pairs (with `judgments`, tells whether anything
    /// the statistics count has changed).
    pub paraphrase_votes: i64,
    pub gold_paraphrase: i64,
}

pub async fn progress(db: impl PgExecutor<'_>, campaign_id: Uuid) -> Result<Progress, AppError> {
    Ok(sqlx::query_as::<_, Progress>(
        r#"select count(*) filter (where not p.is_test) as pairs,
                  count(*) filter (where p.is_test) as test_pairs,
                  count(*) filter (where not p.is_test and p.n_judgments >= s.judgments_per_pair)
                      as complete_pairs,
                  coalesce(sum(p.n_judgments) filter (where not p.is_test), 0)::int8 as judgments,
                  coalesce(sum(p.n_paraphrase) filter (where not p.is_test), 0)::int8
                      as paraphrase_votes,
                  count(*) filter (where p.is_test and p.gold_label) as gold_paraphrase
           from judge_settings s left join judge_pair p using (campaign_id)
           where s.campaign_id = $1"#,
    )
    .bind(campaign_id)
    .fetch_one(db)
    .await?)
}

/// A pair as admins see it (gold fields included).
#[derive(Debug, Clone, FromRow)]
pub struct AdminPairRow {
    pub pair_id: Uuid,
    pub sentence1: String,
    pub sentence2: String,
    pub group_key: Option<String>,
    pub is_test: bool,
    pub gold_label: Option<bool>,
    pub gold_explanation: Option<String>,
    pub n_judgments: i32,
    pub n_paraphrase: i32,
}

pub async fn list_pairs(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
    tests_only: bool,
    offset: i64,
    limit: i64,
) -> Result<Vec<AdminPairRow>, AppError> {
    Ok(sqlx::query_as::<_, AdminPairRow>(
        r#"select pair_id, sentence1, sentence2, group_key, is_test, gold_label, gold_explanation,
                  n_judgments, n_paraphrase
           from judge_pair where campaign_id = $1 and (is_test or not $2)
           order by created_at, sentence1, sentence2 offset $3 limit $4"#,
    )
    .bind(campaign_id)
    .bind(tests_only)
    .bind(offset)
    .bind(limit)
    .fetch_all(db)
    .await?)
}

/// Makes a pair a test pair with a gold label and explanation, or an ordinary pair again.
pub async fn set_test_pair(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
    pair_id: Uuid,
    gold: Option<(bool, &str)>,
) -> Result<(), AppError> {
    let done = sqlx::query(
        r#"update judge_pair set is_test = $3, gold_label = coalesce($4, gold_label),
               gold_explanation = case when $3 then $5 else gold_explanation end
           where pair_id = $1 and campaign_id = $2"#,
    )
    .bind(pair_id)
    .bind(campaign_id)
    .bind(gold.is_some())
    .bind(gold.map(|g| g.0))
    .bind(gold.map(|g| g.1).filter(|e| !e.trim().is_empty()))
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::NotFound);
    }
    Ok(())
}

/// A worker's line in the admin's list.
#[derive(Debug, Clone, FromRow)]
pub struct WorkerSummary {
    pub app_user_id: Uuid,
    pub username: String,
    pub status: String,
    pub gate_overridden: bool,
    pub judgments: i64,
    pub tests_answered: i64,
    pub tests_correct: i64,
    pub last_reason: Option<String>,
}

pub async fn list_workers(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<Vec<WorkerSummary>, AppError> {
    Ok(sqlx::query_as::<_, WorkerSummary>(
        r#"select w.app_user_id, u.username, w.status, w.gate_overridden,
                  w.judgments::int8 as judgments, w.tests_answered::int8 as tests_answered,
                  w.tests_correct::int8 as tests_correct,
                  (select e.reason from judge_worker_event e
                   where e.campaign_id = w.campaign_id and e.app_user_id = w.app_user_id
                   order by e.created_at desc, e.event_id desc limit 1) as last_reason
           from judge_worker w join app_user u using (app_user_id)
           where w.campaign_id = $1
           order by u.username"#,
    )
    .bind(campaign_id)
    .fetch_all(db)
    .await?)
}

/// Locks a worker's row if they have one in the campaign.
pub async fn lock_existing_worker(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
) -> Result<bool, AppError> {
    let found: Option<i32> = sqlx::query_scalar(
        "select 1 from judge_worker where campaign_id = $1 and app_user_id = $2 for update",
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_optional(&mut *conn)
    .await?;
    Ok(found.is_some())
}

/// The reason of the worker's latest status change.
pub async fn last_reason(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
    user: Uuid,
) -> Result<Option<String>, AppError> {
    Ok(sqlx::query_scalar(
        r#"select reason from judge_worker_event where campaign_id = $1 and app_user_id = $2
           order by created_at desc, event_id desc limit 1"#,
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_optional(db)
    .await?)
}

/// A trusted judgment of an ordinary pair, for the agreement statistics (in time order).
#[derive(Debug, Clone, FromRow)]
pub struct JudgmentRow {
    pub pair_id: Uuid,
    pub app_user_id: Uuid,
    pub is_paraphrase: bool,
    pub seconds: f64,
}

pub async fn trusted_judgments(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<Vec<JudgmentRow>, AppError> {
    Ok(sqlx::query_as::<_, JudgmentRow>(
        r#"select pair_id, app_user_id, is_paraphrase, seconds from judge_judgment
           where campaign_id = $1 and trusted and not is_test order by created_at, judgment_id"#,
    )
    .bind(campaign_id)
    .fetch_all(db)
    .await?)
}

/// Locks a campaign's judging settings row until the transaction ends (serialises
/// republishing with itself).
pub async fn lock_settings(conn: &mut PgConnection, campaign_id: Uuid) -> Result<(), AppError> {
    sqlx::query("select 1 from judge_settings where campaign_id = $1 for update")
        .bind(campaign_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Sets aside the trusted judgments of ordinary pairs by `workers` (untrusted, republished) and
/// gives their slots back, so trusted workers replace them. Returns (judgments, pairs).
pub async fn republish(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    workers: &[Uuid],
) -> Result<(i64, i64), AppError> {
    let (judgments, pairs): (Option<i64>, i64) = sqlx::query_as(
        r#"with flipped as (
               update judge_judgment set trusted = false, republished = true
               where campaign_id = $1 and app_user_id = any($2) and trusted and not is_test
               returning pair_id, is_paraphrase),
           per_pair as (
               select pair_id, count(*)::int as n, count(*) filter (where is_paraphrase)::int as np
               from flipped group by pair_id),
           moved as (
               update judge_pair p
               set n_judgments = p.n_judgments - f.n, n_paraphrase = p.n_paraphrase - f.np,
                   open_slots = p.open_slots + f.n
               from per_pair f where p.pair_id = f.pair_id
               returning f.n)
           select sum(n)::int8, count(*) from moved"#,
    )
    .bind(campaign_id)
    .bind(workers)
    .fetch_one(&mut *conn)
    .await?;
    Ok((judgments.unwrap_or(0), pairs))
}

/// Pairs with republished judgments that still wait for replacements.
pub async fn pending_republished(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar(
        r#"select count(*) from judge_pair p join judge_settings s using (campaign_id)
           where p.campaign_id = $1 and p.n_judgments < s.judgments_per_pair
             and exists (select 1 from judge_judgment j where j.pair_id = p.pair_id and j.republished)"#,
    )
    .bind(campaign_id)
    .fetch_one(db)
    .await?)
}

/// Status changes of every worker, newest first (for the dashboard's history).
#[derive(Debug, Clone, FromRow)]
pub struct EventRow {
    pub app_user_id: Uuid,
    pub status: String,
    pub reason: String,
    pub judgments: i32,
    pub test_accuracy: Option<f64>,
    pub kappa: Option<f64>,
    pub by_admin: bool,
    pub created_at: time::OffsetDateTime,
}

pub async fn list_events(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<Vec<EventRow>, AppError> {
    Ok(sqlx::query_as::<_, EventRow>(
        r#"select app_user_id, status, reason, judgments, test_accuracy, kappa,
                  changed_by is not null as by_admin, created_at
           from judge_worker_event where campaign_id = $1
           order by created_at desc, event_id desc limit 500"#,
    )
    .bind(campaign_id)
    .fetch_all(db)
    .await?)
}
