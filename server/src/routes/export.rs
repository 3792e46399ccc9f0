//! `GET /export/apt/{campaign}?split=all|train|test&seed=N`: a campaign's attempts in AP_H's layout
//! (`token time duration dataset index sentence candidate BLEURT MI dollar`, tab-separated), with
//! a pseudonymous worker token, optionally one part of the ~3:1 train/test split by source
//! sentence. Researchers and admins only.
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use sqlx::PgPool;
use tower_sessions::Session;
use uuid::Uuid;

use app::domain::apt::split::split_by_group;
use app::domain::Role;

#[derive(serde::Deserialize)]
pub struct ExportQuery {
    #[serde(default)]
    split: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
}

/// Share of rows in the test part (the paper's AP_H split is about 3:1).
const TEST_FRACTION: f64 = 0.25;

pub(crate) fn refuse(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message.to_owned(),
    )
        .into_response()
}

/// The caller's role, if logged in and active.
pub(crate) async fn caller_role(session: &Session, pool: &PgPool) -> Option<Role> {
    let id = app::session::session_user_id(session)
        .await
        .ok()
        .flatten()?;
    let user = app::db::users::find_by_id(pool, id).await.ok().flatten()?;
    (user.status() == app::domain::UserStatus::Active).then(|| user.role())
}

pub async fn apt_attempts(
    State(pool): State<PgPool>,
    session: Session,
    Path(campaign): Path<String>,
    Query(q): Query<ExportQuery>,
) -> Response {
    match caller_role(&session, &pool).await {
        None => return refuse(StatusCode::UNAUTHORIZED, "Please log in first."),
        Some(role) if !role.can_read_studies() => {
            return refuse(StatusCode::FORBIDDEN, "Researchers and admins only.")
        }
        Some(_) => {}
    }
    let Ok(campaign_id) = Uuid::parse_str(campaign.trim_end_matches(".tsv")) else {
        return refuse(StatusCode::NOT_FOUND, "No such campaign.");
    };
    let part = q.split.as_deref().unwrap_or("all");
    if !["all", "train", "test"].contains(&part) {
        return refuse(StatusCode::BAD_REQUEST, "split must be all, train or test.");
    }
    let rows = match app::db::apt::list_ap_h_rows(&pool, campaign_id).await {
        Ok(rows) => rows,
        Err(_) => {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "The database did not answer; try again.",
            )
        }
    };
    let groups: Vec<Uuid> = rows.iter().map(|r| r.source_sentence_id).collect();
    let in_test = split_by_group(&groups, TEST_FRACTION, q.seed.unwrap_or(0));
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    let mut out = String::from(
        "token\ttime\tduration\tdataset\tindex\tsentence\tcandidate\tBLEURT\tMI\tdollar\n",
    );
    for (row, is_test) in rows.iter().zip(in_test) {
        if (part == "train" && is_test) || (part == "test" && !is_test) {
            continue;
        }
        let time = row
            .created_at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        out.push_str(&format!(
            "{}\t{time}\t{:.1}\t{}\t{}\t{}\t{}\t{:.6}\t{}\t{:.2}\n",
            app::domain::account::pseudonym(&row.app_user_id),
            row.seconds_since_shown,
            clean(&row.origin),
            clean(row.external_id.as_deref().unwrap_or("")),
            clean(&row.sentence),
            clean(&row.candidate),
            row.bleurt,
            u8::from(row.is_mutual_implication),
            f64::from(row.reward_cents) / 100.0,
        ));
    }
    let filename = format!("attachment; filename=\"ap_h-{campaign_id}-{part}.tsv\"");
    (
        [
            (
                header::CONTENT_TYPE,
                "text/tab-separated-values; charset=utf-8".to_owned(),
            ),
            (header::CONTENT_DISPOSITION, filename),
        ],
        out,
    )
        .into_response()
}
