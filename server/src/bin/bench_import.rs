//! Import benchmark (a README command, not a test): how long the upload readers take to parse
//! files of short rows, as seconds per 100,000 rows at 100,000 and at 1,000,000 rows. Linear
//! readers print about the same number at both sizes; a reader whose cost grows with the square
//! of the rows prints ten times more at the larger size.
//!
//! The pair and source readers refuse files over their row limits (200,000) after reading one
//! row past it, so at 1,000,000 rows they time that refusal; the table reader and the corpus
//! reader (limit 1,000,000) read every row.
//!
//! Usage: bench-import
use std::time::Instant;

use app::domain::apt::source_import::{self, SourceFormat};
use app::domain::judge::pair_import::parse_pairs;
use app::domain::mining::corpus::{self, Columns, CorpusShape};
use app::domain::table_file::{self, TableFormat};

fn pairs_csv(rows: usize) -> String {
    let mut s = String::with_capacity(rows * 16);
    s.push_str("sentence1,sentence2\n");
    for i in 0..rows {
        s.push_str(&format!("a{i},b{i}\n"));
    }
    s
}

fn lines(header: &str, rows: usize) -> String {
    let mut s = String::with_capacity(rows * 12);
    s.push_str(header);
    for i in 0..rows {
        s.push_str(&format!("row {i}\n"));
    }
    s
}

/// A reader: whether it accepted the file.
type Reader = Box<dyn Fn(&str) -> bool>;

/// Seconds per 100,000 rows of `parse` on a file of `rows` rows, and whether it was accepted.
fn per_100k(rows: usize, text: &str, parse: impl Fn(&str) -> bool) -> (f64, bool) {
    let started = Instant::now();
    let accepted = parse(text);
    let seconds = started.elapsed().as_secs_f64();
    (seconds * 100_000.0 / rows as f64, accepted)
}

fn main() {
    println!("| reader | rows | s per 100k rows | accepted |");
    println!("|---|---|---|---|");
    for rows in [100_000, 1_000_000] {
        let csv = pairs_csv(rows);
        let tsv = csv.replace(',', "\t");
        let sources = lines("text\n", rows);
        let sentences = lines("", rows);
        let cases: Vec<(&str, &str, Reader)> = vec![
            (
                "table (CSV)",
                &csv,
                Box::new(|t| table_file::read(t, TableFormat::Csv, usize::MAX).is_ok()),
            ),
            (
                "table (TSV)",
                &tsv,
                Box::new(|t| table_file::read(t, TableFormat::Tsv, usize::MAX).is_ok()),
            ),
            (
                "pairs (CSV)",
                &csv,
                Box::new(|t| parse_pairs("pairs.csv", t, false).is_ok()),
            ),
            (
                "sources (TSV)",
                &sources,
                Box::new(|t| {
                    source_import::check_size(t).is_ok()
                        && source_import::parse_sources(t, SourceFormat::Tsv, "upload").is_ok()
                }),
            ),
            (
                "corpus (sentences)",
                &sentences,
                Box::new(|t| {
                    corpus::parse(
                        "corpus.txt",
                        t,
                        CorpusShape::Sentences,
                        &Columns::default(),
                        false,
                    )
                    .is_ok()
                }),
            ),
        ];
        for (name, text, parse) in &cases {
            let (s, accepted) = per_100k(rows, text, parse);
            println!("| {name} | {rows} | {s:.3} | {accepted} |");
        }
    }
}
