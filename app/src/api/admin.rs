//! User administration: list users, change a role, block or unblock. Admins only.
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::domain::{Role, UserStatus};
use crate::error::AppError;

/// A row of the admin's user table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserAdminView {
    pub user_id: String,
    pub username: String,
    pub role: Role,
    pub status: UserStatus,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub is_you: bool,
}

/// Every account.
#[server(endpoint = "admin/list_users")]
pub async fn list_users() -> Result<Vec<UserAdminView>, AppError> {
    super::with_status(ssr::list_users().await)
}

/// Gives `user_id` the role named `role` (annotator, researcher or admin).
#[server(endpoint = "admin/set_user_role")]
pub async fn set_user_role(user_id: String, role: String) -> Result<(), AppError> {
    super::with_status(ssr::set_user_role(user_id, role).await)
}

/// Blocks (`blocked = true`) or unblocks an account. A blocked user is logged out at their next
/// request and cannot log in.
#[server(endpoint = "admin/set_user_blocked")]
pub async fn set_user_blocked(user_id: String, blocked: bool) -> Result<(), AppError> {
    super::with_status(ssr::set_user_blocked(user_id, blocked).await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use uuid::Uuid;

    use super::UserAdminView;
    use crate::db::users;
    use crate::domain::{Role, UserStatus};
    use crate::error::AppError;
    use crate::session::require_role;
    use crate::state::pool;

    fn parse_user_id(raw: &str) -> Result<Uuid, AppError> {
        crate::api::parse_id(raw, "user_id")
    }

    pub async fn list_users() -> Result<Vec<UserAdminView>, AppError> {
        let pool = pool()?;
        let me = require_role(&[Role::Admin]).await?;
        let rows = users::list(&pool).await?;
        Ok(rows
            .into_iter()
            .map(|u| UserAdminView {
                user_id: u.app_user_id.to_string(),
                is_you: u.app_user_id == me.app_user_id,
                role: u.role(),
                status: u.status(),
                created_at: u
                    .created_at
                    .format(&time::format_description::well_known::Rfc3339)
                    .unwrap_or_default(),
                username: u.username,
            })
            .collect())
    }

    pub async fn set_user_role(user_id: String, role: String) -> Result<(), AppError> {
        let pool = pool()?;
        let me = require_role(&[Role::Admin]).await?;
        let user_id = parse_user_id(&user_id)?;
        let role = Role::parse(&role)?;
        if user_id == me.app_user_id && role != Role::Admin {
            // Otherwise the last admin could lock everyone out of administration.
            return Err(AppError::Conflict(
                "You cannot remove your own admin role; ask another admin.".into(),
            ));
        }
        users::update_role(&pool, user_id, role).await?;
        tracing::info!(admin = %me.app_user_id, %user_id, role = %role, "role changed");
        Ok(())
    }

    pub async fn set_user_blocked(user_id: String, blocked: bool) -> Result<(), AppError> {
        let pool = pool()?;
        let me = require_role(&[Role::Admin]).await?;
        let user_id = parse_user_id(&user_id)?;
        if user_id == me.app_user_id && blocked {
            return Err(AppError::Conflict("You cannot block yourself.".into()));
        }
        let status = if blocked {
            UserStatus::Blocked
        } else {
            UserStatus::Active
        };
        users::update_status(&pool, user_id, status).await?;
        tracing::info!(admin = %me.app_user_id, %user_id, status = status.as_str(), "status changed");
        Ok(())
    }
}
