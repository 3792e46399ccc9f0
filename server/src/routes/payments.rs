//! A bonus batch's files, for researchers and admins:
//! `GET /payments/{batch}/prolific.txt` (Prolific's bulk bonus lines), `…/mturk.csv` (MTurk's
//! `SendBonus` parameters) and `…/generic.csv`. The same batch gives the same file every time.
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use sqlx::PgPool;
use tower_sessions::Session;

use app::domain::study::bonus_files::BonusFile;
use app::error::AppError;

use super::export::{refuse, require_reader};

pub async fn bonus_file(
    State(pool): State<PgPool>,
    session: Session,
    Path((batch, file)): Path<(String, String)>,
) -> Response {
    if let Err(refusal) = require_reader(&session, &pool).await {
        return refusal;
    }
    let Some(kind) = BonusFile::parse(file.split('.').next().unwrap_or("")) else {
        return refuse(
            StatusCode::NOT_FOUND,
            "No such file: prolific.txt, mturk.csv or generic.csv.",
        );
    };
    let Ok(batch) = batch.parse::<app::domain::BatchId>() else {
        return refuse(StatusCode::BAD_REQUEST, "Not a batch id.");
    };
    match app::service::payments::bonus_file(&pool, batch, kind).await {
        Ok((name, body)) => {
            let content_type = match kind {
                BonusFile::Prolific => "text/plain; charset=utf-8",
                _ => "text/csv; charset=utf-8",
            };
            (
                [
                    (header::CONTENT_TYPE, content_type.to_owned()),
                    (
                        header::CONTENT_DISPOSITION,
                        format!("attachment; filename=\"{name}\""),
                    ),
                ],
                body,
            )
                .into_response()
        }
        Err(AppError::Validation { message, .. }) => refuse(StatusCode::BAD_REQUEST, &message),
        Err(AppError::NotFound) => refuse(StatusCode::NOT_FOUND, "No such batch."),
        Err(e) => {
            tracing::error!(%batch, error = %e, "bonus file failed");
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "The database did not answer; try again.",
            )
        }
    }
}
