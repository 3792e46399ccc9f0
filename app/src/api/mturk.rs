//! The payments page's MTurk section: connect an MTurk link to its HITs (sandbox or production),
//! test the connection, reconcile the HITs' assignments with paracrowd's completions, approve
//! the completed ones, reject one with feedback, and send a batch's bonuses. Researchers and
//! admins. The use cases are in [`crate::service::mturk`].
use leptos::prelude::*;

use crate::domain::{BatchId, CampaignId, PlatformCallId, StudyLinkId};
use crate::error::AppError;

pub use crate::dto::platforms::{
    ApproveOutcome, MturkBatchView, MturkLinkView, MturkView, ReconcileView,
};

#[cfg(feature = "ssr")]
async fn caller() -> Result<
    (
        sqlx::PgPool,
        std::sync::Arc<crate::mturk::Client>,
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
    Ok((state.pool, state.mturk, me.app_user_id))
}

/// The campaign's MTurk links, the calls made and the batches' bonuses on MTurk.
#[server(endpoint = "research/mturk")]
pub async fn load_mturk(campaign_id: CampaignId) -> Result<MturkView, AppError> {
    super::with_status(
        async {
            let (pool, _, _) = caller().await?;
            crate::service::mturk::view(&pool, campaign_id).await
        }
        .await,
    )
}

/// Connects an MTurk link to its HITs (ids separated by commas, spaces or lines).
#[server(endpoint = "research/mturk_connect")]
pub async fn connect_mturk(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
    hit_ids: String,
    #[server(default)] sandbox: bool,
) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, _, me) = caller().await?;
            crate::service::mturk::connect(&pool, campaign_id, study_link_id, &hit_ids, sandbox, me)
                .await
        }
        .await,
    )
}

/// Reads the account's balance and the first HIT once and says what MTurk answered.
#[server(endpoint = "research/mturk_test")]
pub async fn test_mturk(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
) -> Result<String, AppError> {
    super::with_status(
        async {
            let (pool, client, _) = caller().await?;
            crate::service::mturk::test(&pool, &client, campaign_id, study_link_id).await
        }
        .await,
    )
}

/// The HITs' assignments beside paracrowd's completions.
#[server(endpoint = "research/mturk_reconcile")]
pub async fn reconcile_mturk(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
) -> Result<ReconcileView, AppError> {
    super::with_status(
        async {
            let (pool, client, _) = caller().await?;
            crate::service::mturk::reconcile(&pool, &client, campaign_id, study_link_id).await
        }
        .await,
    )
}

/// Approves every submitted assignment whose worker completed here; recorded under `call_id`.
#[server(endpoint = "research/mturk_approve")]
pub async fn approve_mturk(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
    call_id: PlatformCallId,
) -> Result<ApproveOutcome, AppError> {
    super::with_status(
        async {
            let (pool, client, me) = caller().await?;
            crate::service::mturk::approve(&pool, &client, campaign_id, study_link_id, call_id, me)
                .await
        }
        .await,
    )
}

/// Rejects one submitted assignment with feedback for the worker; recorded under `call_id`.
#[server(endpoint = "research/mturk_reject")]
pub async fn reject_mturk(
    campaign_id: CampaignId,
    study_link_id: StudyLinkId,
    assignment_id: String,
    message: String,
    call_id: PlatformCallId,
) -> Result<String, AppError> {
    super::with_status(
        async {
            let (pool, client, me) = caller().await?;
            crate::service::mturk::reject(
                &pool,
                &client,
                campaign_id,
                study_link_id,
                &assignment_id,
                &message,
                call_id,
                me,
            )
            .await
        }
        .await,
    )
}

/// Sends the batch's bonuses through MTurk, each worker's at most once; the batch is marked
/// paid when every one is sent.
#[server(endpoint = "research/mturk_pay")]
pub async fn pay_mturk(
    campaign_id: CampaignId,
    batch_id: BatchId,
    study_link_id: StudyLinkId,
) -> Result<String, AppError> {
    super::with_status(
        async {
            let (pool, client, me) = caller().await?;
            crate::service::mturk::pay(&pool, &client, campaign_id, batch_id, study_link_id, me)
                .await
        }
        .await,
    )
}
