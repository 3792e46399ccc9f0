//! Reading a corpus to mine from an uploaded file, in one of three shapes:
//! - `documents`: clustered documents, one per row (JSON lines, CSV or TSV) with a cluster, an
//!   id, the text, and optionally a time and a source; the text is split into sentences
//!   ([`super::segment`]). WikiRef220 writes `topic`, `file`, `text`: columns are mapped by name
//!   (given, or found among common names).
//! - `grouped`: short texts with a group key (tweets sharing a URL or trend), each text one
//!   sentence; several text columns may be read (`sent_1,sent_2` in the Twitter URL corpus) and a
//!   text repeated within its group is kept once.
//! - `sentences`: plain text, one sentence a line, all in one cluster.
//!
//! A file is read whole or refused with the line at fault.
use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::segment::{sentences, MAX_SENTENCE_CHARS};
use crate::domain::table_file::{self, err, ImportError};

/// Most rows (documents or texts) one file may hold.
pub const MAX_ROWS: usize = 1_000_000;

/// The layout of an uploaded corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorpusShape {
    /// Clustered documents, one per row, split into sentences.
    Documents,
    /// Short texts with a group key (tweets sharing a URL or trend), each one sentence.
    Grouped,
    /// Plain text, one sentence a line, all in one cluster.
    Sentences,
}

impl CorpusShape {
    /// `documents`, `grouped` or `sentences`, surrounding blanks ignored.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "documents" => Some(Self::Documents),
            "grouped" => Some(Self::Grouped),
            "sentences" => Some(Self::Sentences),
            _ => None,
        }
    }
    /// `documents`, `grouped` or `sentences`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Documents => "documents",
            Self::Grouped => "grouped",
            Self::Sentences => "sentences",
        }
    }
}

/// Column names; empty = look for the usual names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Columns {
    /// The column holding the cluster (topic, story, URL, trend).
    pub cluster: String,
    /// The column holding the document's id.
    pub id: String,
    /// Comma-separated for `grouped`.
    pub text: String,
    /// The column holding the document's time.
    pub time: String,
    /// The column holding the document's source (agency, site).
    pub source: String,
}

const CLUSTER: &[&str] = &["cluster", "topic", "story", "group", "url", "trend"];
const ID: &[&str] = &["id", "file", "doc_id", "document", "docid"];
const TEXT: &[&str] = &["text", "content", "body", "sentence", "tweet"];
const TIME: &[&str] = &["time", "date", "timestamp", "published"];
const SOURCE: &[&str] = &["source", "agency", "site", "url"];

/// One document with its sentences.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The cluster (topic, story, URL) the document belongs to.
    pub cluster: String,
    /// The document's id in the file.
    pub external_id: String,
    /// When it was published, as written in the file.
    pub time: Option<String>,
    /// Where it came from (agency, site), if given.
    pub source: Option<String>,
    /// Its sentences, in order.
    pub sentences: Vec<String>,
}

fn as_refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn names(given: &str, usual: &'static [&'static str]) -> Vec<String> {
    let given: Vec<String> = given
        .split(',')
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    if given.is_empty() {
        usual.iter().map(|s| (*s).to_owned()).collect()
    } else {
        given
    }
}

/// The documents of `text`. `skip_headings` leaves out headline-like lines (documents only).
pub fn parse(
    filename: &str,
    text: &str,
    shape: CorpusShape,
    columns: &Columns,
    skip_headings: bool,
) -> Result<Vec<Document>, ImportError> {
    if let Some(at) = text.find('\u{fffd}') {
        return Err(err(
            text[..at].matches('\n').count() + 1,
            "the line contains U+FFFD (\u{fffd}), the mark of text decoded with the wrong encoding \
             somewhere before: save the file as UTF-8 from its source and upload it again",
        ));
    }
    if shape == CorpusShape::Sentences {
        return parse_sentences(text);
    }
    let table = table_file::read(text, table_file::detect(filename, text), MAX_ROWS)?;
    let cluster = names(&columns.cluster, CLUSTER);
    let texts = names(&columns.text, TEXT);
    let (cluster_r, text_r) = (as_refs(&cluster), as_refs(&texts));
    for (what, cols) in [("cluster", &cluster_r), ("text", &text_r)] {
        if !table.has_column(cols) {
            return Err(err(
                1,
                format!("no {what} column: name it (looked for {})", cols.join(", ")),
            ));
        }
    }
    let id = names(&columns.id, ID);
    let time = names(&columns.time, TIME);
    let source = names(&columns.source, SOURCE);
    let (id_r, time_r, source_r) = (as_refs(&id), as_refs(&time), as_refs(&source));
    let mut out = Vec::new();
    let mut seen_in_group = HashSet::new();
    for r in &table.records {
        let cluster = r
            .get(&cluster_r)
            .ok_or_else(|| err(r.line, format!("the {} is empty", cluster_r[0])))?
            .trim()
            .to_owned();
        let external_id = r
            .get(&id_r)
            .map_or_else(|| format!("line {}", r.line), |s| s.trim().to_owned());
        let time = r.get(&time_r).map(|s| s.trim().to_owned());
        let source = r.get(&source_r).map(|s| s.trim().to_owned());
        match shape {
            CorpusShape::Documents => {
                let body = r
                    .get(&text_r)
                    .ok_or_else(|| err(r.line, format!("the {} is empty", text_r[0])))?;
                out.push(Document {
                    cluster,
                    external_id,
                    time,
                    source,
                    sentences: sentences(body, skip_headings),
                });
            }
            CorpusShape::Grouped => {
                for column in &text_r {
                    let Some(t) = r.get(&[column]) else { continue };
                    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
                    if t.chars().count() > MAX_SENTENCE_CHARS {
                        return Err(err(
                            r.line,
                            format!("a text is over {MAX_SENTENCE_CHARS} characters"),
                        ));
                    }
                    if seen_in_group.insert((cluster.clone(), t.clone())) {
                        out.push(Document {
                            cluster: cluster.clone(),
                            external_id: format!("{external_id}:{column}"),
                            time: time.clone(),
                            source: source.clone(),
                            sentences: vec![t],
                        });
                    }
                }
            }
            CorpusShape::Sentences => unreachable!(),
        }
    }
    if out.is_empty() {
        return Err(err(1, "the file has no rows"));
    }
    Ok(out)
}

fn parse_sentences(text: &str) -> Result<Vec<Document>, ImportError> {
    let text = text.trim_start_matches('\u{feff}');
    if let Some(at) = text.find('\0') {
        return Err(err(
            text[..at].matches('\n').count() + 1,
            "the file contains a NUL character",
        ));
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.chars().count() > MAX_SENTENCE_CHARS {
            return Err(err(
                i + 1,
                format!("the line is over {MAX_SENTENCE_CHARS} characters"),
            ));
        }
        if out.len() == MAX_ROWS {
            return Err(err(
                i + 1,
                format!("the file has more than {MAX_ROWS} lines"),
            ));
        }
        out.push(Document {
            cluster: "all".into(),
            external_id: format!("line {}", i + 1),
            time: None,
            source: None,
            sentences: vec![line.to_owned()],
        });
    }
    if out.is_empty() {
        return Err(err(1, "the file has no sentences"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wikiref_style_json_lines_map_topic_file_text() {
        let jsonl = r#"{"topic": "NBA.draft", "file": "NBA.draft.2.txt", "text": "Evolution of the Draft\n\nIn 1956, the Celtics used a pick. He averaged 18.6 points."}
{"topic": "NBA.draft", "file": "NBA.draft.3.txt", "text": "The lottery began in 1985."}"#;
        let docs = parse(
            "w.jsonl",
            jsonl,
            CorpusShape::Documents,
            &Columns::default(),
            true,
        )
        .unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(
            (docs[0].cluster.as_str(), docs[0].external_id.as_str()),
            ("NBA.draft", "NBA.draft.2.txt")
        );
        assert_eq!(
            docs[0].sentences,
            [
                "In 1956, the Celtics used a pick.",
                "He averaged 18.6 points."
            ]
        );
        let named = Columns {
            cluster: "file".into(),
            ..Default::default()
        };
        let docs = parse("w.jsonl", jsonl, CorpusShape::Documents, &named, true).unwrap();
        assert_eq!(docs[1].cluster, "NBA.draft.3.txt");
    }

    #[test]
    fn grouped_texts_from_two_columns_are_kept_once_per_group() {
        let tsv = "sent_1\tsent_2\tn_pos\tn_raters\turl\nA tweet\tAnother tweet\t4\t6\tu1\nA tweet\tThird tweet\t0\t6\tu1\nA tweet\tX\t1\t6\tu2\n";
        let cols = Columns {
            cluster: "url".into(),
            text: "sent_1, sent_2".into(),
            ..Default::default()
        };
        let docs = parse("t.tsv", tsv, CorpusShape::Grouped, &cols, false).unwrap();
        let got: Vec<(&str, &str)> = docs
            .iter()
            .map(|d| (d.cluster.as_str(), d.sentences[0].as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("u1", "A tweet"),
                ("u1", "Another tweet"),
                ("u1", "Third tweet"),
                ("u2", "A tweet"),
                ("u2", "X")
            ]
        );
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = parse(
            "x.csv",
            "title,body\na,b\n",
            CorpusShape::Documents,
            &Columns::default(),
            true,
        )
        .unwrap_err();
        assert!(e.message.contains("no cluster column"), "{e}");
        let e = parse(
            "x.jsonl",
            "{\"topic\": \"a\", \"text\": \"b.\"}\n{broken\n",
            CorpusShape::Documents,
            &Columns::default(),
            true,
        )
        .unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse(
            "x.jsonl",
            "{\"topic\": \"\", \"text\": \"b.\"}\n",
            CorpusShape::Documents,
            &Columns::default(),
            true,
        )
        .unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        assert_eq!(parse_sentences("\n\n").unwrap_err().line, 1);
        // A replacement character means the text was decoded wrongly before: refused with its
        // line, in every shape.
        for shape in [CorpusShape::Sentences, CorpusShape::Documents] {
            let e = parse(
                "c.tsv",
                "cluster\ttext\na\tFine.\nb\tCaf\u{fffd} au lait.\n",
                shape,
                &Columns::default(),
                false,
            )
            .unwrap_err();
            assert_eq!(e.line, 3, "{shape:?}");
            assert!(e.message.contains("U+FFFD"), "{e}");
        }
        assert_eq!(parse_sentences("ok\nbad\0\n").unwrap_err().line, 2);
    }

    #[test]
    fn plain_sentences_are_one_cluster() {
        let docs = parse(
            "s.txt",
            "One.\n\nTwo.\n",
            CorpusShape::Sentences,
            &Columns::default(),
            true,
        )
        .unwrap();
        assert_eq!(docs.len(), 2);
        assert!(docs.iter().all(|d| d.cluster == "all"));
    }
}
