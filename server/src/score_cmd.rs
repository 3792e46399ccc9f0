//! `paracrowd score INPUT [OUTPUT]`: re-scores a file of sentence pairs where `serve` would score
//! Checks (in process with the scorer the model resolver picks, or on the inference server
//! `PARACROWD_SCORER=remote` names, failing where `serve` would fail to start) and writes, per pair, the MI judge's probabilities both ways, MI, BLEURT both
//! ways and their mean, the reward in cents, the model versions and the scorer in words. The tool a researcher uses on an AP_H-style
//! file, and the one the benchmark uses.
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::{bail, Context};
use app::domain::reward::{attempt_contains_source, reward_cents, DEFAULT_BLEURT_THRESHOLD};

use app::ml::{PairScorer, PairScores};

use crate::ml::{MlConfig, Scorer};

/// Column pairs recognised in a header, first match wins (case-insensitive).
const HEADER_PAIRS: [(&str, &str); 6] = [
    ("sentence1", "sentence2"),
    ("source", "attempt"),
    ("sentence", "candidate"),
    ("#1 string", "#2 string"),
    ("text_a", "text_b"),
    ("premise", "hypothesis"),
];

/// Reads (first, second) sentence pairs from a CSV (`.csv`) or TSV file (anything else; quoting
/// off, as MSRP and AP_H are written). A header naming one of [`HEADER_PAIRS`] selects those
/// columns; without one, the first two columns are used and the first row is data.
pub fn read_pairs(path: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(if is_csv { b',' } else { b'\t' })
        .quoting(is_csv)
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let mut rows = reader.records();
    let Some(first) = rows.next() else {
        return Ok(Vec::new());
    };
    let first = first.with_context(|| format!("{}: line 1 is not readable", path.display()))?;
    let names: Vec<String> = first
        .iter()
        .map(|c| c.trim_start_matches('\u{feff}').trim().to_lowercase())
        .collect();
    let header = HEADER_PAIRS.iter().find_map(|(a, b)| {
        Some((
            names.iter().position(|n| n == a)?,
            names.iter().position(|n| n == b)?,
        ))
    });
    let (ia, ib) = header.unwrap_or((0, 1));
    let mut pairs = Vec::new();
    let mut take = |record: &csv::StringRecord, line: u64| -> anyhow::Result<()> {
        match (record.get(ia), record.get(ib)) {
            (Some(a), Some(b)) => {
                pairs.push((a.trim_start_matches('\u{feff}').to_owned(), b.to_owned()));
                Ok(())
            }
            _ => bail!(
                "{}: line {line} has {} columns, needs at least {}",
                path.display(),
                record.len(),
                ia.max(ib) + 1
            ),
        }
    };
    if header.is_none() {
        take(&first, 1)?;
    }
    for (i, record) in rows.enumerate() {
        let line = i as u64 + 2;
        let record =
            record.with_context(|| format!("{}: line {line} is not readable", path.display()))?;
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        take(&record, line)?;
    }
    Ok(pairs)
}

/// Scores `input` in process with the scorer the model resolver picks, and writes a TSV to
/// `output` (stdout when `None`). Prints progress to stderr.
pub fn run(config: &MlConfig, input: &Path, output: Option<&Path>) -> anyhow::Result<()> {
    let pairs = read_pairs(input)?;
    let (mut scorer, resolution) = Scorer::resolve(config)?;
    for line in resolution.lines() {
        eprintln!("{line}");
    }
    write_scores(&pairs, config.max_batch, output, |chunk| {
        scorer.score_pairs(chunk)
    })
}

/// Scores `input` with `scorer` (an inference server's, as `serve` would score Checks with the
/// same settings), `max_batch` pairs in flight at a time, and writes the TSV as [`run`] does.
pub async fn run_with(
    scorer: std::sync::Arc<dyn PairScorer>,
    max_batch: usize,
    input: &Path,
    output: Option<&Path>,
) -> anyhow::Result<()> {
    let pairs = read_pairs(input)?;
    let output = output.map(Path::to_path_buf);
    let handle = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        write_scores(&pairs, max_batch, output.as_deref(), |chunk| {
            let calls = chunk
                .iter()
                .map(|(a, b)| scorer.score((*a).to_owned(), (*b).to_owned()));
            handle
                .block_on(futures::future::join_all(calls))
                .into_iter()
                .map(|r| r.map_err(|e| anyhow::anyhow!("{e}")))
                .collect()
        })
    })
    .await?
}

/// Writes the TSV of `pairs` scored `max_batch` at a time by `score`: per pair the MI judge's
/// probabilities both ways, MI, BLEURT both ways and their mean, the reward in cents, the model
/// versions and the scorer in words.
fn write_scores(
    pairs: &[(String, String)],
    max_batch: usize,
    output: Option<&Path>,
    mut score: impl FnMut(&[(&str, &str)]) -> anyhow::Result<Vec<PairScores>>,
) -> anyhow::Result<()> {
    let labels: Vec<String> = score(&[("a", "b")])?[0].labels.clone();
    let sink: Box<dyn Write> = match output {
        Some(p) => {
            Box::new(File::create(p).with_context(|| format!("cannot write {}", p.display()))?)
        }
        None => Box::new(io::stdout().lock()),
    };
    let mut out = csv::WriterBuilder::new()
        .delimiter(b'\t')
        .quote_style(csv::QuoteStyle::Never)
        .from_writer(BufWriter::new(sink));
    let mut header = vec!["source".to_owned(), "attempt".to_owned()];
    header.extend(labels.iter().map(|l| format!("p_forward_{l}")));
    header.extend(labels.iter().map(|l| format!("p_backward_{l}")));
    header.extend(
        [
            "mi",
            "bleurt_forward",
            "bleurt_backward",
            "bleurt",
            "reward_cents",
            "mi_model",
            "bleurt_model",
            "scorer",
        ]
        .map(String::from),
    );
    out.write_record(&header)?;
    let started = std::time::Instant::now();
    for (n, chunk) in pairs.chunks(max_batch.max(1)).enumerate() {
        let refs: Vec<(&str, &str)> = chunk
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let scores = score(&refs)?;
        for ((source, attempt), s) in chunk.iter().zip(scores) {
            let mi = s.is_mutual_implication && !attempt_contains_source(source, attempt);
            let mut row = vec![clean(source), clean(attempt)];
            row.extend(s.forward_probs.iter().map(|p| format!("{p:.6}")));
            row.extend(s.backward_probs.iter().map(|p| format!("{p:.6}")));
            row.push(u8::from(s.is_mutual_implication).to_string());
            row.push(format!("{:.6}", s.bleurt_forward));
            row.push(format!("{:.6}", s.bleurt_backward));
            row.push(format!("{:.6}", s.bleurt));
            row.push(reward_cents(mi, f64::from(s.bleurt), DEFAULT_BLEURT_THRESHOLD).to_string());
            row.push(s.versions.mi.clone());
            row.push(s.versions.bleurt.clone());
            row.push(s.versions.description.clone());
            out.write_record(&row)?;
        }
        let done = ((n + 1) * max_batch.max(1)).min(pairs.len());
        if n % 20 == 19 || done == pairs.len() {
            let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
            eprintln!("scored {done}/{} pairs ({rate:.1} pairs/s)", pairs.len());
        }
    }
    out.flush()?;
    Ok(())
}

/// Tabs and newlines would break the TSV; they are replaced by spaces.
fn clean(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn an_msrp_file_uses_its_string_columns_despite_quotes_and_a_bom() {
        let (_d, p) = file(
            "msr.txt",
            "\u{feff}Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tHe said \"hi\".\tHe greeted them.\n",
        );
        assert_eq!(
            read_pairs(&p).unwrap(),
            [("He said \"hi\".".into(), "He greeted them.".into())]
        );
    }

    #[test]
    fn an_ap_h_style_header_selects_sentence_and_candidate() {
        let (_d, p) = file(
            "aph.tsv",
            "token\tsentence\tcandidate\tBLEURT\nw1\tA b.\tC d.\t0.1\n\nw2\tE.\tF.\t0.2\n",
        );
        assert_eq!(
            read_pairs(&p).unwrap(),
            [("A b.".into(), "C d.".into()), ("E.".into(), "F.".into())]
        );
    }

    #[test]
    fn without_a_header_the_first_two_columns_are_data() {
        let (_d, p) = file("pairs.csv", "\"One, two.\",Three.\nFour.,Five.\n");
        assert_eq!(
            read_pairs(&p).unwrap(),
            [
                ("One, two.".into(), "Three.".into()),
                ("Four.".into(), "Five.".into())
            ]
        );
    }

    #[test]
    fn a_short_row_is_an_error_naming_its_line() {
        let (_d, p) = file("bad.tsv", "sentence1\tsentence2\na\tb\nonly one column\n");
        let err = read_pairs(&p).unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
    }
}
