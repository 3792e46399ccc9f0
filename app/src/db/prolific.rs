//! Prolific links connected to their studies, the workers who arrived through a link, and the
//! batches' bulk bonuses on Prolific.
use sqlx::PgExecutor;

use crate::domain::{CampaignId, UserId};
use crate::error::AppError;

/// A campaign's Prolific link with its connection, if it has one.
#[derive(Debug, Clone)]
pub struct ProlificLinkRow {
    /// The link.
    pub study_link_id: uuid::Uuid,
    /// The researcher's name for it.
    pub label: String,
    /// Its address part.
    pub slug: String,
    /// The connected study, if any.
    pub study_id: Option<String>,
    /// The study ids workers' links carried (Prolific's `STUDY_ID`), the most often carried
    /// first (one worker's edited link cannot choose it).
    pub seen_study_ids: Vec<String>,
}

/// Every Prolific link of `campaign`, oldest first.
pub async fn prolific_links(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<ProlificLinkRow>, AppError> {
    Ok(sqlx::query_as!(
        ProlificLinkRow,
        r#"select l.study_link_id, l.label, l.slug, c.study_id as "study_id?",
                  array(select s.id from (
                      select a.detail #>> '{Prolific,study_id}' as id, count(*) as n
                      from study_arrival a
                      where a.study_link_id = l.study_link_id
                        and a.detail #>> '{Prolific,study_id}' is not null
                      group by 1 order by 2 desc, 1 limit 5) s) as "seen_study_ids!"
           from study_link l
           left join prolific_connection c using (study_link_id)
           where l.campaign_id = $1 and l.platform = 'prolific'
           order by l.created_at, l.slug"#,
        campaign as CampaignId,
    )
    .fetch_all(db)
    .await?)
}

/// Connects the Prolific link `link` of `campaign` to the study `study_id`. False when the
/// campaign has no such Prolific link.
pub async fn connect_prolific(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    link: uuid::Uuid,
    study_id: &str,
    by: UserId,
) -> Result<bool, AppError> {
    let r = sqlx::query!(
        r#"insert into prolific_connection (study_link_id, study_id, updated_by)
           select l.study_link_id, $3, $4 from study_link l
           where l.study_link_id = $2 and l.campaign_id = $1 and l.platform = 'prolific'
           on conflict (study_link_id) do update
             set study_id = excluded.study_id, updated_by = excluded.updated_by, updated_at = now()"#,
        campaign as CampaignId,
        link,
        study_id,
        by as UserId,
    )
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// The study the Prolific link `link` of `campaign` is connected to.
pub async fn prolific_study(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    link: uuid::Uuid,
) -> Result<Option<String>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select c.study_id from prolific_connection c join study_link l using (study_link_id)
           where l.study_link_id = $2 and l.campaign_id = $1"#,
        campaign as CampaignId,
        link,
    )
    .fetch_optional(db)
    .await?)
}

/// A worker who arrived through a link, with their platform id.
#[derive(Debug, Clone)]
pub struct LinkWorkerRow {
    /// Their id on the platform.
    pub external_id: String,
    /// Whether their completion is recorded.
    pub completed: bool,
    /// The MTurk assignment their completion went back with (none on other platforms).
    pub completed_with: Option<String>,
}

/// The workers who arrived in `campaign` through `link`.
pub async fn link_workers(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    link: uuid::Uuid,
) -> Result<Vec<LinkWorkerRow>, AppError> {
    Ok(sqlx::query_as!(
        LinkWorkerRow,
        r#"select p.external_id,
                  exists(select 1 from study_completion c
                         where c.campaign_id = a.campaign_id and c.app_user_id = a.app_user_id)
                    as "completed!",
                  (select c.detail #>> '{Mturk,assignment_id}' from study_completion c
                   where c.campaign_id = a.campaign_id and c.app_user_id = a.app_user_id)
                    as "completed_with?"
           from study_arrival a
           join platform_account p on p.app_user_id = a.app_user_id
           where a.campaign_id = $1 and a.study_link_id = $2
           order by p.external_id"#,
        campaign as CampaignId,
        link,
    )
    .fetch_all(db)
    .await?)
}

/// A bonus batch's bulk bonus on Prolific.
#[derive(Debug, Clone)]
pub struct BonusRow {
    /// The batch.
    pub batch_id: uuid::Uuid,
    /// Prolific's id of the bulk bonus.
    pub bonus_id: String,
    /// The bonuses, Prolific's fees and their total, in cents as Prolific gave them.
    pub amount_cents: i32,
    /// Prolific's fees.
    pub fees_cents: i32,
    /// What Prolific takes from the balance.
    pub total_cents: i32,
    /// `created`, `paying`, `paid` or `unknown`.
    pub state: String,
    /// Prolific's message of the last refusal or failure.
    pub detail: String,
    /// Left for the researcher to settle: `unknown`, or `paying` for longer than a payment can
    /// take (its server stopped).
    pub unsure: bool,
}

/// The bulk bonuses of `campaign`'s batches.
pub async fn bonuses(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<BonusRow>, AppError> {
    Ok(sqlx::query_as!(
        BonusRow,
        r#"select p.batch_id, p.bonus_id, p.amount_cents, p.fees_cents, p.total_cents, p.state, p.detail,
                  (p.state = 'unknown' or (p.state = 'paying'
                     and p.pay_started_at < now() - make_interval(secs => $2))) as "unsure!"
           from prolific_bonus p join payment_batch b using (batch_id)
           where b.campaign_id = $1"#,
        campaign as CampaignId,
        crate::service::prolific::STALE_PAYING_SECS,
    )
    .fetch_all(db)
    .await?)
}

/// The bulk bonus of the batch `batch` of `campaign`.
pub async fn bonus(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    batch: uuid::Uuid,
) -> Result<Option<BonusRow>, AppError> {
    Ok(sqlx::query_as!(
        BonusRow,
        r#"select p.batch_id, p.bonus_id, p.amount_cents, p.fees_cents, p.total_cents, p.state, p.detail,
                  p.state = 'unknown' as "unsure!"
           from prolific_bonus p join payment_batch b using (batch_id)
           where b.campaign_id = $1 and p.batch_id = $2"#,
        campaign as CampaignId,
        batch,
    )
    .fetch_optional(db)
    .await?)
}

/// How many workers of the batch `batch` did not arrive through the link `link`.
pub async fn batch_workers_elsewhere(
    db: impl PgExecutor<'_>,
    batch: uuid::Uuid,
    link: uuid::Uuid,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "n!" from payment_item i
           join payment_batch b using (batch_id)
           left join study_arrival a
             on a.campaign_id = b.campaign_id and a.app_user_id = i.app_user_id
           where i.batch_id = $1 and a.study_link_id is distinct from $2"#,
        batch,
        link,
    )
    .fetch_one(db)
    .await?)
}

/// Records the bulk bonus Prolific made for `batch`; false when the batch has one already (made
/// by another tab meanwhile: that one is kept, and this one is never paid).
pub async fn insert_bonus(
    db: impl PgExecutor<'_>,
    batch: uuid::Uuid,
    link: uuid::Uuid,
    bonus_id: &str,
    amounts: [i32; 3],
) -> Result<bool, AppError> {
    let r = sqlx::query!(
        r#"insert into prolific_bonus (batch_id, study_link_id, bonus_id, amount_cents, fees_cents, total_cents)
           select $1, $2, $3, $4, $5, $6 from payment_batch b
           where b.batch_id = $1 and b.paid_at is null
           on conflict (batch_id) do nothing"#,
        batch,
        link,
        bonus_id,
        amounts[0],
        amounts[1],
        amounts[2],
    )
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Takes the right to pay `batch`'s bonus: from `created` to `paying`, in one statement, only
/// while the batch is not marked paid. Returns Prolific's bonus id when this call took it.
pub async fn start_paying(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    batch: uuid::Uuid,
) -> Result<Option<(String, time::OffsetDateTime)>, AppError> {
    Ok(sqlx::query!(
        r#"update prolific_bonus p set state = 'paying', pay_started_at = clock_timestamp(), detail = ''
           from payment_batch b
           where p.batch_id = $2 and b.batch_id = p.batch_id and b.campaign_id = $1
             and b.paid_at is null and p.state = 'created'
           returning p.bonus_id, p.pay_started_at as "started!""#,
        campaign as CampaignId,
        batch,
    )
    .fetch_optional(db)
    .await?
    .map(|r| (r.bonus_id, r.started)))
}

/// Locks `batch`'s bulk bonus, if it has one, and says its state: a discard or a hand-marked
/// payment in the same transaction then sees any payment that started before it.
pub async fn lock_bonus_state(
    db: impl PgExecutor<'_>,
    batch: uuid::Uuid,
) -> Result<Option<String>, AppError> {
    Ok(sqlx::query_scalar!(
        "select state from prolific_bonus where batch_id = $1 for update",
        batch,
    )
    .fetch_optional(db)
    .await?)
}

/// Records what came of paying `batch`'s bonus (from `paying`); `paid` also marks the batch
/// paid by `by`.
pub async fn end_paying(
    db: &mut sqlx::PgConnection,
    batch: uuid::Uuid,
    started: time::OffsetDateTime,
    state: &str,
    detail: &str,
    by: UserId,
) -> Result<bool, AppError> {
    settle(db, batch, Some(started), None, state, detail, by).await
}

/// Records what the researcher says of a bonus whose payment gave no answer (`unknown`), or
/// whose server stopped while paying it more than `stale_secs` ago: `paid` also marks the batch
/// paid by `by`; `created` lets it be paid again.
pub async fn resolve_unsure(
    db: &mut sqlx::PgConnection,
    batch: uuid::Uuid,
    stale_secs: f64,
    state: &str,
    by: UserId,
) -> Result<bool, AppError> {
    settle(db, batch, None, Some(stale_secs), state, "", by).await
}

/// From `paying` by the attempt that started at `attempt`, or (`unsure_after`) from `unknown`
/// or a `paying` older than that many seconds.
async fn settle(
    db: &mut sqlx::PgConnection,
    batch: uuid::Uuid,
    attempt: Option<time::OffsetDateTime>,
    unsure_after: Option<f64>,
    state: &str,
    detail: &str,
    by: UserId,
) -> Result<bool, AppError> {
    let changed = sqlx::query!(
        r#"update prolific_bonus set state = $4, detail = $5
           where batch_id = $1
             and case when $3::float8 is null
                      then state = 'paying' and pay_started_at = $2
                      else state = 'unknown'
                        or (state = 'paying'
                            and pay_started_at < now() - make_interval(secs => $3::float8))
                 end"#,
        batch,
        attempt,
        unsure_after,
        state,
        detail,
    )
    .execute(&mut *db)
    .await?
    .rows_affected()
        == 1;
    if changed && state == "paid" {
        sqlx::query!(
            r#"update payment_batch set paid_at = coalesce(paid_at, now()),
                      paid_by = case when paid_at is null then $2 else paid_by end
               where batch_id = $1"#,
            batch,
            by as UserId,
        )
        .execute(&mut *db)
        .await?;
    }
    Ok(changed)
}
