//! The formats an export is written in, row by row (the caller streams them):
//! - CSV with a header, quoted as RFC 4180 (the `csv` crate), which
//!   `datasets.load_dataset("csv", ...)` and pandas read untouched;
//! - JSON lines, one object a row, for `load_dataset("json", ...)`;
//! - MSRP's TSV layout (`Quality #1 ID #2 ID #1 String #2 String`), for pairs;
//! - AP_H's TSV layout (`token time duration dataset index sentence candidate BLEURT MI dollar`),
//!   for APT attempts.
//!
//! The two TSV layouts have no quoting: tabs and line breaks inside a text become spaces, and
//! MSRP leaves out a pair without a label. Each kind of row is a [`Record`]: its CSV columns and
//! fields; JSON lines come from its `Serialize`.
//!
//! CSV and TSV files are opened in spreadsheets, which run a cell that starts with `=`, `+`, `-`,
//! `@`, a tab or a carriage return as a formula (an annotator's text can start that way). By
//! default such a cell gets a leading `'` (OWASP's rule for CSV injection), except a cell that is
//! a plain number (`-0.25` is a score, not a formula); `spreadsheet_safe=false` writes the exact
//! text. JSON lines are never altered.
use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// The file format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    /// CSV with a header row.
    Csv,
    /// JSON lines, one object per row.
    Jsonl,
    /// MSRP's tab-separated pair layout (labelled pairs only).
    MsrpTsv,
    /// AP_H's tab-separated attempt layout.
    ApHTsv,
}

impl Format {
    /// `csv`, `jsonl` (or `json`), `msrp` or `aph`.
    pub fn parse(s: &str) -> Option<Format> {
        match s.trim() {
            "csv" => Some(Format::Csv),
            "jsonl" | "json" => Some(Format::Jsonl),
            "msrp" => Some(Format::MsrpTsv),
            "aph" => Some(Format::ApHTsv),
            _ => None,
        }
    }
    /// The name used in queries and file names: `csv`, `jsonl`, `msrp` or `aph`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::MsrpTsv => "msrp",
            Format::ApHTsv => "aph",
        }
    }
    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::MsrpTsv | Format::ApHTsv => "tsv",
        }
    }
    /// The HTTP `Content-Type` of the download.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Csv => "text/csv; charset=utf-8",
            Format::Jsonl => "application/jsonl; charset=utf-8",
            Format::MsrpTsv | Format::ApHTsv => "text/tab-separated-values; charset=utf-8",
        }
    }
}

/// How an export is written: its format, and whether CSV/TSV cells that a spreadsheet would run
/// as formulas are neutralised (see the module's docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output {
    /// The file format.
    pub format: Format,
    /// Prefix formula-like text cells with `'` (CSV and TSV only).
    pub spreadsheet_safe: bool,
}

impl From<Format> for Output {
    /// The exact text, as a program reading the file wants it.
    fn from(format: Format) -> Self {
        Output {
            format,
            spreadsheet_safe: false,
        }
    }
}

/// The characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// `cell` as a spreadsheet shows it without running it: a leading `'` when it starts like a
/// formula, unless it is a plain number.
pub fn spreadsheet_safe(cell: &str) -> Cow<'_, str> {
    let formula_like = cell.starts_with(FORMULA_STARTS);
    let number = cell.trim().parse::<f64>().is_ok_and(f64::is_finite) && cell.trim() == cell;
    if formula_like && !number {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

fn cells(fields: &[String], safe: bool) -> Vec<Cow<'_, str>> {
    fields
        .iter()
        .map(|f| {
            if safe {
                spreadsheet_safe(f)
            } else {
                Cow::Borrowed(f.as_str())
            }
        })
        .collect()
}

/// A kind of exported row: its CSV columns and the fields in that order.
pub trait Record: Serialize {
    /// The CSV header's column names, in field order.
    const COLUMNS: &'static [&'static str];
    /// The row's values as text, one per column.
    fn fields(&self) -> Vec<String>;
}

/// One pair of a judging campaign as exported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairRow {
    /// The pair's external id, or its database id when it has none.
    pub id: String,
    /// The first sentence.
    pub sentence1: String,
    /// The second sentence.
    pub sentence2: String,
    /// Judgments saying "paraphrase".
    pub n_paraphrase: u32,
    /// Judgments the pair received.
    pub n_judgments: u32,
    /// 1 paraphrase, 0 not, `None` unresolved (kept only when asked for).
    pub label: Option<u8>,
    /// The posterior of `label` by the settling rule (`domain::judge::settle`: each vote
    /// weighted by its worker's estimated accuracy, as of the pair's last judgment), or for a
    /// pair kept without a label that of "paraphrase"; `None` for a test pair, a pair below its
    /// minimum of judgments, or labels from a model.
    #[serde(default)]
    pub posterior: Option<f64>,
    /// The pair's group (trend, URL, topic) that the split keeps together.
    pub group: Option<String>,
    /// A hidden test pair with an expert label (a test pair promoted from a settled pair is not
    /// gold here: its label is the crowd's).
    pub gold: bool,
    /// Its part of the split (`train`, `dev` or `test`).
    pub split: Option<String>,
}

impl Record for PairRow {
    const COLUMNS: &'static [&'static str] = &[
        "id",
        "sentence1",
        "sentence2",
        "n_paraphrase",
        "n_judgments",
        "label",
        "posterior",
        "group",
        "gold",
        "split",
    ];
    fn fields(&self) -> Vec<String> {
        vec![
            self.id.clone(),
            self.sentence1.clone(),
            self.sentence2.clone(),
            self.n_paraphrase.to_string(),
            self.n_judgments.to_string(),
            self.label.map(|l| l.to_string()).unwrap_or_default(),
            self.posterior
                .map(|p| format!("{p:.4}"))
                .unwrap_or_default(),
            self.group.clone().unwrap_or_default(),
            u8::from(self.gold).to_string(),
            self.split.clone().unwrap_or_default(),
        ]
    }
}

/// One judgment: who (a pseudonym, stable across exports), what, how long, when, and whether
/// it counts (`trusted`: the worker was not stopped and the judgment not set aside).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgmentRow {
    /// The pair's external id, or its database id when it has none.
    pub pair_id: String,
    /// The pair's first sentence.
    pub sentence1: String,
    /// The pair's second sentence.
    pub sentence2: String,
    /// The worker's pseudonym.
    pub worker: String,
    /// 1 paraphrase, 0 not.
    pub label: u8,
    /// How long the worker took to answer, in seconds.
    pub seconds: f64,
    /// RFC 3339.
    pub time: String,
    /// The judgment counts: worker not stopped, judgment not set aside.
    pub trusted: bool,
    /// A hidden test pair (the worker's answer is scored against its gold label).
    pub gold: bool,
    /// The pair's group (trend, URL, topic) that the split keeps together.
    pub group: Option<String>,
    /// Its part of the split (`train`, `dev` or `test`).
    pub split: Option<String>,
}

impl Record for JudgmentRow {
    const COLUMNS: &'static [&'static str] = &[
        "pair_id",
        "sentence1",
        "sentence2",
        "worker",
        "label",
        "seconds",
        "time",
        "trusted",
        "gold",
        "group",
        "split",
    ];
    fn fields(&self) -> Vec<String> {
        vec![
            self.pair_id.clone(),
            self.sentence1.clone(),
            self.sentence2.clone(),
            self.worker.clone(),
            self.label.to_string(),
            format!("{:.3}", self.seconds),
            self.time.clone(),
            u8::from(self.trusted).to_string(),
            u8::from(self.gold).to_string(),
            self.group.clone().unwrap_or_default(),
            self.split.clone().unwrap_or_default(),
        ]
    }
}

/// One APT attempt (every Check) with AP_H's fields, whether it was the submitted one, and its
/// part of the split by source sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRow {
    /// The worker's pseudonym.
    pub token: String,
    /// RFC 3339.
    pub time: String,
    /// Seconds since the source sentence was shown.
    pub duration: f64,
    /// Where the source sentence came from (`msrp`, `upload`, ...).
    pub dataset: String,
    /// The source sentence's id in its dataset.
    pub index: String,
    /// The source sentence.
    pub sentence: String,
    /// The worker's paraphrase attempt.
    pub candidate: String,
    /// BLEURT score of the attempt against the source.
    #[serde(rename = "BLEURT")]
    pub bleurt: f64,
    /// 1 when the attempt and source imply each other (MI), else 0.
    #[serde(rename = "MI")]
    pub mi: u8,
    /// The reward the attempt earned, in dollars.
    pub dollar: f64,
    /// The attempt the worker submitted (the others were only checked).
    pub submitted: bool,
    /// Its part of the split by source sentence (`train`, `dev` or `test`).
    pub split: Option<String>,
    /// Which scorer produced the MI and BLEURT, in words (the paper's models, their int8 copy,
    /// the development stand-ins or the lite scorer).
    pub scorer: String,
}

impl Record for AttemptRow {
    const COLUMNS: &'static [&'static str] = &[
        "token",
        "time",
        "duration",
        "dataset",
        "index",
        "sentence",
        "candidate",
        "BLEURT",
        "MI",
        "dollar",
        "submitted",
        "split",
        "scorer",
    ];
    fn fields(&self) -> Vec<String> {
        let mut f = self.ap_h_fields();
        f.push(u8::from(self.submitted).to_string());
        f.push(self.split.clone().unwrap_or_default());
        f.push(self.scorer.clone());
        f
    }
}

impl AttemptRow {
    /// AP_H's ten columns.
    fn ap_h_fields(&self) -> Vec<String> {
        vec![
            self.token.clone(),
            self.time.clone(),
            format!("{:.1}", self.duration),
            self.dataset.clone(),
            self.index.clone(),
            self.sentence.clone(),
            self.candidate.clone(),
            format!("{:.6}", self.bleurt),
            self.mi.to_string(),
            format!("{:.2}", self.dollar),
        ]
    }
}

const MSRP_HEADER: &str = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
/// AP_H's ten columns and the scorer (which models gave BLEURT and MI, in words).
const AP_H_COLUMNS: usize = 11;

/// The file's first line for rows of type `R`, if the format has a header.
pub fn header_for<R: Record>(format: Format) -> String {
    match format {
        Format::Csv => csv_line(
            &R::COLUMNS.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            false,
        ),
        Format::Jsonl => String::new(),
        Format::MsrpTsv => MSRP_HEADER.into(),
        Format::ApHTsv => tsv_line(
            &R::COLUMNS[..AP_H_COLUMNS.min(R::COLUMNS.len()) - 1]
                .iter()
                .chain(&["scorer"])
                .map(|c| c.to_string())
                .collect::<Vec<_>>(),
            false,
        ),
    }
}

/// The header of a pair export (kept for callers written before [`header_for`]).
pub fn header(format: Format) -> String {
    header_for::<PairRow>(format)
}

fn csv_line(fields: &[String], safe: bool) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    w.write_record(cells(fields, safe).iter().map(|c| c.as_bytes()))
        .expect("writing to memory");
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8 in, UTF-8 out")
}

fn one_line(s: &str) -> String {
    s.split(['\t', '\n', '\r']).collect::<Vec<_>>().join(" ")
}

fn tsv_line(fields: &[String], safe: bool) -> String {
    // Neutralised before tabs and line breaks become spaces: a cell starting with a tab is
    // formula-like too.
    let mut s = cells(fields, safe)
        .iter()
        .map(|f| one_line(f))
        .collect::<Vec<_>>()
        .join("\t");
    s.push('\n');
    s
}

/// A row as a CSV or JSON line (with its line end); `None` for the layouts of one kind of row
/// (MSRP, AP_H), which [`pair_line`] and [`attempt_line`] write.
pub fn record_line<R: Record>(out: impl Into<Output>, row: &R) -> Option<String> {
    let out = out.into();
    match out.format {
        Format::Csv => Some(csv_line(&row.fields(), out.spreadsheet_safe)),
        Format::Jsonl => {
            let mut s = serde_json::to_string(row).expect("a row serializes");
            s.push('\n');
            Some(s)
        }
        Format::MsrpTsv | Format::ApHTsv => None,
    }
}

/// One pair as a line (with its line end), or `None` when the format cannot hold it (MSRP has
/// no unresolved label; AP_H is for attempts).
pub fn pair_line(out: impl Into<Output>, row: &PairRow) -> Option<String> {
    let out = out.into();
    match out.format {
        Format::MsrpTsv => Some(tsv_line(
            &[
                row.label?.to_string(),
                format!("{}a", row.id),
                format!("{}b", row.id),
                row.sentence1.clone(),
                row.sentence2.clone(),
            ],
            out.spreadsheet_safe,
        )),
        _ => record_line(out, row),
    }
}

/// One attempt as a line: AP_H's ten columns and the scorer in `aph`, every column in CSV and
/// JSON lines.
pub fn attempt_line(out: impl Into<Output>, row: &AttemptRow) -> Option<String> {
    let out = out.into();
    match out.format {
        Format::ApHTsv => {
            let mut fields = row.ap_h_fields();
            fields.push(row.scorer.clone());
            Some(tsv_line(&fields, out.spreadsheet_safe))
        }
        _ => record_line(out, row),
    }
}

/// One judgment as a line (CSV or JSON lines only).
pub fn judgment_line(out: impl Into<Output>, row: &JudgmentRow) -> Option<String> {
    record_line(out, row)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hostile_rows() -> Vec<PairRow> {
        let texts = [
            "plain",
            "a \"quoted\", comma",
            "tab\there and\nnewline\r\n",
            "emoji 😀 and RTL ‏שלום‏ and e\u{301}",
            "=cmd|' /C calc'!A0",
            "",
        ];
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| PairRow {
                id: format!("p{i}"),
                sentence1: t.to_string(),
                sentence2: format!("{t} second"),
                n_paraphrase: i as u32,
                n_judgments: 6,
                label: [Some(1), Some(0), Some(1), None][i % 4],
                posterior: [Some(0.97), Some(0.5), None, None][i % 4],
                group: (i % 2 == 0).then(|| format!("g,{i}")),
                gold: i == 1,
                split: Some("train".into()),
            })
            .collect()
    }

    #[test]
    fn csv_round_trips_through_a_parser() {
        let rows = hostile_rows();
        let mut file = header(Format::Csv);
        for r in &rows {
            file.push_str(&pair_line(Format::Csv, r).unwrap());
        }
        let mut reader = csv::Reader::from_reader(file.as_bytes());
        assert_eq!(
            reader.headers().unwrap(),
            &csv::StringRecord::from(PairRow::COLUMNS.to_vec())
        );
        let back: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(back.len(), rows.len());
        for (r, b) in rows.iter().zip(&back) {
            assert_eq!(&b[1], r.sentence1);
            assert_eq!(&b[2], r.sentence2);
            assert_eq!(b[5].parse::<u8>().ok(), r.label);
            assert_eq!(b[6].parse::<f64>().ok(), r.posterior);
            assert_eq!(&b[7], r.group.as_deref().unwrap_or(""));
        }
    }

    #[test]
    fn formula_like_cells_get_a_quote_and_numbers_and_plain_text_do_not() {
        for cell in [
            "=HYPERLINK(\"http://x\",\"y\")",
            "+1+2",
            "-2+3",
            "@SUM(A1)",
            "\tindented",
            "\rreturn",
            "- a list item",
            "-",
        ] {
            assert_eq!(spreadsheet_safe(cell), format!("'{cell}"), "{cell:?}");
        }
        for cell in [
            "plain", "", "-0.25", "+3", "-1e-5", "12", "a=b", "x-y", " =1",
        ] {
            assert_eq!(spreadsheet_safe(cell), cell, "{cell:?}");
        }
    }

    #[test]
    fn safe_csv_and_tsv_neutralise_formulas_and_json_lines_never_change() {
        let mut rows = hostile_rows();
        for (i, start) in ["+", "-", "@", "\t", "\r", "="].iter().enumerate() {
            rows[i].sentence2 = format!("{start}cmd|' /C calc'!A0");
        }
        let safe = |format| Output {
            format,
            spreadsheet_safe: true,
        };
        let mut file = header(Format::Csv);
        for r in &rows {
            file.push_str(&pair_line(safe(Format::Csv), r).unwrap());
        }
        let back: Vec<csv::StringRecord> = csv::Reader::from_reader(file.as_bytes())
            .records()
            .map(|r| r.unwrap())
            .collect();
        for (r, b) in rows.iter().zip(&back) {
            for (text, cell) in [(&r.sentence1, &b[1]), (&r.sentence2, &b[2])] {
                if text.starts_with(FORMULA_STARTS) {
                    assert_eq!(cell, format!("'{text}"));
                } else {
                    assert_eq!(cell, text);
                }
                assert!(!cell.starts_with(FORMULA_STARTS), "{cell:?}");
            }
        }
        for r in rows.iter().filter(|r| r.label.is_some()) {
            let line = pair_line(safe(Format::MsrpTsv), r).unwrap();
            for cell in line.trim_end_matches('\n').split('\t') {
                assert!(!cell.starts_with(FORMULA_STARTS), "{line:?}");
            }
        }
        for r in &rows {
            assert_eq!(
                pair_line(safe(Format::Jsonl), r),
                pair_line(Format::Jsonl, r),
                "JSON lines are never altered"
            );
            let exact = pair_line(Format::Csv, r).unwrap();
            let back: Vec<csv::StringRecord> = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(exact.as_bytes())
                .records()
                .map(|r| r.unwrap())
                .collect();
            assert_eq!(&back[0][2], r.sentence2, "spreadsheet_safe=false is exact");
        }
    }

    #[test]
    fn jsonl_round_trips_line_by_line() {
        let rows = hostile_rows();
        let file: String = rows
            .iter()
            .map(|r| pair_line(Format::Jsonl, r).unwrap())
            .collect();
        let back: Vec<PairRow> = file
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(back, rows);
    }

    #[test]
    fn msrp_tsv_has_five_unquoted_columns_and_leaves_out_unresolved_pairs() {
        let rows = hostile_rows();
        let mut file = header(Format::MsrpTsv);
        let mut kept = 0;
        for r in &rows {
            if let Some(line) = pair_line(Format::MsrpTsv, r) {
                file.push_str(&line);
                kept += 1;
            }
        }
        assert_eq!(kept, rows.iter().filter(|r| r.label.is_some()).count());
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(b'\t')
            .quoting(false)
            .from_reader(file.as_bytes());
        assert_eq!(
            reader.headers().unwrap(),
            &csv::StringRecord::from(vec!["Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"])
        );
        let back: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(back.len(), kept);
        for b in &back {
            assert_eq!(b.len(), 5);
            assert!(b[0] == *"0" || b[0] == *"1");
        }
        assert_eq!(
            &back[2][3], "tab here and newline  ",
            "whitespace kept, as spaces"
        );
    }

    fn judgment(i: usize, text: &str) -> JudgmentRow {
        JudgmentRow {
            pair_id: format!("p{i}"),
            sentence1: text.to_string(),
            sentence2: format!("{text}!"),
            worker: format!("W{i:04}"),
            label: (i % 2) as u8,
            seconds: 1.25 * i as f64,
            time: "2026-11-23T07:00:00Z".into(),
            trusted: !i.is_multiple_of(3),
            gold: i == 2,
            group: (i % 2 == 1).then(|| "url, with comma".into()),
            split: Some("dev".into()),
        }
    }

    #[test]
    fn judgments_round_trip_through_csv_and_json_lines_and_have_no_msrp_layout() {
        let texts = ["plain", "a \"quote\"", "line\nbreak", "😀 ‏שלום‏"];
        let rows: Vec<JudgmentRow> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| judgment(i, t))
            .collect();
        let mut file = header_for::<JudgmentRow>(Format::Csv);
        for r in &rows {
            file.push_str(&judgment_line(Format::Csv, r).unwrap());
        }
        let mut reader = csv::Reader::from_reader(file.as_bytes());
        assert_eq!(reader.headers().unwrap().len(), JudgmentRow::COLUMNS.len());
        let back: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        for (r, b) in rows.iter().zip(&back) {
            assert_eq!(&b[1], r.sentence1);
            assert_eq!(&b[3], r.worker);
            assert_eq!(b[5].parse::<f64>().unwrap(), r.seconds);
            assert_eq!(&b[7], if r.trusted { "1" } else { "0" });
        }
        let lines: String = rows
            .iter()
            .map(|r| judgment_line(Format::Jsonl, r).unwrap())
            .collect();
        let back: Vec<JudgmentRow> = lines
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(back, rows);
        assert_eq!(judgment_line(Format::MsrpTsv, &rows[0]), None);
    }

    #[test]
    fn attempts_have_ap_h_ten_columns_with_the_scorer_and_every_column_in_csv_and_json() {
        let row = AttemptRow {
            token: "W0001".into(),
            time: "2026-11-23T07:00:00Z".into(),
            duration: 12.34,
            dataset: "msrp".into(),
            index: "1089874".into(),
            sentence: "The cat\tsat.".into(),
            candidate: "A feline, \"seated\".".into(),
            bleurt: -0.123456789,
            mi: 1,
            dollar: 0.91,
            submitted: true,
            split: Some("test".into()),
            scorer: "lite stand-in, agrees with the paper's MI on 70% of held-out pairs".into(),
        };
        let head = header_for::<AttemptRow>(Format::ApHTsv);
        assert_eq!(
            head,
            "token\ttime\tduration\tdataset\tindex\tsentence\tcandidate\tBLEURT\tMI\tdollar\tscorer\n"
        );
        let line = attempt_line(Format::ApHTsv, &row).unwrap();
        let cols: Vec<&str> = line.trim_end_matches('\n').split('\t').collect();
        assert_eq!(
            cols,
            [
                "W0001",
                "2026-11-23T07:00:00Z",
                "12.3",
                "msrp",
                "1089874",
                "The cat sat.",
                "A feline, \"seated\".",
                "-0.123457",
                "1",
                "0.91",
                "lite stand-in, agrees with the paper's MI on 70% of held-out pairs"
            ]
        );
        let file =
            header_for::<AttemptRow>(Format::Csv) + &attempt_line(Format::Csv, &row).unwrap();
        let mut reader = csv::Reader::from_reader(file.as_bytes());
        let back: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(back[0].len(), 13);
        assert_eq!(&back[0][6], row.candidate);
        assert_eq!((&back[0][10], &back[0][11]), ("1", "test"));
        assert_eq!(&back[0][12], row.scorer);
        let json: serde_json::Value =
            serde_json::from_str(attempt_line(Format::Jsonl, &row).unwrap().trim_end()).unwrap();
        assert_eq!(json["BLEURT"], -0.123456789);
        assert_eq!(json["MI"], 1);
        assert_eq!(json["sentence"], "The cat\tsat.");
    }
}
