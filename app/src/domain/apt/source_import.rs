//! Reading source sentences for an APT campaign from an uploaded file. Accepted formats:
//! - MSRP's pair files (`Quality #1 ID #2 ID #1 String #2 String`, tab-separated, BOM, quoting
//!   off): sentence 1 of each pair, as the study did, with `#1 ID` as the external id;
//! - MSRP's sentence file (`Sentence ID String Author ...`): every sentence;
//! - CSV or TSV with a `text` column and optional `origin` and `id` columns;
//! - JSON lines with `text` and optional `origin` and `id`.
//!
//! A file is read whole or not at all: the first bad line is reported by number and nothing is
//! imported. Duplicates inside the file are skipped and counted (the database skips those already
//! in the campaign).
use std::collections::HashSet;

pub use crate::domain::table_file::ImportError;
use crate::domain::table_file::{self, err, TableFormat};

/// Longest source sentence accepted, in characters.
pub const MAX_SOURCE_CHARS: usize = 1000;
/// Longest origin name, in characters.
pub const MAX_ORIGIN_CHARS: usize = 50;
/// Most sentences in one file.
pub const MAX_ROWS: usize = 200_000;

/// One sentence to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRow {
    /// The sentence itself.
    pub text: String,
    /// The data set it comes from (e.g. `msrp`, `ppnmt`); serving balances over origins.
    pub origin: String,
    /// Its id in the data set (MSRP's `#1 ID`, or an `id` column), if given.
    pub external_id: Option<String>,
}

/// The sentences of a file and what was skipped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedSources {
    /// The sentences to import, duplicates removed, in file order.
    pub rows: Vec<SourceRow>,
    /// Sentences skipped because the same text came earlier in the file.
    pub duplicates_in_file: usize,
}

/// The file's format, from its header and name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    /// MSRP's pair file: sentence 1 of each pair, `#1 ID` as the id.
    MsrpPairs,
    /// MSRP's sentence file: every sentence.
    MsrpSentences,
    /// CSV with a `text` column.
    Csv,
    /// TSV with a `text` column.
    Tsv,
    /// JSON lines with a `text` field.
    JsonLines,
}

/// The origin recorded for rows that name none: the one given, else `msrp` for MSRP's own files
/// (so serving can balance MSRP against other origins, as the APT study did), else `upload`.
pub fn default_origin(format: SourceFormat, given: &str) -> String {
    let given = given.trim();
    if !given.is_empty() {
        given.to_owned()
    } else if matches!(
        format,
        SourceFormat::MsrpPairs | SourceFormat::MsrpSentences
    ) {
        "msrp".to_owned()
    } else {
        "upload".to_owned()
    }
}

/// Guesses the format: MSRP headers first, then the extension (`.jsonl`/`.json`, `.csv`),
/// then a JSON object on the first line, else TSV.
pub fn detect_format(filename: &str, text: &str) -> SourceFormat {
    let first = text
        .trim_start_matches('\u{feff}')
        .lines()
        .next()
        .unwrap_or("")
        .trim();
    let lower = filename.to_lowercase();
    if first.starts_with("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String") {
        SourceFormat::MsrpPairs
    } else if first.starts_with("Sentence ID\tString") {
        SourceFormat::MsrpSentences
    } else if lower.ends_with(".jsonl") || lower.ends_with(".json") || first.starts_with('{') {
        SourceFormat::JsonLines
    } else if lower.ends_with(".csv") {
        SourceFormat::Csv
    } else {
        SourceFormat::Tsv
    }
}

/// Parses `text` in `format`; rows without an origin get `default_origin`.
pub fn parse_sources(
    text: &str,
    format: SourceFormat,
    default_origin: &str,
) -> Result<ParsedSources, ImportError> {
    let text = text.trim_start_matches('\u{feff}');
    let default_origin = check_origin(default_origin, 1)?;
    let raw = match format {
        SourceFormat::MsrpPairs => parse_msrp(text, 3, Some(1), &default_origin)?,
        SourceFormat::MsrpSentences => parse_msrp(text, 1, Some(0), &default_origin)?,
        SourceFormat::Csv => parse_table(text, TableFormat::Csv, &default_origin)?,
        SourceFormat::Tsv => parse_table(text, TableFormat::Tsv, &default_origin)?,
        SourceFormat::JsonLines => parse_table(text, TableFormat::JsonLines, &default_origin)?,
    };
    let mut seen = HashSet::new();
    let mut parsed = ParsedSources::default();
    for (line, row) in raw {
        let row = check_row(row, line)?;
        if seen.insert(row.text.clone()) {
            parsed.rows.push(row);
        } else {
            parsed.duplicates_in_file += 1;
        }
    }
    if parsed.rows.is_empty() {
        return Err(err(1, "the file has no sentences"));
    }
    Ok(parsed)
}

type Numbered = Vec<(usize, SourceRow)>;

fn parse_msrp(
    text: &str,
    text_col: usize,
    id_col: Option<usize>,
    origin: &str,
) -> Result<Numbered, ImportError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let Some(sentence) = cols.get(text_col) else {
            return Err(err(
                n,
                format!(
                    "expected at least {} tab-separated columns, found {}",
                    text_col + 1,
                    cols.len()
                ),
            ));
        };
        out.push((
            n,
            SourceRow {
                text: sentence.to_string(),
                origin: origin.to_owned(),
                external_id: id_col
                    .and_then(|c| cols.get(c))
                    .map(|s| s.trim().to_owned()),
            },
        ));
    }
    Ok(out)
}

fn parse_table(text: &str, format: TableFormat, origin: &str) -> Result<Numbered, ImportError> {
    let table = table_file::read(text, format, MAX_ROWS)?;
    table.require_column(&["text"])?;
    table
        .records
        .into_iter()
        .map(|r| -> Result<(usize, SourceRow), ImportError> {
            // A missing or empty text is reported by `check_row` ("the sentence is empty").
            let text = r.get(&["text"]).unwrap_or_default().to_owned();
            let row = SourceRow {
                text,
                origin: r.get(&["origin"]).unwrap_or(origin).to_owned(),
                external_id: r.get(&["id"]).map(str::to_owned),
            };
            Ok((r.line, row))
        })
        .collect()
}

fn check_origin(origin: &str, line: usize) -> Result<String, ImportError> {
    let origin = origin.trim().to_lowercase();
    if origin.is_empty() || origin.chars().count() > MAX_ORIGIN_CHARS {
        return Err(err(
            line,
            format!("an origin must have 1 to {MAX_ORIGIN_CHARS} characters"),
        ));
    }
    if origin.chars().any(|c| c.is_control()) {
        return Err(err(line, "the origin contains control characters"));
    }
    Ok(origin)
}

fn check_row(row: SourceRow, line: usize) -> Result<SourceRow, ImportError> {
    let raw = crate::domain::text::controls_to_spaces(&row.text);
    if let Err(problem) = crate::domain::text::check(&raw) {
        return Err(err(line, format!("the sentence {problem}")));
    }
    let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err(err(line, "the sentence is empty"));
    }
    if text.chars().count() > MAX_SOURCE_CHARS {
        return Err(err(
            line,
            format!("the sentence is longer than {MAX_SOURCE_CHARS} characters"),
        ));
    }
    Ok(SourceRow {
        text,
        origin: check_origin(&row.origin, line)?,
        external_id: row.external_id,
    })
}

/// Checks the whole-file limit before parsing (cheap, on the raw text).
pub fn check_size(text: &str) -> Result<(), ImportError> {
    let lines = text.lines().count();
    if lines > MAX_ROWS + 1 {
        return Err(err(
            MAX_ROWS + 2,
            format!("the file has more than {MAX_ROWS} rows"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msrp_files_are_recorded_as_msrp_unless_told_otherwise() {
        assert_eq!(default_origin(SourceFormat::MsrpPairs, ""), "msrp");
        assert_eq!(default_origin(SourceFormat::MsrpSentences, "  "), "msrp");
        assert_eq!(default_origin(SourceFormat::MsrpPairs, "news"), "news");
        assert_eq!(default_origin(SourceFormat::Csv, ""), "upload");
        assert_eq!(default_origin(SourceFormat::Tsv, "ppnmt"), "ppnmt");
    }

    const MSRP: &str = "\u{feff}Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n\
        1\t702876\t702977\tAmrozi accused his brother, whom he called \"the witness\", of deliberately distorting his evidence.\tReferring to him as only \"the witness\", Amrozi accused his brother.\n\
        0\t2108705\t2108831\tYucaipa owned Dominick's before selling the chain to Safeway in 1998.\tYucaipa bought Dominick's in 1995.\n";

    #[test]
    fn msrp_pair_files_give_sentence_one_with_its_id() {
        assert_eq!(
            detect_format("msr_paraphrase_train.txt", MSRP),
            SourceFormat::MsrpPairs
        );
        let parsed = parse_sources(MSRP, SourceFormat::MsrpPairs, "msrp").unwrap();
        assert_eq!(parsed.rows.len(), 2);
        assert!(parsed.rows[0]
            .text
            .starts_with("Amrozi accused his brother, whom he called \"the witness\""));
        assert_eq!(parsed.rows[0].external_id.as_deref(), Some("702876"));
        assert_eq!(parsed.rows[1].origin, "msrp");
    }

    #[test]
    fn the_msrp_sentence_file_gives_every_sentence() {
        let text = "\u{feff}Sentence ID\tString\tAuthor\tURL\tAgency\tDate\tWeb Date\n702876\tAmrozi accused his brother.\tDarren\twww\t*\tJune 5 2003\t2003/06/04\n";
        assert_eq!(
            detect_format("msr_paraphrase_data.txt", text),
            SourceFormat::MsrpSentences
        );
        let parsed = parse_sources(text, SourceFormat::MsrpSentences, "msrp").unwrap();
        assert_eq!(
            parsed.rows,
            [SourceRow {
                text: "Amrozi accused his brother.".into(),
                origin: "msrp".into(),
                external_id: Some("702876".into())
            }]
        );
    }

    #[test]
    fn csv_with_text_and_origin_columns_and_duplicates_counted() {
        let text = "id,text,origin\n1,\"Hello, world.\",PPNMT\n2,Second one.,\n3,\"Hello,   world.\",ppnmt\n";
        assert_eq!(detect_format("s.csv", text), SourceFormat::Csv);
        let parsed = parse_sources(text, SourceFormat::Csv, "upload").unwrap();
        assert_eq!(parsed.rows.len(), 2);
        assert_eq!(
            parsed.rows[0],
            SourceRow {
                text: "Hello, world.".into(),
                origin: "ppnmt".into(),
                external_id: Some("1".into())
            }
        );
        assert_eq!(parsed.rows[1].origin, "upload");
        assert_eq!(parsed.duplicates_in_file, 1);
    }

    #[test]
    fn tsv_and_jsonl_are_read() {
        let tsv = "text\torigin\nOne \"quoted\" sentence.\tmsrp\n";
        assert_eq!(
            parse_sources(tsv, SourceFormat::Tsv, "x").unwrap().rows[0].text,
            "One \"quoted\" sentence."
        );
        let jsonl = "{\"text\": \"A.\", \"origin\": \"ppnmt\", \"id\": 7}\n\n{\"text\": \"B.\"}\n";
        assert_eq!(detect_format("s.jsonl", jsonl), SourceFormat::JsonLines);
        let rows = parse_sources(jsonl, SourceFormat::JsonLines, "upload")
            .unwrap()
            .rows;
        assert_eq!(rows[0].external_id.as_deref(), Some("7"));
        assert_eq!(rows[1].origin, "upload");
    }

    #[test]
    fn a_bad_line_is_reported_by_number() {
        let jsonl = "{\"text\": \"A.\"}\n{\"text\": \"B.\"\n";
        assert_eq!(
            parse_sources(jsonl, SourceFormat::JsonLines, "u")
                .unwrap_err()
                .line,
            2
        );
        let jsonl = "{\"text\": \"A.\"}\n[1, 2]\n";
        assert_eq!(
            parse_sources(jsonl, SourceFormat::JsonLines, "u")
                .unwrap_err()
                .line,
            2
        );
        let csv = "text,origin\nok,msrp\ntoo,many,columns\n";
        let e = parse_sources(csv, SourceFormat::Csv, "u").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("expected 2 columns"), "{e}");
        let csv = "sentence,origin\nok,msrp\n";
        assert_eq!(
            parse_sources(csv, SourceFormat::Csv, "u")
                .unwrap_err()
                .to_string(),
            "line 1: the header has no `text` column"
        );
        let msrp = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t2\n";
        assert_eq!(
            parse_sources(msrp, SourceFormat::MsrpPairs, "msrp")
                .unwrap_err()
                .line,
            2
        );
    }

    #[test]
    fn empty_huge_and_nul_sentences_are_refused() {
        let csv = "text\n\"   \"\n";
        // A whitespace-only row is skipped as blank; a file of nothing is refused.
        assert_eq!(
            parse_sources(csv, SourceFormat::Csv, "u")
                .unwrap_err()
                .message,
            "the file has no sentences"
        );
        let long = format!("text\n{}\n", "x".repeat(MAX_SOURCE_CHARS + 1));
        assert_eq!(
            parse_sources(&long, SourceFormat::Tsv, "u")
                .unwrap_err()
                .line,
            2
        );
        // Control characters (NUL too) become spaces; a line of nothing else is empty.
        let nul = "{\"text\": \"a\\u0000b\\u0012c\"}\n";
        assert_eq!(
            parse_sources(nul, SourceFormat::JsonLines, "u")
                .unwrap()
                .rows[0]
                .text,
            "a b c"
        );
        let only = "{\"text\": \"\\u0000\\u0007\"}\n";
        assert!(parse_sources(only, SourceFormat::JsonLines, "u")
            .unwrap_err()
            .message
            .contains("empty"));
        assert!(
            parse_sources("text\nok\n", SourceFormat::Tsv, "   ").is_err(),
            "empty default origin"
        );
    }
}
