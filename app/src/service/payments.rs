//! Paying study workers: what each worker earned and is owed, from the server's
//! timestamps and the study's terms (`domain::study::pay`), bonus batches made once per batch id
//! and marked paid once, and the platforms' bonus files (`domain::study::bonus_files`).
//!
//! The terms are the latest version of the study information: a change of pay applies to
//! everyone not yet in a batch. A batch holds, per worker, what they were owed and not in an
//! earlier batch at that moment; batches of a campaign are made one at a time (a lock), so two
//! researchers pressing at once cannot put the same money in two batches.
use std::collections::HashMap;

use sqlx::PgPool;

use crate::db::campaigns as campaigns_db;
use crate::db::payments::{self as db, BatchRow, WorkerPayRow};
use crate::db::studies as studies_db;
use crate::domain::percentile::median;
use crate::domain::study::bonus_files::{self, BonusFile, BonusLine};
use crate::domain::study::completion::Reason;
use crate::domain::study::pay::{self, Terms};
use crate::domain::study::platform::ArrivalDetail;
use crate::domain::{BatchId, CampaignId, CampaignKind, UserId};
use crate::dto::studies::{BatchView, PaymentsView, WorkerPayView};
use crate::error::AppError;

/// A worker's pay as computed now.
struct Owed {
    row: WorkerPayRow,
    seconds: f64,
    pay: pay::Pay,
}

impl Owed {
    /// Owed and in no batch yet, with or without the top-up.
    fn outstanding(&self, top_up: bool) -> i64 {
        let owed = self.pay.bonus_cents + if top_up { self.pay.top_up_cents } else { 0 };
        (owed - self.row.batched_cents).max(0)
    }

    /// Why their part is complete, if it is.
    fn completion(&self) -> Option<Reason> {
        self.row
            .completion_reason
            .as_deref()
            .and_then(Reason::parse)
    }
}

struct Study {
    title: String,
    terms: Terms,
    judgment_pay_mills: i32,
    owed: Vec<Owed>,
}

async fn study(db: &mut sqlx::PgConnection, campaign: CampaignId) -> Result<Study, AppError> {
    let c = campaigns_db::find(&mut *db, campaign)
        .await?
        .ok_or(AppError::NotFound)?;
    let info = studies_db::latest_info(&mut *db, campaign).await?;
    let terms = Terms {
        base_pay_cents: info.as_ref().map_or(0, |i| i.base_pay_cents),
        min_hourly_cents: info.as_ref().and_then(|i| i.min_hourly_cents),
    };
    let mills = info.as_ref().map_or(0, |i| i.judgment_pay_mills);
    let mut times: HashMap<UserId, Vec<f64>> = HashMap::new();
    for (user, at) in db::action_times(&mut *db, campaign).await? {
        times.entry(user).or_default().push(at);
    }
    let owed = db::workers(&mut *db, campaign)
        .await?
        .into_iter()
        .map(|row| {
            let actions = times.remove(&row.app_user_id).unwrap_or_default();
            let seconds = pay::seconds_worked(row.arrived_at, &actions, row.completed_at);
            let bonus = match c.kind {
                CampaignKind::Judge => pay::judgment_bonus_cents(row.items, mills),
                CampaignKind::Apt => row.submitted_cents,
            };
            let pay = pay::pay(terms, bonus, seconds, row.completed_at.is_some());
            Owed { row, seconds, pay }
        })
        .collect();
    Ok(Study {
        title: c.title,
        terms,
        judgment_pay_mills: mills,
        owed,
    })
}

fn batch_view(b: BatchRow) -> BatchView {
    BatchView {
        batch_id: BatchId(b.batch_id),
        created_at: super::rfc3339(b.created_at),
        paid_at: b.paid_at.map(super::rfc3339),
        top_up: b.top_up,
        workers: b.workers,
        total_cents: b.total_cents,
    }
}

/// The payments page of `campaign`.
pub async fn payments(pool: &PgPool, campaign: CampaignId) -> Result<PaymentsView, AppError> {
    let mut conn = pool.acquire().await?;
    let s = study(&mut conn, campaign).await?;
    let completed: Vec<&Owed> = s
        .owed
        .iter()
        .filter(|o| o.row.completed_at.is_some())
        .collect();
    let median_minutes = median(completed.iter().map(|o| o.seconds / 60.0).collect());
    let median_hourly_cents = median(
        completed
            .iter()
            .filter_map(|o| o.pay.hourly_cents)
            .collect(),
    );
    let outstanding_cents = s.owed.iter().map(|o| o.outstanding(false)).sum();
    let outstanding_with_top_up_cents = s.owed.iter().map(|o| o.outstanding(true)).sum();
    let batches = db::list_batches(&mut *conn, campaign)
        .await?
        .into_iter()
        .map(batch_view)
        .collect();
    let workers = s
        .owed
        .iter()
        .map(|o| WorkerPayView {
            platform: o.row.platform,
            external_id: o.row.external_id.clone(),
            items: o.row.items,
            minutes_worked: o.seconds / 60.0,
            completed: o.row.completed_at.is_some(),
            completion: o.completion(),
            base_cents: o.pay.base_cents,
            bonus_cents: o.pay.bonus_cents,
            top_up_cents: o.pay.top_up_cents,
            hourly_cents: o.pay.hourly_cents,
            under_minimum: o.pay.under_minimum,
            batched_cents: o.row.batched_cents,
            paid_cents: o.row.paid_cents,
        })
        .collect();
    Ok(PaymentsView {
        campaign_id: campaign.to_string(),
        title: s.title,
        base_pay_cents: s.terms.base_pay_cents,
        judgment_pay_mills: s.judgment_pay_mills,
        min_hourly_cents: s.terms.min_hourly_cents,
        workers,
        median_minutes,
        median_hourly_cents,
        outstanding_cents,
        outstanding_with_top_up_cents,
        batches,
        next_batch_id: BatchId(uuid::Uuid::new_v4()),
    })
}

/// Makes the batch `batch_id` of what each worker is owed and in no batch yet (with top-ups to
/// the minimum hourly rate when `top_up`). The same id sent again returns the batch it made;
/// nothing is added twice. Refused when nothing is owed.
pub async fn make_batch(
    pool: &PgPool,
    campaign: CampaignId,
    by: UserId,
    batch: BatchId,
    top_up: bool,
) -> Result<BatchView, AppError> {
    let id = batch.uuid();
    let mut tx = pool.begin().await?;
    db::lock_campaign(&mut *tx, campaign).await?;
    if let Some(existing) = db::find_batch(&mut *tx, id).await? {
        if existing.campaign_id != campaign {
            return Err(AppError::validation(
                "batch_id",
                "That batch id belongs to another campaign.",
            ));
        }
        return Ok(batch_view(existing));
    }
    let s = study(&mut tx, campaign).await?;
    let items: Vec<(UserId, i32)> = s
        .owed
        .iter()
        .filter(|o| o.outstanding(top_up) > 0)
        .map(|o| {
            i32::try_from(o.outstanding(top_up))
                .map(|cents| (o.row.app_user_id, cents))
                .map_err(|_| {
                    AppError::validation("batch_id", "A worker's amount is too large for a batch.")
                })
        })
        .collect::<Result<_, _>>()?;
    if items.is_empty() {
        return Err(AppError::Conflict(
            "Nothing is owed that is not in a batch already.".into(),
        ));
    }
    db::insert_batch(&mut tx, id, campaign, top_up, by, &items).await?;
    let made = db::find_batch(&mut *tx, id)
        .await?
        .ok_or(AppError::Internal)?;
    tx.commit().await?;
    Ok(batch_view(made))
}

/// Records that the platform paid the batch; a batch already marked keeps its first time.
pub async fn mark_paid(
    pool: &PgPool,
    campaign: CampaignId,
    batch: BatchId,
    by: UserId,
) -> Result<(), AppError> {
    let id = batch.uuid();
    let mut tx = pool.begin().await?;
    // A batch whose payment through Prolific is under way, or gave no answer, is settled on
    // the Prolific section from what Prolific shows, not marked here.
    if let Some("paying" | "unknown") = crate::db::prolific::lock_bonus_state(&mut *tx, id)
        .await?
        .as_deref()
    {
        return Err(AppError::Conflict(
            "This batch is being paid through Prolific, or Prolific did not answer when it was: say what Prolific shows in the Prolific section instead.".into(),
        ));
    }
    let (unsure, _) = crate::db::mturk::lock_batch_sends(&mut tx, id).await?;
    if unsure > 0 {
        return Err(AppError::Conflict(format!(
            "{unsure} bonus(es) of this batch are being sent through MTurk, or MTurk did not answer when they were: press Pay in the MTurk section again (each is looked for on MTurk first) instead."
        )));
    }
    let marked = db::mark_paid(&mut *tx, campaign, id, by).await?;
    tx.commit().await?;
    if marked {
        Ok(())
    } else {
        Err(AppError::NotFound)
    }
}

/// Deletes a batch not marked paid (its amounts are owed again).
pub async fn discard_batch(
    pool: &PgPool,
    campaign: CampaignId,
    batch: BatchId,
) -> Result<(), AppError> {
    let id = batch.uuid();
    let mut tx = pool.begin().await?;
    let discarded = db::discard(&mut tx, campaign, id).await?;
    tx.commit().await?;
    if discarded {
        Ok(())
    } else {
        Err(AppError::Conflict(
            "No such batch waiting to be paid: it was marked paid or discarded already, or it is being (or may have been) paid through Prolific or MTurk.".into(),
        ))
    }
}

/// A batch's bonus file: `(file name, contents)`.
pub async fn bonus_file(
    pool: &PgPool,
    batch: BatchId,
    kind: BonusFile,
) -> Result<(String, String), AppError> {
    let id = batch.uuid();
    let mut conn = pool.acquire().await?;
    let batch = db::find_batch(&mut *conn, id)
        .await?
        .ok_or(AppError::NotFound)?;
    let items = db::batch_items(&mut *conn, id).await?;
    let s = study(&mut conn, batch.campaign_id).await?;
    // Items and time as the payments page shows them now (0 for a worker no longer listed).
    let worked: HashMap<UserId, (i64, f64, &'static str)> = s
        .owed
        .iter()
        .map(|o| {
            let completion = o.completion().map_or("", |r| r.for_researchers());
            (o.row.app_user_id, (o.row.items, o.seconds, completion))
        })
        .collect();
    let lines: Vec<BonusLine> = items
        .into_iter()
        .map(|i| {
            let assignment_id = match i.detail.map(serde_json::from_value) {
                Some(Ok(ArrivalDetail::Mturk { assignment_id, .. })) => assignment_id.to_string(),
                _ => String::new(),
            };
            let (items, seconds, completion) =
                worked.get(&i.app_user_id).copied().unwrap_or((0, 0.0, ""));
            BonusLine {
                external_id: i.external_id,
                platform: i.platform,
                assignment_id,
                items,
                seconds,
                amount_cents: i64::from(i.amount_cents),
                completion: completion.to_owned(),
            }
        })
        .collect();
    let reason = bonus_files::bonus_reason(&s.title, &id.to_string());
    let body = bonus_files::render(kind, &id.to_string(), &reason, &lines);
    let ext = if kind == BonusFile::Prolific {
        "txt"
    } else {
        "csv"
    };
    Ok((format!("bonus-{}-{id}.{ext}", kind.as_str()), body))
}
