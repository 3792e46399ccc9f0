//! Reading uploaded tables: CSV (quoted), TSV (quoting off, as MSRP and the Twitter corpora are
//! written), and JSON lines, into records of named fields with their line numbers. The importers
//! (source sentences, sentence pairs) map columns by name on top of this.
//!
//! A file is read whole or not at all: the first bad line is reported by its 1-based number.
use std::collections::BTreeMap;

/// Why a file was refused; `line` is 1-based.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ImportError {
    /// The 1-based line at fault.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// An [`ImportError`] at `line`.
pub fn err(line: usize, message: impl Into<String>) -> ImportError {
    ImportError {
        line,
        message: message.into(),
    }
}

/// A table file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated, with quoting.
    Csv,
    /// Tab-separated, quoting off.
    Tsv,
    /// One JSON object per line.
    JsonLines,
}

/// Guesses the format: `.jsonl`/`.json` or a JSON object on the first line, `.csv`, else TSV.
pub fn detect(filename: &str, text: &str) -> TableFormat {
    let first = first_line(text);
    let lower = filename.to_lowercase();
    if lower.ends_with(".jsonl") || lower.ends_with(".json") || first.starts_with('{') {
        TableFormat::JsonLines
    } else if lower.ends_with(".csv") {
        TableFormat::Csv
    } else {
        TableFormat::Tsv
    }
}

/// The first line without a byte-order mark or surrounding blanks.
pub fn first_line(text: &str) -> &str {
    text.trim_start_matches('\u{feff}')
        .lines()
        .next()
        .unwrap_or("")
        .trim()
}

/// One row: its line number and its fields by lower-cased column name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The 1-based line the row came from.
    pub line: usize,
    fields: BTreeMap<String, String>,
}

impl Record {
    /// The first non-empty field among `names` (lower case).
    pub fn get(&self, names: &[&str]) -> Option<&str> {
        names
            .iter()
            .filter_map(|n| self.fields.get(*n))
            .map(String::as_str)
            .find(|v| !v.trim().is_empty())
    }
}

/// The rows of a file, and its header when it has one (CSV and TSV).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The column names, lower-cased; `None` for JSON lines.
    pub header: Option<Vec<String>>,
    /// The data rows, in file order.
    pub records: Vec<Record>,
}

impl Table {
    /// Fails on the header line when a delimited file has none of `names` as a column.
    /// (JSON lines are checked row by row by the caller.)
    pub fn require_column(&self, names: &[&str]) -> Result<(), ImportError> {
        match &self.header {
            Some(header) if !names.iter().any(|n| header.iter().any(|h| h == n)) => {
                Err(err(1, format!("the header has no `{}` column", names[0])))
            }
            _ => Ok(()),
        }
    }

    /// Whether a delimited file's header (or any JSON line) has one of `names`.
    pub fn has_column(&self, names: &[&str]) -> bool {
        match &self.header {
            Some(header) => names.iter().any(|n| header.iter().any(|h| h == n)),
            None => self
                .records
                .iter()
                .any(|r| names.iter().any(|n| r.fields.contains_key(*n))),
        }
    }
}

/// Reads `text` in `format`, skipping blank rows. At most `max_rows` rows.
pub fn read(text: &str, format: TableFormat, max_rows: usize) -> Result<Table, ImportError> {
    let text = text.trim_start_matches('\u{feff}');
    if text.contains('\0') {
        let line = text[..text.find('\0').unwrap_or(0)].matches('\n').count() + 1;
        return Err(err(line, "the file contains a NUL character"));
    }
    // One row past the limit is enough to refuse the file: the rest is not read.
    let stop_after = max_rows.saturating_add(1);
    let table = match format {
        TableFormat::Csv => read_delimited(text, b',', true, stop_after)?,
        TableFormat::Tsv => read_delimited(text, b'\t', false, stop_after)?,
        TableFormat::JsonLines => read_jsonl(text, stop_after)?,
    };
    if table.records.len() > max_rows {
        return Err(err(
            table.records[max_rows].line,
            format!("the file has more than {max_rows} rows"),
        ));
    }
    Ok(table)
}

/// Line numbers of byte offsets in one text, for offsets that only grow (the records of one
/// read): each call counts the newlines since the previous one, so a whole file costs one pass.
struct LineCounter<'a> {
    bytes: &'a [u8],
    /// The offset of the previous answer and its line number.
    at: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
        }
    }

    /// The line of the first character at or after `byte` that is not a line break (a record's
    /// position can point at the blank lines before it).
    fn line_at(&mut self, byte: u64) -> usize {
        let bytes = self.bytes;
        let mut at = usize::try_from(byte).unwrap_or(usize::MAX).min(bytes.len());
        while at < bytes.len() && (bytes[at] == b'\n' || bytes[at] == b'\r') {
            at += 1;
        }
        if at < self.at {
            // Not expected (positions grow); counted again from the start rather than wrong.
            self.at = 0;
            self.line = 1;
        }
        self.line += bytes[self.at..at].iter().filter(|b| **b == b'\n').count();
        self.at = at;
        self.line
    }
}

/// Reads at most `stop_after` non-blank records.
fn read_delimited(
    text: &str,
    delimiter: u8,
    quoting: bool,
    stop_after: usize,
) -> Result<Table, ImportError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(quoting)
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| err(1, format!("unreadable header: {}", csv_message(&e))))?
        .iter()
        .map(|h| h.trim().to_lowercase())
        .collect();
    // A repeated column would be resolved silently (one of the two values lost): refuse it.
    for (i, name) in header.iter().enumerate() {
        if !name.is_empty() && header[..i].contains(name) {
            return Err(err(
                1,
                format!("the column \"{name}\" appears twice in the header"),
            ));
        }
    }
    let mut records = Vec::new();
    // Line numbers from byte offsets: the csv crate's own line count skips blank lines.
    let mut lines = LineCounter::new(text);
    for record in reader.records() {
        if records.len() == stop_after {
            break;
        }
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| lines.line_at(p.byte()));
            err(line, csv_message(&e))
        })?;
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let line = record.position().map_or(0, |p| lines.line_at(p.byte()));
        let fields = header
            .iter()
            .cloned()
            .zip(record.iter().map(str::to_owned))
            .collect();
        records.push(Record { line, fields });
    }
    Ok(Table {
        header: Some(header),
        records,
    })
}

fn csv_message(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("expected {expected_len} columns, found {len}"),
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".into(),
        _ => e.to_string(),
    }
}

/// Reads at most `stop_after` non-blank lines.
fn read_jsonl(text: &str, stop_after: usize) -> Result<Table, ImportError> {
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if records.len() == stop_after {
            break;
        }
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| err(n, format!("not a JSON object: {e}")))?;
        let obj = value
            .as_object()
            .ok_or_else(|| err(n, "not a JSON object"))?;
        let fields = obj
            .iter()
            .filter_map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Number(x) => x.to_string(),
                    serde_json::Value::Bool(b) => b.to_string(),
                    _ => return None,
                };
                Some((k.trim().to_lowercase(), v))
            })
            .collect();
        records.push(Record { line: n, fields });
    }
    Ok(Table {
        header: None,
        records,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_detected_from_name_and_first_line() {
        assert_eq!(detect("a.CSV", "x,y"), TableFormat::Csv);
        assert_eq!(detect("a.txt", "{\"x\": 1}"), TableFormat::JsonLines);
        assert_eq!(detect("a.jsonl", ""), TableFormat::JsonLines);
        assert_eq!(detect("votes.tsv", "a\tb"), TableFormat::Tsv);
    }

    #[test]
    fn csv_rows_have_named_fields_and_line_numbers() {
        let t = read(
            "\u{feff}Sentence1, sentence2 ,label\n\"a, b\",c,1\n\n\"multi\nline\",d,0\n",
            TableFormat::Csv,
            10,
        )
        .unwrap();
        assert_eq!(t.records.len(), 2);
        assert_eq!(t.records[0].get(&["sentence1"]), Some("a, b"));
        assert_eq!(t.records[0].get(&["sentence2"]), Some("c"));
        assert_eq!(t.records[0].line, 2);
        assert_eq!(t.records[1].line, 4);
        assert_eq!(t.records[1].get(&["missing", "label"]), Some("0"));
        assert!(t.has_column(&["label"]));
        assert!(t.require_column(&["text"]).is_err());
    }

    #[test]
    fn a_repeated_column_is_refused_with_its_name() {
        for (text, format) in [
            ("sentence1,sentence2,Sentence1\na,b,c\n", TableFormat::Csv),
            ("text\torigin\t text \nx\ty\tz\n", TableFormat::Tsv),
        ] {
            let e = read(text, format, 10).unwrap_err();
            assert_eq!(e.line, 1);
            assert!(e.message.contains("appears twice"), "{}", e.message);
        }
        assert!(read("a,b,,\n1,2,3,4\n", TableFormat::Csv, 10).is_ok());
    }

    #[test]
    fn tsv_keeps_quotes_as_text() {
        let t = read("a\tb\n\"quoted\" word\tx\n", TableFormat::Tsv, 10).unwrap();
        assert_eq!(t.records[0].get(&["a"]), Some("\"quoted\" word"));
    }

    #[test]
    fn jsonl_reads_strings_numbers_and_bools() {
        let t = read(
            "{\"S1\": \"x\", \"n\": 3, \"b\": true, \"z\": null}\n",
            TableFormat::JsonLines,
            10,
        )
        .unwrap();
        let r = &t.records[0];
        assert_eq!(
            (r.get(&["s1"]), r.get(&["n"]), r.get(&["b"]), r.get(&["z"])),
            (Some("x"), Some("3"), Some("true"), None)
        );
    }

    #[test]
    fn bad_lines_are_reported_by_number() {
        let e = read("a,b\n1,2\n1,2,3\n", TableFormat::Csv, 10).unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (3, "expected 2 columns, found 3")
        );
        let e = read("{\"a\": 1}\n{\"a\": \n", TableFormat::JsonLines, 10).unwrap_err();
        assert_eq!(e.line, 2);
        let e = read("{\"a\": 1}\n[1]\n", TableFormat::JsonLines, 10).unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (2, "not a JSON object"));
        let e = read("a\nx\ny\u{0}\n", TableFormat::Tsv, 10).unwrap_err();
        assert_eq!(e.line, 3);
        let e = read("a\n1\n2\n3\n", TableFormat::Tsv, 2).unwrap_err();
        assert_eq!(e.line, 4);
    }

    /// The line a record starts on, counted from the start of the text for each record.
    fn line_from_the_start(text: &str, needle: &str) -> usize {
        let at = text.find(needle).unwrap();
        text[..at].matches('\n').count() + 1
    }

    #[test]
    fn line_numbers_counted_forward_equal_a_count_from_the_start() {
        // Rows with blank lines, CRLF endings and quoted fields over several lines, mixed at
        // random; every row's first field is unique, so its line can be found by search.
        let mut rng = crate::domain::rng::SplitMix64::new(44);
        for _ in 0..50 {
            let mut text = String::from("id,text\n");
            let rows = 1 + rng.below(40) as usize;
            for i in 0..rows {
                for _ in 0..rng.below(3) {
                    text.push_str(if rng.below(2) == 0 { "\n" } else { "\r\n" });
                }
                let body = if rng.below(3) == 0 {
                    "\"two\nlines\""
                } else {
                    "one"
                };
                let end = if rng.below(2) == 0 { "\n" } else { "\r\n" };
                text.push_str(&format!("row{i}x,{body}{end}"));
            }
            let t = read(&text, TableFormat::Csv, rows).unwrap();
            assert_eq!(t.records.len(), rows);
            for (i, r) in t.records.iter().enumerate() {
                assert_eq!(r.get(&["id"]), Some(format!("row{i}x").as_str()));
                assert_eq!(
                    r.line,
                    line_from_the_start(&text, &format!("row{i}x,")),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn a_file_over_the_row_limit_is_refused_without_reading_the_rest() {
        // The row past the limit is named; a broken row after it is never reached.
        let mut text = String::from("a\tb\n");
        for i in 0..1000 {
            text.push_str(&format!("{i}\tx\n"));
        }
        text.push_str("not\tthe\tsame\tcolumns\n");
        let e = read(&text, TableFormat::Tsv, 10).unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (12, "the file has more than 10 rows")
        );
        let jsonl = "{\"a\": 1}\n".repeat(20) + "not json\n";
        let e = read(&jsonl, TableFormat::JsonLines, 10).unwrap_err();
        assert_eq!(e.line, 11);
    }
}
