//! `login_failure`: failed logins, counted for the throttle (`domain::login_throttle`). In the
//! database, so every app server behind a load balancer sees the same counts.
use std::time::Duration;

use crate::domain::FailureCounts;
use crate::error::AppError;
use sqlx::PgExecutor;

/// The failures younger than `window` that bear on an attempt on `account` from `address`.
pub async fn counts(
    db: impl PgExecutor<'_>,
    account: &str,
    address: &str,
    window: Duration,
) -> Result<FailureCounts, AppError> {
    let row = sqlx::query!(
        r#"select count(*) filter (where account = $1 and address = $2) as "pair!",
                  count(*) filter (where account = $1) as "account!",
                  count(*) filter (where address = $2) as "address!",
                  extract(epoch from now() - max(failed_at)
                      filter (where account = $1 and address = $2))::float8 as since_pair
           from login_failure
           where (account = $1 or address = $2) and failed_at > now() - make_interval(secs => $3)"#,
        account,
        address,
        window.as_secs_f64()
    )
    .fetch_one(db)
    .await?;
    let count = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(FailureCounts {
        pair: count(row.pair),
        account: count(row.account),
        address: count(row.address),
        since_pair_failure: row.since_pair.map(|s| Duration::from_secs_f64(s.max(0.0))),
    })
}

/// Records a failed login, and deletes failures older than `window` (they no longer count).
pub async fn record(
    db: impl PgExecutor<'_>,
    account: &str,
    address: &str,
    window: Duration,
) -> Result<(), AppError> {
    sqlx::query!(
        r#"with old as (
               delete from login_failure where failed_at < now() - make_interval(secs => $3))
           insert into login_failure (account, address) values ($1, $2)"#,
        account,
        address,
        window.as_secs_f64()
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Forgets this address's failures on this account (it has just logged in).
pub async fn clear_pair(
    db: impl PgExecutor<'_>,
    account: &str,
    address: &str,
) -> Result<(), AppError> {
    sqlx::query!(
        "delete from login_failure where account = $1 and address = $2",
        account,
        address
    )
    .execute(db)
    .await?;
    Ok(())
}
