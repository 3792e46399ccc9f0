//! `app_user`: accounts, roles and statuses.
use crate::domain::{Role, UserId, UserStatus};
use crate::error::AppError;
use sqlx::{PgConnection, PgExecutor};

/// One account as stored, with its hash. Never sent to a browser: the API maps it to views.
#[derive(Debug, Clone)]
pub struct UserRow {
    /// The account's id.
    pub app_user_id: UserId,
    /// The name as typed at registration (unique regardless of case).
    pub username: String,
    /// The argon2 hash of the password.
    pub password_hash: String,
    /// What the account may do.
    pub role: Role,
    /// Whether it may log in.
    pub status: UserStatus,
    /// When it was created.
    pub created_at: time::OffsetDateTime,
}

/// Inserts an account. A taken username (case-insensitively) is a `Conflict`.
pub async fn insert(
    db: impl PgExecutor<'_>,
    username: &str,
    password_hash: &str,
    role: Role,
) -> Result<UserId, AppError> {
    sqlx::query_scalar!(
        r#"insert into app_user (username, password_hash, role)
           values ($1, $2, $3)
           returning app_user_id as "app_user_id: UserId""#,
        username,
        password_hash,
        role as Role,
    )
    .fetch_one(db)
    .await
    .map_err(|e| match &e {
        sqlx::Error::Database(d) if d.constraint() == Some("app_user_username_lower_key") => {
            AppError::validation("username", "That username is taken; choose another.")
        }
        _ => e.into(),
    })
}

/// The account with this id.
pub async fn find_by_id(db: impl PgExecutor<'_>, id: UserId) -> Result<Option<UserRow>, AppError> {
    Ok(sqlx::query_as!(
        UserRow,
        r#"select app_user_id as "app_user_id: _", username, password_hash, role as "role: Role",
                  status as "status: UserStatus", created_at
           from app_user where app_user_id = $1"#,
        id as UserId
    )
    .fetch_optional(db)
    .await?)
}

/// Holds, until the transaction ends, a lock on every username that looks like `username`
/// (the same `username_skeleton`), so two look-alike registrations cannot both pass
/// [`find_look_alike`].
pub async fn lock_look_alikes(conn: &mut PgConnection, username: &str) -> Result<(), AppError> {
    sqlx::query!(
        "select pg_advisory_xact_lock(hashtextextended('username_skeleton:' || username_skeleton($1), 0))",
        username
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// An account whose name looks like `username` ("vickl" for "Vick1"; the same name in another
/// case included), if any: its canonical name.
pub async fn find_look_alike(
    db: impl PgExecutor<'_>,
    username: &str,
) -> Result<Option<String>, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select lower(username) as "name!" from app_user
           where username_skeleton = username_skeleton($1) limit 1"#,
        username
    )
    .fetch_optional(db)
    .await?)
}

/// The account with this name, compared by canonical form (`Username::canonical`).
pub async fn find_by_username(
    db: impl PgExecutor<'_>,
    username: &str,
) -> Result<Option<UserRow>, AppError> {
    Ok(sqlx::query_as!(
        UserRow,
        r#"select app_user_id as "app_user_id: _", username, password_hash, role as "role: Role",
                  status as "status: UserStatus", created_at
           from app_user where lower(username) = lower($1)"#,
        username
    )
    .fetch_optional(db)
    .await?)
}

/// All accounts, admins first, then by name.
pub async fn list(db: impl PgExecutor<'_>) -> Result<Vec<UserRow>, AppError> {
    Ok(sqlx::query_as!(
        UserRow,
        r#"select app_user_id as "app_user_id: _", username, password_hash, role as "role: Role",
                  status as "status: UserStatus", created_at
           from app_user
           order by case role when 'admin' then 0 when 'researcher' then 1 else 2 end,
                    lower(username)"#
    )
    .fetch_all(db)
    .await?)
}

/// Active admins.
pub async fn count_admins(db: impl PgExecutor<'_>) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "n!" from app_user where role = 'admin' and status = 'active'"#
    )
    .fetch_one(db)
    .await?)
}

/// Changes a role; `NotFound` when there is no such user.
pub async fn update_role(db: impl PgExecutor<'_>, id: UserId, role: Role) -> Result<(), AppError> {
    let done = sqlx::query!(
        "update app_user set role = $2, updated_at = now() where app_user_id = $1",
        id as UserId,
        role as Role
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::NotFound);
    }
    Ok(())
}

/// Blocks or unblocks; `NotFound` when there is no such user.
pub async fn update_status(
    db: impl PgExecutor<'_>,
    id: UserId,
    status: UserStatus,
) -> Result<(), AppError> {
    let done = sqlx::query!(
        "update app_user set status = $2, updated_at = now() where app_user_id = $1",
        id as UserId,
        status as UserStatus
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::NotFound);
    }
    Ok(())
}

/// Sets a new password hash (the admin CLI's reset).
pub async fn update_password(
    db: impl PgExecutor<'_>,
    id: UserId,
    password_hash: &str,
) -> Result<(), AppError> {
    sqlx::query!(
        "update app_user set password_hash = $2, updated_at = now() where app_user_id = $1",
        id as UserId,
        password_hash
    )
    .execute(db)
    .await?;
    Ok(())
}
