//! Study links, platform accounts, arrivals, study information and consent.
use sqlx::PgExecutor;

use crate::domain::study::platform::Platform;
use crate::domain::{CampaignId, CampaignKind, CampaignStatus, UserId, UserStatus};
use crate::error::AppError;

/// A recruitment link with its campaign, as an arrival needs it.
#[derive(Debug, Clone)]
pub struct LinkRow {
    /// The link's id.
    pub study_link_id: uuid::Uuid,
    /// The campaign it recruits for.
    pub campaign_id: CampaignId,
    /// Which platform's parameters it reads.
    pub platform: Platform,
    /// The link's address part (`/s/SLUG`).
    pub slug: String,
    /// The researcher's name for it.
    pub label: String,
    /// How many workers it admits (none: no limit).
    pub max_workers: Option<i32>,
    /// When it stops admitting anyone.
    pub expires_at: Option<time::OffsetDateTime>,
    /// Paused by the researcher.
    pub paused: bool,
    /// Workers who arrived through it.
    pub workers: i32,
    /// When it was made.
    pub created_at: time::OffsetDateTime,
}

/// A link and the campaign it recruits for.
#[derive(Debug, Clone)]
pub struct LinkTarget {
    /// The link.
    pub link: LinkRow,
    /// The campaign's kind.
    pub kind: CampaignKind,
    /// The campaign's title.
    pub title: String,
    /// The campaign's status.
    pub status: CampaignStatus,
    /// Whether the link's deadline has passed (by the database's clock).
    pub expired: bool,
}

/// A link to create.
pub struct NewLink<'a> {
    /// Which platform's parameters it reads.
    pub platform: Platform,
    /// Its address part.
    pub slug: &'a str,
    /// The researcher's name for it.
    pub label: &'a str,
    /// How many workers it admits.
    pub max_workers: Option<i32>,
    /// After how many days it stops admitting anyone.
    pub expires_in_days: Option<i32>,
}

/// Inserts a link of `campaign`.
pub async fn insert_link(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    link: NewLink<'_>,
    by: UserId,
) -> Result<(), AppError> {
    sqlx::query!(
        r#"insert into study_link (campaign_id, platform, slug, label, max_workers, expires_at, created_by)
           values ($1, $2, $3, $4, $5, now() + make_interval(days => $6), $7)"#,
        campaign as CampaignId,
        link.platform.as_str(),
        link.slug,
        link.label,
        link.max_workers,
        link.expires_in_days,
        by as UserId,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// A campaign's links, oldest first.
pub async fn list_links(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<LinkRow>, AppError> {
    Ok(sqlx::query_as!(
        LinkRow,
        r#"select study_link_id, campaign_id as "campaign_id: _", platform as "platform: _", slug,
                  label, max_workers,
                  expires_at, paused, workers, created_at
           from study_link where campaign_id = $1 order by created_at, slug"#,
        campaign as CampaignId,
    )
    .fetch_all(db)
    .await?)
}

/// Pauses or resumes a link of `campaign`; false when there is no such link.
pub async fn set_paused(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    link: uuid::Uuid,
    paused: bool,
) -> Result<bool, AppError> {
    let done = sqlx::query!(
        "update study_link set paused = $3 where campaign_id = $1 and study_link_id = $2",
        campaign as CampaignId,
        link,
        paused,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The link with this slug and its campaign.
pub async fn find_target(
    db: impl PgExecutor<'_>,
    slug: &str,
) -> Result<Option<LinkTarget>, AppError> {
    let row = sqlx::query!(
        r#"select l.study_link_id, l.campaign_id as "campaign_id: CampaignId",
                  l.platform as "platform: Platform", l.slug,
                  l.label, l.max_workers, l.expires_at, l.paused, l.workers, l.created_at,
                  c.kind as "kind: CampaignKind", c.title, c.status as "status: CampaignStatus",
                  coalesce(l.expires_at <= now(), false) as "expired!"
           from study_link l join campaign c using (campaign_id)
           where l.slug = $1"#,
        slug,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| LinkTarget {
        link: LinkRow {
            study_link_id: r.study_link_id,
            campaign_id: r.campaign_id,
            platform: r.platform,
            slug: r.slug,
            label: r.label,
            max_workers: r.max_workers,
            expires_at: r.expires_at,
            paused: r.paused,
            workers: r.workers,
            created_at: r.created_at,
        },
        kind: r.kind,
        title: r.title,
        status: r.status,
        expired: r.expired,
    }))
}

/// Serialises arrivals of one platform id, whatever its case (two tabs opening the link at once
/// make one account).
pub async fn lock_external_id(
    db: impl PgExecutor<'_>,
    platform: Platform,
    external_id: &str,
) -> Result<(), AppError> {
    sqlx::query!(
        "select pg_advisory_xact_lock(hashtextextended('platform_account:' || $1 || ':' || lower($2), 0))",
        platform.as_str(),
        external_id,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The account of a platform id, whatever its case, and whether it may sign in.
pub async fn find_account(
    db: impl PgExecutor<'_>,
    platform: Platform,
    external_id: &str,
) -> Result<Option<(UserId, UserStatus)>, AppError> {
    Ok(sqlx::query!(
        r#"select u.app_user_id as "id: UserId", u.status as "status: UserStatus"
           from platform_account p join app_user u using (app_user_id)
           where p.platform = $1 and lower(p.external_id) = lower($2)
           order by p.created_at, p.app_user_id
           limit 1"#,
        platform.as_str(),
        external_id,
    )
    .fetch_optional(db)
    .await?
    .map(|r| (r.id, r.status)))
}

/// Creates an annotator account for a platform id (no password: `auth::NO_PASSWORD`).
pub async fn insert_account(
    db: &mut sqlx::PgConnection,
    platform: Platform,
    external_id: &str,
    username: &str,
) -> Result<UserId, AppError> {
    let id = crate::db::users::insert(
        &mut *db,
        username,
        crate::auth::NO_PASSWORD,
        crate::domain::Role::Annotator,
    )
    .await?;
    sqlx::query!(
        "insert into platform_account (platform, external_id, app_user_id) values ($1, $2, $3)",
        platform.as_str(),
        external_id,
        id as UserId,
    )
    .execute(&mut *db)
    .await?;
    Ok(id)
}

/// Records a later visit of a worker who already arrived in `campaign`, with the platform's ids
/// of this visit as the latest (the first arrival's stay beside them); false if they never did.
pub async fn touch_arrival(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
    detail: &serde_json::Value,
) -> Result<bool, AppError> {
    let done = sqlx::query!(
        "update study_arrival set last_seen_at = now(), latest_detail = $3
         where campaign_id = $1 and app_user_id = $2",
        campaign as CampaignId,
        user as UserId,
        detail,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Takes one of the link's places; false when it has none left (the row lock orders concurrent
/// arrivals, and each sees the count the one before it left).
pub async fn take_place(db: impl PgExecutor<'_>, link: uuid::Uuid) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar!(
        "update study_link set workers = workers + 1
         where study_link_id = $1 and (max_workers is null or workers < max_workers)
         returning workers",
        link,
    )
    .fetch_optional(db)
    .await?
    .is_some())
}

/// Records a worker's first arrival in `campaign` through `link`, with the platform's ids.
pub async fn insert_arrival(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
    link: uuid::Uuid,
    detail: &serde_json::Value,
) -> Result<(), AppError> {
    sqlx::query!(
        "insert into study_arrival (campaign_id, app_user_id, study_link_id, detail)
         values ($1, $2, $3, $4)",
        campaign as CampaignId,
        user as UserId,
        link,
        detail,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Records that `user` opened the campaign's link from `keys` (digested here, salted with the
/// campaign id; see `domain::study::visit`). Needs the worker's arrival row.
pub async fn record_visit(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
    keys: &crate::domain::study::visit::VisitKeys,
) -> Result<(), AppError> {
    sqlx::query!(
        "insert into study_visit (campaign_id, app_user_id, network, browser)
         select c, $2, sha256(convert_to(c::text || E'\\n' || $3, 'UTF8')),
                sha256(convert_to(c::text || E'\\n' || $4, 'UTF8'))
         from (select $1::uuid as c) as campaign
         on conflict (campaign_id, app_user_id, network, browser)
         do update set last_seen_at = now(), visits = study_visit.visits + 1",
        campaign as CampaignId,
        user as UserId,
        keys.network,
        keys.browser,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// The sets of two or more of the campaign's workers who opened its link from one network with
/// one browser signature.
pub async fn shared_visits(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<Vec<UserId>>, AppError> {
    let rows = sqlx::query_scalar!(
        r#"select array_agg(distinct app_user_id order by app_user_id) as "users!: Vec<uuid::Uuid>"
           from study_visit where campaign_id = $1
           group by network, browser having count(distinct app_user_id) > 1"#,
        campaign as CampaignId,
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|users| users.into_iter().map(UserId::from).collect())
        .collect())
}

/// A version of a campaign's study information.
#[derive(Debug, Clone)]
pub struct InfoRow {
    /// The version (1, 2, …).
    pub version: i32,
    /// What the task is.
    pub summary: String,
    /// Estimated minutes.
    pub minutes: Option<i32>,
    /// The pay, in the researcher's words.
    pub pay: String,
    /// The consent text (empty: none asked).
    pub consent_text: String,
    /// The completion code (empty: none).
    pub completion_code: String,
    /// The worker is done after this many items (none: no such rule).
    pub complete_after: Option<i32>,
    /// The platform's fixed reward for a completed study.
    pub base_pay_cents: i32,
    /// The bonus per judgment, in thousandths of a dollar.
    pub judgment_pay_mills: i32,
    /// The lowest hourly rate the study pays (none: no minimum).
    pub min_hourly_cents: Option<i32>,
    /// When this version was saved.
    pub created_at: time::OffsetDateTime,
}

/// The campaign's latest study information, if any was written.
pub async fn latest_info(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Option<InfoRow>, AppError> {
    Ok(sqlx::query_as!(
        InfoRow,
        "select version, summary, minutes, pay, consent_text, completion_code, complete_after,
                base_pay_cents, judgment_pay_mills, min_hourly_cents, created_at
         from study_info where campaign_id = $1 order by version desc limit 1",
        campaign as CampaignId,
    )
    .fetch_optional(db)
    .await?)
}

/// A version of the study information to save.
pub struct NewInfo<'a> {
    /// What the task is.
    pub summary: &'a str,
    /// Estimated minutes.
    pub minutes: Option<i32>,
    /// The pay, in the researcher's words.
    pub pay: &'a str,
    /// The consent text (empty: none asked).
    pub consent_text: &'a str,
    /// The completion code (empty: none).
    pub completion_code: &'a str,
    /// The worker is done after this many items (none: no such rule).
    pub complete_after: Option<i32>,
    /// The platform's fixed reward for a completed study.
    pub base_pay_cents: i32,
    /// The bonus per judgment, in thousandths of a dollar.
    pub judgment_pay_mills: i32,
    /// The lowest hourly rate the study pays (none: no minimum).
    pub min_hourly_cents: Option<i32>,
}

/// Saves a new version (one more than the latest; the campaign row is locked meanwhile so two
/// saves get two versions). Returns the version.
pub async fn insert_info(
    db: &mut sqlx::PgConnection,
    campaign: CampaignId,
    info: NewInfo<'_>,
    by: UserId,
) -> Result<i32, AppError> {
    sqlx::query!(
        "select 1 as one from campaign where campaign_id = $1 for update",
        campaign as CampaignId
    )
    .fetch_optional(&mut *db)
    .await?
    .ok_or(AppError::NotFound)?;
    Ok(sqlx::query_scalar!(
        r#"insert into study_info (campaign_id, version, summary, minutes, pay, consent_text,
                                   completion_code, created_by, complete_after, base_pay_cents,
                                   judgment_pay_mills, min_hourly_cents)
           select $1, coalesce(max(version), 0) + 1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
           from study_info where campaign_id = $1
           returning version"#,
        campaign as CampaignId,
        info.summary,
        info.minutes,
        info.pay,
        info.consent_text,
        info.completion_code,
        by as UserId,
        info.complete_after,
        info.base_pay_cents,
        info.judgment_pay_mills,
        info.min_hourly_cents,
    )
    .fetch_one(&mut *db)
    .await?)
}

/// The worker's decision on this version of the consent text, if they made one.
pub async fn consent(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    version: i32,
    user: UserId,
) -> Result<Option<bool>, AppError> {
    Ok(sqlx::query_scalar!(
        "select agreed from study_consent
         where campaign_id = $1 and version = $2 and app_user_id = $3",
        campaign as CampaignId,
        version,
        user as UserId,
    )
    .fetch_optional(db)
    .await?)
}

/// Records (or replaces) the worker's decision on a version.
pub async fn record_consent(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    version: i32,
    user: UserId,
    agreed: bool,
) -> Result<(), AppError> {
    sqlx::query!(
        "insert into study_consent (campaign_id, version, app_user_id, agreed) values ($1, $2, $3, $4)
         on conflict (campaign_id, version, app_user_id)
         do update set agreed = excluded.agreed, decided_at = now()",
        campaign as CampaignId,
        version,
        user as UserId,
        agreed,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Removes a worker's arrival in `campaign` and gives its place back to its link.
pub async fn withdraw_arrival(
    db: &mut sqlx::PgConnection,
    campaign: CampaignId,
    user: UserId,
) -> Result<(), AppError> {
    let link = sqlx::query_scalar!(
        "delete from study_arrival where campaign_id = $1 and app_user_id = $2
         returning study_link_id",
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_optional(&mut *db)
    .await?;
    if let Some(link) = link {
        sqlx::query!(
            "update study_link set workers = workers - 1 where study_link_id = $1 and workers > 0",
            link,
        )
        .execute(&mut *db)
        .await?;
    }
    Ok(())
}

/// Whether the worker arrived in the campaign through a study link.
pub async fn arrived(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    user: UserId,
) -> Result<bool, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select exists(select 1 from study_arrival where campaign_id = $1 and app_user_id = $2) as "e!""#,
        campaign as CampaignId,
        user as UserId,
    )
    .fetch_one(db)
    .await?)
}

/// An open campaign with its latest study information, as a visitor's home page lists it.
#[derive(Debug, Clone)]
pub struct OpenStudyRow {
    /// The campaign's kind.
    pub kind: CampaignKind,
    /// Its title.
    pub title: String,
    /// What the task is (empty: none written).
    pub summary: String,
    /// Estimated minutes.
    pub minutes: Option<i32>,
    /// The pay, in the researcher's words.
    pub pay: String,
}

/// Open campaigns whose researcher wrote study information (the opt-in to be listed for
/// visitors), newest first, with its latest version (at most 50).
pub async fn open_studies(db: impl PgExecutor<'_>) -> Result<Vec<OpenStudyRow>, AppError> {
    Ok(sqlx::query_as!(
        OpenStudyRow,
        r#"select c.kind as "kind: CampaignKind", c.title,
                  coalesce(i.summary, '') as "summary!", i.minutes as "minutes?",
                  coalesce(i.pay, '') as "pay!"
           from campaign c
           join lateral (select s.summary, s.minutes, s.pay from study_info s
                         where s.campaign_id = c.campaign_id
                         order by s.version desc limit 1) i on true
           where c.status = 'open'
           order by c.created_at desc, c.campaign_id
           limit 50"#,
    )
    .fetch_all(db)
    .await?)
}
