//! Reading sentence pairs for a judging campaign from an uploaded CSV, TSV or JSONL file.
//!
//! Columns (by name, case-insensitive; the first present wins):
//! - sentence 1: `sentence1`, `sentence_1`, `sent_1`, `#1 String` (MSRP), `text_a`, `s1`
//! - sentence 2: `sentence2`, `sentence_2`, `sent_2`, `#2 String` (MSRP), `text_b`, `s2`
//! - group (trend, URL, topic): `group`, `group_key`, `trend`, `url`, `topic`, `cluster`
//! - id: `id`, `pair_id`
//! - gold label: `gold_label`, `gold`, `label`, `quality` (MSRP) — `1/0`, `true/false`,
//!   `yes/no`, `paraphrase/not_paraphrase`
//! - explanation (shown to a worker who misses a test pair): `explanation`, `gold_explanation`
//!
//! With `labels_are_tests`, labeled rows become hidden test pairs; otherwise a label is kept as
//! a reference label and the pair is judged like any other. A bad line is reported by number and
//! nothing is imported; pairs repeated in the file are skipped and counted.
use std::collections::HashSet;

use crate::domain::table_file::{self, err, ImportError, Record, TableFormat};

/// Longest sentence accepted, in characters.
pub const MAX_SENTENCE_CHARS: usize = 2000;
/// Longest explanation, in characters.
pub const MAX_EXPLANATION_CHARS: usize = 2000;
/// Most pairs in one file.
pub const MAX_PAIRS: usize = 200_000;

const S1: &[&str] = &[
    "sentence1",
    "sentence_1",
    "sent_1",
    "sent1",
    "#1 string",
    "text_a",
    "s1",
];
const S2: &[&str] = &[
    "sentence2",
    "sentence_2",
    "sent_2",
    "sent2",
    "#2 string",
    "text_b",
    "s2",
];
const GROUP: &[&str] = &["group", "group_key", "trend", "url", "topic", "cluster"];
const ID: &[&str] = &["id", "pair_id"];
const LABEL: &[&str] = &["gold_label", "gold", "label", "quality"];
const EXPLANATION: &[&str] = &["explanation", "gold_explanation"];

/// One pair to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairRow {
    /// The first sentence.
    pub sentence1: String,
    /// The second sentence.
    pub sentence2: String,
    /// The group (trend, URL, topic) the export split keeps together.
    pub group_key: Option<String>,
    /// The pair's id in the file, if given.
    pub external_id: Option<String>,
    /// `Some(true)` = paraphrase.
    pub label: Option<bool>,
    /// Why the gold label is right, shown to a worker who misses this test pair.
    pub explanation: Option<String>,
    /// A hidden test pair, scored against its gold label.
    pub is_test: bool,
}

/// The pairs of a file and what was skipped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedPairs {
    /// The pairs to import, duplicates removed, in file order.
    pub rows: Vec<PairRow>,
    /// Pairs skipped because the same pair came earlier in the file.
    pub duplicates_in_file: usize,
    /// How many of the rows are hidden test pairs.
    pub tests: usize,
    /// Imported pairs whose two sentences are the same text (trivial paraphrases: published
    /// corpora such as MultiPIT's have some, so they are kept and the admin is told).
    pub identical: usize,
}

/// Parses a label cell.
pub fn parse_label(raw: &str) -> Option<bool> {
    match raw.trim().to_lowercase().as_str() {
        "1" | "true" | "yes" | "y" | "paraphrase" => Some(true),
        "0" | "false" | "no" | "n" | "not_paraphrase" | "not paraphrase" | "non-paraphrase" => {
            Some(false)
        }
        _ => None,
    }
}

fn clean(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn sentence(r: &Record, names: &[&str], which: &str) -> Result<String, ImportError> {
    let raw = crate::domain::text::controls_to_spaces(r.get(names).unwrap_or_default());
    if let Err(problem) = crate::domain::text::check(&raw) {
        return Err(err(r.line, format!("{which} {problem}")));
    }
    let s = clean(&raw);
    if s.is_empty() {
        return Err(err(r.line, format!("{which} is empty")));
    }
    if s.chars().count() > MAX_SENTENCE_CHARS {
        return Err(err(
            r.line,
            format!("{which} is longer than {MAX_SENTENCE_CHARS} characters"),
        ));
    }
    Ok(s)
}

fn optional(
    r: &Record,
    names: &[&str],
    max: usize,
    what: &str,
) -> Result<Option<String>, ImportError> {
    let Some(v) = r.get(names).map(clean).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if v.chars().count() > max {
        return Err(err(
            r.line,
            format!("the {what} is longer than {max} characters"),
        ));
    }
    Ok(Some(v))
}

fn pair(r: &Record, labels_are_tests: bool) -> Result<PairRow, ImportError> {
    let sentence1 = sentence(r, S1, "sentence 1")?;
    let sentence2 = sentence(r, S2, "sentence 2")?;
    let label = match r.get(LABEL) {
        None => None,
        Some(raw) => Some(parse_label(raw).ok_or_else(|| {
            err(
                r.line,
                format!(
                    "the label `{}` is not 1/0, true/false, yes/no or paraphrase/not_paraphrase",
                    raw.trim()
                ),
            )
        })?),
    };
    Ok(PairRow {
        sentence1,
        sentence2,
        group_key: optional(r, GROUP, 500, "group")?,
        external_id: optional(r, ID, 200, "id")?,
        label,
        explanation: optional(r, EXPLANATION, MAX_EXPLANATION_CHARS, "explanation")?,
        is_test: labels_are_tests && label.is_some(),
    })
}

/// Parses a file of pairs.
pub fn parse_pairs(
    filename: &str,
    text: &str,
    labels_are_tests: bool,
) -> Result<ParsedPairs, ImportError> {
    let format: TableFormat = table_file::detect(filename, text);
    let table = table_file::read(text, format, MAX_PAIRS)?;
    table.require_column(S1)?;
    table.require_column(S2)?;
    let mut seen = HashSet::new();
    let mut parsed = ParsedPairs::default();
    for r in &table.records {
        let row = pair(r, labels_are_tests)?;
        if seen.insert((row.sentence1.clone(), row.sentence2.clone())) {
            parsed.tests += row.is_test as usize;
            parsed.identical += usize::from(row.sentence1 == row.sentence2);
            parsed.rows.push(row);
        } else {
            parsed.duplicates_in_file += 1;
        }
    }
    if parsed.rows.is_empty() {
        return Err(err(1, "the file has no sentence pairs"));
    }
    Ok(parsed)
}

/// Whether a gold set is unbalanced: either label under 30% (a worker who always answers one
/// way would pass such a set). Returns the share of "paraphrase" when it is.
pub fn unbalanced_gold(paraphrase: usize, total: usize) -> Option<f64> {
    if total == 0 {
        return None;
    }
    let share = paraphrase as f64 / total as f64;
    (!(0.3..=0.7).contains(&share)).then_some(share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipit_csv_with_labels_as_tests() {
        let csv = "sentence1,sentence2,label\n\"A , b\",\"C  d\",1\nx,y,0\nx,y,1\n";
        let p = parse_pairs("train.csv", csv, true).unwrap();
        assert_eq!(p.rows.len(), 2);
        assert_eq!(p.duplicates_in_file, 1);
        assert_eq!(p.tests, 2);
        assert_eq!(p.rows[0].sentence1, "A , b");
        assert_eq!(p.rows[0].sentence2, "C d");
        assert_eq!(p.rows[1].label, Some(false));
        let p = parse_pairs("train.csv", csv, false).unwrap();
        assert_eq!(p.tests, 0);
        assert_eq!(p.rows[0].label, Some(true));
    }

    #[test]
    fn twitter_url_votes_tsv_with_url_groups() {
        let tsv =
            "sent_1\tsent_2\tn_pos\tn_raters\turl\nHow \"an\" x\tHow a y\t4\t6\thttps://t.co/l1\n";
        let p = parse_pairs("test_votes.tsv", tsv, false).unwrap();
        let r = &p.rows[0];
        assert_eq!(r.sentence1, "How \"an\" x");
        assert_eq!(r.group_key.as_deref(), Some("https://t.co/l1"));
        assert_eq!(r.label, None);
    }

    #[test]
    fn msrp_pairs_and_jsonl_with_explanations() {
        let msrp = "\u{feff}Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tA.\tB.\n";
        let p = parse_pairs("msr_paraphrase_test.txt", msrp, true).unwrap();
        assert_eq!(
            (p.rows[0].sentence1.as_str(), p.rows[0].label),
            ("A.", Some(true))
        );
        let jsonl = "{\"sentence1\": \"a\", \"sentence2\": \"b\", \"gold_label\": \"not_paraphrase\", \"explanation\": \"b adds a claim\", \"trend\": \"t1\"}\n";
        let p = parse_pairs("gold.jsonl", jsonl, true).unwrap();
        let r = &p.rows[0];
        assert_eq!(r.label, Some(false));
        assert!(r.is_test);
        assert_eq!(r.explanation.as_deref(), Some("b adds a claim"));
        assert_eq!(r.group_key.as_deref(), Some("t1"));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = parse_pairs("p.csv", "sentence1,label\na,1\n", false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: the header has no `sentence2` column"
        );
        let e = parse_pairs(
            "p.csv",
            "sentence1,sentence2,label\na,b,1\na,c,maybe\n",
            true,
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("`maybe`"), "{e}");
        let e = parse_pairs("p.csv", "sentence1,sentence2\na,b\n\" \",c\n", false).unwrap_err();
        assert_eq!(e.to_string(), "line 3: sentence 1 is empty");
        let e = parse_pairs("p.jsonl", "{\"sentence1\": \"a\"}\n", false).unwrap_err();
        assert_eq!(e.to_string(), "line 1: sentence 2 is empty");
        let long = format!(
            "sentence1\tsentence2\na\t{}\n",
            "x".repeat(MAX_SENTENCE_CHARS + 1)
        );
        assert_eq!(parse_pairs("p.tsv", &long, false).unwrap_err().line, 2);
        assert!(parse_pairs("p.csv", "sentence1,sentence2\n", false).is_err());
        let p = parse_pairs(
            "p.csv",
            "sentence1,sentence2\na,b\nSame  text.,Same text.\n",
            false,
        )
        .unwrap();
        assert_eq!((p.rows.len(), p.identical), (2, 1), "kept, and counted");
    }

    #[test]
    fn gold_balance_warning_under_30_percent() {
        assert_eq!(unbalanced_gold(3, 10), None);
        assert_eq!(unbalanced_gold(7, 10), None);
        assert_eq!(unbalanced_gold(2, 10), Some(0.2));
        assert_eq!(unbalanced_gold(10, 10), Some(1.0));
        assert_eq!(unbalanced_gold(0, 0), None);
    }
}
