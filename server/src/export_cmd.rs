//! `paracrowd export CAMPAIGN OUTPUT [KEY=VALUE ...]`: the download route's stream written to a
//! file (or stdout), with a progress line on stderr. Options are the route's query parameters.
use std::io::{IsTerminal, Write};
use std::sync::atomic::Ordering;

use anyhow::{bail, Context};
use app::domain::CampaignId;
use futures::StreamExt;
use sqlx::PgPool;

use app::domain::export::spec::ExportQuery;

/// `KEY=VALUE` options as an [`ExportQuery`]; an unknown key is an error listing the known ones.
pub fn parse_options(options: &[&str]) -> anyhow::Result<ExportQuery> {
    let known = serde_json::to_value(ExportQuery::default())?;
    let mut fields = serde_json::Map::new();
    for option in options {
        let Some((key, value)) = option.split_once('=') else {
            bail!("options are KEY=VALUE, not {option:?}");
        };
        if known.get(key).is_none() {
            let keys: Vec<&String> = known
                .as_object()
                .map(|o| o.keys().collect())
                .unwrap_or_default();
            bail!("unknown option {key:?}; the options are {keys:?}");
        }
        fields.insert(key.to_owned(), serde_json::Value::String(value.to_owned()));
    }
    Ok(serde_json::from_value(serde_json::Value::Object(fields))?)
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub rows_read: u64,
    pub bytes: u64,
}

/// Writes the export to `output` (`-` for stdout); with `progress`, a line on stderr twice a
/// second (rows read of the total, rate) and a summary at the end.
pub async fn write(
    pool: &PgPool,
    campaign_id: CampaignId,
    query: &ExportQuery,
    output: &str,
    progress: bool,
) -> anyhow::Result<Written> {
    let export = app::service::export::open(pool, campaign_id, query)
        .await
        .map_err(|e| match e {
            app::error::AppError::NotFound => anyhow::anyhow!("no campaign {campaign_id}"),
            e => anyhow::anyhow!("{e}"),
        })?;
    let mut out: Box<dyn Write + Send> = if output == "-" {
        Box::new(std::io::BufWriter::new(std::io::stdout()))
    } else {
        Box::new(std::io::BufWriter::new(
            std::fs::File::create(output).with_context(|| format!("cannot write {output}"))?,
        ))
    };
    let progress = progress && (output != "-" || std::io::stderr().is_terminal());
    let total = export.source_rows;
    let started = std::time::Instant::now();
    let show = |read: u64, end: &str| {
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let percent = (100 * read).checked_div(total).unwrap_or(100);
        eprint!(
            "\r{read} / {total} rows read ({percent}%), {:.0} rows/s{end}",
            read as f64 / secs
        );
    };
    let mut last = started;
    let mut bytes = 0u64;
    let mut body = export.body;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.context("the export stopped part-way; the file is incomplete")?;
        bytes += chunk.len() as u64;
        out.write_all(&chunk)?;
        if progress && last.elapsed().as_millis() >= 500 {
            last = std::time::Instant::now();
            show(export.rows_read.load(Ordering::Relaxed), "");
        }
    }
    out.flush()?;
    let rows_read = export.rows_read.load(Ordering::Relaxed);
    if progress {
        show(rows_read, "\n");
        eprintln!(
            "wrote {} ({bytes} bytes, {}) in {:.1} s",
            if output == "-" { "stdout" } else { output },
            export.file_name,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Written { rows_read, bytes })
}
