//! Running a study's Prolific side from the payments page: a Prolific link connected to its
//! study, the connection tested with one read, the study's submissions reconciled with
//! paracrowd's completions (`domain::study::reconcile`), and the approvable ones approved in
//! one call, recorded before it is made and after it is answered.
use sqlx::PgPool;

use crate::db::platform_calls as calls;
use crate::db::prolific as db;
use crate::domain::study::platform::ExternalId;
use crate::domain::study::reconcile::{self, SubmissionStatus, Worker};
use crate::domain::BatchId;
use crate::domain::{CampaignId, PlatformCallId, StudyLinkId, UserId};
use crate::dto::platforms::{
    ApproveOutcome, BonusBatchView, BonusState, BulkBonusView, CallView, ProlificLinkView,
    ProlificView, ReconcileRow, ReconcileView,
};
use crate::error::AppError;
use crate::prolific::{CallError, Client};

/// The client, or the error a page shows when the server has no token.
fn client(client: Option<&Client>) -> Result<&Client, AppError> {
    client.ok_or_else(|| {
        AppError::Conflict(
            "This server has no Prolific API token: set PARACROWD_PROLIFIC_TOKEN (or PARACROWD_PROLIFIC_TOKEN_FILE) and restart it.".into(),
        )
    })
}

fn platform_error(e: CallError) -> AppError {
    AppError::Platform(e.to_string())
}

/// A recorded call in words, on the platform of its link.
pub(super) fn call_view(c: calls::CallRow) -> CallView {
    let (name, things) = if c.platform == "mturk" {
        ("MTurk", "assignment")
    } else {
        ("Prolific", "submission")
    };
    let what = match c.action.as_str() {
        "approve" => format!(
            "Approve {} {things}{}",
            c.targets,
            if c.targets == 1 { "" } else { "s" }
        ),
        "reject" => format!("Reject {things} {}", c.first_target),
        other => other.to_owned(),
    };
    let outcome = match c.outcome.as_deref() {
        Some("done") => format!("Accepted by {name}"),
        Some("partly") => format!("Partly accepted by {name}: {}", c.detail),
        Some("refused") => format!("Refused, nothing changed: {}", c.detail),
        Some("unknown") => format!(
            "No answer ({}): it may or may not have happened; reconcile to see",
            c.detail
        ),
        _ => "Being made (or the server stopped while making it): reconcile to see".to_owned(),
    };
    CallView {
        call_id: PlatformCallId(c.call_id),
        made_at: super::rfc3339(c.made_at),
        what,
        outcome,
        done: c.outcome.as_deref() == Some("done"),
    }
}

/// A recorded call's outcome: `done`; `refused` when Prolific answered no (a 4xx: nothing
/// changed); `unknown` without an answer or on a 5xx (a gateway's error can come after
/// Prolific acted).
fn outcome_of(result: &Result<(), CallError>) -> (&'static str, String) {
    match result {
        Ok(()) => ("done", String::new()),
        Err(e @ CallError::Refused { status, .. }) if *status < 500 => ("refused", e.to_string()),
        Err(e) => ("unknown", e.to_string()),
    }
}

/// The campaign's Prolific section.
pub async fn view(
    pool: &PgPool,
    prolific: Option<&Client>,
    campaign: CampaignId,
) -> Result<ProlificView, AppError> {
    let mut conn = pool.acquire().await?;
    crate::db::campaigns::find(&mut *conn, campaign)
        .await?
        .ok_or(AppError::NotFound)?;
    let links = db::prolific_links(&mut *conn, campaign)
        .await?
        .into_iter()
        .map(|l| ProlificLinkView {
            approve_call_id: PlatformCallId(uuid::Uuid::new_v4()),
            study_link_id: StudyLinkId(l.study_link_id),
            label: if l.label.is_empty() { l.slug } else { l.label },
            study_id: l.study_id,
            seen_study_ids: l.seen_study_ids,
        })
        .collect();
    let calls = calls::calls(&mut *conn, campaign, "prolific")
        .await?
        .into_iter()
        .map(call_view)
        .collect();
    let mut bonuses: std::collections::HashMap<uuid::Uuid, db::BonusRow> =
        db::bonuses(&mut *conn, campaign)
            .await?
            .into_iter()
            .map(|b| (b.batch_id, b))
            .collect();
    let batches = crate::db::payments::list_batches(&mut *conn, campaign)
        .await?
        .into_iter()
        .map(|b| BonusBatchView {
            batch_id: BatchId(b.batch_id),
            created_at: super::rfc3339(b.created_at),
            workers: b.workers,
            total_cents: b.total_cents,
            paid: b.paid_at.is_some(),
            bonus: bonuses.remove(&b.batch_id).map(|p| BulkBonusView {
                amount_cents: p.amount_cents,
                fees_cents: p.fees_cents,
                total_cents: p.total_cents,
                state: BonusState::parse(&p.state),
                detail: p.detail,
                settle_by_hand: p.unsure,
            }),
        })
        .collect();
    Ok(ProlificView {
        token_configured: prolific.is_some(),
        links,
        calls,
        batches,
    })
}

/// Connects the Prolific link `link` to the study `study_id` (checked as an id, not yet with
/// Prolific: "Test" does that).
pub async fn connect(
    pool: &PgPool,
    campaign: CampaignId,
    link: StudyLinkId,
    study_id: &str,
    by: UserId,
) -> Result<(), AppError> {
    let id = ExternalId::parse("study_id", study_id.trim())
        .map_err(|e| AppError::validation("study_id", e.to_string()))?;
    if db::connect_prolific(pool, campaign, link.0, id.as_str(), by).await? {
        Ok(())
    } else {
        Err(AppError::NotFound)
    }
}

async fn connected_study(
    pool: &PgPool,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<String, AppError> {
    db::prolific_study(pool, campaign, link.0)
        .await?
        .ok_or_else(|| AppError::Conflict("Connect this link to its Prolific study first.".into()))
}

/// Tests the connection of `link` with one read of its study; says what Prolific answered.
pub async fn test(
    pool: &PgPool,
    prolific: Option<&Client>,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<String, AppError> {
    let c = client(prolific)?;
    let study = connected_study(pool, campaign, link).await?;
    let s = c.study(&study).await.map_err(platform_error)?;
    Ok(format!(
        "Connected: Prolific study “{}” ({}), status {}.",
        s.name,
        s.id,
        if s.status.is_empty() {
            "not given"
        } else {
            &s.status
        }
    ))
}

async fn table(
    pool: &PgPool,
    c: &Client,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<(String, Vec<reconcile::Row>), AppError> {
    let study = connected_study(pool, campaign, link).await?;
    let submissions = c.submissions(&study).await.map_err(platform_error)?;
    // Read after the platform: a worker who completes meanwhile shows as not yet submitted
    // there rather than as a code without the work.
    let workers = link_workers(pool, campaign, link).await?;
    Ok((study, reconcile::reconcile(&workers, &submissions)))
}

/// The workers who arrived through `link`, as the reconciliation reads them.
pub(super) async fn link_workers(
    pool: &PgPool,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<Vec<Worker>, AppError> {
    Ok(db::link_workers(pool, campaign, link.0)
        .await?
        .into_iter()
        .map(|w| Worker {
            participant: w.external_id,
            completed: w.completed,
            completed_with: w.completed_with,
        })
        .collect())
}

/// The call `call` if it was made already (a double click, a second tab): it is reported, not
/// made again. A call of another link is refused.
pub(super) async fn made_already(
    pool: &PgPool,
    campaign: CampaignId,
    link: StudyLinkId,
    call: PlatformCallId,
) -> Result<Option<calls::CallRow>, AppError> {
    match calls::find_call(pool, campaign, call.0).await? {
        Some(made) if made.study_link_id != link.0 => Err(AppError::Conflict(
            "That form belongs to another link: reload the page.".into(),
        )),
        made => Ok(made),
    }
}

/// The reconciliation table of `link`.
pub async fn reconcile(
    pool: &PgPool,
    prolific: Option<&Client>,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<ReconcileView, AppError> {
    let c = client(prolific)?;
    let (study_id, rows) = table(pool, c, campaign, link).await?;
    Ok(reconcile_view(link, study_id, rows))
}

/// The reconciliation table as the page shows it (a rejection form's id on each submission
/// awaiting review).
pub(super) fn reconcile_view(
    link: StudyLinkId,
    study_id: String,
    rows: Vec<reconcile::Row>,
) -> ReconcileView {
    let approvable = reconcile::approvable(&rows).len() as u32;
    let attention = rows.iter().filter(|r| r.standing.needs_attention()).count() as u32;
    let rows = rows
        .into_iter()
        .map(|r| {
            let awaiting = r
                .submission
                .as_ref()
                .is_some_and(|s| s.status == SubmissionStatus::AwaitingReview);
            ReconcileRow {
                status: r
                    .submission
                    .as_ref()
                    .map(|s| s.status.label().to_owned())
                    .unwrap_or_default(),
                submission_id: r.submission.map(|s| s.id),
                here: match r.here {
                    None => "never arrived",
                    Some(true) => "completed",
                    Some(false) => "not completed",
                }
                .to_owned(),
                meaning: r.standing.explain().to_owned(),
                reject_call_id: awaiting.then(|| PlatformCallId(uuid::Uuid::new_v4())),
                standing: r.standing,
                participant: r.participant,
            }
        })
        .collect();
    ReconcileView {
        study_link_id: link,
        study_id,
        rows,
        approvable,
        attention,
    }
}

/// Approves, in one call, every submission of `link` that is awaiting review on Prolific and
/// whose worker completed here, as the table stands now. The call is recorded under `call`
/// before it is made; the same `call` sent again (a double click, a second tab) reports the
/// recorded call and makes none.
pub async fn approve(
    pool: &PgPool,
    prolific: Option<&Client>,
    campaign: CampaignId,
    link: StudyLinkId,
    call: PlatformCallId,
    by: UserId,
) -> Result<ApproveOutcome, AppError> {
    let c = client(prolific)?;
    if let Some(made) = made_already(pool, campaign, link, call).await? {
        let v = call_view(made.clone());
        return Ok(ApproveOutcome {
            approved: made.targets.max(0) as u32,
            message: format!("{}: {}", v.what, v.outcome),
            repeated: true,
        });
    }
    let (_, rows) = table(pool, c, campaign, link).await?;
    let ids = reconcile::approvable(&rows);
    if ids.is_empty() {
        return Ok(ApproveOutcome {
            approved: 0,
            message: "Nothing to approve: no submission awaiting review there belongs to a worker who completed here.".into(),
            repeated: false,
        });
    }
    if !calls::begin_call(pool, call.0, link.0, "approve", &ids, by).await? {
        // Another request with this id got there between the two reads.
        return Err(AppError::Conflict(
            "This approval is already being made (another tab?). Reload to see it.".into(),
        ));
    }
    let result = c.bulk_approve(&ids).await;
    let (outcome, detail) = outcome_of(&result);
    calls::end_call(pool, call.0, outcome, &detail).await?;
    result.map_err(platform_error)?;
    let n = ids.len() as u32;
    Ok(ApproveOutcome {
        approved: n,
        message: format!(
            "Prolific accepted the approval of {n} submission{}; it approves them in the background (reconcile in a minute to see them approved).",
            if n == 1 { "" } else { "s" }
        ),
        repeated: false,
    })
}

/// A server that stopped while paying leaves the bonus `paying`; after this long the researcher
/// may say what Prolific shows, as after no answer (well past any call's timeout).
pub const STALE_PAYING_SECS: f64 = 900.0;

fn cents(x: f64) -> Result<i32, AppError> {
    if x.is_finite() && (0.0..1e9).contains(&x) {
        Ok(x.round() as i32)
    } else {
        Err(AppError::Platform(format!(
            "Prolific's answer could not be read: an amount of {x}"
        )))
    }
}

/// Sets up the batch `batch` as a bulk bonus of the study `link` is connected to, from the
/// batch's Prolific file; Prolific answers with its amount and fees, and nothing is paid yet.
/// Every worker in the batch must have come through `link`.
pub async fn set_up_bonus(
    pool: &PgPool,
    prolific: Option<&Client>,
    campaign: CampaignId,
    batch: BatchId,
    link: StudyLinkId,
) -> Result<(), AppError> {
    let c = client(prolific)?;
    let study = connected_study(pool, campaign, link).await?;
    let made = crate::db::payments::find_batch(pool, batch.0)
        .await?
        .filter(|b| b.campaign_id == campaign)
        .ok_or(AppError::NotFound)?;
    if made.paid_at.is_some() {
        return Err(AppError::Conflict(
            "This batch is marked paid already.".into(),
        ));
    }
    if db::bonus(pool, campaign, batch.0).await?.is_some() {
        return Ok(());
    }
    let elsewhere = db::batch_workers_elsewhere(pool, batch.0, link.0).await?;
    if elsewhere > 0 {
        return Err(AppError::Conflict(format!(
            "{elsewhere} worker(s) in this batch did not come through this Prolific link; pay this batch with its files."
        )));
    }
    let (_, csv) = super::payments::bonus_file(
        pool,
        batch,
        crate::domain::study::bonus_files::BonusFile::Prolific,
    )
    .await?;
    let made = c.set_up_bonus(&study, &csv).await.map_err(platform_error)?;
    let id = ExternalId::parse("id", &made.id).map_err(|_| {
        AppError::Platform("Prolific's answer could not be read: a bonus id".into())
    })?;
    let amounts = [
        cents(made.amount)?,
        cents(made.fees)?,
        cents(made.total_amount)?,
    ];
    // Another tab's bonus may have been recorded meanwhile; then this one is never paid.
    db::insert_bonus(pool, batch.0, link.0, id.as_str(), amounts).await?;
    Ok(())
}

/// Pays the batch's bulk bonus on Prolific, at most once: the right to pay is taken in the
/// database before the call, and after no answer the bonus is never paid again from here unless
/// the researcher says Prolific did not pay it. The batch is marked paid on Prolific's answer.
pub async fn pay_bonus(
    pool: &PgPool,
    prolific: Option<&Client>,
    campaign: CampaignId,
    batch: BatchId,
    by: UserId,
) -> Result<String, AppError> {
    let c = client(prolific)?;
    let Some((bonus_id, started)) = db::start_paying(pool, campaign, batch.0).await? else {
        let now = db::bonus(pool, campaign, batch.0).await?;
        return Err(AppError::Conflict(match now.map(|b| BonusState::parse(&b.state)) {
            None => "Set up this batch on Prolific first.".into(),
            Some(BonusState::Paid) => "This bonus is paid already.".into(),
            Some(BonusState::Paying) => "This bonus is being paid (another tab or server?).".into(),
            Some(BonusState::Unknown) => "Prolific did not answer when this bonus was paid, so it may be paid: it is not sent again until you say what Prolific shows.".into(),
            Some(BonusState::Created) => "This batch is marked paid already.".into(),
        }));
    };
    let result = c.pay_bonus(&bonus_id).await;
    let (state, detail) = match &result {
        Ok(()) => ("paid", String::new()),
        // Prolific answered that it did not take it: nothing was paid, it may be tried again.
        Err(e @ CallError::Refused { status, .. }) if *status < 500 => ("created", e.to_string()),
        // No answer, or a server error: it may have paid.
        Err(e) => ("unknown", e.to_string()),
    };
    let mut tx = pool.begin().await?;
    let recorded = db::end_paying(&mut tx, batch.0, started, state, &detail, by).await?;
    tx.commit().await?;
    result.map_err(platform_error)?;
    if !recorded {
        // Only when the researcher settled this attempt meanwhile (after 15 minutes).
        return Err(AppError::Conflict(
            "Prolific accepted the payment, but this attempt had been settled by hand meanwhile: check the bonuses on Prolific.".into(),
        ));
    }
    Ok("Prolific accepted the payment; it pays the bonuses in the next minutes. The batch is marked paid.".into())
}

/// What the researcher saw on Prolific for a bonus whose payment gave no answer: `paid` marks
/// it (and the batch) paid; otherwise it may be paid again.
pub async fn resolve_bonus(
    pool: &PgPool,
    campaign: CampaignId,
    batch: BatchId,
    paid: bool,
    by: UserId,
) -> Result<(), AppError> {
    db::bonus(pool, campaign, batch.0)
        .await?
        .ok_or(AppError::NotFound)?;
    let mut tx = pool.begin().await?;
    let changed = db::resolve_unsure(
        &mut tx,
        batch.0,
        STALE_PAYING_SECS,
        if paid { "paid" } else { "created" },
        by,
    )
    .await?;
    tx.commit().await?;
    if changed {
        Ok(())
    } else {
        Err(AppError::Conflict(
            "This bonus is not waiting for your word: reload to see where it stands.".into(),
        ))
    }
}

/// Rejects one submission of `link`'s study, which must be awaiting review there as Prolific
/// lists it now, with a category and a message for the participant (`reconcile::rejection`).
/// Recorded under `call` before it is made; the same `call` again reports it and makes none.
#[allow(clippy::too_many_arguments)]
pub async fn reject(
    pool: &PgPool,
    prolific: Option<&Client>,
    campaign: CampaignId,
    link: StudyLinkId,
    submission: &str,
    category: &str,
    message: &str,
    call: PlatformCallId,
    by: UserId,
) -> Result<String, AppError> {
    let c = client(prolific)?;
    let message = reconcile::rejection(category, message)?;
    if let Some(made) = made_already(pool, campaign, link, call).await? {
        let v = call_view(made);
        return Ok(format!("{}: {}", v.what, v.outcome));
    }
    let (_, rows) = table(pool, c, campaign, link).await?;
    let awaiting = rows.iter().any(|r| {
        r.submission
            .as_ref()
            .is_some_and(|s| s.id == submission && s.status == SubmissionStatus::AwaitingReview)
    });
    if !awaiting {
        return Err(AppError::Conflict(
            "That submission is not awaiting review on Prolific now (approved, rejected or returned meanwhile?). Reconcile to see it.".into(),
        ));
    }
    let target = [submission.to_owned()];
    if !calls::begin_call(pool, call.0, link.0, "reject", &target, by).await? {
        return Err(AppError::Conflict(
            "This rejection is already being made (another tab?). Reload to see it.".into(),
        ));
    }
    let result = c.reject(submission, category, &message).await;
    let (outcome, detail) = outcome_of(&result);
    calls::end_call(pool, call.0, outcome, &detail).await?;
    result.map_err(platform_error)?;
    Ok(format!("Prolific rejected submission {submission}."))
}
