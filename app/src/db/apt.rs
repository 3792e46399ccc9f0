//! APT tables: source sentences, assignments, attempts, submissions, worker totals.
use crate::domain::apt::source_import::SourceRow;
use crate::domain::{AttemptId, CampaignId, SourceId, UserId};
use crate::error::AppError;
use crate::ml::PairScores;
use sqlx::{PgConnection, PgExecutor};

/// Inserts sources, skipping those already in the campaign; returns (inserted, skipped).
pub async fn insert_sources(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    rows: &[SourceRow],
) -> Result<(u64, u64), AppError> {
    let mut inserted = 0;
    for chunk in rows.chunks(1000) {
        let texts: Vec<&str> = chunk.iter().map(|r| r.text.as_str()).collect();
        let origins: Vec<&str> = chunk.iter().map(|r| r.origin.as_str()).collect();
        let ids: Vec<Option<&str>> = chunk.iter().map(|r| r.external_id.as_deref()).collect();
        let done = sqlx::query!(
            r#"insert into source_sentence (campaign_id, text, origin, external_id)
               select $1, t, o, i from unnest($2::text[], $3::text[], $4::text[]) as u(t, o, i)
               on conflict on constraint source_sentence_campaign_text_key do nothing"#,
            campaign_id as CampaignId,
            &texts as &[&str],
            &origins as &[&str],
            &ids as &[Option<&str>]
        )
        .execute(&mut *conn)
        .await?;
        inserted += done.rows_affected();
    }
    Ok((inserted, rows.len() as u64 - inserted))
}

/// A worker's standing in a campaign, created on first use.
#[derive(Debug, Clone)]
pub struct AptWorkerRow {
    /// What the worker has earned so far, in cents.
    pub earned_cents: i32,
    /// The code that gets them paid, set once their study is complete.
    pub completion_code: Option<String>,
}

/// The worker's row in the campaign, created if missing.
pub async fn ensure_worker(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<AptWorkerRow, AppError> {
    Ok(sqlx::query_as!(
        AptWorkerRow,
        r#"insert into apt_worker (campaign_id, app_user_id) values ($1, $2)
           on conflict (campaign_id, app_user_id) do update set campaign_id = excluded.campaign_id
           returning earned_cents, completion_code"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_one(db)
    .await?)
}

/// The source a worker is on, if any.
#[derive(Debug, Clone)]
pub struct ActiveSource {
    /// The sentence being paraphrased.
    pub source_sentence_id: SourceId,
    /// Its text.
    pub text: String,
    /// The data set it comes from.
    pub origin: String,
    /// Seconds since it was shown to the worker.
    pub seconds_since_shown: f64,
}

/// The worker's active assignment in the campaign, if any.
pub async fn find_active(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<Option<ActiveSource>, AppError> {
    Ok(sqlx::query_as!(
        ActiveSource,
        r#"select s.source_sentence_id as "source_sentence_id: _", s.text, s.origin,
                  extract(epoch from now() - a.shown_at)::float8 as "seconds_since_shown!"
           from apt_assignment a join source_sentence s using (source_sentence_id)
           where a.campaign_id = $1 and a.app_user_id = $2 and a.status = 'active'"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(db)
    .await?)
}

/// Sentences of each origin this worker has not been shown, origins sorted by name.
pub async fn unseen_by_origin(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<Vec<(String, i64)>, AppError> {
    Ok(sqlx::query!(
        r#"select s.origin, count(*) as "unseen!" from source_sentence s
           where s.campaign_id = $1
             and not exists (select 1 from apt_assignment a
                             where a.app_user_id = $2 and a.source_sentence_id = s.source_sentence_id)
           group by s.origin order by s.origin"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.origin, r.unseen))
    .collect())
}

/// Assigns a random unseen sentence of `origin`. `false` when another request assigned one
/// first (the partial unique index allows one active assignment per worker and campaign).
pub async fn assign_random(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
    origin: &str,
) -> Result<bool, AppError> {
    let done = sqlx::query!(
        r#"insert into apt_assignment (campaign_id, app_user_id, source_sentence_id)
           select $1, $2, s.source_sentence_id from source_sentence s
           where s.campaign_id = $1 and s.origin = $3
             and not exists (select 1 from apt_assignment a
                             where a.app_user_id = $2 and a.source_sentence_id = s.source_sentence_id)
           order by random() limit 1
           on conflict do nothing"#,
        campaign_id as CampaignId,
        user as UserId,
        origin
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Marks the worker's active assignment of `source` skipped; `false` if it was not active.
pub async fn skip_active(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
    source: SourceId,
) -> Result<bool, AppError> {
    let done = sqlx::query!(
        r#"update apt_assignment set status = 'skipped'
           where campaign_id = $1 and app_user_id = $2 and source_sentence_id = $3 and status = 'active'"#,
        campaign_id as CampaignId,
        user as UserId,
        source as SourceId
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Stores one Check.
#[allow(clippy::too_many_arguments)]
pub async fn insert_attempt(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
    source: SourceId,
    text: &str,
    scores: &PairScores,
    reward_cents: i64,
    seconds_since_shown: f64,
) -> Result<AttemptId, AppError> {
    Ok(sqlx::query_scalar!(
        r#"insert into apt_attempt (campaign_id, app_user_id, source_sentence_id, text, labels,
               forward_probs, backward_probs, is_mutual_implication, bleurt_forward, bleurt_backward,
               bleurt, reward_cents, mi_model, bleurt_model, scoring_ms, seconds_since_shown,
               scorer_kind, scorer, served_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
                   $19)
           returning apt_attempt_id as "apt_attempt_id: AttemptId""#,
        campaign_id as CampaignId,
        user as UserId,
        source as SourceId,
        text,
        &scores.labels,
        &scores.forward_probs,
        &scores.backward_probs,
        scores.is_mutual_implication,
        scores.bleurt_forward,
        scores.bleurt_backward,
        scores.bleurt,
        reward_cents as i32,
        &scores.versions.mi,
        &scores.versions.bleurt,
        scores.latency_ms,
        seconds_since_shown,
        scores.versions.kind.as_str(),
        &scores.versions.description,
        scores.versions.served_by.as_str()
    )
    .fetch_one(db)
    .await?)
}

/// A Check as its result is shown again: the text, the scores and the scorer.
#[derive(Debug, Clone)]
pub struct CheckedAttempt {
    /// The sentence it rewrites.
    pub source_id: SourceId,
    /// The rewrite.
    pub text: String,
    /// Each sentence follows from the other.
    pub is_mutual_implication: bool,
    /// The similarity.
    pub bleurt: f32,
    /// What it would earn.
    pub reward_cents: i32,
    /// The implication model.
    pub mi_model: String,
    /// The similarity model.
    pub bleurt_model: String,
    /// The scorer, in words.
    pub scorer: String,
}

/// `user`'s Check `attempt` in `campaign_id`; `None` when it is not theirs.
pub async fn checked_attempt(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
    attempt: AttemptId,
) -> Result<Option<CheckedAttempt>, AppError> {
    Ok(sqlx::query_as!(
        CheckedAttempt,
        r#"select source_sentence_id as "source_id: SourceId", text, is_mutual_implication,
                  bleurt, reward_cents, mi_model, bleurt_model, scorer
           from apt_attempt
           where apt_attempt_id = $1 and app_user_id = $2 and campaign_id = $3"#,
        attempt as AttemptId,
        user as UserId,
        campaign_id as CampaignId,
    )
    .fetch_optional(db)
    .await?)
}

/// An attempt as a submission needs it.
#[derive(Debug, Clone)]
pub struct AttemptForSubmit {
    /// The sentence the attempt paraphrases.
    pub source_sentence_id: SourceId,
    /// What the attempt earns, in cents, before the cap.
    pub reward_cents: i32,
}

/// The worker's attempt `attempt` in the campaign, if it is theirs.
pub async fn find_attempt(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
    attempt: AttemptId,
) -> Result<Option<AttemptForSubmit>, AppError> {
    Ok(sqlx::query_as!(
        AttemptForSubmit,
        r#"select source_sentence_id as "source_sentence_id: _", reward_cents from apt_attempt
           where apt_attempt_id = $1 and campaign_id = $2 and app_user_id = $3"#,
        attempt as AttemptId,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(db)
    .await?)
}

/// Locks the worker's row for the rest of the transaction and returns their earnings.
pub async fn lock_worker(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<i32, AppError> {
    Ok(sqlx::query_scalar!(
        "select earned_cents from apt_worker where campaign_id = $1 and app_user_id = $2 for update",
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_one(conn)
    .await?)
}

/// The paid amount of an existing submission for (worker, source).
pub async fn find_submission(
    db: impl PgExecutor<'_>,
    user: UserId,
    source: SourceId,
) -> Result<Option<i32>, AppError> {
    Ok(sqlx::query_scalar!(
        "select paid_cents from apt_submission where app_user_id = $1 and source_sentence_id = $2",
        user as UserId,
        source as SourceId
    )
    .fetch_optional(db)
    .await?)
}

/// Records a submission; `false` if the worker already submitted for this source.
#[allow(clippy::too_many_arguments)]
pub async fn insert_submission(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    source: SourceId,
    attempt: AttemptId,
    reward_cents: i32,
    paid_cents: i32,
) -> Result<bool, AppError> {
    let done = sqlx::query!(
        r#"insert into apt_submission (campaign_id, app_user_id, source_sentence_id, apt_attempt_id, reward_cents, paid_cents)
           values ($1, $2, $3, $4, $5, $6)
           on conflict on constraint apt_submission_worker_source_key do nothing"#,
        campaign_id as CampaignId,
        user as UserId,
        source as SourceId,
        attempt as AttemptId,
        reward_cents,
        paid_cents
    )
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Records the new total; `code` when the study completes with this submission.
pub async fn update_worker_total(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    total_cents: i32,
    code: Option<&str>,
) -> Result<(), AppError> {
    sqlx::query!(
        r#"update apt_worker set earned_cents = $3,
               completed_at = case when $4::text is null then completed_at else now() end,
               completion_code = coalesce(completion_code, $4)
           where campaign_id = $1 and app_user_id = $2"#,
        campaign_id as CampaignId,
        user as UserId,
        total_cents,
        code
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!(
        r#"update apt_assignment set status = 'submitted'
           where campaign_id = $1 and app_user_id = $2 and status = 'active'"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Every attempt's source, MI and BLEURT, for Table 2 and Figure 2.
pub async fn list_attempt_points(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<(SourceId, bool, f32)>, AppError> {
    Ok(sqlx::query!(
        r#"select source_sentence_id as "source_sentence_id: SourceId", is_mutual_implication, bleurt
           from apt_attempt where campaign_id = $1"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.source_sentence_id, r.is_mutual_implication, r.bleurt))
    .collect())
}

/// How many of a campaign's Checks each scorer produced (several after a change of models).
#[derive(Debug, Clone)]
pub struct ScorerCount {
    /// Which kind of scorer (`paper`, `paper_int8`, `standin`, `lite`, `custom`).
    pub scorer_kind: String,
    /// The scorer's description, in words.
    pub scorer: String,
    /// Checks it scored.
    pub attempts: i64,
}

/// The campaign's Checks counted by scorer, most first.
pub async fn count_attempts_by_scorer(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<ScorerCount>, AppError> {
    Ok(sqlx::query_as!(
        ScorerCount,
        r#"select scorer_kind, scorer, count(*) as "attempts!" from apt_attempt
           where campaign_id = $1 group by scorer_kind, scorer order by count(*) desc, scorer"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?)
}

/// Per-worker activity and earnings in a campaign.
#[derive(Debug, Clone)]
pub struct WorkerEarningRow {
    /// The worker.
    pub app_user_id: UserId,
    /// Checks they ran.
    pub attempts: i64,
    /// Paraphrases they submitted.
    pub submissions: i64,
    /// What they have earned, in cents.
    pub earned_cents: i32,
    /// They reached the cap and got a completion code.
    pub is_complete: bool,
}

/// Every worker of the campaign with their activity, highest earners first.
pub async fn list_worker_earnings(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<WorkerEarningRow>, AppError> {
    Ok(sqlx::query_as!(
        WorkerEarningRow,
        r#"select w.app_user_id as "app_user_id: _",
                  (select count(*) from apt_attempt a where a.campaign_id = w.campaign_id and a.app_user_id = w.app_user_id) as "attempts!",
                  (select count(*) from apt_submission s where s.campaign_id = w.campaign_id and s.app_user_id = w.app_user_id) as "submissions!",
                  w.earned_cents, w.completion_code is not null as "is_complete!"
           from apt_worker w where w.campaign_id = $1
           order by w.earned_cents desc, w.app_user_id"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?)
}
