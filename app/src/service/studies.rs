//! Studies through crowd platforms: opening a study link (an account keyed by the
//! platform's worker id, a place under the link's limit, decided in the database), the study
//! information and consent before the first item, and the researcher's links and information.
use sqlx::PgPool;

use crate::db::campaigns::{self as campaigns_db, CampaignSettings};
use crate::db::studies::{self as db, InfoRow, LinkRow};
use crate::domain::judge::rule_text;
use crate::domain::rate_limit::{Counted, RateLimit};
use crate::domain::study::pay::dollars;
use crate::domain::study::platform::{self, Arrival, Entry, Platform};
use crate::domain::study::visit::VisitKeys;
use crate::domain::study::{self, Refusal};
use crate::domain::{CampaignId, CampaignKind, CampaignStatus, StudyLinkId, UserId, UserStatus};
use crate::dto::studies::{ConsentState, StudyEntry, StudyLinkView, StudySetup, StudyView};
use crate::error::AppError;
use crate::session::SignedIn;

/// What opening a link did: the page to show, and the account to sign in (if any).
pub struct Opened {
    pub entry: StudyEntry,
    pub sign_in: Option<UserId>,
}

fn refused(reason: Refusal, detail: Option<String>) -> Opened {
    Opened {
        entry: StudyEntry::Refused { reason, detail },
        sign_in: None,
    }
}

/// Opens the study link `slug` with the platform's query parameters.
///
/// A new platform id gets an annotator account with no password; a known one is signed in again
/// (a reload, another device). A worker new to the campaign takes one of the link's places, in
/// the same transaction as their arrival, so more arrivals than places see "study full" however
/// many come at once. A refused arrival creates nothing. An arrival records where the link was
/// opened from (`visit`, when the address is known; `domain::study::visit`).
pub async fn open(
    pool: &PgPool,
    slug: &str,
    query: &[(String, String)],
    signed_in: SignedIn,
    newcomers: Newcomers,
    visit: Option<&VisitKeys>,
) -> Result<Opened, AppError> {
    if !study::check_slug(slug) {
        return Ok(refused(Refusal::UnknownLink, None));
    }
    let Some(target) = db::find_target(pool, slug).await? else {
        return Ok(refused(Refusal::UnknownLink, None));
    };
    let platform = target.link.platform;
    // Nothing of a study that is not open is shown to a newcomer, not even in MTurk's preview. A
    // worker already in a study the researcher closed comes back to finish it (and be paid).
    let open = target.status == CampaignStatus::Open;
    let arrival = match platform::read_entry(platform, query) {
        Ok(Entry::Worker(arrival)) => arrival,
        Ok(Entry::Preview) if !open => return Ok(refused(Refusal::NotOpen, None)),
        Ok(Entry::Preview) if target.link.paused => return Ok(refused(Refusal::Paused, None)),
        Ok(Entry::Preview) if target.expired => return Ok(refused(Refusal::Expired, None)),
        Ok(Entry::Preview) => {
            let campaign = campaign(pool, target.link.campaign_id).await?;
            let info = db::latest_info(pool, campaign.campaign_id).await?;
            let study = study_view(pool, &campaign, info.as_ref(), platform).await?;
            return Ok(Opened {
                entry: StudyEntry::Preview { study },
                sign_in: None,
            });
        }
        Err(_) if !open => return Ok(refused(Refusal::NotOpen, None)),
        Err(invalid) => return Ok(refused(Refusal::BadParameters, Some(invalid.message))),
    };
    // A link opened in a browser logged in with a password account (an admin trying the link, or
    // a crafted link sent to one) does not swap that session for a worker's.
    if signed_in == SignedIn::Password {
        return Ok(refused(Refusal::OtherAccount, None));
    }

    let existing = db::find_account(pool, arrival.platform, arrival.external_id.as_str()).await?;
    // A browser signed in as another worker is refused before anything is counted (checked
    // again below, where the account is made).
    if let SignedIn::StudyWorker(current) = signed_in {
        if existing.map(|(user, _)| user) != Some(current) {
            return Ok(refused(Refusal::OtherParticipant, None));
        }
    }
    // A platform id new to the server makes an account: at most so many per address.
    if open && existing.is_none() {
        super::rate_limits::take(
            pool,
            newcomers.limit,
            Counted::StudyAccount,
            newcomers.address,
        )
        .await?;
    }

    let campaign_id = target.link.campaign_id;
    let detail = serde_json::to_value(&arrival.detail).map_err(|e| {
        tracing::error!(error.message = %e, "BUG: an arrival's detail does not serialise");
        AppError::Internal
    })?;
    let mut tx = pool.begin().await?;
    let known = if open {
        account(&mut tx, &arrival).await?
    } else {
        // A closed study makes no accounts.
        match db::find_account(&mut *tx, arrival.platform, arrival.external_id.as_str()).await? {
            Some((user, UserStatus::Active)) => Some((user, true)),
            Some((_, UserStatus::Blocked)) => None,
            None => return Ok(refused(Refusal::NotOpen, None)),
        }
    };
    let Some((user, returning)) = known else {
        return Ok(refused(Refusal::Blocked, None));
    };
    // A browser a study link signed in as one worker is not moved to another's id by a link
    // (a crafted one, sent from another site, would move this worker's later items and bonus
    // to that account). Rolled back: nothing is created for the other id.
    if matches!(signed_in, SignedIn::StudyWorker(current) if current != user) {
        return Ok(refused(Refusal::OtherParticipant, None));
    }
    // The visit's ids become the latest (an MTurk worker who accepted the HIT again has a new
    // assignment); the first arrival's stay beside them. A visit crafted with someone's worker
    // id is that worker's account anyway: MTurk's parameters are all an external question has.
    let returning = returning && db::touch_arrival(&mut *tx, campaign_id, user, &detail).await?;
    if !returning {
        if !open {
            return Ok(refused(Refusal::NotOpen, None));
        }
        // Pausing or expiring a link stops recruiting; it does not lock out those already in.
        if target.link.paused {
            return Ok(refused(Refusal::Paused, None));
        }
        if target.expired {
            return Ok(refused(Refusal::Expired, None));
        }
        if !db::take_place(&mut *tx, target.link.study_link_id).await? {
            // Rolled back: a worker turned away leaves no account behind.
            return Ok(refused(Refusal::Full, None));
        }
        db::insert_arrival(
            &mut *tx,
            campaign_id,
            user,
            target.link.study_link_id,
            &detail,
        )
        .await?;
    }
    if let Some(keys) = visit {
        db::record_visit(&mut *tx, campaign_id, user, keys).await?;
    }
    let campaign = campaign(&mut *tx, campaign_id).await?;
    let info = db::latest_info(&mut *tx, campaign_id).await?;
    let consent = consent_state(&mut tx, info.as_ref(), campaign_id, user).await?;
    let completed = crate::db::study_completion::find(&mut *tx, campaign_id, user)
        .await?
        .is_some();
    tx.commit().await?;
    let study = study_view(pool, &campaign, info.as_ref(), platform).await?;
    Ok(Opened {
        entry: StudyEntry::Worker {
            // A closed study's workers go straight to finishing it.
            task_href: if completed || !open {
                super::study_completion::done_href(campaign_id)
            } else {
                task_href(&campaign)
            },
            study,
            consent,
            returning,
            completed,
        },
        sign_in: Some(user),
    })
}

/// How many new platform ids one address may bring, and this request's address.
#[derive(Debug, Clone, Copy)]
pub struct Newcomers {
    pub limit: RateLimit,
    pub address: Option<std::net::IpAddr>,
}

/// The account of the arrival's platform id, created when new: `(user, known before)`, or
/// `None` when it is blocked. Serialised per platform id, so two tabs make one account.
async fn account(
    tx: &mut sqlx::PgConnection,
    arrival: &Arrival,
) -> Result<Option<(UserId, bool)>, AppError> {
    let id = arrival.external_id.as_str();
    db::lock_external_id(&mut *tx, arrival.platform, id).await?;
    match db::find_account(&mut *tx, arrival.platform, id).await? {
        Some((_, UserStatus::Blocked)) => Ok(None),
        Some((user, UserStatus::Active)) => Ok(Some((user, true))),
        None => {
            let random = uuid::Uuid::new_v4().simple().to_string();
            let username = study::platform_username(arrival.platform, &random);
            let user = db::insert_account(tx, arrival.platform, id, &username).await?;
            Ok(Some((user, false)))
        }
    }
}

async fn campaign(
    db: impl sqlx::PgExecutor<'_>,
    id: CampaignId,
) -> Result<CampaignSettings, AppError> {
    campaigns_db::find(db, id).await?.ok_or(AppError::NotFound)
}

pub(crate) fn task_href(c: &CampaignSettings) -> String {
    match c.kind {
        CampaignKind::Judge => format!("/judge/{}", c.campaign_id),
        CampaignKind::Apt => format!("/apt/{}", c.campaign_id),
    }
}

async fn consent_state(
    tx: &mut sqlx::PgConnection,
    info: Option<&InfoRow>,
    campaign: CampaignId,
    user: UserId,
) -> Result<ConsentState, AppError> {
    let Some(info) = info.filter(|i| !i.consent_text.trim().is_empty()) else {
        return Ok(ConsentState::NotAsked);
    };
    Ok(
        match db::consent(&mut *tx, campaign, info.version, user).await? {
            None => ConsentState::Needed,
            Some(true) => ConsentState::Agreed,
            Some(false) => ConsentState::Declined,
        },
    )
}

/// The quality rule in plain words: the judging gate's (for a study of `items` judgments), or
/// the writing task's cap.
async fn quality_rule(
    pool: &PgPool,
    c: &CampaignSettings,
    items: Option<i32>,
) -> Result<String, AppError> {
    Ok(match c.kind {
        CampaignKind::Judge => match crate::db::judge::settings(pool, c.campaign_id).await? {
            Some(settings) => rule_text::quality_rule_within(
                &settings,
                items.and_then(|n| u32::try_from(n).ok()),
            ),
            None => String::new(),
        },
        CampaignKind::Apt => format!(
            "A sentence earns its reward only when a model judges that it keeps the meaning of the given sentence; the closer its wording, the less it earns. Your part of the study ends when you have earned ${:.2}.",
            f64::from(c.budget_cap_cents) / 100.0
        ),
    })
}

async fn study_view(
    pool: &PgPool,
    c: &CampaignSettings,
    info: Option<&InfoRow>,
    platform: Platform,
) -> Result<StudyView, AppError> {
    let summary = info
        .map(|i| i.summary.clone())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| default_summary(c.kind).to_owned());
    Ok(StudyView {
        campaign_id: c.campaign_id,
        kind: c.kind,
        title: c.title.clone(),
        summary,
        minutes: info.and_then(|i| i.minutes),
        pay: info.map(|i| i.pay.clone()).unwrap_or_default(),
        quality_rule: quality_rule(pool, c, info.and_then(|i| i.complete_after)).await?,
        consent_text: info.map(|i| i.consent_text.clone()).unwrap_or_default(),
        version: info.map_or(0, |i| i.version),
        platform,
    })
}

/// The signed-in worker agrees to (or declines) the consent text of version `version` of the
/// study their link opens. A decision on an older version than the latest is refused (the text
/// changed while they read it), so nobody agrees to what they did not see.
pub async fn decide(
    pool: &PgPool,
    slug: &str,
    user: UserId,
    version: i32,
    agreed: bool,
) -> Result<CampaignId, AppError> {
    let target = db::find_target(pool, slug)
        .await?
        .ok_or(AppError::NotFound)?;
    let campaign = target.link.campaign_id;
    if !db::arrived(pool, campaign, user).await? {
        return Err(AppError::Conflict(
            "Open the study through its link first.".into(),
        ));
    }
    let latest = db::latest_info(pool, campaign).await?;
    match latest {
        Some(info) if info.version == version && !info.consent_text.trim().is_empty() => {
            let mut tx = pool.begin().await?;
            db::record_consent(&mut *tx, campaign, version, user, agreed).await?;
            // Declining before any work gives the place back: the arrival goes (the decision
            // stays), and opening the link again is a new arrival. A worker who already did
            // some (and declines a new version) keeps theirs: it is what they are paid by.
            if !agreed && crate::db::study_completion::items(&mut *tx, campaign, user).await? == 0 {
                db::withdraw_arrival(&mut tx, campaign, user).await?;
            }
            tx.commit().await?;
            Ok(campaign)
        }
        _ => Err(AppError::Conflict(
            "The study information changed while you read it: please read it again.".into(),
        )),
    }
}

/// The open studies a visitor may read about: those whose researcher wrote study information
/// (a campaign without it is not shown to visitors), with their title, what the task is (the
/// researcher's words, or the task's own description), time and pay. No ids, links or counts.
pub async fn open_studies(
    pool: &PgPool,
) -> Result<Vec<crate::dto::studies::OpenStudyCard>, AppError> {
    Ok(db::open_studies(pool)
        .await?
        .into_iter()
        .map(|r| crate::dto::studies::OpenStudyCard {
            summary: if r.summary.trim().is_empty() {
                default_summary(r.kind).to_owned()
            } else {
                r.summary
            },
            kind: r.kind,
            title: r.title,
            minutes: r.minutes,
            pay: r.pay,
        })
        .collect())
}

fn default_summary(kind: CampaignKind) -> &'static str {
    match kind {
        CampaignKind::Judge => "You will read pairs of sentences and say, for each, whether the second says the same as the first (a paraphrase) or not.",
        CampaignKind::Apt => "You will rewrite sentences so that they keep their meaning but use different words and structure; a model checks each rewrite and shows what it earns.",
    }
}

// ---- The researcher's side -------------------------------------------------------------------

/// A campaign's study information and links; `base_url` prefixes the links (may be empty).
pub async fn setup(
    pool: &PgPool,
    campaign: CampaignId,
    base_url: &str,
) -> Result<StudySetup, AppError> {
    campaigns_db::find(pool, campaign)
        .await?
        .ok_or(AppError::NotFound)?;
    let info = db::latest_info(pool, campaign).await?;
    let now = time::OffsetDateTime::now_utc();
    let links = db::list_links(pool, campaign)
        .await?
        .into_iter()
        .filter_map(|l| link_view(l, base_url, now))
        .collect();
    Ok(StudySetup {
        version: info.as_ref().map_or(0, |i| i.version),
        summary: info.as_ref().map(|i| i.summary.clone()).unwrap_or_default(),
        minutes: info.as_ref().and_then(|i| i.minutes),
        pay: info.as_ref().map(|i| i.pay.clone()).unwrap_or_default(),
        consent_text: info
            .as_ref()
            .map(|i| i.consent_text.clone())
            .unwrap_or_default(),
        complete_after: info.as_ref().and_then(|i| i.complete_after),
        base_pay: info
            .as_ref()
            .filter(|i| i.base_pay_cents > 0)
            .map(|i| dollars(i64::from(i.base_pay_cents)))
            .unwrap_or_default(),
        judgment_pay: info
            .as_ref()
            .filter(|i| i.judgment_pay_mills > 0)
            .map(|i| crate::domain::money::dollars_mills(i64::from(i.judgment_pay_mills)))
            .unwrap_or_default(),
        min_hourly: info
            .as_ref()
            .and_then(|i| i.min_hourly_cents)
            .map(|c| dollars(i64::from(c)))
            .unwrap_or_default(),
        completion_code: info.map(|i| i.completion_code).unwrap_or_default(),
        links,
    })
}

fn link_view(l: LinkRow, base_url: &str, now: time::OffsetDateTime) -> Option<StudyLinkView> {
    let platform = l.platform;
    let query = platform.link_query();
    let url = if query.is_empty() {
        format!("{base_url}/s/{}", l.slug)
    } else {
        format!("{base_url}/s/{}?{query}", l.slug)
    };
    Some(StudyLinkView {
        study_link_id: StudyLinkId(l.study_link_id),
        platform,
        label: l.label,
        url,
        max_workers: l.max_workers,
        workers: l.workers,
        expires_at: l.expires_at.map(crate::service::rfc3339),
        expired: l.expires_at.is_some_and(|t| t <= now),
        paused: l.paused,
    })
}

/// What the researcher typed for the study information (the row the database saves, before
/// trimming and checks).
pub use crate::db::studies::NewInfo as InfoForm;

/// Saves the study information as a new version; returns it.
pub async fn save_info(
    pool: &PgPool,
    campaign: CampaignId,
    by: UserId,
    form: InfoForm<'_>,
) -> Result<i32, AppError> {
    let limit = |field: &'static str, text: &str, max: usize| -> Result<(), AppError> {
        if text.chars().count() > max {
            return Err(AppError::validation(
                field,
                format!("At most {max} characters."),
            ));
        }
        Ok(())
    };
    limit("summary", form.summary, 5000)?;
    limit("pay", form.pay, 1000)?;
    limit("consent_text", form.consent_text, 20_000)?;
    let range = |field: &'static str, v: Option<i32>, lo: i32, hi: i32, say: &str| match v {
        Some(v) if !(lo..=hi).contains(&v) => Err(AppError::validation(field, say.to_owned())),
        _ => Ok(()),
    };
    range(
        "complete_after",
        form.complete_after,
        1,
        100_000,
        "Give 1 to 100,000 items, or leave it empty.",
    )?;
    range(
        "base_pay",
        Some(form.base_pay_cents),
        0,
        100_000,
        "Give at most $1,000.00.",
    )?;
    range(
        "judgment_pay",
        Some(form.judgment_pay_mills),
        0,
        100_000,
        "Give at most $100.000 a judgment.",
    )?;
    range(
        "min_hourly",
        form.min_hourly_cents,
        1,
        100_000,
        "Give $0.01 to $1,000.00 an hour, or leave it empty.",
    )?;
    if let Some(m) = form.minutes {
        if !(1..=1440).contains(&m) {
            return Err(AppError::validation(
                "minutes",
                "Give 1 to 1,440 minutes, or leave it empty.",
            ));
        }
    }
    let code = form.completion_code.trim();
    if !code.is_empty() {
        platform::check_completion_code(code).map_err(AppError::from)?;
    }
    let mut tx = pool.begin().await?;
    let info = InfoForm {
        summary: form.summary.trim(),
        minutes: form.minutes,
        pay: form.pay.trim(),
        consent_text: form.consent_text.trim(),
        completion_code: code,
        ..form
    };
    let version = db::insert_info(&mut tx, campaign, info, by).await?;
    tx.commit().await?;
    Ok(version)
}

/// Creates a recruitment link for `platform`, optionally limited to `max_workers` and expiring
/// after `expires_in_days`.
pub async fn create_link(
    pool: &PgPool,
    campaign: CampaignId,
    by: UserId,
    platform: &str,
    label: &str,
    max_workers: Option<i32>,
    expires_in_days: Option<i32>,
) -> Result<(), AppError> {
    let platform = Platform::parse(platform).ok_or_else(|| {
        AppError::validation(
            "platform",
            "Choose Prolific, Mechanical Turk or a plain link.",
        )
    })?;
    if label.chars().count() > 200 {
        return Err(AppError::validation("label", "At most 200 characters."));
    }
    if max_workers.is_some_and(|n| !(1..=1_000_000).contains(&n)) {
        return Err(AppError::validation(
            "max_workers",
            "Give 1 to 1,000,000 workers, or leave it empty.",
        ));
    }
    if expires_in_days.is_some_and(|d| !(1..=3650).contains(&d)) {
        return Err(AppError::validation(
            "expires_in_days",
            "Give 1 to 3,650 days, or leave it empty.",
        ));
    }
    campaigns_db::find(pool, campaign)
        .await?
        .ok_or(AppError::NotFound)?;
    let slug = uuid::Uuid::new_v4().simple().to_string();
    let link = db::NewLink {
        platform,
        slug: &slug,
        label: label.trim(),
        max_workers,
        expires_in_days,
    };
    db::insert_link(pool, campaign, link, by).await
}

/// Pauses or resumes a link.
pub async fn set_link_paused(
    pool: &PgPool,
    campaign: CampaignId,
    link: StudyLinkId,
    paused: bool,
) -> Result<(), AppError> {
    if db::set_paused(pool, campaign, link.uuid(), paused).await? {
        Ok(())
    } else {
        Err(AppError::NotFound)
    }
}
