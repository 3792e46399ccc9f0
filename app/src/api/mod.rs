//! Server functions, by area. Each one is thin: check the caller's role on the server, parse its
//! arguments, call `service`. The shapes they send are in `dto` (re-exported here). Their URLs
//! are fixed (`/api/<name>`) so tests and scripts can call them.
pub mod admin;
pub mod apt;
pub mod apt_report;
pub mod auth;
pub mod campaigns;
pub mod export;
pub mod judge;
pub mod judge_admin;
pub mod judge_report;
pub mod mining;
pub mod scorer;
pub mod studies;

pub use admin::{list_users, ListUsers, SetUserBlocked, SetUserRole, UserAdminView};
pub use auth::{current_user, CurrentUser, Login, Logout, Register, UserView};
pub use campaigns::{list_my_campaigns, CampaignSummary, ImportSummary, ListMyCampaigns};

/// Gives a failed server function its HTTP status (see [`crate::error::set_response_status`]).
#[cfg(feature = "ssr")]
pub(crate) fn with_status<T>(
    result: Result<T, crate::error::AppError>,
) -> Result<T, crate::error::AppError> {
    if let Err(e) = &result {
        crate::error::set_response_status(e);
    }
    result
}

#[cfg(feature = "ssr")]
pub(crate) use crate::service::rfc3339;

/// Parses an id sent by a form (any of the `domain::ids` types); a malformed one is a validation
/// error naming the field.
#[cfg(feature = "ssr")]
pub(crate) fn parse_id<Id: std::str::FromStr>(
    raw: &str,
    field: &str,
) -> Result<Id, crate::error::AppError> {
    raw.parse()
        .map_err(|_| crate::error::AppError::validation(field, "Not a valid id."))
}

/// The pool and the calling admin's id; anyone else is refused.
#[cfg(feature = "ssr")]
pub(crate) async fn admin() -> Result<(sqlx::PgPool, crate::domain::UserId), crate::error::AppError>
{
    let pool = crate::state::pool()?;
    let me = crate::session::require_role(&[crate::domain::Role::Admin]).await?;
    Ok((pool, me.app_user_id))
}

/// The pool, for a researcher or an admin; anyone else is refused.
#[cfg(feature = "ssr")]
pub(crate) async fn researcher() -> Result<sqlx::PgPool, crate::error::AppError> {
    let pool = crate::state::pool()?;
    crate::session::require_role(&[crate::domain::Role::Researcher, crate::domain::Role::Admin])
        .await?;
    Ok(pool)
}

/// The state, the logged-in user and the campaign id that an annotator's call starts from.
#[cfg(feature = "ssr")]
pub(crate) async fn worker(
    campaign_id: &str,
) -> Result<
    (
        crate::state::AppState,
        crate::domain::UserId,
        crate::domain::CampaignId,
    ),
    crate::error::AppError,
> {
    // The state before the first `.await` (see `state::app_state`).
    let state = crate::state::app_state()?;
    let user = crate::session::require_user().await?.app_user_id;
    let campaign = parse_id(campaign_id, "campaign_id")?;
    let session = crate::session::session().await?;
    crate::session::check_study_access(&session, campaign).await?;
    study_items_left(&state, &session, user, campaign).await?;
    Ok((state, user, campaign))
}

/// A study-link worker gets no items once they completed the study, or made the number of
/// items it asks for, in whichever session or device they ask (one statement, for study-link
/// sessions only; `service::study_completion::check_may_work`).
#[cfg(feature = "ssr")]
async fn study_items_left(
    state: &crate::state::AppState,
    session: &tower_sessions::Session,
    user: crate::domain::UserId,
    campaign: crate::domain::CampaignId,
) -> Result<(), crate::error::AppError> {
    if crate::session::is_study_worker(session).await? {
        crate::service::study_completion::check_may_work(&state.pool, campaign, user).await?;
    }
    Ok(())
}

/// As [`worker`], without reloading the account: the caller's id as the session holds it, and
/// the session. For the judging calls only, whose worker-lock statement reads the account's
/// status and refuses a blocked or deleted one (`service::judging`); that saves a statement per
/// judgment. Pass the call's result through [`end_if_refused`].
#[cfg(feature = "ssr")]
pub(crate) async fn session_worker(
    campaign_id: &str,
) -> Result<
    (
        crate::state::AppState,
        tower_sessions::Session,
        crate::domain::UserId,
        crate::domain::CampaignId,
    ),
    crate::error::AppError,
> {
    // The state before the first `.await` (see `state::app_state`).
    let state = crate::state::app_state()?;
    let session = crate::session::session().await?;
    let user = crate::session::session_user_id(&session)
        .await?
        .ok_or(crate::error::AppError::Unauthenticated)?;
    let campaign = parse_id(campaign_id, "campaign_id")?;
    crate::session::check_study_access(&session, campaign).await?;
    study_items_left(&state, &session, user, campaign).await?;
    Ok((state, session, user, campaign))
}

/// Ends the session of a call the service refused as unauthenticated (its account was blocked or
/// deleted since login), as [`crate::session::current_user`] does for every other call.
#[cfg(feature = "ssr")]
pub(crate) async fn end_if_refused<T>(
    session: &tower_sessions::Session,
    result: Result<T, crate::error::AppError>,
) -> Result<T, crate::error::AppError> {
    if matches!(result, Err(crate::error::AppError::Unauthenticated)) {
        crate::session::log_out(session).await?;
    }
    result
}
