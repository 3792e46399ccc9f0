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
pub mod mturk;
pub mod prolific;
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

/// The client's address as the throttles count it: the TCP peer, or the address a trusted proxy
/// in front names (`client_addr`). `None` outside a request.
#[cfg(feature = "ssr")]
pub(crate) async fn client_address(state: &crate::state::AppState) -> Option<std::net::IpAddr> {
    use axum::extract::ConnectInfo;
    let peer = leptos_axum::extract::<ConnectInfo<std::net::SocketAddr>>()
        .await
        .ok()
        .map(|ConnectInfo(a)| a.ip())?;
    let headers = leptos_axum::extract::<http::HeaderMap>().await.ok();
    let forwarded: Vec<&str> = headers
        .iter()
        .flat_map(|h| h.get_all("x-forwarded-for"))
        .filter_map(|v| v.to_str().ok())
        .collect();
    Some(state.trusted_proxies.client(peer, &forwarded))
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
    campaign: crate::domain::CampaignId,
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
    let session = crate::session::session().await?;
    let view = crate::session::view(&session).await?;
    session_caller(&state, &view, campaign).await?;
    Ok((state, user, campaign))
}

/// Runs a judging call (`judge/next`, `judge/answer`) for the session's worker, without a
/// statement of its own for the session or the account. The session is the copy this server
/// keeps (`service::session_cache`; read from the store when it has none), and `call` passes it
/// to the service, whose worker-lock statement checks that it is still stored as read and reads
/// the account's status (`service::judging`). A copy found out of date there
/// ([`AppError::SessionChanged`](crate::error::AppError::SessionChanged): changed or ended through
/// any server), or whose access checks refuse the call (they may be out of date too), is read
/// again and the call made again, its transaction having done nothing. An account the database
/// refuses (blocked or deleted) ends the session, as [`crate::session::current_user`] does for
/// every other call.
#[cfg(feature = "ssr")]
pub(crate) async fn judging_call<T, Fut>(
    state: &crate::state::AppState,
    campaign: crate::domain::CampaignId,
    call: impl Fn(
        std::sync::Arc<crate::service::session_cache::CachedSession>,
        crate::domain::UserId,
        crate::domain::CampaignId,
    ) -> Fut,
) -> Result<T, crate::error::AppError>
where
    Fut: std::future::Future<Output = Result<T, crate::error::AppError>>,
{
    use crate::error::AppError;
    use crate::service::session_cache;
    let session = crate::session::session().await?;
    let id = session.id().ok_or(AppError::Unauthenticated)?.to_string();
    let mut held = state.sessions.get(&id);
    // A fresh read can be overtaken too (a login in another tab between it and the call).
    for _ in 0..3 {
        let fresh = held.is_none();
        let copy = match held.take() {
            Some(copy) => copy,
            None => match session_cache::load(&state.pool, &state.sessions, &id).await? {
                Some(copy) => copy,
                None => {
                    // Ended or expired: the cookie goes too, as when the session layer reads it.
                    crate::session::log_out(&session).await?;
                    return Err(AppError::Unauthenticated);
                }
            },
        };
        let result = match session_caller(state, &copy.view, campaign).await {
            Ok(user) => match state.calls.take(&state.pool, user).await {
                Ok(()) => call(copy.clone(), user, campaign).await,
                Err(refused) => return Err(refused),
            },
            Err(refused) => Err(refused),
        };
        match result {
            Err(AppError::SessionChanged) => continue,
            // Refused before the service's statement could check the copy (a campaign not
            // open, a malformed id, a study the copy does not list, no login in it): answered as
            // the stored session says, so a session changed or ended elsewhere hears that.
            Err(_) if !fresh && !copy_is_current(state, &copy).await? => continue,
            // The account, blocked or deleted since the login.
            Err(AppError::Unauthenticated) if copy.view.user.is_some() => {
                crate::session::log_out(&session).await?;
                return Err(AppError::Unauthenticated);
            }
            result => return result,
        }
    }
    Err(AppError::SessionChanged)
}

/// Whether `copy` is still the stored record (a statement; for refusals only).
#[cfg(feature = "ssr")]
async fn copy_is_current(
    state: &crate::state::AppState,
    copy: &crate::service::session_cache::CachedSession,
) -> Result<bool, crate::error::AppError> {
    let stored = crate::db::sessions::load(&state.pool, &copy.id).await?;
    Ok(stored.as_deref() == Some(copy.data.as_slice()))
}

/// The worker a session stands for, if it may work on `campaign`: a study-link worker only on
/// the studies they started, and while they have items left: none once they completed the
/// study, or made the number of items it asks for, in whichever session or device they ask
/// (one statement, for study-link sessions only; `service::study_completion::check_may_work`).
#[cfg(feature = "ssr")]
async fn session_caller(
    state: &crate::state::AppState,
    view: &crate::session::SessionView,
    campaign: crate::domain::CampaignId,
) -> Result<crate::domain::UserId, crate::error::AppError> {
    let user = view.user.ok_or(crate::error::AppError::Unauthenticated)?;
    view.check_study_access(campaign)?;
    if view.study_worker {
        crate::service::study_completion::check_may_work(&state.pool, campaign, user).await?;
    }
    Ok(user)
}
