//! `app_user`: accounts, roles and statuses.
use sqlx::{FromRow, PgExecutor};
use uuid::Uuid;

use crate::domain::{Role, UserStatus};
use crate::error::AppError;

/// One account as stored, with its hash. Never sent to a browser: the API maps it to views.
#[derive(Debug, Clone, FromRow)]
pub struct UserRow {
    pub app_user_id: Uuid,
    pub username: String,
    pub password_hash: String,
    pub role: String,
    pub status: String,
    pub created_at: time::OffsetDateTime,
}

impl UserRow {
    pub fn role(&self) -> Role {
        // The check constraint admits only the three names; anything else is least privilege.
        Role::parse(&self.role).unwrap_or(Role::Annotator)
    }

    pub fn status(&self) -> UserStatus {
        UserStatus::from_db(&self.status)
    }
}

const COLUMNS: &str = "app_user_id, username, password_hash, role, status, created_at";

/// Inserts an account. A taken username (case-insensitively) is a `Conflict`.
pub async fn insert(
    db: impl PgExecutor<'_>,
    username: &str,
    password_hash: &str,
    role: Role,
) -> Result<Uuid, AppError> {
    sqlx::query_scalar(
        r#"insert into app_user (username, password_hash, role)
           values ($1, $2, $3)
           returning app_user_id"#,
    )
    .bind(username)
    .bind(password_hash)
    .bind(role.as_str())
    .fetch_one(db)
    .await
    .map_err(|e| match &e {
        sqlx::Error::Database(d) if d.constraint() == Some("app_user_username_lower_key") => {
            AppError::validation("username", "That username is taken; choose another.")
        }
        _ => e.into(),
    })
}

pub async fn find_by_id(db: impl PgExecutor<'_>, id: Uuid) -> Result<Option<UserRow>, AppError> {
    Ok(sqlx::query_as::<_, UserRow>(&format!(
        "select {COLUMNS} from app_user where app_user_id = $1"
    ))
    .bind(id)
    .fetch_optional(db)
    .await?)
}

pub async fn find_by_username(
    db: impl PgExecutor<'_>,
    username: &str,
) -> Result<Option<UserRow>, AppError> {
    Ok(sqlx::query_as::<_, UserRow>(&format!(
        "select {COLUMNS} from app_user where lower(username) = lower($1)"
    ))
    .bind(username)
    .fetch_optional(db)
    .await?)
}

/// All accounts, admins first, then by name.
pub async fn list(db: impl PgExecutor<'_>) -> Result<Vec<UserRow>, AppError> {
    Ok(sqlx::query_as::<_, UserRow>(&format!(
        "select {COLUMNS} from app_user
         order by case role when 'admin' then 0 when 'researcher' then 1 else 2 end, lower(username)"
    ))
    .fetch_all(db)
    .await?)
}

pub async fn count_admins(db: impl PgExecutor<'_>) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar(
        "select count(*) from app_user where role = 'admin' and status = 'active'",
    )
    .fetch_one(db)
    .await?)
}

/// Changes a role; `NotFound` when there is no such user.
pub async fn update_role(db: impl PgExecutor<'_>, id: Uuid, role: Role) -> Result<(), AppError> {
    let done =
        sqlx::query("update app_user set role = $2, updated_at = now() where app_user_id = $1")
            .bind(id)
            .bind(role.as_str())
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
    id: Uuid,
    status: UserStatus,
) -> Result<(), AppError> {
    let done =
        sqlx::query("update app_user set status = $2, updated_at = now() where app_user_id = $1")
            .bind(id)
            .bind(status.as_str())
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
    id: Uuid,
    password_hash: &str,
) -> Result<(), AppError> {
    sqlx::query(
        "update app_user set password_hash = $2, updated_at = now() where app_user_id = $1",
    )
    .bind(id)
    .bind(password_hash)
    .execute(db)
    .await?;
    Ok(())
}
