//! Studies through crowd platforms: opening a study link, agreeing to (or
//! declining) its consent text, and the researcher's study information and links (admins).
//! The use cases are in [`crate::service::studies`].
use leptos::prelude::*;

use crate::domain::{BatchId, CampaignId, StudyLinkId};
use crate::error::AppError;

pub use crate::dto::studies::{
    BatchView, CompletionView, ConsentState, OpenStudyCard, PaymentsView, ReturnTo, StudyEntry,
    StudyLinkView, StudyProgress, StudySetup, StudyView, WorkerPayView,
};

#[cfg(feature = "ssr")]
use ssr::*;

/// Opens the study link `slug` with the query string the platform appended (`?` optional).
/// Signs the worker in with their platform account; a refusal signs nobody in and, on the
/// server-rendered page, sets its status (404 unknown link, 400 bad parameters, 409 paused, full
/// or not open, 410 expired, 403 blocked).
#[server(endpoint = "study/open")]
pub async fn open_study(slug: String, query: String) -> Result<StudyEntry, AppError> {
    super::with_status(open(slug, query).await)
}

/// The open studies with study information, for a visitor's home page: title, task, time and
/// pay. Anyone.
#[server(endpoint = "open_studies")]
pub async fn list_open_studies() -> Result<Vec<OpenStudyCard>, AppError> {
    super::with_status(
        async {
            let pool = crate::state::pool()?;
            service::open_studies(&pool).await
        }
        .await,
    )
}

/// The signed-in worker's decision on the consent text of `version`.
#[server(endpoint = "study/decide")]
pub async fn decide_consent(
    slug: String,
    version: i32,
    agree: bool,
) -> Result<ConsentState, AppError> {
    super::with_status(decide(slug, version, agree).await)
}

/// A campaign's study information and links. Admins only.
#[server(endpoint = "admin/study_setup")]
pub async fn load_study_setup(campaign_id: CampaignId) -> Result<StudySetup, AppError> {
    super::with_status(
        async {
            let (pool, _) = super::admin().await?;
            service::setup(&pool, campaign_id, "").await
        }
        .await,
    )
}

/// The study around a task page: the number of items asked for, the pay per item, the time,
/// and where a study worker finishes. Any worker of the campaign.
#[server(endpoint = "study/progress")]
pub async fn load_study_progress(campaign_id: CampaignId) -> Result<StudyProgress, AppError> {
    super::with_status(
        async {
            // Not `super::worker`: a worker who made the items asked for still reads this.
            let state = crate::state::app_state()?;
            let user = crate::session::require_user().await?.app_user_id;
            let campaign = campaign_id;
            let session = crate::session::session().await?;
            crate::session::check_study_access(&session, campaign).await?;
            crate::service::study_completion::progress(&state.pool, campaign, user).await
        }
        .await,
    )
}

/// Finishes the caller's part of a study they came to through a link, when its rule is met
/// (idempotent: a reload or a second tab gets the same code and way back). Once complete, the
/// task refuses them more items.
#[server(endpoint = "study/complete")]
pub async fn complete_study(campaign_id: CampaignId) -> Result<CompletionView, AppError> {
    super::with_status(
        async {
            let pool = crate::state::pool()?;
            let user = crate::session::require_user().await?.app_user_id;
            let campaign = campaign_id;
            let view = crate::service::study_completion::complete(&pool, campaign, user).await?;
            if matches!(view, CompletionView::Done { .. }) {
                let session = crate::session::session().await?;
                crate::session::complete_study(&session, campaign).await?;
            }
            Ok(view)
        }
        .await,
    )
}

/// A campaign's study workers with what they earned and are owed, and its bonus batches.
/// Researchers and admins.
#[server(endpoint = "research/payments")]
pub async fn load_payments(campaign_id: CampaignId) -> Result<PaymentsView, AppError> {
    super::with_status(
        async {
            let (pool, _) = researcher_id().await?;
            crate::service::payments::payments(&pool, campaign_id).await
        }
        .await,
    )
}

/// Makes the bonus batch `batch_id` (from the payments page) of what is owed and in no batch;
/// `top_up` adds what brings each completed worker to the minimum hourly rate. The same id sent
/// twice makes one batch. Researchers and admins.
#[server(endpoint = "research/make_payment_batch")]
pub async fn make_payment_batch(
    campaign_id: CampaignId,
    batch_id: BatchId,
    #[server(default)] top_up: bool,
) -> Result<BatchView, AppError> {
    super::with_status(
        async {
            let (pool, me) = researcher_id().await?;
            crate::service::payments::make_batch(&pool, campaign_id, me, batch_id, top_up).await
        }
        .await,
    )
}

/// Records that a batch was paid on the platform (once). Researchers and admins.
#[server(endpoint = "research/mark_batch_paid")]
pub async fn mark_batch_paid(campaign_id: CampaignId, batch_id: BatchId) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, me) = researcher_id().await?;
            crate::service::payments::mark_paid(&pool, campaign_id, batch_id, me).await
        }
        .await,
    )
}

/// Discards a batch not marked paid. Researchers and admins.
#[server(endpoint = "research/discard_payment_batch")]
pub async fn discard_payment_batch(
    campaign_id: CampaignId,
    batch_id: BatchId,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, _) = researcher_id().await?;
            crate::service::payments::discard_batch(&pool, campaign_id, batch_id).await
        }
        .await,
    )
}

/// Saves the study information as a new version; returns it. Admins only. `minutes`,
/// `complete_after` and the amounts (dollars: `base_pay`, `judgment_pay`, `min_hourly`) may be
/// empty.
#[allow(clippy::too_many_arguments)]
#[server(endpoint = "admin/save_study_info")]
pub async fn save_study_info(
    campaign_id: CampaignId,
    summary: String,
    minutes: String,
    pay: String,
    consent_text: String,
    completion_code: String,
    #[server(default)] complete_after: String,
    #[server(default)] base_pay: String,
    #[server(default)] judgment_pay: String,
    #[server(default)] min_hourly: String,
) -> Result<i32, AppError> {
    super::with_status(
        async {
            let (pool, me) = super::admin().await?;
            let form = service::InfoForm {
                summary: &summary,
                minutes: optional_number("minutes", &minutes)?,
                pay: &pay,
                consent_text: &consent_text,
                completion_code: &completion_code,
                complete_after: optional_number("complete_after", &complete_after)?,
                base_pay_cents: amount("base_pay", &base_pay, 2)?.unwrap_or(0),
                judgment_pay_mills: amount("judgment_pay", &judgment_pay, 3)?.unwrap_or(0),
                min_hourly_cents: amount("min_hourly", &min_hourly, 2)?,
            };
            service::save_info(&pool, campaign_id, me, form).await
        }
        .await,
    )
}

/// Creates a recruitment link: `platform` is `prolific`, `mturk` or `generic`; `max_workers`
/// and `expires_in_days` may be empty. Admins only.
#[server(endpoint = "admin/create_study_link")]
pub async fn create_study_link(
    campaign_id: CampaignId,
    platform: String,
    label: String,
    max_workers: String,
    expires_in_days: String,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, me) = super::admin().await?;
            service::create_link(
                &pool,
                campaign_id,
                me,
                &platform,
                &label,
                optional_number("max_workers", &max_workers)?,
                optional_number("expires_in_days", &expires_in_days)?,
            )
            .await
        }
        .await,
    )
}

/// Pauses or resumes a link. Admins only.
#[server(endpoint = "admin/set_study_link_paused")]
pub async fn set_study_link_paused(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
    paused: bool,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, _) = super::admin().await?;
            service::set_link_paused(&pool, campaign_id, study_link_id, paused).await
        }
        .await,
    )
}

#[cfg(feature = "ssr")]
mod ssr {
    pub use crate::service::studies as service;

    use super::*;

    /// The caller, a researcher or an admin.
    pub async fn researcher_id() -> Result<(sqlx::PgPool, crate::domain::UserId), AppError> {
        let pool = crate::state::pool()?;
        let me = crate::session::require_role(&[
            crate::domain::Role::Researcher,
            crate::domain::Role::Admin,
        ])
        .await?;
        Ok((pool, me.app_user_id))
    }

    /// An optional amount of dollars from a form field, in units of `10^-places` dollars.
    pub fn amount(field: &str, raw: &str, places: u32) -> Result<Option<i32>, AppError> {
        if raw.trim().is_empty() {
            return Ok(None);
        }
        crate::domain::study::pay::parse_dollars(raw, places)
            .and_then(|v| i32::try_from(v).ok())
            .map(Some)
            .ok_or_else(|| {
                AppError::validation(
                    field,
                    format!("Give an amount in dollars with at most {places} decimals, like 1.50."),
                )
            })
    }

    /// An optional whole number from a form field (empty: none).
    pub fn optional_number(field: &str, raw: &str) -> Result<Option<i32>, AppError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Ok(None);
        }
        raw.parse()
            .map(Some)
            .map_err(|_| AppError::validation(field, "Give a whole number, or leave it empty."))
    }

    pub async fn open(slug: String, query: String) -> Result<StudyEntry, AppError> {
        let pool = crate::state::pool()?;
        // The page's status says why a link was refused; a call of this function answers 200
        // with the refusal in its body (the browser's client reads a non-2xx answer as an error).
        let is_page = use_context::<http::request::Parts>()
            .is_some_and(|p| !p.uri.path().starts_with("/api/"));
        let response = use_context::<leptos_axum::ResponseOptions>().filter(|_| is_page);
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(query.trim_start_matches('?').as_bytes())
                .into_owned()
                .collect();
        let session = crate::session::session().await?;
        let signed_in = crate::session::signed_in(&session).await?;
        let state = crate::state::app_state()?;
        let address = crate::api::client_address(&state).await;
        // Counted by address: a link's visitor has no account yet, or is taken to theirs here.
        state.calls.take_anonymous(&pool, address).await?;
        let newcomer = service::Newcomers {
            limit: state.rate_limits.study_accounts,
            address,
        };
        let headers = leptos_axum::extract::<http::HeaderMap>().await.ok();
        let header = |name: &str| {
            headers
                .as_ref()
                .and_then(|h| h.get(name))
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let visit = address.map(|ip| {
            crate::domain::study::visit::VisitKeys::of(
                ip,
                header("user-agent").as_deref(),
                header("accept-language").as_deref(),
            )
        });
        let opened =
            service::open(&pool, &slug, &pairs, signed_in, newcomer, visit.as_ref()).await?;
        if let StudyEntry::Refused { reason, .. } = &opened.entry {
            if let (Some(response), Ok(status)) =
                (response, http::StatusCode::from_u16(reason.status()))
            {
                response.set_status(status);
            }
        }
        if let Some(user) = opened.sign_in {
            crate::session::log_in_study_worker(&session, user).await?;
            if let StudyEntry::Worker {
                study,
                consent,
                completed,
                ..
            } = &opened.entry
            {
                if *completed {
                    crate::session::complete_study(&session, study.campaign_id).await?;
                    return Ok(opened.entry);
                }
                match consent {
                    ConsentState::NotAsked | ConsentState::Agreed => {
                        crate::session::allow_study(&session, study.campaign_id).await?
                    }
                    // A new version of the consent text, not yet agreed to: no items until then.
                    ConsentState::Needed | ConsentState::Declined => {
                        crate::session::disallow_study(&session, study.campaign_id).await?
                    }
                }
            }
        }
        Ok(opened.entry)
    }

    pub async fn decide(slug: String, version: i32, agree: bool) -> Result<ConsentState, AppError> {
        let pool = crate::state::pool()?;
        let session = crate::session::session().await?;
        let user = crate::session::require_user().await?.app_user_id;
        let campaign = service::decide(&pool, &slug, user, version, agree).await?;
        if agree {
            crate::session::allow_study(&session, campaign).await?;
            Ok(ConsentState::Agreed)
        } else {
            // Declining ends the session: the account keeps only the decision.
            crate::session::log_out(&session).await?;
            Ok(ConsentState::Declined)
        }
    }
}
