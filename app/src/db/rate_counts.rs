//! `rate_count`: requests counted per address or account in fixed windows for
//! `domain::rate_limit`. In the database, so every app server counts the same requests.
use std::time::Duration;

use sqlx::PgExecutor;

use crate::domain::rate_limit::Counted;
use crate::error::AppError;

/// Counts one `action` from `subject` in the current window of `window` (windows start at
/// whole multiples of it since the epoch). Returns the count in that window, this one
/// included, and the seconds left of it.
pub async fn count_one(
    db: impl PgExecutor<'_> + Copy,
    action: Counted,
    subject: &str,
    window: Duration,
) -> Result<(i64, f64), AppError> {
    let seconds = window.as_secs_f64();
    let row = sqlx::query!(
        r#"insert into rate_count (action, subject, window_start, count)
           values ($1, $2, to_timestamp(floor(extract(epoch from now())::float8 / $3::float8) * $3::float8), 1)
           on conflict (action, subject, window_start)
           do update set count = rate_count.count + 1
           returning count::int8 as "count!",
                     extract(epoch from window_start + make_interval(secs => $3::float8) - now())::float8
                       as "left!""#,
        action.as_str(),
        subject,
        seconds,
    )
    .fetch_one(db)
    .await?;
    if row.count == 1 {
        // A new window: the windows long past go.
        sqlx::query!(
            "delete from rate_count where action = $1 and window_start < now() - make_interval(secs => $2::float8 * 2)",
            action.as_str(),
            seconds,
        )
        .execute(db)
        .await?;
    }
    Ok((row.count, row.left))
}

/// Adds `n` of `action` by `subject` to the window of `window` with index `index` (as the
/// server's clock sees it: `RateLimit::window_at`). Returns the count in that window, these
/// included.
pub async fn add(
    db: impl PgExecutor<'_> + Copy,
    action: Counted,
    subject: &str,
    window: Duration,
    index: i64,
    n: u32,
) -> Result<i64, AppError> {
    let seconds = window.as_secs_f64();
    let count = sqlx::query_scalar!(
        r#"insert into rate_count (action, subject, window_start, count)
           values ($1, $2, to_timestamp($3::int8 * $4::float8), $5)
           on conflict (action, subject, window_start)
           do update set count = rate_count.count + excluded.count
           returning count::int8 as "count!""#,
        action.as_str(),
        subject,
        index,
        seconds,
        n as i32,
    )
    .fetch_one(db)
    .await?;
    if count == i64::from(n) {
        // The subject's first in this window: the action's windows long past go, every
        // subject's (one that never comes back leaves nothing behind); nobody writes to them.
        sqlx::query!(
            "delete from rate_count where action = $1
               and window_start < to_timestamp(($2::int8 - 1) * $3::float8)",
            action.as_str(),
            index,
            seconds,
        )
        .execute(db)
        .await?;
    }
    Ok(count)
}
