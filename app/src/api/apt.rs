//! The APT writing task for annotators: get a sentence, Check a rewrite (every Check is stored),
//! Submit a checked rewrite (paid once, within the cap), skip. The use cases are in
//! [`crate::service::apt`].
use leptos::prelude::*;

use crate::domain::{AttemptId, CampaignId, SourceId};
use crate::error::AppError;

pub use crate::dto::apt::{
    AptTask, CheckOutcome, PlainRefusal, SubmitOutcome, Verdict, MAX_ATTEMPT_CHARS,
};

#[server(endpoint = "apt/next")]
pub async fn apt_next(campaign_id: CampaignId) -> Result<AptTask, AppError> {
    super::with_status(ssr::next(campaign_id).await)
}

#[server(endpoint = "apt/check")]
pub async fn apt_check(
    campaign_id: CampaignId,
    source_id: SourceId,
    text: String,
) -> Result<CheckOutcome, AppError> {
    let form = crate::error::is_form_post().then(|| text.clone());
    let result = ssr::check(campaign_id, source_id, text).await;
    // A plain form (before the page's script runs, or without JavaScript) goes back to the
    // writing page, which shows this Check again with its text (`apt_checked`), or, refused,
    // the text as it was sent and why (`PlainRefusal`).
    if let Some(text) = form {
        leptos_axum::redirect(&match &result {
            Ok(o) => format!("/apt/{campaign_id}?checked={}", o.attempt_id),
            Err(e) => format!(
                "/apt/{campaign_id}?{}",
                ssr::refused_query(e, source_id, &text)
            ),
        });
    }
    super::with_status(result)
}

/// The caller's Check `attempt_id` of the sentence they hold, with its text, as the Check
/// answered it; nothing for any other. The writing page reads it after a plain form's Check.
#[server(endpoint = "apt/checked")]
pub async fn apt_checked(
    campaign_id: CampaignId,
    attempt_id: AttemptId,
) -> Result<Option<(String, CheckOutcome)>, AppError> {
    super::with_status(ssr::checked(campaign_id, attempt_id).await)
}

#[server(endpoint = "apt/submit")]
pub async fn apt_submit(
    campaign_id: CampaignId,
    attempt_id: AttemptId,
) -> Result<SubmitOutcome, AppError> {
    let result = ssr::submit(campaign_id, attempt_id).await;
    if crate::error::is_form_post() {
        leptos_axum::redirect(&format!("/apt/{campaign_id}"));
    }
    super::with_status(result)
}

#[server(endpoint = "apt/skip")]
pub async fn apt_skip(campaign_id: CampaignId, source_id: SourceId) -> Result<(), AppError> {
    let result = ssr::skip(campaign_id, source_id).await;
    if crate::error::is_form_post() {
        leptos_axum::redirect(&format!("/apt/{campaign_id}"));
    }
    super::with_status(result)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::api::worker;
    use crate::ml::ScoreError;
    use crate::service::apt as service;
    use crate::state::app_state;

    /// The writing page's address query after a refused plain Check: the refusal, the
    /// sentence it was for, and the text as sent, trimmed to one character past the longest
    /// rewrite (the box holds no more; one more still reads as "too long" on the page).
    pub fn refused_query(error: &AppError, source_id: SourceId, text: &str) -> String {
        let draft: String = text.trim().chars().take(MAX_ATTEMPT_CHARS + 1).collect();
        form_urlencoded::Serializer::new(String::new())
            .append_pair("refused", PlainRefusal::of(error).code())
            .append_pair("source", &source_id.to_string())
            .append_pair("draft", &draft)
            .finish()
    }

    pub async fn next(campaign_id: CampaignId) -> Result<AptTask, AppError> {
        let (state, user, campaign) = worker(campaign_id).await?;
        service::next(&state.pool, user, campaign).await
    }

    pub async fn check(
        campaign_id: CampaignId,
        source_id: SourceId,
        text: String,
    ) -> Result<CheckOutcome, AppError> {
        // A full model queue answers "busy" before the session and database work below, so a
        // burst of Checks costs little beyond what can be scored. It tells the caller nothing
        // but that the server is busy.
        if let Err(ScoreError::Busy) = app_state()?.scorer.admit() {
            return Err(AppError::Overloaded);
        }
        let (state, user, campaign) = worker(campaign_id).await?;
        service::check(
            &state.pool,
            &*state.scorer,
            user,
            campaign,
            source_id,
            &text,
        )
        .await
    }

    pub async fn checked(
        campaign_id: CampaignId,
        attempt_id: AttemptId,
    ) -> Result<Option<(String, CheckOutcome)>, AppError> {
        let (state, user, campaign) = worker(campaign_id).await?;
        service::checked(&state.pool, user, campaign, attempt_id).await
    }

    pub async fn submit(
        campaign_id: CampaignId,
        attempt_id: AttemptId,
    ) -> Result<SubmitOutcome, AppError> {
        let (state, user, campaign) = worker(campaign_id).await?;
        service::submit(&state.pool, user, campaign, attempt_id).await
    }

    pub async fn skip(campaign_id: CampaignId, source_id: SourceId) -> Result<(), AppError> {
        let (state, user, campaign) = worker(campaign_id).await?;
        service::skip(&state.pool, user, campaign, source_id).await
    }
}
