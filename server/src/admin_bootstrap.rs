//! The first admin account: created by `paracrowd create-admin`, and by `serve` when the
//! database has no admin yet (its generated password is printed once).
use app::auth::hash_password;
use app::db::users;
use app::domain::{Password, Role, Username};
use rand::{distributions::Alphanumeric, Rng};
use sqlx::PgPool;

/// A random 20-character password (~119 bits).
pub fn generate_password() -> String {
    rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(20)
        .map(char::from)
        .collect()
}

/// Creates `username` as an admin, or makes an existing account an active admin with the new
/// password.
pub async fn create_or_reset_admin(
    pool: &PgPool,
    username: &str,
    password: &str,
) -> anyhow::Result<()> {
    let username = Username::parse(username).map_err(|e| anyhow::anyhow!("{e}"))?;
    let password = Password::parse_new(password, password).map_err(|e| anyhow::anyhow!("{e}"))?;
    let hash = hash_password(password.expose().to_owned())
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let to_anyhow = |e: app::error::AppError| anyhow::anyhow!("{e}");
    match users::find_by_username(pool, username.as_str())
        .await
        .map_err(to_anyhow)?
    {
        Some(user) => {
            users::update_password(pool, user.app_user_id, &hash)
                .await
                .map_err(to_anyhow)?;
            users::update_role(pool, user.app_user_id, Role::Admin)
                .await
                .map_err(to_anyhow)?;
            users::update_status(pool, user.app_user_id, app::domain::UserStatus::Active)
                .await
                .map_err(to_anyhow)?;
        }
        None => {
            users::insert(pool, username.as_str(), &hash, Role::Admin)
                .await
                .map_err(to_anyhow)?;
        }
    }
    Ok(())
}

/// On a database without any active admin, creates `admin` with a generated password and returns
/// it (to print once). `None` when an admin exists.
pub async fn ensure_first_admin(pool: &PgPool) -> anyhow::Result<Option<(String, String)>> {
    let admins = users::count_admins(pool)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if admins > 0 {
        return Ok(None);
    }
    let password = generate_password();
    create_or_reset_admin(pool, "admin", &password).await?;
    Ok(Some(("admin".into(), password)))
}
