//! The formats an export is written in, row by row (the caller streams them):
//! - CSV with a header, quoted as RFC 4180 (the `csv` crate), which
//!   `datasets.load_dataset("csv", ...)` and pandas read untouched;
//! - JSON lines, one object a row, for `load_dataset("json", ...)`;
//! - MSRP's TSV layout (`Quality #1 ID #2 ID #1 String #2 String`), which has no quoting: tabs
//!   and line breaks inside a sentence become spaces, and a pair without a label is left out.
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    Csv,
    Jsonl,
    MsrpTsv,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s.trim() {
            "csv" => Some(Format::Csv),
            "jsonl" | "json" => Some(Format::Jsonl),
            "msrp" | "tsv" => Some(Format::MsrpTsv),
            _ => None,
        }
    }
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::MsrpTsv => "tsv",
        }
    }
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Csv => "text/csv; charset=utf-8",
            Format::Jsonl => "application/jsonl; charset=utf-8",
            Format::MsrpTsv => "text/tab-separated-values; charset=utf-8",
        }
    }
}

/// One pair of a judging campaign as exported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairRow {
    pub id: String,
    pub sentence1: String,
    pub sentence2: String,
    pub n_paraphrase: u32,
    pub n_judgments: u32,
    /// 1 paraphrase, 0 not, `None` unresolved (kept only when asked for).
    pub label: Option<u8>,
    pub group: Option<String>,
    pub gold: bool,
    pub split: Option<String>,
}

const CSV_HEADER: [&str; 9] = [
    "id",
    "sentence1",
    "sentence2",
    "n_paraphrase",
    "n_judgments",
    "label",
    "group",
    "gold",
    "split",
];

/// The file's first line(s), if the format has a header.
pub fn header(format: Format) -> String {
    match format {
        Format::Csv => csv_line(&CSV_HEADER.map(String::from)),
        Format::Jsonl => String::new(),
        Format::MsrpTsv => "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n".into(),
    }
}

fn csv_line(fields: &[String]) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    w.write_record(fields).expect("writing to memory");
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8 in, UTF-8 out")
}

fn one_line(s: &str) -> String {
    s.split(['\t', '\n', '\r']).collect::<Vec<_>>().join(" ")
}

/// One pair as a line (with its line end), or `None` when the format cannot hold it (MSRP has
/// no unresolved label).
pub fn pair_line(format: Format, row: &PairRow) -> Option<String> {
    Some(match format {
        Format::Csv => csv_line(&[
            row.id.clone(),
            row.sentence1.clone(),
            row.sentence2.clone(),
            row.n_paraphrase.to_string(),
            row.n_judgments.to_string(),
            row.label.map(|l| l.to_string()).unwrap_or_default(),
            row.group.clone().unwrap_or_default(),
            (row.gold as u8).to_string(),
            row.split.clone().unwrap_or_default(),
        ]),
        Format::Jsonl => {
            let mut s = serde_json::to_string(row).expect("a row serializes");
            s.push('\n');
            s
        }
        Format::MsrpTsv => format!(
            "{}\t{}a\t{}b\t{}\t{}\n",
            row.label?,
            one_line(&row.id),
            one_line(&row.id),
            one_line(&row.sentence1),
            one_line(&row.sentence2)
        ),
    })
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
            &csv::StringRecord::from(CSV_HEADER.to_vec())
        );
        let back: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(back.len(), rows.len());
        for (r, b) in rows.iter().zip(&back) {
            assert_eq!(&b[1], r.sentence1);
            assert_eq!(&b[2], r.sentence2);
            assert_eq!(b[5].parse::<u8>().ok(), r.label);
            assert_eq!(&b[6], r.group.as_deref().unwrap_or(""));
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
}
