//! MTurk links connected to their HITs, and the bonuses of a batch sent through MTurk one
//! worker at a time (`mturk_bonus`: each taken by one request before its call).
use sqlx::PgExecutor;

use crate::domain::{CampaignId, UserId};
use crate::error::AppError;

/// A campaign's MTurk link with its connection, if it has one.
#[derive(Debug, Clone)]
pub struct MturkLinkRow {
    /// The link.
    pub study_link_id: uuid::Uuid,
    /// The researcher's name for it.
    pub label: String,
    /// Its address part.
    pub slug: String,
    /// The connected HITs, if any.
    pub hit_ids: Option<Vec<String>>,
    /// Whether they are in the sandbox.
    pub sandbox: Option<bool>,
    /// HIT ids that workers' links carried (`hitId`), the most often carried first.
    pub seen_hit_ids: Vec<String>,
    /// Whether most workers came from the sandbox (`turkSubmitTo`); none before any came.
    pub seen_sandbox: Option<bool>,
}

/// Every MTurk link of `campaign`, oldest first.
pub async fn mturk_links(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<MturkLinkRow>, AppError> {
    Ok(sqlx::query_as!(
        MturkLinkRow,
        r#"select l.study_link_id, l.label, l.slug, c.hit_ids as "hit_ids?", c.sandbox as "sandbox?",
                  array(select s.id from (
                      select v.d #>> '{Mturk,hit_id}' as id, count(*) as n
                      from study_arrival a,
                           lateral (values (a.detail), (a.latest_detail)) v(d)
                      where a.study_link_id = l.study_link_id
                        and v.d #>> '{Mturk,hit_id}' is not null
                      group by 1 order by 2 desc, 1 limit 20) s) as "seen_hit_ids!",
                  (select case when count(*) = 0 then null
                               else count(*) filter (where a.detail #>> '{Mturk,submit_to}' like '%workersandbox%')
                                    > count(*) / 2 end
                   from study_arrival a where a.study_link_id = l.study_link_id) as "seen_sandbox?"
           from study_link l
           left join mturk_connection c using (study_link_id)
           where l.campaign_id = $1 and l.platform = 'mturk'
           order by l.created_at, l.slug"#,
        campaign as CampaignId,
    )
    .fetch_all(db)
    .await?)
}

/// Connects the MTurk link `link` of `campaign` to the HITs `hit_ids`. False when the campaign
/// has no such MTurk link.
pub async fn connect_mturk(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    link: uuid::Uuid,
    hit_ids: &[String],
    sandbox: bool,
    by: UserId,
) -> Result<bool, AppError> {
    let r = sqlx::query!(
        r#"insert into mturk_connection (study_link_id, hit_ids, sandbox, updated_by)
           select l.study_link_id, $3, $4, $5 from study_link l
           where l.study_link_id = $2 and l.campaign_id = $1 and l.platform = 'mturk'
           on conflict (study_link_id) do update
             set hit_ids = excluded.hit_ids, sandbox = excluded.sandbox,
                 updated_by = excluded.updated_by, updated_at = now()"#,
        campaign as CampaignId,
        link,
        hit_ids,
        sandbox,
        by as UserId,
    )
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// The HITs the MTurk link `link` of `campaign` is connected to, and whether in the sandbox.
pub async fn mturk_connection(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    link: uuid::Uuid,
) -> Result<Option<(Vec<String>, bool)>, AppError> {
    Ok(sqlx::query!(
        r#"select c.hit_ids, c.sandbox from mturk_connection c join study_link l using (study_link_id)
           where l.study_link_id = $2 and l.campaign_id = $1"#,
        campaign as CampaignId,
        link,
    )
    .fetch_optional(db)
    .await?
    .map(|r| (r.hit_ids, r.sandbox)))
}

/// One worker of a batch as MTurk pays them: their ids there and where their bonus stands.
#[derive(Debug, Clone)]
pub struct BonusItemRow {
    /// The worker.
    pub app_user_id: uuid::Uuid,
    /// What the batch owes them, in cents.
    pub amount_cents: i32,
    /// Their MTurk worker id (their id through the link); none for a worker without a
    /// platform account.
    pub worker_id: Option<String>,
    /// The assignment their bonus is sent against: the one their completion went back with,
    /// else their latest one.
    pub assignment_id: Option<String>,
    /// The link they arrived through.
    pub study_link_id: Option<uuid::Uuid>,
    /// Their platform (`mturk` for an MTurk worker).
    pub platform: Option<String>,
    /// `sending`, `sent`, `refused` or `unknown`; none before the first attempt.
    pub state: Option<String>,
    /// MTurk's message of the last refusal or failure.
    pub detail: Option<String>,
}

/// Every worker of the batch `batch` of `campaign`, by worker id.
pub async fn bonus_items(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    batch: uuid::Uuid,
) -> Result<Vec<BonusItemRow>, AppError> {
    Ok(sqlx::query_as!(
        BonusItemRow,
        r#"select i.app_user_id, i.amount_cents, p.external_id as "worker_id?", p.platform as "platform?",
                  coalesce(c.detail, a.latest_detail, a.detail) #>> '{Mturk,assignment_id}' as "assignment_id?",
                  a.study_link_id as "study_link_id?",
                  m.state as "state?", m.detail as "detail?"
           from payment_item i
           join payment_batch b using (batch_id)
           left join platform_account p on p.app_user_id = i.app_user_id
           left join study_arrival a
             on a.campaign_id = b.campaign_id and a.app_user_id = i.app_user_id
           left join study_completion c
             on c.campaign_id = b.campaign_id and c.app_user_id = i.app_user_id
           left join mturk_bonus m on m.batch_id = i.batch_id and m.app_user_id = i.app_user_id
           where i.batch_id = $1 and b.campaign_id = $2
           order by p.external_id, i.app_user_id"#,
        batch,
        campaign as CampaignId,
    )
    .fetch_all(db)
    .await?)
}

/// How a campaign's batches stand on MTurk: per batch, workers by state.
#[derive(Debug, Clone)]
pub struct BatchSendsRow {
    /// The batch.
    pub batch_id: uuid::Uuid,
    /// Bonuses MTurk accepted.
    pub sent: i64,
    /// Their amount, in cents.
    pub sent_cents: i64,
    /// Bonuses MTurk refused (nothing paid).
    pub refused: i64,
    /// Bonuses without an answer.
    pub unknown: i64,
    /// Bonuses being sent (or whose server stopped).
    pub sending: i64,
    /// The last refusal or failure, for the page.
    pub last_detail: String,
}

/// The MTurk bonuses of `campaign`'s batches that have any.
pub async fn batch_sends(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Vec<BatchSendsRow>, AppError> {
    Ok(sqlx::query_as!(
        BatchSendsRow,
        r#"select m.batch_id,
                  count(*) filter (where m.state = 'sent') as "sent!",
                  coalesce(sum(m.amount_cents) filter (where m.state = 'sent'), 0)::int8 as "sent_cents!",
                  count(*) filter (where m.state = 'refused') as "refused!",
                  count(*) filter (where m.state = 'unknown') as "unknown!",
                  count(*) filter (where m.state = 'sending') as "sending!",
                  coalesce((array_agg(m.detail order by m.last_sent_at desc)
                            filter (where m.detail <> ''))[1], '') as "last_detail!"
           from mturk_bonus m join payment_batch b using (batch_id)
           where b.campaign_id = $1
           group by m.batch_id"#,
        campaign as CampaignId,
    )
    .fetch_all(db)
    .await?)
}

/// Locks the batch `batch` of `campaign` against a bonus being taken meanwhile and says whether
/// it is unpaid; `None` when the campaign has no such batch.
pub async fn share_batch(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    batch: uuid::Uuid,
) -> Result<Option<bool>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select paid_at is null as "unpaid!" from payment_batch
           where batch_id = $1 and campaign_id = $2 for share"#,
        batch,
        campaign as CampaignId,
    )
    .fetch_optional(db)
    .await?)
}

/// Locks the batch `batch` for a change by hand (a discard, a payment marked) and counts its
/// MTurk bonuses that may have paid: being sent, sent, or without an answer. A bonus taken
/// before the lock is counted; none can be taken while it is held.
pub async fn lock_batch_sends(
    db: &mut sqlx::PgConnection,
    batch: uuid::Uuid,
) -> Result<(i64, i64), AppError> {
    sqlx::query!(
        "select 1 as one from payment_batch where batch_id = $1 for update",
        batch
    )
    .fetch_optional(&mut *db)
    .await?;
    let r = sqlx::query!(
        r#"select count(*) filter (where state in ('sending', 'unknown')) as "unsure!",
                  count(*) filter (where state = 'sent') as "sent!"
           from mturk_bonus where batch_id = $1"#,
        batch,
    )
    .fetch_one(&mut *db)
    .await?;
    Ok((r.unsure, r.sent))
}

/// A bonus as taken for one attempt: what to send (as first recorded) and the attempt's mark.
#[derive(Debug, Clone)]
pub struct Taken {
    /// The worker's MTurk id.
    pub worker_id: String,
    /// The assignment the bonus is sent against.
    pub assignment_id: String,
    /// The bonus, in cents.
    pub amount_cents: i32,
    /// What the worker reads with it.
    pub reason: String,
    /// MTurk's `UniqueRequestToken`.
    pub request_token: String,
    /// 1 for the first attempt; more when an earlier one was refused, gave no answer or its
    /// server stopped (then MTurk's list is read before anything is sent).
    pub attempts: i32,
    /// When this attempt started: its outcome is recorded only against it.
    pub started: time::OffsetDateTime,
}

/// What to send for one worker's bonus.
#[derive(Debug, Clone)]
pub struct NewBonus<'a> {
    /// The batch.
    pub batch: uuid::Uuid,
    /// The worker here.
    pub app_user_id: uuid::Uuid,
    /// The MTurk link they came through.
    pub link: uuid::Uuid,
    /// Their MTurk id.
    pub worker_id: &'a str,
    /// The assignment the bonus is sent against.
    pub assignment_id: &'a str,
    /// The bonus, in cents.
    pub amount_cents: i32,
    /// What the worker reads with it.
    pub reason: &'a str,
    /// MTurk's `UniqueRequestToken`.
    pub request_token: &'a str,
}

/// Takes one worker's bonus for an attempt, in one statement: the first time it is recorded as
/// `sending`; later, only from `refused`, `unknown` or a `sending` older than `stale_secs`, and
/// with what was first recorded (the same assignment, amount, reason and token). `None` when it
/// is sent, or being sent by another request. Run it after [`share_batch`] in one transaction.
pub async fn take_bonus(
    db: impl PgExecutor<'_>,
    b: &NewBonus<'_>,
    stale_secs: f64,
) -> Result<Option<Taken>, AppError> {
    Ok(sqlx::query_as!(
        Taken,
        r#"insert into mturk_bonus as m
             (batch_id, app_user_id, study_link_id, worker_id, assignment_id, amount_cents, reason,
              request_token, state)
           values ($1, $2, $3, $4, $5, $6, $7, $8, 'sending')
           on conflict (batch_id, app_user_id) do update
             set state = 'sending', attempts = m.attempts + 1, detail = '',
                 last_sent_at = clock_timestamp()
             where m.state in ('refused', 'unknown')
                or (m.state = 'sending' and m.last_sent_at < now() - make_interval(secs => $9))
           returning m.worker_id, m.assignment_id, m.amount_cents, m.reason, m.request_token,
                     m.attempts, m.last_sent_at as started"#,
        b.batch,
        b.app_user_id,
        b.link,
        b.worker_id,
        b.assignment_id,
        b.amount_cents,
        b.reason,
        b.request_token,
        stale_secs,
    )
    .fetch_optional(db)
    .await?)
}

/// Records what came of the attempt that started at `started` (`sent`, `refused` or
/// `unknown`); once every worker of the batch is sent, the batch is marked paid by `by`.
/// False when the attempt was overtaken (its server was taken for stopped).
pub async fn end_bonus(
    db: &mut sqlx::PgConnection,
    batch: uuid::Uuid,
    app_user_id: uuid::Uuid,
    started: time::OffsetDateTime,
    state: &str,
    detail: &str,
    by: UserId,
) -> Result<bool, AppError> {
    // The batch first (as a bonus is taken: `share_batch` then the bonus), so that one request
    // at a time asks whether the batch is complete: two finishing its last two workers at once
    // would each see the other's still `sending`.
    sqlx::query!(
        "select 1 as one from payment_batch where batch_id = $1 for update",
        batch
    )
    .fetch_optional(&mut *db)
    .await?;
    let changed = sqlx::query!(
        r#"update mturk_bonus set state = $4, detail = $5
           where batch_id = $1 and app_user_id = $2 and state = 'sending' and last_sent_at = $3"#,
        batch,
        app_user_id,
        started,
        state,
        detail,
    )
    .execute(&mut *db)
    .await?
    .rows_affected()
        == 1;
    if changed && state == "sent" {
        sqlx::query!(
            r#"update payment_batch b set paid_at = now(), paid_by = $2
               where b.batch_id = $1 and b.paid_at is null
                 and not exists (
                     select 1 from payment_item i
                     left join mturk_bonus m using (batch_id, app_user_id)
                     where i.batch_id = $1 and m.state is distinct from 'sent')"#,
            batch,
            by as UserId,
        )
        .execute(&mut *db)
        .await?;
    }
    Ok(changed)
}
