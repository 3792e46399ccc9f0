//! Running a study's Mechanical Turk side from the payments page: an MTurk link connected to
//! its HITs (sandbox or production), the connection tested with two reads, the HITs'
//! assignments reconciled with paracrowd's completions (`domain::study::reconcile`, as for
//! Prolific), the approvable ones approved and others rejected, every call recorded before it
//! is made and after; and a batch's bonuses sent one worker at a time, each at most once.
use sqlx::PgPool;

use super::prolific::{call_view, link_workers, made_already, reconcile_view};
use crate::db::mturk as db;
use crate::db::platform_calls as calls;
use crate::domain::study::bonus_files;
use crate::domain::study::platform::ExternalId;
use crate::domain::study::reconcile::{self, SubmissionStatus};
use crate::domain::{BatchId, CampaignId, PlatformCallId, StudyLinkId, UserId};
use crate::dto::platforms::{
    ApproveOutcome, MturkBatchView, MturkLinkView, MturkView, ReconcileView,
};
use crate::error::AppError;
use crate::mturk::{CallError, Client};

/// The most HITs one link is connected to.
pub const MAX_HITS: usize = 100;

/// A server that stopped while sending a bonus leaves it `sending`; after this long another
/// request may take it again (reading MTurk's list first).
pub const STALE_SENDING_SECS: f64 = 900.0;

fn platform_error(e: CallError) -> AppError {
    AppError::Platform(e.to_string())
}

/// A recorded call's outcome: `refused` only when MTurk answered no and nothing was sent.
fn outcome_of(result: &Result<(), CallError>) -> (&'static str, String) {
    match result {
        Ok(()) => ("done", String::new()),
        Err(e) if e.may_have_happened() => ("unknown", e.to_string()),
        Err(e) => ("refused", e.to_string()),
    }
}

/// The campaign's MTurk section.
pub async fn view(pool: &PgPool, campaign: CampaignId) -> Result<MturkView, AppError> {
    let mut conn = pool.acquire().await?;
    crate::db::campaigns::find(&mut *conn, campaign)
        .await?
        .ok_or(AppError::NotFound)?;
    let links = db::mturk_links(&mut *conn, campaign)
        .await?
        .into_iter()
        .map(|l| MturkLinkView {
            approve_call_id: PlatformCallId(uuid::Uuid::new_v4()),
            study_link_id: StudyLinkId(l.study_link_id),
            label: if l.label.is_empty() { l.slug } else { l.label },
            hit_ids: l.hit_ids.unwrap_or_default(),
            sandbox: l.sandbox,
            seen_hit_ids: l.seen_hit_ids,
            seen_sandbox: l.seen_sandbox,
        })
        .collect();
    let calls = calls::calls(&mut *conn, campaign, "mturk")
        .await?
        .into_iter()
        .map(call_view)
        .collect();
    let mut sends: std::collections::HashMap<uuid::Uuid, db::BatchSendsRow> =
        db::batch_sends(&mut *conn, campaign)
            .await?
            .into_iter()
            .map(|b| (b.batch_id, b))
            .collect();
    let batches = crate::db::payments::list_batches(&mut *conn, campaign)
        .await?
        .into_iter()
        .map(|b| {
            let s = sends.remove(&b.batch_id);
            MturkBatchView {
                batch_id: BatchId(b.batch_id),
                created_at: super::rfc3339(b.created_at),
                workers: b.workers,
                total_cents: b.total_cents,
                paid: b.paid_at.is_some(),
                sent: s.as_ref().map_or(0, |s| s.sent),
                sent_cents: s.as_ref().map_or(0, |s| s.sent_cents),
                refused: s.as_ref().map_or(0, |s| s.refused),
                unsure: s.as_ref().map_or(0, |s| s.unknown + s.sending),
                detail: s.map(|s| s.last_detail).unwrap_or_default(),
            }
        })
        .collect();
    Ok(MturkView {
        links,
        calls,
        batches,
    })
}

/// HIT ids as a researcher pastes them: separated by commas, spaces or lines; each checked,
/// repeats dropped, 1 to [`MAX_HITS`].
pub fn parse_hit_ids(raw: &str) -> Result<Vec<String>, AppError> {
    let mut ids: Vec<String> = Vec::new();
    for part in raw.split(|c: char| c == ',' || c.is_whitespace()) {
        if part.is_empty() {
            continue;
        }
        let id = ExternalId::parse("hit_ids", part)
            .map_err(|e| AppError::validation("hit_ids", e.to_string()))?;
        if !ids.iter().any(|i| i == id.as_str()) {
            ids.push(id.as_str().to_owned());
        }
    }
    if ids.is_empty() {
        return Err(AppError::validation(
            "hit_ids",
            "Give the HIT id (or ids) this link's workers come from, as MTurk shows it.",
        ));
    }
    if ids.len() > MAX_HITS {
        return Err(AppError::validation(
            "hit_ids",
            format!("At most {MAX_HITS} HITs per link."),
        ));
    }
    Ok(ids)
}

/// Connects the MTurk link `link` to the HITs `hit_ids` (checked as ids; "Test" asks MTurk).
pub async fn connect(
    pool: &PgPool,
    campaign: CampaignId,
    link: StudyLinkId,
    hit_ids: &str,
    sandbox: bool,
    by: UserId,
) -> Result<(), AppError> {
    let ids = parse_hit_ids(hit_ids)?;
    if db::connect_mturk(pool, campaign, link.0, &ids, sandbox, by).await? {
        Ok(())
    } else {
        Err(AppError::NotFound)
    }
}

async fn connection(
    pool: &PgPool,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<(Vec<String>, bool), AppError> {
    db::mturk_connection(pool, campaign, link.0)
        .await?
        .ok_or_else(|| AppError::Conflict("Connect this link to its HITs first.".into()))
}

fn environment(sandbox: bool) -> &'static str {
    if sandbox {
        "MTurk's sandbox"
    } else {
        "MTurk (production)"
    }
}

/// Tests the connection of `link`: the account's balance and the first HIT, read once each.
pub async fn test(
    pool: &PgPool,
    client: &Client,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<String, AppError> {
    let (hits, sandbox) = connection(pool, campaign, link).await?;
    let balance = client.balance(sandbox).await.map_err(platform_error)?;
    let h = client
        .hit(sandbox, &hits[0])
        .await
        .map_err(platform_error)?;
    let more = match hits.len() {
        1 => String::new(),
        n => format!(" (and {} more HIT{})", n - 1, if n == 2 { "" } else { "s" }),
    };
    Ok(format!(
        "Connected to {}: balance ${balance}. HIT {} “{}”: {}, {} of {} assignments completed{more}.",
        environment(sandbox),
        h.id,
        h.title,
        if h.status.is_empty() { "status not given" } else { &h.status },
        h.completed,
        h.max_assignments,
    ))
}

async fn table(
    pool: &PgPool,
    client: &Client,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<(Vec<String>, bool, Vec<reconcile::Row>), AppError> {
    let (hits, sandbox) = connection(pool, campaign, link).await?;
    let assignments = client
        .assignments(sandbox, &hits)
        .await
        .map_err(platform_error)?;
    // Read after MTurk, as for Prolific.
    let workers = link_workers(pool, campaign, link).await?;
    Ok((hits, sandbox, reconcile::reconcile(&workers, &assignments)))
}

/// The reconciliation table of `link`: its HITs' assignments beside the completions here.
pub async fn reconcile(
    pool: &PgPool,
    client: &Client,
    campaign: CampaignId,
    link: StudyLinkId,
) -> Result<ReconcileView, AppError> {
    let (hits, sandbox, rows) = table(pool, client, campaign, link).await?;
    let what = format!("{} in {}", hits.join(", "), environment(sandbox));
    Ok(reconcile_view(link, what, rows))
}

/// Approves every assignment of `link` that is submitted on MTurk and whose worker completed
/// here, as the table stands now, one call each. Recorded under `call` before the first is
/// made; the same `call` again reports it and makes none.
pub async fn approve(
    pool: &PgPool,
    client: &Client,
    campaign: CampaignId,
    link: StudyLinkId,
    call: PlatformCallId,
    by: UserId,
) -> Result<ApproveOutcome, AppError> {
    if let Some(made) = made_already(pool, campaign, link, call).await? {
        let v = call_view(made.clone());
        return Ok(ApproveOutcome {
            approved: made.targets.max(0) as u32,
            message: format!("{}: {}", v.what, v.outcome),
            repeated: true,
        });
    }
    let (_, sandbox, rows) = table(pool, client, campaign, link).await?;
    let ids = reconcile::approvable(&rows);
    if ids.is_empty() {
        return Ok(ApproveOutcome {
            approved: 0,
            message: "Nothing to approve: no submitted assignment belongs to a worker who completed here.".into(),
            repeated: false,
        });
    }
    if !calls::begin_call(pool, call.0, link.0, "approve", &ids, by).await? {
        return Err(AppError::Conflict(
            "This approval is already being made (another tab?). Reload to see it.".into(),
        ));
    }
    let mut done = 0u32;
    let mut refused: Vec<String> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for id in &ids {
        let result = client.approve(sandbox, id).await;
        match outcome_of(&result) {
            ("done", _) => done += 1,
            ("unknown", why) => unknown.push(format!("{id}: {why}")),
            (_, why) => refused.push(format!("{id}: {why}")),
        }
    }
    let (outcome, detail) = approval_outcome(done, &refused, &unknown);
    calls::end_call(pool, call.0, outcome, &detail).await?;
    let message = if outcome == "done" {
        format!(
            "MTurk approved {done} assignment{}.",
            if done == 1 { "" } else { "s" }
        )
    } else {
        format!("MTurk approved {done} of {}. {detail}", ids.len())
    };
    Ok(ApproveOutcome {
        approved: done,
        message,
        repeated: false,
    })
}

/// The recorded outcome of approvals made one by one: `done` when all were accepted, `unknown`
/// when any gave no answer, `partly` when some were refused and the rest accepted, `refused`
/// when all were; with the first few refusals and failures in words.
fn approval_outcome(done: u32, refused: &[String], unknown: &[String]) -> (&'static str, String) {
    let mut detail = Vec::new();
    if !refused.is_empty() {
        detail.push(format!(
            "{} refused (nothing changed for them): {}",
            refused.len(),
            refused
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    if !unknown.is_empty() {
        detail.push(format!(
            "{} without an answer (reconcile to see): {}",
            unknown.len(),
            unknown
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let mut detail = detail.join(". ");
    if detail.chars().count() > 1900 {
        detail = detail.chars().take(1900).collect();
    }
    let outcome = if !unknown.is_empty() {
        "unknown"
    } else if refused.is_empty() {
        "done"
    } else if done > 0 {
        "partly"
    } else {
        "refused"
    };
    (outcome, detail)
}

/// Rejects one assignment of `link`, which must be submitted on MTurk as it lists it now, with
/// feedback for the worker (`reconcile::mturk_feedback`). Recorded under `call` before it is
/// made; the same `call` again reports it and makes none.
#[allow(clippy::too_many_arguments)]
pub async fn reject(
    pool: &PgPool,
    client: &Client,
    campaign: CampaignId,
    link: StudyLinkId,
    assignment: &str,
    message: &str,
    call: PlatformCallId,
    by: UserId,
) -> Result<String, AppError> {
    let feedback = reconcile::mturk_feedback(message)?;
    if let Some(made) = made_already(pool, campaign, link, call).await? {
        let v = call_view(made);
        return Ok(format!("{}: {}", v.what, v.outcome));
    }
    let (_, sandbox, rows) = table(pool, client, campaign, link).await?;
    let submitted = rows.iter().any(|r| {
        r.submission
            .as_ref()
            .is_some_and(|s| s.id == assignment && s.status == SubmissionStatus::AwaitingReview)
    });
    if !submitted {
        return Err(AppError::Conflict(
            "That assignment is not submitted and awaiting review on MTurk now (approved or rejected meanwhile?). Reconcile to see it.".into(),
        ));
    }
    let target = [assignment.to_owned()];
    if !calls::begin_call(pool, call.0, link.0, "reject", &target, by).await? {
        return Err(AppError::Conflict(
            "This rejection is already being made (another tab?). Reload to see it.".into(),
        ));
    }
    let result = client.reject(sandbox, assignment, &feedback).await;
    let (outcome, detail) = outcome_of(&result);
    calls::end_call(pool, call.0, outcome, &detail).await?;
    result.map_err(platform_error)?;
    Ok(format!("MTurk rejected assignment {assignment}."))
}

/// Sends the batch's bonuses through MTurk, one worker at a time, each at most once: a bonus is
/// taken in the database before its call; one sent before without an answer (or by a server
/// that stopped) is first looked for in MTurk's list of the assignment's bonuses, and sent again
/// only when it is not there, with the same `UniqueRequestToken`. The batch is marked paid when
/// every worker's bonus is sent. Every worker must have come through `link`.
pub async fn pay(
    pool: &PgPool,
    client: &Client,
    campaign: CampaignId,
    batch: BatchId,
    link: StudyLinkId,
    by: UserId,
) -> Result<String, AppError> {
    let (_, sandbox) = connection(pool, campaign, link).await?;
    if sandbox {
        // Paid there, the batch would be marked paid here while nobody was paid.
        return Err(AppError::Conflict(
            "This link is connected to MTurk's sandbox, where nothing paid is real: bonuses are sent in production only. Connect it to production to pay them.".into(),
        ));
    }
    let made = crate::db::payments::find_batch(pool, batch.0)
        .await?
        .filter(|b| b.campaign_id == campaign)
        .ok_or(AppError::NotFound)?;
    if made.paid_at.is_some() {
        return Err(AppError::Conflict(
            "This batch is marked paid already.".into(),
        ));
    }
    let items = db::bonus_items(pool, campaign, batch.0).await?;
    let elsewhere = items
        .iter()
        .filter(|i| i.study_link_id != Some(link.0) || i.platform.as_deref() != Some("mturk"))
        .count();
    if elsewhere > 0 {
        return Err(AppError::Conflict(format!(
            "{elsewhere} worker(s) in this batch did not come through this MTurk link; pay this batch with its files."
        )));
    }
    let title = crate::db::campaigns::find(pool, campaign)
        .await?
        .ok_or(AppError::NotFound)?
        .title;
    let reason = bonus_files::bonus_reason(&title, &batch.to_string());
    let (mut sent, mut refused, mut unsure, mut busy) = (0u32, 0u32, 0u32, 0u32);
    let mut problems: Vec<String> = Vec::new();
    for item in items.iter().filter(|i| i.state.as_deref() != Some("sent")) {
        // Every worker here came through the link (checked above), so has an MTurk id.
        let worker_id = item.worker_id.as_deref().unwrap_or_default();
        let Some(assignment) = item.assignment_id.as_deref() else {
            refused += 1;
            problems.push(format!("{worker_id}: no assignment recorded"));
            continue;
        };
        // The token of the batch's `mturk.csv`: a bonus sent from the file and from here within
        // MTurk's 24 hours pays once.
        let token = bonus_files::unique_request_token(&batch.to_string(), worker_id);
        let new = db::NewBonus {
            batch: batch.0,
            app_user_id: item.app_user_id,
            link: link.0,
            worker_id,
            assignment_id: assignment,
            amount_cents: item.amount_cents,
            reason: &reason,
            request_token: &token,
        };
        let mut tx = pool.begin().await?;
        if db::share_batch(&mut *tx, campaign, batch.0).await? != Some(true) {
            return Err(AppError::Conflict(
                "This batch was marked paid or discarded meanwhile.".into(),
            ));
        }
        let taken = db::take_bonus(&mut *tx, &new, STALE_SENDING_SECS).await?;
        tx.commit().await?;
        let Some(t) = taken else {
            // Sent meanwhile, or being sent by another request.
            busy += 1;
            continue;
        };
        let (state, detail) = send_once(client, sandbox, &t).await;
        let mut tx = pool.begin().await?;
        db::end_bonus(
            &mut tx,
            batch.0,
            item.app_user_id,
            t.started,
            state,
            &detail,
            by,
        )
        .await?;
        tx.commit().await?;
        match state {
            "sent" => sent += 1,
            "refused" => {
                refused += 1;
                problems.push(format!("{}: {detail}", t.worker_id));
            }
            _ => {
                unsure += 1;
                problems.push(format!("{}: {detail}", t.worker_id));
            }
        }
    }
    let plural = |n: u32| if n == 1 { "" } else { "es" };
    let mut parts = vec![format!("MTurk took {sent} bonus{}", plural(sent))];
    if refused > 0 {
        parts.push(format!(
            "refused {refused} (nothing paid; press Pay again once fixed)"
        ));
    }
    if unsure > 0 {
        parts.push(format!(
            "{unsure} gave no answer (press Pay again: each is looked for on MTurk first and never paid twice)"
        ));
    }
    if busy > 0 {
        parts.push(format!("{busy} being sent by another tab or server"));
    }
    let mut message = parts.join("; ") + ".";
    if !problems.is_empty() {
        message.push_str(&format!(
            " {}",
            problems.into_iter().take(3).collect::<Vec<_>>().join(" · ")
        ));
    }
    if crate::db::payments::find_batch(pool, batch.0)
        .await?
        .is_some_and(|b| b.paid_at.is_some())
    {
        message.push_str(" Every bonus of this batch is paid: the batch is marked paid.");
    }
    Ok(message)
}

/// One attempt at one worker's bonus: `sent`, `refused` or `unknown`, with MTurk's message.
/// MTurk's list of the assignment's bonuses is read first, every time: a bonus sent before
/// (by an attempt without an answer, or from the batch's file) is found there by its worker,
/// amount and reason (which names the batch), and not sent again.
async fn send_once(client: &Client, sandbox: bool, t: &db::Taken) -> (&'static str, String) {
    match client.bonuses(sandbox, &t.assignment_id).await {
        Ok(paid) => {
            if paid.iter().any(|p| {
                p.worker_id == t.worker_id
                    && p.amount_cents == i64::from(t.amount_cents)
                    && p.reason == t.reason
            }) {
                let how = if t.attempts > 1 {
                    "found on MTurk after an earlier attempt"
                } else {
                    "found on MTurk already (sent from the batch's file?)"
                };
                return ("sent", how.into());
            }
        }
        // Without MTurk's list nothing is sent: a first attempt was refused for now, a later
        // one stays as unsure as it was.
        Err(e) => {
            let state = if t.attempts > 1 { "unknown" } else { "refused" };
            return (
                state,
                format!("not sent: MTurk's list of bonuses could not be read first: {e}"),
            );
        }
    }
    let result = client
        .send_bonus(
            sandbox,
            &t.worker_id,
            &t.assignment_id,
            i64::from(t.amount_cents),
            &t.reason,
            &t.request_token,
        )
        .await;
    match result {
        Ok(()) => ("sent", String::new()),
        Err(e) if e.may_have_happened() => ("unknown", e.to_string()),
        Err(e) => ("refused", e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_ids_are_read_as_pasted_checked_and_deduplicated() {
        assert_eq!(
            parse_hit_ids(" 3AB_c, 3XY-z\n3AB_c\t9QQ ").unwrap(),
            vec!["3AB_c", "3XY-z", "9QQ"]
        );
        assert!(parse_hit_ids("  , \n").is_err());
        assert!(parse_hit_ids("3AB;DROP").is_err());
        let many: Vec<String> = (0..=MAX_HITS).map(|i| format!("H{i}")).collect();
        assert!(parse_hit_ids(&many.join(",")).is_err());
        assert_eq!(
            parse_hit_ids(&many[..MAX_HITS].join(" ")).unwrap().len(),
            MAX_HITS
        );
    }

    #[test]
    fn approvals_made_one_by_one_are_recorded_as_what_came_of_all_of_them() {
        let r = vec!["A: no".to_owned()];
        let u = vec!["B: timed out".to_owned()];
        assert_eq!(approval_outcome(3, &[], &[]).0, "done");
        assert_eq!(approval_outcome(3, &r, &[]).0, "partly");
        assert_eq!(approval_outcome(0, &r, &[]).0, "refused");
        assert_eq!(approval_outcome(3, &r, &u).0, "unknown");
        assert_eq!(approval_outcome(0, &[], &u).0, "unknown");
        let (_, detail) = approval_outcome(1, &r, &u);
        assert!(
            detail.contains("1 refused") && detail.contains("1 without an answer"),
            "{detail}"
        );
        let many: Vec<String> = (0..500)
            .map(|i| format!("{i}: {}", "x".repeat(50)))
            .collect();
        assert!(approval_outcome(0, &many, &many).1.chars().count() <= 1900);
    }
}
