//! The payments page's Prolific section: connect a Prolific link to its study, test the
//! connection, reconcile the study's submissions with paracrowd's completions and approve the
//! completed ones. Researchers and admins. The use cases are in [`crate::service::prolific`].
use leptos::prelude::*;

use crate::domain::{BatchId, CampaignId, PlatformCallId, StudyLinkId};
use crate::error::AppError;

pub use crate::dto::platforms::{
    ApproveOutcome, BonusBatchView, BonusState, BulkBonusView, CallView, ProlificLinkView,
    ProlificView, ReconcileRow, ReconcileView,
};

#[cfg(feature = "ssr")]
async fn caller() -> Result<
    (
        sqlx::PgPool,
        Option<std::sync::Arc<crate::prolific::Client>>,
        crate::domain::UserId,
    ),
    AppError,
> {
    let state = crate::state::app_state()?;
    let me = crate::session::require_role(&[
        crate::domain::Role::Researcher,
        crate::domain::Role::Admin,
    ])
    .await?;
    Ok((state.pool, state.prolific, me.app_user_id))
}

/// The campaign's Prolific links, whether the server has a token, and the calls made.
#[server(endpoint = "research/prolific")]
pub async fn load_prolific(campaign_id: CampaignId) -> Result<ProlificView, AppError> {
    super::with_status(
        async {
            let (pool, client, _) = caller().await?;
            crate::service::prolific::view(&pool, client.as_deref(), campaign_id).await
        }
        .await,
    )
}

/// Connects a Prolific link to the Prolific study `study_id`.
#[server(endpoint = "research/prolific_connect")]
pub async fn connect_prolific(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
    study_id: String,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, _, me) = caller().await?;
            crate::service::prolific::connect(&pool, campaign_id, study_link_id, &study_id, me)
                .await
        }
        .await,
    )
}

/// Reads the connected study once from Prolific and says what it is.
#[server(endpoint = "research/prolific_test")]
pub async fn test_prolific(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
) -> Result<String, AppError> {
    super::with_status(
        async {
            let (pool, client, _) = caller().await?;
            crate::service::prolific::test(&pool, client.as_deref(), campaign_id, study_link_id)
                .await
        }
        .await,
    )
}

/// The study's submissions beside paracrowd's completions.
#[server(endpoint = "research/prolific_reconcile")]
pub async fn reconcile_prolific(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
) -> Result<ReconcileView, AppError> {
    super::with_status(
        async {
            let (pool, client, _) = caller().await?;
            crate::service::prolific::reconcile(
                &pool,
                client.as_deref(),
                campaign_id,
                study_link_id,
            )
            .await
        }
        .await,
    )
}

/// Approves the submissions that are awaiting review there and completed here, in one call
/// recorded under `call_id` (the same id twice makes one call).
#[server(endpoint = "research/prolific_approve")]
pub async fn approve_prolific(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
    call_id: PlatformCallId,
) -> Result<ApproveOutcome, AppError> {
    super::with_status(
        async {
            let (pool, client, me) = caller().await?;
            crate::service::prolific::approve(
                &pool,
                client.as_deref(),
                campaign_id,
                study_link_id,
                call_id,
                me,
            )
            .await
        }
        .await,
    )
}

/// Sets the bonus batch `batch_id` up on Prolific as a bulk bonus of the study `study_link_id`
/// is connected to: Prolific answers with its amount and fees; nothing is paid yet.
#[server(endpoint = "research/prolific_bonus_set_up")]
pub async fn set_up_prolific_bonus(
    campaign_id: CampaignId,
    batch_id: BatchId,
    study_link_id: StudyLinkId,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, client, _) = caller().await?;
            crate::service::prolific::set_up_bonus(
                &pool,
                client.as_deref(),
                campaign_id,
                batch_id,
                study_link_id,
            )
            .await
        }
        .await,
    )
}

/// Pays the batch's bulk bonus on Prolific, at most once; marks the batch paid on Prolific's
/// answer.
#[server(endpoint = "research/prolific_bonus_pay")]
pub async fn pay_prolific_bonus(
    campaign_id: CampaignId,
    batch_id: BatchId,
) -> Result<String, AppError> {
    super::with_status(
        async {
            let (pool, client, me) = caller().await?;
            crate::service::prolific::pay_bonus(&pool, client.as_deref(), campaign_id, batch_id, me)
                .await
        }
        .await,
    )
}

/// What the researcher saw on Prolific for a bonus whose payment gave no answer: `paid`, or
/// not paid (it may then be paid again).
#[server(endpoint = "research/prolific_bonus_resolve")]
pub async fn resolve_prolific_bonus(
    campaign_id: CampaignId,
    batch_id: BatchId,
    #[server(default)] paid: bool,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, _, me) = caller().await?;
            crate::service::prolific::resolve_bonus(&pool, campaign_id, batch_id, paid, me).await
        }
        .await,
    )
}

/// Rejects one submission awaiting review on Prolific, with one of Prolific's categories and a
/// message of at least 100 characters for the participant; recorded under `call_id`.
#[server(endpoint = "research/prolific_reject")]
pub async fn reject_prolific(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
    submission_id: String,
    category: String,
    message: String,
    call_id: PlatformCallId,
) -> Result<String, AppError> {
    super::with_status(
        async {
            let (pool, client, me) = caller().await?;
            crate::service::prolific::reject(
                &pool,
                client.as_deref(),
                campaign_id,
                study_link_id,
                &submission_id,
                &category,
                &message,
                call_id,
                me,
            )
            .await
        }
        .await,
    )
}
