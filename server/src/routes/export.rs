//! Dataset downloads, for researchers and admins: `GET /export/judge/{campaign}` and
//! `GET /export/apt/{campaign}`, streamed from a database cursor (constant memory, no time
//! limit; see `app::export`).
//!
//! Query (all optional; `app::domain::export::spec` has the defaults and checks):
//! - judging: `rows` = `pairs` | `judgments`; `format` = `csv` | `jsonl` | `msrp` (pairs);
//!   `labels` = `vote` | `dawid_skene` | `glad` | `mace`; `unresolved` = `drop` | `keep`; `untrusted` = `drop` |
//!   `keep` (judgments);
//! - APT: `rows` = `attempts` | `submissions`; `format` = `aph` | `csv` | `jsonl`;
//! - both: `split` = `all` | `train` | `dev` | `test`, `split_by` = `group` | `time`, `seed`,
//!   and the shares `train`, `dev`, `test`.
//!
//! The response carries `X-Paracrowd-Rows`: the rows the export reads, for a progress bar.
use app::domain::CampaignId;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use sqlx::PgPool;
use tower_sessions::Session;

use app::domain::export::spec::ExportQuery;
use app::domain::Role;
use app::error::AppError;

pub(crate) fn refuse(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message.to_owned(),
    )
        .into_response()
}

/// Lets researchers and admins through; anyone else gets the refusal to send (401 when not
/// logged in, 403 for another role).
pub(crate) async fn require_reader(session: &Session, pool: &PgPool) -> Result<(), Response> {
    match caller_role(session, pool).await {
        None => Err(refuse(StatusCode::UNAUTHORIZED, "Please log in first.")),
        Some(role) if !role.can_read_studies() => Err(refuse(
            StatusCode::FORBIDDEN,
            "Researchers and admins only.",
        )),
        Some(_) => Ok(()),
    }
}

/// The caller's role, if logged in and active.
async fn caller_role(session: &Session, pool: &PgPool) -> Option<Role> {
    let id = app::session::session_user_id(session)
        .await
        .ok()
        .flatten()?;
    let user = app::db::users::find_by_id(pool, id).await.ok().flatten()?;
    (user.status == app::domain::UserStatus::Active).then_some(user.role)
}

pub const ROWS_HEADER: HeaderName = HeaderName::from_static("x-paracrowd-rows");

pub async fn judge(
    State(pool): State<PgPool>,
    session: Session,
    Path(campaign): Path<String>,
    Query(q): Query<ExportQuery>,
) -> Response {
    download(pool, session, "judge", campaign, q).await
}

pub async fn apt(
    State(pool): State<PgPool>,
    session: Session,
    Path(campaign): Path<String>,
    Query(q): Query<ExportQuery>,
) -> Response {
    download(pool, session, "apt", campaign, q).await
}

async fn download(
    pool: PgPool,
    session: Session,
    kind: &str,
    campaign: String,
    q: ExportQuery,
) -> Response {
    if let Err(refusal) = require_reader(&session, &pool).await {
        return refusal;
    }
    // A file name after the id (`<id>.csv`) is allowed, so a saved link reads well.
    let Ok(campaign_id) = campaign
        .split('.')
        .next()
        .unwrap_or("")
        .parse::<CampaignId>()
    else {
        return refuse(StatusCode::NOT_FOUND, "No such campaign.");
    };
    match app::db::campaigns::find(&pool, campaign_id).await {
        Ok(Some(c)) if c.kind.as_str() == kind => {}
        Ok(_) => return refuse(StatusCode::NOT_FOUND, &format!("No such {kind} campaign.")),
        Err(_) => return unavailable(),
    }
    match app::service::export::open(&pool, campaign_id, &q).await {
        Ok(export) => (
            [
                (header::CONTENT_TYPE, export.content_type.to_owned()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{}\"", export.file_name),
                ),
                (ROWS_HEADER, export.source_rows.to_string()),
            ],
            Body::from_stream(export.body),
        )
            .into_response(),
        Err(AppError::Validation { message, .. }) => refuse(StatusCode::BAD_REQUEST, &message),
        Err(AppError::NotFound) => refuse(StatusCode::NOT_FOUND, "No such campaign."),
        Err(e) => {
            tracing::error!(%campaign_id, error = %e, "export could not start");
            unavailable()
        }
    }
}

fn unavailable() -> Response {
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        "The database did not answer; try again.",
    )
}
