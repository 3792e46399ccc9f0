//! Accounts: registering, checking a password (rate-limited per account and address), and user
//! administration. Sessions (logging in and out) are the caller's: this module only says who.
use std::net::IpAddr;

use sqlx::PgPool;

use crate::auth::{hash_password, verify_password, LoginThrottle};
use crate::db::users;
use crate::domain::{Password, Role, UserId, UserStatus, Username};
use crate::dto::accounts::UserAdminView;
use crate::error::AppError;

/// Creates an annotator account and returns its id.
pub async fn register(
    pool: &PgPool,
    username: &str,
    password: &str,
    confirmation: &str,
) -> Result<UserId, AppError> {
    let username = Username::parse(username)?;
    let password = Password::parse_new(password, confirmation)?;
    if users::find_by_username(pool, username.as_str())
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
    let user_id = users::insert(pool, username.as_str(), &hash, Role::Annotator).await?;
    tracing::info!(%user_id, "registered");
    Ok(user_id)
}

/// The account whose password this is. Unknown user, wrong password and blocked account get the
/// same answer;
/// failures are counted per account and per address, and too many refuse for a while.
pub async fn authenticate(
    pool: &PgPool,
    throttle: &LoginThrottle,
    username: &str,
    password: String,
    addr: Option<IpAddr>,
) -> Result<UserId, AppError> {
    let username = username.trim();
    if username.is_empty() || password.is_empty() {
        return Err(AppError::BadCredentials);
    }
    // Bound the work an attacker can make us do per request.
    if username.len() > 256 || password.chars().count() > Password::MAX_CHARS {
        return Err(AppError::BadCredentials);
    }
    throttle.check(username, addr)?;
    let user = users::find_by_username(pool, username).await?;
    let ok = verify_password(password, user.as_ref().map(|u| u.password_hash.clone())).await?;
    let user = match user {
        Some(user) if ok => user,
        _ => {
            throttle.record_failure(username, addr);
            tracing::info!(username = %username, "failed login");
            return Err(AppError::BadCredentials);
        }
    };
    if user.status == UserStatus::Blocked {
        // The same answer as a wrong password: the login form is no oracle for which accounts
        // exist and which are blocked (issue #21 item 9).
        tracing::info!(username = %username, "login to a blocked account");
        return Err(AppError::BadCredentials);
    }
    throttle.record_success(username);
    Ok(user.app_user_id)
}

/// Every account, as admin `me` sees it.
pub async fn list_users(pool: &PgPool, me: UserId) -> Result<Vec<UserAdminView>, AppError> {
    Ok(users::list(pool)
        .await?
        .into_iter()
        .map(|u| UserAdminView {
            user_id: u.app_user_id,
            is_you: u.app_user_id == me,
            role: u.role,
            status: u.status,
            created_at: super::rfc3339(u.created_at),
            username: u.username,
        })
        .collect())
}

/// Gives `user_id` a role; admin `me` cannot take away their own admin role (otherwise the last
/// admin could lock everyone out of administration).
pub async fn set_role(
    pool: &PgPool,
    me: UserId,
    user_id: UserId,
    role: Role,
) -> Result<(), AppError> {
    if user_id == me && role != Role::Admin {
        return Err(AppError::Conflict(
            "You cannot remove your own admin role; ask another admin.".into(),
        ));
    }
    users::update_role(pool, user_id, role).await?;
    tracing::info!(admin = %me, %user_id, role = %role, "role changed");
    Ok(())
}

/// Blocks or unblocks an account; admin `me` cannot block themselves.
pub async fn set_blocked(
    pool: &PgPool,
    me: UserId,
    user_id: UserId,
    blocked: bool,
) -> Result<(), AppError> {
    if user_id == me && blocked {
        return Err(AppError::Conflict("You cannot block yourself.".into()));
    }
    let status = if blocked {
        UserStatus::Blocked
    } else {
        UserStatus::Active
    };
    users::update_status(pool, user_id, status).await?;
    tracing::info!(admin = %me, %user_id, status = status.as_str(), "status changed");
    Ok(())
}

/// Creates `username` as an admin, or makes an existing account an active admin with the new
/// password (`paracrowd create-admin`, the first start, the load tool).
pub async fn create_or_reset_admin(
    pool: &PgPool,
    username: &str,
    password: &str,
) -> Result<(), AppError> {
    let username = Username::parse(username)?;
    let password = Password::parse_new(password, password)?;
    let hash = hash_password(password.expose().to_owned()).await?;
    match users::find_by_username(pool, username.as_str()).await? {
        Some(user) => {
            users::update_password(pool, user.app_user_id, &hash).await?;
            users::update_role(pool, user.app_user_id, Role::Admin).await?;
            users::update_status(pool, user.app_user_id, UserStatus::Active).await?;
        }
        None => {
            users::insert(pool, username.as_str(), &hash, Role::Admin).await?;
        }
    }
    Ok(())
}
