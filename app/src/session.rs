//! Typed access to the tower-sessions session and the role checks every server function uses.
//!
//! The session stores only the user id. Each request reloads the user from the database, so a
//! role change or a block takes effect at the caller's next request, not at their next login.
use tower_sessions::Session;

use crate::db::users::{self, UserRow};
use crate::domain::{CampaignId, Role, UserId, UserStatus};
use crate::error::AppError;

const USER_ID_KEY: &str = "user_id";
/// Set when the session was started by a study link: such a worker may work only on
/// the campaigns in [`STUDIES_KEY`], those whose information they read (and consent they gave).
const STUDY_WORKER_KEY: &str = "study_worker";
const STUDIES_KEY: &str = "studies";
/// The studies this session's worker completed: the task refuses them more items, and says why.
const COMPLETED_KEY: &str = "completed_studies";

/// The session of the current request.
pub async fn session() -> Result<Session, AppError> {
    leptos_axum::extract::<Session>().await.map_err(|e| {
        tracing::error!(error.message = %e, "BUG: no session layer in front of the server functions");
        AppError::Internal
    })
}

/// The id stored at login, if any.
pub async fn session_user_id(session: &Session) -> Result<Option<UserId>, AppError> {
    session
        .get::<UserId>(USER_ID_KEY)
        .await
        .map_err(session_error)
}

/// Starts an authenticated session: a fresh session id (against session fixation), then the user.
pub async fn log_in(session: &Session, user_id: UserId) -> Result<(), AppError> {
    session.cycle_id().await.map_err(session_error)?;
    session
        .remove_value(STUDY_WORKER_KEY)
        .await
        .map_err(session_error)?;
    session
        .remove_value(STUDIES_KEY)
        .await
        .map_err(session_error)?;
    session
        .remove_value(COMPLETED_KEY)
        .await
        .map_err(session_error)?;
    session
        .insert(USER_ID_KEY, user_id)
        .await
        .map_err(session_error)
}

/// Starts the session of a worker who opened a study link (no password): as [`log_in`], limited
/// to the studies later allowed with [`allow_study`].
pub async fn log_in_study_worker(session: &Session, user_id: UserId) -> Result<(), AppError> {
    let same = session_user_id(session).await? == Some(user_id);
    if !same {
        log_in(session, user_id).await?;
    }
    session
        .insert(STUDY_WORKER_KEY, true)
        .await
        .map_err(session_error)
}

/// Lets this session's study worker work on `campaign` (its information read, its consent, if
/// any, given).
pub async fn allow_study(session: &Session, campaign: CampaignId) -> Result<(), AppError> {
    let mut studies: Vec<CampaignId> = session
        .get(STUDIES_KEY)
        .await
        .map_err(session_error)?
        .unwrap_or_default();
    if !studies.contains(&campaign) {
        studies.push(campaign);
        session
            .insert(STUDIES_KEY, studies)
            .await
            .map_err(session_error)?;
    }
    Ok(())
}

/// Takes `campaign` away from this session's study worker (a new consent text to agree to).
pub async fn disallow_study(session: &Session, campaign: CampaignId) -> Result<(), AppError> {
    let mut studies: Vec<CampaignId> = session
        .get(STUDIES_KEY)
        .await
        .map_err(session_error)?
        .unwrap_or_default();
    if studies.contains(&campaign) {
        studies.retain(|c| *c != campaign);
        session
            .insert(STUDIES_KEY, studies)
            .await
            .map_err(session_error)?;
    }
    Ok(())
}

/// Records that this session's worker completed `campaign`: no more items for them (the link
/// opened again shows the completion, not the task).
pub async fn complete_study(session: &Session, campaign: CampaignId) -> Result<(), AppError> {
    disallow_study(session, campaign).await?;
    let mut done: Vec<CampaignId> = session
        .get(COMPLETED_KEY)
        .await
        .map_err(session_error)?
        .unwrap_or_default();
    if !done.contains(&campaign) {
        done.push(campaign);
        session
            .insert(COMPLETED_KEY, done)
            .await
            .map_err(session_error)?;
    }
    Ok(())
}

/// Who a session is signed in as, for a study link about to sign someone in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignedIn {
    Nobody,
    /// A password account (an admin, a researcher, an in-house annotator).
    Password,
    /// A worker a study link signed in.
    StudyWorker(UserId),
}

/// Whether this session was started by a study link.
pub async fn is_study_worker(session: &Session) -> Result<bool, AppError> {
    let study_worker: Option<bool> = session.get(STUDY_WORKER_KEY).await.map_err(session_error)?;
    Ok(study_worker == Some(true))
}

/// Whether this session is logged in with a password account (not started by a study link).
pub async fn is_password_session(session: &Session) -> Result<bool, AppError> {
    Ok(matches!(signed_in(session).await?, SignedIn::Password))
}

/// Who this session is signed in as, as a study link sees it.
pub async fn signed_in(session: &Session) -> Result<SignedIn, AppError> {
    let user = session_user_id(session).await?;
    let study_worker: Option<bool> = session.get(STUDY_WORKER_KEY).await.map_err(session_error)?;
    Ok(match (user, study_worker == Some(true)) {
        (None, _) => SignedIn::Nobody,
        (Some(user), true) => SignedIn::StudyWorker(user),
        (Some(_), false) => SignedIn::Password,
    })
}

/// What a server function's access checks need of a session: its user and, for a study-link
/// worker, the studies it may work on and those it completed. Read from a live session
/// ([`view`]) or decoded from a stored record ([`SessionView::from_data`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionView {
    /// The id stored at login, if any.
    pub user: Option<UserId>,
    /// Started by a study link.
    pub study_worker: bool,
    /// The studies a study-link worker may work on.
    pub studies: Vec<CampaignId>,
    /// The studies this session's worker completed.
    pub completed: Vec<CampaignId>,
}

impl SessionView {
    /// The view of a stored record's data (`tower_sessions::session::Record::data`), read with
    /// the same keys and types as the functions above write them.
    pub fn from_data(
        data: &std::collections::HashMap<String, serde_json::Value>,
    ) -> Result<Self, serde_json::Error> {
        fn read<T: serde::de::DeserializeOwned>(
            data: &std::collections::HashMap<String, serde_json::Value>,
            key: &str,
        ) -> Result<Option<T>, serde_json::Error> {
            data.get(key)
                .map(|v| serde_json::from_value(v.clone()))
                .transpose()
        }
        Ok(SessionView {
            user: read(data, USER_ID_KEY)?,
            study_worker: read::<bool>(data, STUDY_WORKER_KEY)? == Some(true),
            studies: read(data, STUDIES_KEY)?.unwrap_or_default(),
            completed: read(data, COMPLETED_KEY)?.unwrap_or_default(),
        })
    }

    /// Refuses a study worker's call on a campaign they have not started through its link (its
    /// information unread, its consent not given, or another study). Other accounts pass.
    pub fn check_study_access(&self, campaign: CampaignId) -> Result<(), AppError> {
        if !self.study_worker || self.studies.contains(&campaign) {
            Ok(())
        } else if self.completed.contains(&campaign) {
            Err(AppError::Conflict(
                "You have completed this study: its completion page has your code and the way back to your platform.".into(),
            ))
        } else {
            Err(AppError::Conflict(
                "Start this study from its link: it begins with the study information.".into(),
            ))
        }
    }
}

/// The access checks' view of this request's session.
pub async fn view(session: &Session) -> Result<SessionView, AppError> {
    let study_worker = is_study_worker(session).await?;
    let list = |key| async move {
        session
            .get::<Vec<CampaignId>>(key)
            .await
            .map_err(session_error)
            .map(Option::unwrap_or_default)
    };
    Ok(SessionView {
        user: session_user_id(session).await?,
        study_worker,
        studies: list(STUDIES_KEY).await?,
        completed: list(COMPLETED_KEY).await?,
    })
}

/// Refuses a study worker's call on a campaign they have not started through its link (its
/// information unread, its consent not given, or another study). Other accounts pass.
pub async fn check_study_access(session: &Session, campaign: CampaignId) -> Result<(), AppError> {
    view(session).await?.check_study_access(campaign)
}

/// Ends the session on the server: the record is deleted, so the old cookie is worthless.
pub async fn log_out(session: &Session) -> Result<(), AppError> {
    session.flush().await.map_err(session_error)
}

/// The logged-in, active user of this request, or `None`. The call counts against the account's
/// limit on calls (`service::call_limits`), and is refused past it.
pub async fn current_user() -> Result<Option<UserRow>, AppError> {
    let state = crate::state::app_state()?;
    let session = session().await?;
    let Some(user_id) = session_user_id(&session).await? else {
        let address = crate::api::client_address(&state).await;
        state.calls.take_anonymous(&state.pool, address).await?;
        return Ok(None);
    };
    let user = users::find_by_id(&state.pool, user_id).await?;
    match user {
        Some(user) if user.status == UserStatus::Active => {
            state.calls.take(&state.pool, user.app_user_id).await?;
            Ok(Some(user))
        }
        // Deleted or blocked since login: the session no longer stands for anyone.
        _ => {
            log_out(&session).await?;
            Ok(None)
        }
    }
}

/// The current user, who must be logged in and active.
pub async fn require_user() -> Result<UserRow, AppError> {
    current_user().await?.ok_or(AppError::Unauthenticated)
}

/// The current user, who must hold one of `allowed`.
pub async fn require_role(allowed: &[Role]) -> Result<UserRow, AppError> {
    let user = require_user().await?;
    if allowed.contains(&user.role) {
        Ok(user)
    } else {
        Err(AppError::Forbidden)
    }
}

fn session_error(e: tower_sessions::session::Error) -> AppError {
    tracing::error!(error.message = %e, "session store error");
    AppError::Internal
}
