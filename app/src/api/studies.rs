//! Studies through crowd platforms (issue #23): opening a study link, agreeing to (or
//! declining) its consent text, and the researcher's study information and links (admins).
//! The use cases are in [`crate::service::studies`].
use leptos::prelude::*;

use crate::error::AppError;

pub use crate::dto::studies::{ConsentState, StudyEntry, StudyLinkView, StudySetup, StudyView};

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
pub async fn load_study_setup(campaign_id: String) -> Result<StudySetup, AppError> {
    super::with_status(
        async {
            let (pool, _) = super::admin().await?;
            let id = super::parse_id(&campaign_id, "campaign_id")?;
            service::setup(&pool, id, "").await
        }
        .await,
    )
}

/// Saves the study information as a new version; returns it. Admins only. `minutes` may be
/// empty.
#[server(endpoint = "admin/save_study_info")]
pub async fn save_study_info(
    campaign_id: String,
    summary: String,
    minutes: String,
    pay: String,
    consent_text: String,
    completion_code: String,
) -> Result<i32, AppError> {
    super::with_status(
        async {
            let (pool, me) = super::admin().await?;
            let id = super::parse_id(&campaign_id, "campaign_id")?;
            let form = service::InfoForm {
                summary: &summary,
                minutes: optional_number("minutes", &minutes)?,
                pay: &pay,
                consent_text: &consent_text,
                completion_code: &completion_code,
            };
            service::save_info(&pool, id, me, form).await
        }
        .await,
    )
}

/// Creates a recruitment link: `platform` is `prolific`, `mturk` or `generic`; `max_workers`
/// and `expires_in_days` may be empty. Admins only.
#[server(endpoint = "admin/create_study_link")]
pub async fn create_study_link(
    campaign_id: String,
    platform: String,
    label: String,
    max_workers: String,
    expires_in_days: String,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, me) = super::admin().await?;
            let id = super::parse_id(&campaign_id, "campaign_id")?;
            service::create_link(
                &pool,
                id,
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
    campaign_id: String,
    study_link_id: String,
    paused: bool,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, _) = super::admin().await?;
            let id = super::parse_id(&campaign_id, "campaign_id")?;
            service::set_link_paused(&pool, id, &study_link_id, paused).await
        }
        .await,
    )
}

#[cfg(feature = "ssr")]
mod ssr {
    pub use crate::service::studies as service;

    use super::*;

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
        let signed_in_elsewhere = crate::session::is_password_session(&session).await?;
        let opened = service::open(&pool, &slug, &pairs, signed_in_elsewhere).await?;
        if let StudyEntry::Refused { reason, .. } = &opened.entry {
            if let (Some(response), Ok(status)) =
                (response, http::StatusCode::from_u16(reason.status()))
            {
                response.set_status(status);
            }
        }
        if let Some(user) = opened.sign_in {
            crate::session::log_in_study_worker(&session, user).await?;
            if let StudyEntry::Worker { study, consent, .. } = &opened.entry {
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
