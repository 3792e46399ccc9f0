//! Accounts: registering, checking a password (throttled per account and address), and user
//! administration. Sessions (logging in and out) are the caller's: this module only says who.
use std::net::IpAddr;

use sqlx::PgPool;

use crate::auth::{hash_password, verify_password};
use crate::db::{login_failures, users};
use crate::domain::rate_limit::{Counted, RateLimit};
use crate::domain::{LoginPolicy, Password, Role, UserId, UserStatus, Username};
use crate::dto::accounts::UserAdminView;
use crate::error::AppError;

/// Creates an annotator account and returns its id. At most `limit` registrations from one
/// `address` per window (`domain::rate_limit`); a refused form is not counted.
pub async fn register(
    pool: &PgPool,
    limit: RateLimit,
    address: Option<IpAddr>,
    username: &str,
    password: &str,
    confirmation: &str,
) -> Result<UserId, AppError> {
    let username = Username::parse(username)?;
    let password = Password::parse_new(password, confirmation)?;
    password.check_not_guessable(&[username.as_str()])?;
    super::rate_limits::take(pool, limit, Counted::Registration, address).await?;
    // A quick answer before the slow hash; `insert_account` decides under its lock.
    if users::find_look_alike(pool, username.as_str())
        .await?
        .is_some()
    {
        return Err(look_alike_error(&username));
    }
    let hash = hash_password(password.expose().to_owned()).await?;
    let user_id = insert_account(pool, &username, &hash, Role::Annotator).await?;
    tracing::info!(%user_id, "registered");
    Ok(user_id)
}

/// Why `username` cannot be registered: it is taken (in any case), or looks like one that is.
fn look_alike_error(username: &Username) -> AppError {
    AppError::validation(
        "username",
        format!(
            "'{}' is taken or looks too much like an existing username (0/o, 1/l, rn/m and the \
             like); choose another.",
            username.as_str()
        ),
    )
}

/// Inserts an account unless its name or a look-alike is taken. Look-alike registrations are
/// serialised by a lock on their shared skeleton, so two cannot both pass the check; the unique
/// index on the canonical name still stands behind it.
async fn insert_account(
    pool: &PgPool,
    username: &Username,
    hash: &str,
    role: Role,
) -> Result<UserId, AppError> {
    let mut tx = pool.begin().await?;
    users::lock_look_alikes(&mut tx, username.as_str()).await?;
    if users::find_look_alike(&mut *tx, username.as_str())
        .await?
        .is_some()
    {
        return Err(look_alike_error(username));
    }
    let user_id = users::insert(&mut *tx, username.as_str(), hash, role).await?;
    tx.commit().await?;
    Ok(user_id)
}

/// The account whose password this is. Unknown user, wrong password and blocked account get the
/// same answer. Failed logins are kept in the database per (canonical username, address), and
/// an address that has failed on an account waits before trying it again once too many have
/// failed (`domain::login_throttle`: growing waits, never a lock-out of an address without
/// failures there). `addr` is the client's address as `client_addr` resolved it.
pub async fn authenticate(
    pool: &PgPool,
    policy: &LoginPolicy,
    username: &str,
    password: String,
    addr: Option<IpAddr>,
) -> Result<UserId, AppError> {
    if username.trim().is_empty() || password.is_empty() {
        return Err(AppError::BadCredentials);
    }
    // Bound the work an attacker can make us do per request.
    if username.len() > 256 || password.chars().count() > Password::MAX_CHARS {
        return Err(AppError::BadCredentials);
    }
    let (account, name) = Username::login_key(username);
    let address = addr
        .map(|a| crate::client_addr::counted_as(a).to_string())
        .unwrap_or_default();
    let counts = login_failures::counts(pool, &account, &address, policy.window).await?;
    if let Some(wait) = policy.wait(&counts) {
        return Err(AppError::RateLimited {
            retry_after_secs: wait.as_secs_f64().ceil().max(1.0) as u64,
        });
    }
    // A name no account can have is not looked up, but costs a verification all the same.
    let user = match &name {
        Some(name) => users::find_by_username(pool, &name.canonical()).await?,
        None => None,
    };
    let ok = verify_password(password, user.as_ref().map(|u| u.password_hash.clone())).await?;
    let user = match user {
        Some(user) if ok => user,
        _ => {
            login_failures::record(pool, &account, &address, policy.window).await?;
            tracing::info!(username = %account, "failed login");
            return Err(AppError::BadCredentials);
        }
    };
    if user.status == UserStatus::Blocked {
        // The same answer as a wrong password: the login form is no oracle for which accounts
        // exist and which are blocked.
        tracing::info!(username = %account, "login to a blocked account");
        return Err(AppError::BadCredentials);
    }
    if counts.pair > 0 {
        login_failures::clear_pair(pool, &account, &address).await?;
    }
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
    password.check_not_guessable(&[username.as_str()])?;
    let hash = hash_password(password.expose().to_owned()).await?;
    match users::find_by_username(pool, username.as_str()).await? {
        Some(user) => {
            users::update_password(pool, user.app_user_id, &hash).await?;
            users::update_role(pool, user.app_user_id, Role::Admin).await?;
            users::update_status(pool, user.app_user_id, UserStatus::Active).await?;
        }
        None => {
            insert_account(pool, &username, &hash, Role::Admin).await?;
        }
    }
    Ok(())
}
