//! A study worker's progress and completion: the rule (`domain::study::completion`)
//! read against the database, the completion written once, and the way back to the platform.
use sqlx::PgPool;

use crate::db::campaigns::{self as campaigns_db, CampaignSettings};
use crate::db::studies as studies_db;
use crate::db::study_completion::{self as db, ArrivalRow, CompletionRow};
use crate::domain::study::completion::{self, Reason, Standing};
use crate::domain::study::pay;
use crate::domain::study::platform::{self, ArrivalDetail, Platform};
use crate::domain::{CampaignId, CampaignKind, CampaignStatus, UserId};
use crate::dto::studies::{CompletionView, ReturnTo, StudyProgress};
use crate::error::AppError;

/// Refuses a study-link worker more items once they completed `campaign`, or made the number of
/// items it asks for (they finish on its completion page).
pub async fn check_may_work(
    pool: &PgPool,
    campaign: CampaignId,
    user: UserId,
) -> Result<(), AppError> {
    match db::work_state(pool, campaign, user).await? {
        (true, _) => Err(AppError::Conflict(
            "You have completed this study: its completion page has your code and the way back to your platform.".into(),
        )),
        (false, true) => Err(items_done()),
        (false, false) => Ok(()),
    }
}

/// The refusal of an item past the number the study asks for.
pub fn items_done() -> AppError {
    AppError::Conflict(
        "You have done the items this study asks for: finish on its completion page to get your code.".into(),
    )
}

/// Where the worker finishes `campaign`.
pub fn done_href(campaign: CampaignId) -> String {
    format!("/study/{campaign}/done")
}

/// The study around a task page: the number of items, the pay per item and the time, and the
/// completion page for a worker who came through a link.
pub async fn progress(
    pool: &PgPool,
    campaign: CampaignId,
    user: UserId,
) -> Result<StudyProgress, AppError> {
    let c = campaigns_db::find(pool, campaign)
        .await?
        .ok_or(AppError::NotFound)?;
    let info = studies_db::latest_info(pool, campaign).await?;
    let arrived = studies_db::arrived(pool, campaign, user).await?;
    let pay_per_item = match (&info, c.kind) {
        (Some(i), CampaignKind::Judge) if i.judgment_pay_mills > 0 => {
            format!(
                "{} a pair",
                crate::domain::money::usd_mills(i64::from(i.judgment_pay_mills))
            )
        }
        _ => String::new(),
    };
    Ok(StudyProgress {
        judgment_pay_mills: match (&info, c.kind) {
            (Some(i), CampaignKind::Judge) => i.judgment_pay_mills,
            _ => 0,
        },
        items: db::items(pool, campaign, user).await?,
        complete_after: info.as_ref().and_then(|i| i.complete_after),
        pay_per_item,
        minutes: info.as_ref().and_then(|i| i.minutes),
        done_href: arrived.then(|| done_href(campaign)),
    })
}

async fn standing(
    pool: &PgPool,
    c: &CampaignSettings,
    user: UserId,
    complete_after: Option<i32>,
) -> Result<Standing, AppError> {
    let s = match c.kind {
        CampaignKind::Judge => db::judging_standing(pool, c.campaign_id, user).await?,
        CampaignKind::Apt => db::writing_standing(pool, c.campaign_id, user).await?,
    };
    Ok(Standing {
        complete_after,
        closed: c.status != CampaignStatus::Open,
        ..s
    })
}

/// Completes the worker's part of `campaign` when its rule is met, once: the first call that
/// finds it met records it (with the study's completion code, or a code of the worker's own
/// when it has none), and every later call, from any tab or device, reads the same record
/// back (`first` is set only for the call that wrote it, so the page goes back to the platform
/// by itself once, and shows the code afterwards). A worker not done yet is told what is left; anyone who did not come through one of the
/// study's links has nothing to complete.
pub async fn complete(
    pool: &PgPool,
    campaign: CampaignId,
    user: UserId,
) -> Result<CompletionView, AppError> {
    let Some(arrival) = db::arrival(pool, campaign, user).await? else {
        return Ok(CompletionView::NoLink);
    };
    let c = campaigns_db::find(pool, campaign)
        .await?
        .ok_or(AppError::NotFound)?;
    let info = studies_db::latest_info(pool, campaign).await?;
    let study_code = info
        .as_ref()
        .map(|i| i.completion_code.clone())
        .unwrap_or_default();
    let (record, first) = match db::find(pool, campaign, user).await? {
        Some(record) => (record, false),
        None => {
            let complete_after = info.as_ref().and_then(|i| i.complete_after);
            let s = standing(pool, &c, user, complete_after).await?;
            let Some(reason) = completion::completion(s) else {
                return Ok(CompletionView::NotYet {
                    message: completion::remaining(s),
                    task_href: super::studies::task_href(&c),
                });
            };
            let code = if study_code.is_empty() {
                own_code()
            } else {
                study_code.clone()
            };
            let items = i32::try_from(s.items).unwrap_or(i32::MAX);
            let mut conn = pool.acquire().await?;
            // The platform ids it goes back with: the latest visit's (MTurk's current assignment).
            db::insert(
                &mut conn,
                campaign,
                user,
                reason.as_str(),
                items,
                &code,
                &arrival.detail,
            )
            .await?
        }
    };
    let mills = info.as_ref().map_or(0, |i| i.judgment_pay_mills);
    let earned = earned_text(pool, &c, user, &record, mills).await?;
    done_view(&c, arrival, record, &study_code, earned, first)
}

/// A code of the worker's own: 10 letters and digits that read unambiguously.
fn own_code() -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut rng = rand::thread_rng();
    (0..10)
        .map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())]))
        .collect()
}

async fn earned_text(
    pool: &PgPool,
    c: &CampaignSettings,
    user: UserId,
    record: &CompletionRow,
    mills: i32,
) -> Result<String, AppError> {
    let bonus = match c.kind {
        CampaignKind::Judge => pay::judgment_bonus_cents(i64::from(record.items), mills),
        CampaignKind::Apt => db::submitted_cents(pool, c.campaign_id, user).await?,
    };
    Ok(if bonus > 0 {
        format!(
            "Your bonus so far: {} for {} {}. The researcher pays it through your platform; the study's base pay comes when they approve your submission.",
            crate::domain::money::usd(bonus),
            record.items,
            item_word(c.kind, record.items)
        )
    } else {
        format!(
            "You did {} {}. The study's pay comes through your platform when the researcher approves your submission.",
            record.items,
            item_word(c.kind, record.items)
        )
    })
}

fn item_word(kind: CampaignKind, n: i32) -> &'static str {
    match (kind, n == 1) {
        (CampaignKind::Judge, true) => "judgment",
        (CampaignKind::Judge, false) => "judgments",
        (CampaignKind::Apt, true) => "sentence",
        (CampaignKind::Apt, false) => "sentences",
    }
}

fn done_view(
    c: &CampaignSettings,
    arrival: ArrivalRow,
    record: CompletionRow,
    study_code: &str,
    earned: String,
    first: bool,
) -> Result<CompletionView, AppError> {
    let platform = arrival.platform;
    let latest: Option<ArrivalDetail> = serde_json::from_value(arrival.detail).ok();
    // The ids the completion went back with (none for one recorded before they were kept).
    let submitted: Option<ArrivalDetail> = record
        .detail
        .clone()
        .and_then(|d| serde_json::from_value(d).ok())
        .or_else(|| latest.clone());
    let return_to = match (platform, submitted) {
        // Prolific checks the study's own code; a code of the worker's own would not pass.
        (Platform::Prolific, _) if !study_code.is_empty() && record.code == study_code => {
            ReturnTo::Prolific {
                url: platform::prolific_completion_url(&record.code),
            }
        }
        (
            Platform::Mturk,
            Some(ArrivalDetail::Mturk {
                assignment_id,
                submit_to,
                ..
            }),
        ) => match latest {
            // A HIT accepted after the study was completed (a later batch of the same study)
            // is not submitted: MTurk would pay its reward again for no work.
            Some(ArrivalDetail::Mturk {
                assignment_id: now, ..
            }) if now != assignment_id => ReturnTo::MturkAlreadySubmitted {
                assignment_id: assignment_id.as_str().to_owned(),
            },
            _ => ReturnTo::Mturk {
                submit_url: platform::mturk_submit_url(&submit_to),
                assignment_id: assignment_id.as_str().to_owned(),
            },
        },
        _ => ReturnTo::Code,
    };
    let reason = Reason::parse(&record.reason).ok_or(AppError::Internal)?;
    Ok(CompletionView::Done {
        title: c.title.clone(),
        platform,
        reason: reason.describe().to_owned(),
        items: record.items,
        code: record.code,
        return_to,
        earned,
        first,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_codes_are_ten_unambiguous_characters() {
        let code = own_code();
        assert_eq!(code.len(), 10);
        assert!(platform::check_completion_code(&code).is_ok());
        assert!(!code.contains(['0', 'O', '1', 'I']));
    }
}
