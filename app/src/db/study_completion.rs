//! Where a study worker stands, and their completion.
use sqlx::PgExecutor;

use crate::domain::study::completion::Standing;
use crate::domain::study::platform::Platform;
use crate::domain::{CampaignId, UserId};
use crate::error::AppError;

/// A worker's arrival in a campaign through a link.
#[derive(Debug, Clone)]
pub struct ArrivalRow {
    /// The link's platform.
    pub platform: Platform,
    /// Their id there.
    pub external_id: String,
    /// The platform's ids of the latest visit (`ArrivalDetail` as JSON): an MTurk worker who
    /// accepted the HIT again comes back with a new assignment.
    pub detail: serde_json::Value,
}

/// The worker's arrival in `campaign`, if they came through one of its links.
pub async fn arrival(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
) -> Result<Option<ArrivalRow>, AppError> {
    Ok(sqlx::query_as!(
        ArrivalRow,
        r#"select l.platform as "platform: Platform", p.external_id, coalesce(a.latest_detail, a.detail) as "detail!"
           from study_arrival a
           join study_link l using (study_link_id)
           join platform_account p on p.app_user_id = a.app_user_id
           where a.campaign_id = $1 and a.app_user_id = $2"#,
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_optional(db)
    .await?)
}

/// A judging worker's standing: judgments made, stopped by the gate, and whether no pair is left
/// for them (`judge_pairs_left`: a pair whose last slots other workers hold on a lease is still
/// left, so nobody completes for that reason while it may come back to them).
pub async fn judging_standing(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
) -> Result<Standing, AppError> {
    let r = sqlx::query!(
        r#"select coalesce(w.judgments, 0)::int8 as "items!",
                  coalesce(w.status = 'stopped' and not w.gate_overridden, false) as "stopped!",
                  not judge_pairs_left($1, $2) as "nothing_left!"
           from (select 1) one
           left join judge_worker w on w.campaign_id = $1 and w.app_user_id = $2"#,
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_one(db)
    .await?;
    Ok(Standing {
        items: r.items,
        stopped: r.stopped,
        nothing_left: r.nothing_left,
        ..Standing::default()
    })
}

/// A writing worker's standing: sentences submitted, the cap reached, and whether any source
/// sentence is one they have not been shown.
pub async fn writing_standing(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
) -> Result<Standing, AppError> {
    let r = sqlx::query!(
        r#"select (select count(*) from apt_submission s
                   where s.campaign_id = $1 and s.app_user_id = $2) as "items!",
                  coalesce((select w.completion_code is not null from apt_worker w
                            where w.campaign_id = $1 and w.app_user_id = $2), false) as "cap_reached!",
                  not exists (select 1 from source_sentence s
                              where s.campaign_id = $1
                                and not exists (select 1 from apt_assignment a
                                                where a.app_user_id = $2
                                                  and a.source_sentence_id = s.source_sentence_id
                                                  and a.status <> 'active'))
                    as "nothing_left!""#,
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_one(db)
    .await?;
    Ok(Standing {
        items: r.items,
        cap_reached: r.cap_reached,
        nothing_left: r.nothing_left,
        ..Standing::default()
    })
}

/// A worker's completion of a study.
#[derive(Debug, Clone)]
pub struct CompletionRow {
    /// Why (`completion::Reason` as stored).
    pub reason: String,
    /// Items made by then.
    pub items: i32,
    /// The code they were given.
    pub code: String,
    /// When.
    pub completed_at: time::OffsetDateTime,
    /// The platform's ids it went back with (the MTurk assignment it submitted).
    pub detail: Option<serde_json::Value>,
}

/// The worker's completion of `campaign`, if they completed it.
pub async fn find(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
) -> Result<Option<CompletionRow>, AppError> {
    Ok(sqlx::query_as!(
        CompletionRow,
        "select reason, items, code, completed_at, detail from study_completion
         where campaign_id = $1 and app_user_id = $2",
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_optional(db)
    .await?)
}

/// Records the completion unless one is already there; returns the one that stands (the first)
/// and whether this call wrote it.
pub async fn insert(
    db: &mut sqlx::PgConnection,
    campaign: CampaignId,
    user: UserId,
    reason: &str,
    items: i32,
    code: &str,
    detail: &serde_json::Value,
) -> Result<(CompletionRow, bool), AppError> {
    let written = sqlx::query!(
        "insert into study_completion (campaign_id, app_user_id, reason, items, code, detail)
         values ($1, $2, $3, $4, $5, $6) on conflict (campaign_id, app_user_id) do nothing",
        campaign as CampaignId,
        user as UserId,
        reason,
        items,
        code,
        detail,
    )
    .execute(&mut *db)
    .await?
    .rows_affected()
        == 1;
    let record = find(&mut *db, campaign, user)
        .await?
        .ok_or(AppError::Internal)?;
    Ok((record, written))
}

/// What a writing worker's Submits paid in `campaign`, in cents.
pub async fn submitted_cents(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select coalesce(sum(paid_cents), 0)::int8 as "c!" from apt_submission
           where campaign_id = $1 and app_user_id = $2"#,
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_one(db)
    .await?)
}

/// Items the worker made in `campaign`: judgments, or sentences submitted.
pub async fn items(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select (select n from study_items_row($1, $2) n) as "n!""#,
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_one(db)
    .await?)
}

/// Whether the worker completed `campaign`, and whether they may make no more items in it
/// (`study_item_limit_row`: the number its latest study information asks for, none once
/// completed; false for a worker who did not come through its link, or when it sets no number).
pub async fn work_state(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
) -> Result<(bool, bool), AppError> {
    let r = sqlx::query!(
        r#"select exists(select 1 from study_completion c
                         where c.campaign_id = $1 and c.app_user_id = $2) as "completed!",
                  coalesce((select l from study_item_limit_row($1, $2) l)
                           <= (select n from study_items_row($1, $2) n), false)
                    as "reached!""#,
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_one(db)
    .await?;
    Ok((r.completed, r.reached))
}
