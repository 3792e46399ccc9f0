//! The first admin account: created by `paracrowd create-admin`, and by `serve` when the
//! database has no admin yet (its generated password is printed once).
use app::db::users;
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
/// password (see [`app::service::accounts::create_or_reset_admin`]).
pub async fn create_or_reset_admin(
    pool: &PgPool,
    username: &str,
    password: &str,
) -> anyhow::Result<()> {
    app::service::accounts::create_or_reset_admin(pool, username, password)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
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
