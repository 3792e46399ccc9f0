//! The calls made to a platform (Prolific, MTurk) that change something there: recorded before
//! they are made (a call with the same id, from a double click or a second tab, is not made
//! again) and once more with their outcome (`unknown` when no answer came).
use sqlx::PgExecutor;

use crate::domain::{CampaignId, UserId};
use crate::error::AppError;

/// A recorded platform call.
#[derive(Debug, Clone)]
pub struct CallRow {
    /// Its id (from the page that asked).
    pub call_id: uuid::Uuid,
    /// The link it was made for.
    pub study_link_id: uuid::Uuid,
    /// The link's platform (`prolific`, `mturk`).
    pub platform: String,
    /// `approve` or `reject`.
    pub action: String,
    /// How many submissions it named.
    pub targets: i32,
    /// The first of them.
    pub first_target: String,
    /// When it was made.
    pub made_at: time::OffsetDateTime,
    /// `done`, `partly`, `refused`, `unknown`, or none while it is being made.
    pub outcome: Option<String>,
    /// The platform's message, if any.
    pub detail: String,
}

/// Records the call `call` before it is made. False when a call with this id exists (a double
/// click, a second tab): it is not made again.
pub async fn begin_call(
    db: impl PgExecutor<'_>,
    call: uuid::Uuid,
    link: uuid::Uuid,
    action: &str,
    targets: &[String],
    by: UserId,
) -> Result<bool, AppError> {
    let r = sqlx::query!(
        r#"insert into platform_call (call_id, study_link_id, action, targets, made_by)
           values ($1, $2, $3, $4, $5) on conflict (call_id) do nothing"#,
        call,
        link,
        action,
        targets,
        by as UserId,
    )
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Records what came of the call `call` (once).
pub async fn end_call(
    db: impl PgExecutor<'_>,
    call: uuid::Uuid,
    outcome: &str,
    detail: &str,
) -> Result<(), AppError> {
    sqlx::query!(
        r#"update platform_call set outcome = $2, detail = $3, answered_at = now()
           where call_id = $1 and outcome is null"#,
        call,
        outcome,
        detail,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The calls made for `campaign`'s links on `platform`, newest first (the last 50).
pub async fn calls(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    platform: &str,
) -> Result<Vec<CallRow>, AppError> {
    Ok(sqlx::query_as!(
        CallRow,
        r#"select k.call_id, k.study_link_id, l.platform, k.action, cardinality(k.targets) as "targets!",
                  k.targets[1] as "first_target!", k.made_at, k.outcome, k.detail
           from platform_call k join study_link l using (study_link_id)
           where l.campaign_id = $1 and l.platform = $2
           order by k.made_at desc limit 50"#,
        campaign as CampaignId,
        platform,
    )
    .fetch_all(db)
    .await?)
}

/// The recorded call `call` of `campaign`.
pub async fn find_call(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    call: uuid::Uuid,
) -> Result<Option<CallRow>, AppError> {
    Ok(sqlx::query_as!(
        CallRow,
        r#"select k.call_id, k.study_link_id, l.platform, k.action, cardinality(k.targets) as "targets!",
                  k.targets[1] as "first_target!", k.made_at, k.outcome, k.detail
           from platform_call k join study_link l using (study_link_id)
           where l.campaign_id = $1 and k.call_id = $2"#,
        campaign as CampaignId,
        call,
    )
    .fetch_optional(db)
    .await?)
}
