//! `GET /export/judge/{campaign}`: a judging campaign as a dataset, one row per pair, streamed
//! from a database cursor to the response (constant memory, no time limit), for researchers and
//! admins.
//!
//! Query: `format` = `csv` (default), `jsonl` or `msrp` (MSRP's TSV); `unresolved` = `drop`
//! (default: ties and pairs still short of their judgments are left out) or `keep` (empty
//! label); `split` = `all` (default), `train`, `dev` or `test`, with `split_by` = `group`
//! (default; no group in two parts) or `time`, `seed` (default 0) and the shares `train`, `dev`,
//! `test` (default 0.8 / 0.1 / 0.1). Labels: test pairs carry their gold label (`gold` = 1);
//! other pairs are labelled by the campaign's vote thresholds over trusted judgments.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use sqlx::PgPool;
use tower_sessions::Session;
use uuid::Uuid;

use app::db::export::ExportPair;
use app::domain::export::format::{header as file_header, pair_line, Format, PairRow};
use app::domain::export::split::{split, Part, Row, Shares, SplitBy};
use app::domain::judge::labels::{vote_label, VoteLabel};

use super::export::{caller_role, refuse};

#[derive(serde::Deserialize, Default)]
pub struct JudgeExportQuery {
    format: Option<String>,
    unresolved: Option<String>,
    split: Option<String>,
    split_by: Option<String>,
    seed: Option<u64>,
    train: Option<f64>,
    dev: Option<f64>,
    test: Option<f64>,
}

/// Rows waiting between the database and the response.
const CHANNEL: usize = 256;

pub async fn judge_pairs(
    State(pool): State<PgPool>,
    session: Session,
    Path(campaign): Path<String>,
    Query(q): Query<JudgeExportQuery>,
) -> Response {
    match caller_role(&session, &pool).await {
        None => return refuse(StatusCode::UNAUTHORIZED, "Please log in first."),
        Some(role) if !role.can_read_studies() => {
            return refuse(StatusCode::FORBIDDEN, "Researchers and admins only.")
        }
        Some(_) => {}
    }
    let Ok(campaign_id) = Uuid::parse_str(campaign.split('.').next().unwrap_or("")) else {
        return refuse(StatusCode::NOT_FOUND, "No such campaign.");
    };
    let Some(format) = Format::parse(q.format.as_deref().unwrap_or("csv")) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "format must be csv, jsonl or msrp.",
        );
    };
    let keep_unresolved = match q.unresolved.as_deref().unwrap_or("drop") {
        "drop" => false,
        "keep" => true,
        _ => return refuse(StatusCode::BAD_REQUEST, "unresolved must be drop or keep."),
    };
    let part = match q.split.as_deref().unwrap_or("all") {
        "all" => None,
        other => match Part::parse(other) {
            Some(p) => Some(p),
            None => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "split must be all, train, dev or test.",
                )
            }
        },
    };
    let by = match q.split_by.as_deref().unwrap_or("group") {
        "group" => SplitBy::Group,
        "time" => SplitBy::Time,
        _ => return refuse(StatusCode::BAD_REQUEST, "split_by must be group or time."),
    };
    let d = Shares::default();
    let shares = Shares {
        train: q.train.unwrap_or(d.train),
        dev: q.dev.unwrap_or(d.dev),
        test: q.test.unwrap_or(d.test),
    };
    if let Err((_, message)) = shares.check() {
        return refuse(StatusCode::BAD_REQUEST, &message);
    }
    let unavailable = || {
        refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "The database did not answer; try again.",
        )
    };
    let settings = match app::db::judge::settings(&pool, campaign_id).await {
        Ok(Some(s)) => s,
        Ok(None) => return refuse(StatusCode::NOT_FOUND, "No such judging campaign."),
        Err(_) => return unavailable(),
    };
    // The split needs every pair's group and time (small keys), not the pairs themselves.
    let keys = match app::db::export::pair_keys(&pool, campaign_id).await {
        Ok(k) => k,
        Err(_) => return unavailable(),
    };
    let rows: Vec<Row<String, time::OffsetDateTime>> = keys
        .iter()
        .map(|(_, g, t)| Row {
            group: g.clone(),
            time: *t,
        })
        .collect();
    let parts: HashMap<Uuid, Part> = keys
        .iter()
        .map(|k| k.0)
        .zip(split(&rows, shares, by, q.seed.unwrap_or(0)))
        .collect();
    drop(rows);

    let (tx, rx) = tokio::sync::mpsc::channel::<ExportPair>(CHANNEL);
    let failed = Arc::new(AtomicBool::new(false));
    {
        let (pool, failed) = (pool.clone(), failed.clone());
        tokio::spawn(async move {
            if let Err(e) = app::db::export::send_pairs(&pool, campaign_id, tx).await {
                tracing::error!(%campaign_id, error = %e, "export stopped by a database error");
                failed.store(true, Ordering::SeqCst);
            }
        });
    }
    let label_of = move |p: &ExportPair| -> Option<u8> {
        if p.is_test {
            return p.gold_label.map(u8::from);
        }
        if (p.n_judgments as u32) < settings.judgments_per_pair {
            return None;
        }
        match vote_label(p.n_paraphrase.max(0) as u32, settings.thresholds) {
            VoteLabel::Paraphrase => Some(1),
            VoteLabel::NotParaphrase => Some(0),
            VoteLabel::Unresolved => None,
        }
    };
    let line_of = move |p: ExportPair| -> Option<String> {
        let this_part = parts.get(&p.pair_id).copied().unwrap_or(Part::Train);
        if part.is_some_and(|want| want != this_part) {
            return None;
        }
        let label = label_of(&p);
        if label.is_none() && !keep_unresolved {
            return None;
        }
        pair_line(
            format,
            &PairRow {
                id: p.external_id.unwrap_or_else(|| p.pair_id.to_string()),
                sentence1: p.sentence1,
                sentence2: p.sentence2,
                n_paraphrase: p.n_paraphrase.max(0) as u32,
                n_judgments: p.n_judgments.max(0) as u32,
                label,
                group: p.group_key,
                gold: p.is_test,
                split: Some(this_part.as_str().to_owned()),
            },
        )
    };
    let head = futures::stream::once(async move {
        Ok::<Bytes, std::io::Error>(Bytes::from(file_header(format)))
    });
    // Lines gathered into chunks of about 64 KiB; a database error ends the body with an error,
    // so a client never takes a cut-off file for a whole one.
    let rows = futures::stream::unfold(
        (rx, line_of, failed, false),
        |(mut rx, line_of, failed, ended)| async move {
            if ended {
                return None;
            }
            let mut chunk = String::new();
            loop {
                match rx.recv().await {
                    Some(p) => {
                        if let Some(line) = line_of(p) {
                            chunk.push_str(&line);
                            if chunk.len() >= 64 * 1024 {
                                return Some((
                                    Ok(Bytes::from(chunk)),
                                    (rx, line_of, failed, false),
                                ));
                            }
                        }
                    }
                    None if failed.load(Ordering::SeqCst) => {
                        let e = std::io::Error::other("the export stopped on a database error");
                        return Some((Err(e), (rx, line_of, failed, true)));
                    }
                    None if chunk.is_empty() => return None,
                    None => return Some((Ok(Bytes::from(chunk)), (rx, line_of, failed, true))),
                }
            }
        },
    );
    let filename = format!(
        "attachment; filename=\"judge-{campaign_id}-{}.{}\"",
        part.map_or("all", Part::as_str),
        format.extension()
    );
    (
        [
            (header::CONTENT_TYPE, format.content_type().to_owned()),
            (header::CONTENT_DISPOSITION, filename),
        ],
        Body::from_stream(futures::StreamExt::chain(head, rows)),
    )
        .into_response()
}
