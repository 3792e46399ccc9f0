//! Register, log in, log out, and who am I.
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::domain::Role;
use crate::error::AppError;

/// What the browser learns about the logged-in user: no hash, no status, no timestamps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserView {
    pub username: String,
    pub role: Role,
    /// Admins only: which scorer the Check runs on, in words, while it is not the paper's
    /// models (the banner on their pages). Part of this answer, which every page already loads,
    /// so the banner needs no resource of its own (one created inside the navigation's
    /// `Suspend` broke hydration).
    pub scorer_notice: Option<String>,
}

/// The logged-in user, or `None` for a visitor.
#[server(endpoint = "current_user")]
pub async fn current_user() -> Result<Option<UserView>, AppError> {
    // Before the first `.await` (see `state::app_state`).
    let scorer = crate::state::app_state().map(|s| s.scorer.versions());
    super::with_status(crate::session::current_user().await.map(|u| {
        u.map(|u| {
            let role = u.role();
            let scorer_notice = match &scorer {
                Ok(v) if role == Role::Admin && !v.kind.is_papers() => Some(v.description.clone()),
                _ => None,
            };
            UserView {
                role,
                username: u.username,
                scorer_notice,
            }
        })
    }))
}

/// Creates an annotator account and logs it in.
#[server(endpoint = "register")]
pub async fn register(
    username: String,
    password: String,
    password_confirmation: String,
) -> Result<(), AppError> {
    super::with_status(ssr::register(username, password, password_confirmation).await)
}

/// Logs in. Unknown user and wrong password get the same answer; failures are rate-limited per
/// account and per address.
#[server(endpoint = "login")]
pub async fn login(username: String, password: String) -> Result<(), AppError> {
    super::with_status(ssr::login(username, password).await)
}

/// Logs out: the session is deleted on the server.
#[server(endpoint = "logout")]
pub async fn logout() -> Result<(), AppError> {
    super::with_status(ssr::logout().await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use std::net::SocketAddr;

    use axum::extract::ConnectInfo;

    use crate::auth::{hash_password, verify_password};
    use crate::db::users;
    use crate::domain::{Password, Role, UserStatus, Username};
    use crate::error::AppError;
    use crate::session::{log_in, log_out, session};
    use crate::state::app_state;

    pub async fn register(
        username: String,
        password: String,
        confirmation: String,
    ) -> Result<(), AppError> {
        let username = Username::parse(&username)?;
        let password = Password::parse_new(&password, &confirmation)?;
        let state = app_state()?;
        if users::find_by_username(&state.pool, username.as_str())
            .await?
            .is_some()
        {
            return Err(AppError::validation(
                "username",
                "That username is taken; choose another.",
            ));
        }
        let hash = hash_password(password.expose().to_owned()).await?;
        // The unique index still decides if two registrations race.
        let user_id = users::insert(&state.pool, username.as_str(), &hash, Role::Annotator).await?;
        tracing::info!(%user_id, "registered");
        log_in(&session().await?, user_id).await?;
        leptos_axum::redirect("/");
        Ok(())
    }

    pub async fn login(username: String, password: String) -> Result<(), AppError> {
        let state = app_state()?;
        let username = username.trim().to_owned();
        if username.is_empty() || password.is_empty() {
            return Err(AppError::BadCredentials);
        }
        // Bound the work an attacker can make us do per request.
        if username.len() > 256 || password.chars().count() > Password::MAX_CHARS {
            return Err(AppError::BadCredentials);
        }
        let addr = leptos_axum::extract::<ConnectInfo<SocketAddr>>()
            .await
            .ok()
            .map(|ConnectInfo(a)| a.ip());
        state.login_throttle.check(&username, addr)?;

        let user = users::find_by_username(&state.pool, &username).await?;
        let ok = verify_password(password, user.as_ref().map(|u| u.password_hash.clone())).await?;
        let user = match user {
            Some(user) if ok => user,
            _ => {
                state.login_throttle.record_failure(&username, addr);
                tracing::info!(username = %username, "failed login");
                return Err(AppError::BadCredentials);
            }
        };
        if user.status() == UserStatus::Blocked {
            return Err(AppError::Blocked);
        }
        state.login_throttle.record_success(&username);
        log_in(&session().await?, user.app_user_id).await?;
        tracing::info!(user_id = %user.app_user_id, "logged in");
        leptos_axum::redirect("/");
        Ok(())
    }

    pub async fn logout() -> Result<(), AppError> {
        log_out(&session().await?).await?;
        leptos_axum::redirect("/login");
        Ok(())
    }
}
