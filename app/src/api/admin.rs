//! User administration: list users, change a role, block or unblock. Admins only.
use leptos::prelude::*;

use crate::domain::UserId;
use crate::error::AppError;

pub use crate::dto::accounts::UserAdminView;

/// Every account.
#[server(endpoint = "admin/list_users")]
pub async fn list_users() -> Result<Vec<UserAdminView>, AppError> {
    super::with_status(ssr::list_users().await)
}

/// Gives `user_id` the role named `role` (annotator, researcher or admin).
#[server(endpoint = "admin/set_user_role")]
pub async fn set_user_role(user_id: UserId, role: String) -> Result<(), AppError> {
    super::with_status(ssr::set_user_role(user_id, role).await)
}

/// Blocks (`blocked = true`) or unblocks an account. A blocked user is logged out at their next
/// request and cannot log in.
#[server(endpoint = "admin/set_user_blocked")]
pub async fn set_user_blocked(user_id: UserId, blocked: bool) -> Result<(), AppError> {
    super::with_status(ssr::set_user_blocked(user_id, blocked).await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::UserAdminView;
    use crate::api::admin;
    use crate::domain::{Role, UserId};
    use crate::error::AppError;
    use crate::service::accounts;

    pub async fn list_users() -> Result<Vec<UserAdminView>, AppError> {
        let (pool, me) = admin().await?;
        accounts::list_users(&pool, me).await
    }

    pub async fn set_user_role(user_id: UserId, role: String) -> Result<(), AppError> {
        let (pool, me) = admin().await?;
        let role = Role::parse(&role)?;
        accounts::set_role(&pool, me, user_id, role).await
    }

    pub async fn set_user_blocked(user_id: UserId, blocked: bool) -> Result<(), AppError> {
        let (pool, me) = admin().await?;
        accounts::set_blocked(&pool, me, user_id, blocked).await
    }
}
