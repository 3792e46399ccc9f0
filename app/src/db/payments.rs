//! What study workers earned, and the bonus batches the researcher pays.
use sqlx::PgExecutor;

use crate::domain::study::platform::Platform;
use crate::domain::{CampaignId, UserId};
use crate::error::AppError;

/// A study worker of a campaign with the numbers their pay is made of.
#[derive(Debug, Clone)]
pub struct WorkerPayRow {
    /// Their account.
    pub app_user_id: UserId,
    /// The platform of the link they came through.
    pub platform: Platform,
    /// Their id there.
    pub external_id: String,
    /// When they first arrived (seconds since the epoch).
    pub arrived_at: f64,
    /// When they completed (seconds since the epoch), if they did.
    pub completed_at: Option<f64>,
    /// Why (`study_completion.reason`), if they did.
    pub completion_reason: Option<String>,
    /// Items made: judgments, or sentences submitted.
    pub items: i64,
    /// What their Submits paid (the writing task's bonus), in cents.
    pub submitted_cents: i64,
    /// In batches of this campaign, paid or not, in cents.
    pub batched_cents: i64,
    /// In batches marked paid, in cents.
    pub paid_cents: i64,
}

/// Every worker who arrived in `campaign` through a study link, by platform and id.
pub async fn workers(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<WorkerPayRow>, AppError> {
    Ok(sqlx::query_as!(
        WorkerPayRow,
        r#"select a.app_user_id as "app_user_id: UserId", l.platform as "platform: Platform", p.external_id,
                  extract(epoch from a.arrived_at)::float8 as "arrived_at!",
                  extract(epoch from c.completed_at)::float8 as completed_at,
                  c.reason as "completion_reason?",
                  (select n from study_items_row($1, a.app_user_id) n) as "items!",
                  (select coalesce(sum(s.paid_cents), 0)::int8 from apt_submission s
                   where s.campaign_id = $1 and s.app_user_id = a.app_user_id) as "submitted_cents!",
                  (select coalesce(sum(i.amount_cents), 0)::int8
                   from payment_item i join payment_batch b using (batch_id)
                   where b.campaign_id = $1 and i.app_user_id = a.app_user_id) as "batched_cents!",
                  (select coalesce(sum(i.amount_cents), 0)::int8
                   from payment_item i join payment_batch b using (batch_id)
                   where b.campaign_id = $1 and i.app_user_id = a.app_user_id
                     and b.paid_at is not null) as "paid_cents!"
           from study_arrival a
           join study_link l using (study_link_id)
           join platform_account p on p.app_user_id = a.app_user_id
           left join study_completion c
             on c.campaign_id = a.campaign_id and c.app_user_id = a.app_user_id
           where a.campaign_id = $1
           order by l.platform, p.external_id"#,
        campaign as CampaignId,
    )
    .fetch_all(db)
    .await?)
}

/// The times (seconds since the epoch) of every judgment, Check and Submit of the study workers
/// of `campaign`, by worker.
pub async fn action_times(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<(UserId, f64)>, AppError> {
    Ok(sqlx::query!(
        r#"select t.app_user_id as "user!: UserId", extract(epoch from t.at)::float8 as "at!"
           from (select j.app_user_id, j.created_at as at from judge_judgment j
                 where j.campaign_id = $1
                 union all
                 select t.app_user_id, t.created_at from apt_attempt t where t.campaign_id = $1
                 union all
                 select s.app_user_id, s.created_at from apt_submission s
                 where s.campaign_id = $1) t
           where exists (select 1 from study_arrival a
                         where a.campaign_id = $1 and a.app_user_id = t.app_user_id)"#,
        campaign as CampaignId,
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.user, r.at))
    .collect())
}

/// Serialises the making of batches for a campaign: each sees what the one before it took.
pub async fn lock_campaign(db: impl PgExecutor<'_>, campaign: CampaignId) -> Result<(), AppError> {
    sqlx::query!(
        "select pg_advisory_xact_lock(hashtextextended('payment_batch:' || $1::text, 0))",
        campaign as CampaignId,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// A bonus batch.
#[derive(Debug, Clone)]
pub struct BatchRow {
    /// Its id.
    pub batch_id: uuid::Uuid,
    /// Its campaign.
    pub campaign_id: CampaignId,
    /// Whether it tops workers up to the minimum hourly rate.
    pub top_up: bool,
    /// When it was made.
    pub created_at: time::OffsetDateTime,
    /// When it was marked paid.
    pub paid_at: Option<time::OffsetDateTime>,
    /// Workers in it.
    pub workers: i64,
    /// Its total, in cents.
    pub total_cents: i64,
}

/// The batch with this id (of any campaign).
pub async fn find_batch(
    db: impl PgExecutor<'_>,
    batch: uuid::Uuid,
) -> Result<Option<BatchRow>, AppError> {
    Ok(batches(db, None, Some(batch)).await?.pop())
}

/// A campaign's batches, newest first.
pub async fn list_batches(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<BatchRow>, AppError> {
    batches(db, Some(campaign), None).await
}

/// Batches of `campaign` and with id `batch`, each where given, newest first.
async fn batches(
    db: impl PgExecutor<'_>,
    campaign: Option<CampaignId>,
    batch: Option<uuid::Uuid>,
) -> Result<Vec<BatchRow>, AppError> {
    Ok(sqlx::query_as!(
        BatchRow,
        r#"select b.batch_id, b.campaign_id as "campaign_id: CampaignId", b.top_up, b.created_at,
                  b.paid_at,
                  (select count(*) from payment_item i where i.batch_id = b.batch_id) as "workers!",
                  (select coalesce(sum(i.amount_cents), 0)::int8 from payment_item i
                   where i.batch_id = b.batch_id) as "total_cents!"
           from payment_batch b
           where ($1::uuid is null or b.campaign_id = $1) and ($2::uuid is null or b.batch_id = $2)
           order by b.created_at desc, b.batch_id"#,
        campaign.map(|c| c.0),
        batch,
    )
    .fetch_all(db)
    .await?)
}

/// Inserts a batch and its items (worker, cents).
pub async fn insert_batch(
    db: &mut sqlx::PgConnection,
    batch: uuid::Uuid,
    campaign: CampaignId,
    top_up: bool,
    by: UserId,
    items: &[(UserId, i32)],
) -> Result<(), AppError> {
    sqlx::query!(
        "insert into payment_batch (batch_id, campaign_id, top_up, created_by) values ($1, $2, $3, $4)",
        batch,
        campaign as CampaignId,
        top_up,
        by as UserId,
    )
    .execute(&mut *db)
    .await?;
    let users: Vec<uuid::Uuid> = items.iter().map(|(u, _)| u.0).collect();
    let cents: Vec<i32> = items.iter().map(|(_, c)| *c).collect();
    sqlx::query!(
        "insert into payment_item (batch_id, app_user_id, amount_cents)
         select $1, u, c from unnest($2::uuid[], $3::int4[]) as t(u, c)",
        batch,
        &users,
        &cents,
    )
    .execute(&mut *db)
    .await?;
    Ok(())
}

/// A worker's line in a batch, with who they are on their platform.
#[derive(Debug, Clone)]
pub struct BatchItemRow {
    /// Their account.
    pub app_user_id: UserId,
    /// The amount, in cents.
    pub amount_cents: i32,
    /// Their platform.
    pub platform: Platform,
    /// Their id there.
    pub external_id: String,
    /// The platform ids to pay against: those the completion went back with, else the latest
    /// visit's (none when the arrival is gone).
    pub detail: Option<serde_json::Value>,
}

/// The items of a batch: each worker in it, whatever has happened to their arrival since.
pub async fn batch_items(
    db: impl PgExecutor<'_>,
    batch: uuid::Uuid,
) -> Result<Vec<BatchItemRow>, AppError> {
    Ok(sqlx::query_as!(
        BatchItemRow,
        r#"select i.app_user_id as "app_user_id: UserId", i.amount_cents, p.platform as "platform: Platform",
                  p.external_id, coalesce(c.detail, a.latest_detail, a.detail) as "detail?"
           from payment_item i
           join payment_batch b using (batch_id)
           join platform_account p on p.app_user_id = i.app_user_id
           left join study_arrival a
             on a.campaign_id = b.campaign_id and a.app_user_id = i.app_user_id
           left join study_completion c
             on c.campaign_id = b.campaign_id and c.app_user_id = i.app_user_id
           where i.batch_id = $1
           order by p.platform, p.external_id"#,
        batch,
    )
    .fetch_all(db)
    .await?)
}

/// Marks a batch of `campaign` paid, once: a batch already paid keeps its first time. False
/// when the campaign has no such batch.
pub async fn mark_paid(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    batch: uuid::Uuid,
    by: UserId,
) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar!(
        r#"update payment_batch set paid_at = coalesce(paid_at, now()),
                  paid_by = case when paid_at is null then $3 else paid_by end
           where batch_id = $1 and campaign_id = $2
           returning batch_id"#,
        batch,
        campaign as CampaignId,
        by as UserId,
    )
    .fetch_optional(db)
    .await?
    .is_some())
}

/// Deletes a batch of `campaign` not yet marked paid, and not being (or perhaps already) paid
/// through Prolific's API; false when there is none such.
pub async fn discard(
    db: &mut sqlx::PgConnection,
    campaign: CampaignId,
    batch: uuid::Uuid,
) -> Result<bool, AppError> {
    // A payment through Prolific takes its bonus's row before it calls: lock that row first, so
    // a payment under way is seen here (the check below reads the state after the lock).
    super::prolific::lock_bonus_state(&mut *db, batch).await?;
    // MTurk's bonuses are taken under a share lock of the batch: the batch's row first.
    super::mturk::lock_batch_sends(&mut *db, batch).await?;
    Ok(sqlx::query!(
        "delete from payment_batch b where b.batch_id = $1 and b.campaign_id = $2 and b.paid_at is null
           and not exists (select 1 from prolific_bonus p where p.batch_id = b.batch_id and p.state <> 'created')
           and not exists (select 1 from mturk_bonus m where m.batch_id = b.batch_id and m.state <> 'refused')",
        batch,
        campaign as CampaignId,
    )
    .execute(&mut *db)
    .await?
    .rows_affected()
        == 1)
}
