//! Counting a request against its address's limit (`domain::rate_limit`), in PostgreSQL.
use std::net::IpAddr;

use sqlx::PgPool;

use crate::db::rate_counts;
use crate::domain::rate_limit::{Counted, RateLimit};
use crate::error::AppError;

/// Counts `action` from `address` and refuses it (`RateLimited`, with the seconds to wait) when
/// it is past `limit`. A request with no known address (none reaches the server functions
/// without one) is not counted.
pub async fn take(
    pool: &PgPool,
    limit: RateLimit,
    action: Counted,
    address: Option<IpAddr>,
) -> Result<(), AppError> {
    let Some(address) = address else {
        return Ok(());
    };
    let (count, left) = rate_counts::count_one(
        pool,
        action,
        &crate::client_addr::counted_as(address).to_string(),
        limit.window,
    )
    .await?;
    match limit.retry_after(count, left) {
        Some(retry_after_secs) => Err(AppError::RateLimited { retry_after_secs }),
        None => Ok(()),
    }
}
