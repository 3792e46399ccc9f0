//! Register, log in, log out, and who am I.
use leptos::prelude::*;

use crate::error::AppError;

pub use crate::dto::accounts::UserView;

/// The logged-in user, or `None` for a visitor.
#[server(endpoint = "current_user")]
pub async fn current_user() -> Result<Option<UserView>, AppError> {
    // Before the first `.await` (see `state::app_state`).
    let scorer = crate::state::app_state().map(|s| s.scorer.versions());
    super::with_status(crate::session::current_user().await.map(|u| {
        u.map(|u| {
            let role = u.role;
            let scorer_notice = match &scorer {
                Ok(v) if role == crate::domain::Role::Admin && !v.kind.is_papers() => {
                    Some(v.description.clone())
                }
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
    use crate::error::AppError;
    use crate::service::accounts;
    use crate::session::{log_in, log_out, session};
    use crate::state::app_state;

    pub async fn register(
        username: String,
        password: String,
        confirmation: String,
    ) -> Result<(), AppError> {
        let state = app_state()?;
        let address = crate::api::client_address(&state).await;
        let user_id = accounts::register(
            &state.pool,
            state.rate_limits.registrations,
            address,
            &username,
            &password,
            &confirmation,
        )
        .await?;
        log_in(&session().await?, user_id).await?;
        leptos_axum::redirect("/");
        Ok(())
    }

    pub async fn login(username: String, password: String) -> Result<(), AppError> {
        let state = app_state()?;
        let addr = crate::api::client_address(&state).await;
        let user_id =
            accounts::authenticate(&state.pool, &state.login_policy, &username, password, addr)
                .await?;
        log_in(&session().await?, user_id).await?;
        tracing::info!(%user_id, "logged in");
        leptos_axum::redirect("/");
        Ok(())
    }

    pub async fn logout() -> Result<(), AppError> {
        log_out(&session().await?).await?;
        leptos_axum::redirect("/login");
        Ok(())
    }
}
