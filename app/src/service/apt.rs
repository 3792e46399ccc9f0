//! The APT writing task (APT §3): serve a sentence, score a rewrite (every Check is stored),
//! pay a checked rewrite once within the worker's cap, skip.
use crate::domain::{AttemptId, CampaignId, CampaignKind, CampaignStatus, SourceId, UserId};
use rand::Rng;
use sqlx::PgPool;

use crate::db::{apt as db, campaigns};
use crate::domain::apt::{budget, serving};
use crate::domain::reward::{passes_apt, reward_cents};
use crate::dto::apt::{AptTask, CheckOutcome, SubmitOutcome, Verdict};
use crate::error::AppError;
use crate::ml::{PairScorer, ScoreError};

/// The campaign if it is an open APT campaign: not found when there is none (or it is a judging
/// campaign), a conflict when it is not open.
async fn open_campaign(
    pool: &PgPool,
    id: CampaignId,
) -> Result<campaigns::CampaignSettings, AppError> {
    match campaigns::find(pool, id).await? {
        Some(c) if c.kind == CampaignKind::Apt && c.status == CampaignStatus::Open => Ok(c),
        Some(c) if c.kind == CampaignKind::Apt => {
            Err(AppError::Conflict("This study is not open.".into()))
        }
        _ => Err(AppError::NotFound),
    }
}

/// What a Check says: not equivalent, too similar, or passing.
fn verdict(is_mutual_implication: bool, bleurt: f64, threshold: f64) -> Verdict {
    if !is_mutual_implication {
        Verdict::NotEquivalent
    } else if passes_apt(true, bleurt, threshold) {
        Verdict::Passes
    } else {
        Verdict::TooSimilar
    }
}

/// `user`'s Check `attempt_id` of the sentence they are rewriting now, with its text, as the
/// Check answered it (read again after a plain form's Check); `None` for another worker's
/// attempt, or one of a sentence they no longer hold.
pub async fn checked(
    pool: &PgPool,
    user: UserId,
    campaign_id: CampaignId,
    attempt_id: AttemptId,
) -> Result<Option<(String, CheckOutcome)>, AppError> {
    let campaign = open_campaign(pool, campaign_id).await?;
    let cid = campaign.campaign_id;
    let Some(a) = db::checked_attempt(pool, cid, user, attempt_id).await? else {
        return Ok(None);
    };
    let active = db::find_active(pool, cid, user).await?;
    if active.is_none_or(|s| s.source_sentence_id != a.source_id) {
        return Ok(None);
    }
    let outcome = CheckOutcome {
        attempt_id,
        verdict: verdict(
            a.is_mutual_implication,
            f64::from(a.bleurt),
            campaign.bleurt_threshold,
        ),
        is_mutual_implication: a.is_mutual_implication,
        bleurt: a.bleurt,
        reward_cents: i64::from(a.reward_cents),
        mi_model: a.mi_model,
        bleurt_model: a.bleurt_model,
        scorer: a.scorer,
    };
    Ok(Some((a.text, outcome)))
}

/// The sentence `user` is rewriting, a new one drawn by origin, or the end of their study.
pub async fn next(
    pool: &PgPool,
    user: UserId,
    campaign_id: CampaignId,
) -> Result<AptTask, AppError> {
    let campaign = open_campaign(pool, campaign_id).await?;
    let cid = campaign.campaign_id;
    let worker = db::ensure_worker(pool, cid, user).await?;
    let total = i64::from(worker.earned_cents);
    if let Some(code) = worker.completion_code {
        return Ok(AptTask::Complete {
            total_cents: total,
            completion_code: code,
        });
    }
    // Two tabs may race here; the partial unique index lets one assignment win and both
    // then read the same one.
    for _ in 0..3 {
        if let Some(active) = db::find_active(pool, cid, user).await? {
            return Ok(AptTask::Write {
                source_id: active.source_sentence_id,
                source: active.text,
                total_cents: total,
                cap_cents: i64::from(campaign.budget_cap_cents),
                instructions: campaign.instructions.clone(),
                bleurt_threshold: campaign.bleurt_threshold,
            });
        }
        let unseen = db::unseen_by_origin(pool, cid, user).await?;
        let u: f64 = rand::thread_rng().gen();
        let Some(origin) = serving::choose_origin(&unseen, u) else {
            return Ok(AptTask::Exhausted { total_cents: total });
        };
        db::assign_random(pool, cid, user, origin).await?;
    }
    Err(AppError::Conflict(
        "Could not pick a sentence; please reload.".into(),
    ))
}

/// A Check: scores `text` against the sentence `user` is rewriting and stores the attempt with
/// its reward (APT's formula; nothing is paid until Submit).
pub async fn check(
    pool: &PgPool,
    scorer: &dyn PairScorer,
    user: UserId,
    campaign_id: CampaignId,
    source_id: SourceId,
    text: &str,
) -> Result<CheckOutcome, AppError> {
    let campaign = open_campaign(pool, campaign_id).await?;
    let cid = campaign.campaign_id;
    let active = db::find_active(pool, cid, user)
        .await?
        .filter(|a| a.source_sentence_id == source_id)
        .ok_or_else(|| {
            AppError::Conflict(
                "This sentence is no longer yours to rewrite; reload for the current one.".into(),
            )
        })?;
    let text = crate::domain::apt::attempt::checkable(&active.text, text)
        .map_err(|message| AppError::validation("text", message))?;
    let scores = scorer
        .score(active.text.clone(), text.clone())
        .await
        .map_err(|e| match e {
            ScoreError::Busy => AppError::Overloaded,
            other => {
                tracing::error!(error = %other, "scoring failed");
                AppError::Internal
            }
        })?;
    let threshold = campaign.bleurt_threshold;
    let bleurt = f64::from(scores.bleurt);
    let reward = reward_cents(scores.is_mutual_implication, bleurt, threshold);
    let attempt_id = db::insert_attempt(
        pool,
        cid,
        user,
        source_id,
        &text,
        &scores,
        reward,
        active.seconds_since_shown,
    )
    .await?;
    crate::metrics::attempt_recorded();
    Ok(CheckOutcome {
        attempt_id,
        verdict: verdict(scores.is_mutual_implication, bleurt, threshold),
        is_mutual_implication: scores.is_mutual_implication,
        bleurt: scores.bleurt,
        reward_cents: reward,
        mi_model: scores.versions.mi.clone(),
        bleurt_model: scores.versions.bleurt.clone(),
        scorer: scores.versions.description.clone(),
    })
}

/// A Submit: pays the checked attempt once, within the cap, under the worker's row lock; a
/// repeated Submit answers as the first did.
pub async fn submit(
    pool: &PgPool,
    user: UserId,
    campaign_id: CampaignId,
    attempt_id: AttemptId,
) -> Result<SubmitOutcome, AppError> {
    let campaign = open_campaign(pool, campaign_id).await?;
    let cid = campaign.campaign_id;
    let attempt = db::find_attempt(pool, cid, user, attempt_id)
        .await?
        .ok_or(AppError::NotFound)?;
    db::ensure_worker(pool, cid, user).await?;

    let mut tx = pool.begin().await?;
    let earned = db::lock_worker(&mut tx, cid, user).await?;
    if let Some(paid) = db::find_submission(&mut *tx, user, attempt.source_sentence_id).await? {
        tx.commit().await?;
        let cap = i64::from(campaign.budget_cap_cents);
        return Ok(SubmitOutcome {
            paid_cents: i64::from(paid),
            total_cents: i64::from(earned),
            is_complete: i64::from(earned) >= cap,
            was_already_submitted: true,
        });
    }
    let active = db::find_active(&mut *tx, cid, user).await?;
    if active.map(|a| a.source_sentence_id) != Some(attempt.source_sentence_id) {
        return Err(AppError::Conflict(
            "This sentence was skipped or replaced; reload for the current one.".into(),
        ));
    }
    let p = budget::payout(
        i64::from(earned),
        i64::from(attempt.reward_cents),
        i64::from(campaign.budget_cap_cents),
    );
    db::insert_submission(
        &mut tx,
        cid,
        user,
        attempt.source_sentence_id,
        attempt_id,
        attempt.reward_cents,
        p.paid_cents as i32,
    )
    .await?;
    let code = p.is_complete.then(completion_code);
    db::update_worker_total(&mut tx, cid, user, p.total_cents as i32, code.as_deref()).await?;
    tx.commit().await?;
    crate::metrics::submission_recorded();
    Ok(SubmitOutcome {
        paid_cents: p.paid_cents,
        total_cents: p.total_cents,
        is_complete: p.is_complete,
        was_already_submitted: false,
    })
}

/// A code the worker gives the crowd platform to be paid: 10 characters, no look-alikes.
fn completion_code() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut rng = rand::thread_rng();
    (0..10)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect()
}

/// Skips the sentence `user` is rewriting (the next `next` draws another).
pub async fn skip(
    pool: &PgPool,
    user: UserId,
    campaign_id: CampaignId,
    source_id: SourceId,
) -> Result<(), AppError> {
    let campaign = open_campaign(pool, campaign_id).await?;
    db::skip_active(pool, campaign.campaign_id, user, source_id).await?;
    Ok(())
}
