//! What an export asks for, checked once for the download route, the CLI and the statistics
//! page alike: [`ExportQuery`] is what arrives (every field optional text, so a bad value gets a
//! message naming the field rather than a bare 400), [`ExportSpec`] is what is done.
//!
//! Defaults: a judging campaign exports one row per pair as CSV, labelled by vote, unresolved
//! pairs and untrusted judgments left out, all parts; an APT campaign exports every attempt in
//! AP_H's layout with a 3:1 train/test split by source sentence (the paper's AP_H split).
use serde::{Deserialize, Serialize};

use super::format::{Format, Output};
use super::split::{Part, Shares, SplitBy};

/// An export's options as they arrive: optional text, checked by [`ExportSpec::parse`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExportQuery {
    /// Judging: `pairs` or `judgments`; APT: `attempts` or `submissions`.
    pub rows: Option<String>,
    /// `csv`, `jsonl`, `msrp` (pairs) or `aph` (APT).
    pub format: Option<String>,
    /// `vote` or `dawid_skene` (judging pairs).
    pub labels: Option<String>,
    /// `drop` or `keep` pairs without a label.
    pub unresolved: Option<String>,
    /// `drop` or `keep` untrusted judgments (judgment rows).
    pub untrusted: Option<String>,
    /// `all`, `train`, `dev` or `test`.
    pub split: Option<String>,
    /// `group` or `time`.
    pub split_by: Option<String>,
    /// Seed of the group shuffle, a whole number (default 0).
    pub seed: Option<String>,
    /// Train share, 0 to 1.
    pub train: Option<String>,
    /// Dev share, 0 to 1.
    pub dev: Option<String>,
    /// Test share, 0 to 1.
    pub test: Option<String>,
    /// `true` (the default) or `false`: neutralise CSV/TSV cells a spreadsheet would run as
    /// formulas (`format::spreadsheet_safe`), or write the exact text.
    pub spreadsheet_safe: Option<String>,
}

pub use crate::domain::status::CampaignKind;

/// What one exported row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rows {
    /// One row per pair of a judging campaign.
    Pairs,
    /// One row per judgment of a judging campaign.
    Judgments,
    /// One row per APT attempt (every Check).
    Attempts,
    /// Only the APT attempts workers submitted.
    Submissions,
}

impl Rows {
    /// The name used in queries and file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Rows::Pairs => "pairs",
            Rows::Judgments => "judgments",
            Rows::Attempts => "attempts",
            Rows::Submissions => "submissions",
        }
    }
}

/// How a pair gets its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LabelBy {
    /// The campaign's own rule (`labels::pair_label`): a settled label, or at the maximum the
    /// vote thresholds under fixed redundancy (MultiPIT: > 3 of 6 paraphrase, < 3 not, 3
    /// unresolved) and the weighted posterior under adaptive redundancy.
    Vote,
    /// Dawid-Skene's most probable label from the trusted judgments.
    DawidSkene,
    /// GLAD's most probable label from the trusted judgments.
    Glad,
    /// MACE's most probable label from the trusted judgments.
    Mace,
}

impl LabelBy {
    /// The model of the workers behind the labels; `None` for the vote count.
    pub fn model(self) -> Option<super::labels::Model> {
        use super::labels::Model;
        match self {
            LabelBy::Vote => None,
            LabelBy::DawidSkene => Some(Model::DawidSkene),
            LabelBy::Glad => Some(Model::Glad),
            LabelBy::Mace => Some(Model::Mace),
        }
    }
}

/// A checked export request: what rows, in which format, which part of which split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportSpec {
    /// What one row is.
    pub rows: Rows,
    /// The file format.
    pub format: Format,
    /// How pairs are labelled.
    pub labels: LabelBy,
    /// Keep pairs without a label.
    pub keep_unresolved: bool,
    /// Keep untrusted judgments.
    pub keep_untrusted: bool,
    /// `None`: every part (each row says its part).
    pub part: Option<Part>,
    /// Whether the split keeps groups together at random or orders them by time.
    pub split_by: SplitBy,
    /// Seed of the group shuffle.
    pub seed: u64,
    /// Train/dev/test shares.
    pub shares: Shares,
    /// CSV/TSV cells that start like a formula get a leading `'` (JSON lines never change).
    pub spreadsheet_safe: bool,
}

/// A field that could not be used, and why (the domain's one validation error).
pub type SpecError = crate::domain::Invalid;

fn bad(field: &'static str, message: impl Into<String>) -> SpecError {
    SpecError::new(field, message)
}

/// A value from a fixed list; empty means the default.
fn choice<T: Copy>(
    field: &'static str,
    value: &Option<String>,
    default: T,
    options: &[(&str, T)],
) -> Result<T, SpecError> {
    let v = value.as_deref().map(str::trim).unwrap_or("");
    if v.is_empty() {
        return Ok(default);
    }
    options
        .iter()
        .find(|(name, _)| *name == v)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            bad(
                field,
                format!("{field} must be one of {}.", names.join(", ")),
            )
        })
}

fn share(field: &'static str, value: &Option<String>, default: f64) -> Result<f64, SpecError> {
    match value.as_deref().map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) => v
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| {
                bad(
                    field,
                    format!("The {field} share must be a number from 0 to 1."),
                )
            }),
    }
}

impl ExportSpec {
    /// Checks `q` for a campaign of `kind`, filling in that kind's defaults.
    pub fn parse(kind: CampaignKind, q: &ExportQuery) -> Result<ExportSpec, SpecError> {
        let rows = match kind {
            CampaignKind::Judge => choice(
                "rows",
                &q.rows,
                Rows::Pairs,
                &[("pairs", Rows::Pairs), ("judgments", Rows::Judgments)],
            )?,
            CampaignKind::Apt => choice(
                "rows",
                &q.rows,
                Rows::Attempts,
                &[
                    ("attempts", Rows::Attempts),
                    ("submissions", Rows::Submissions),
                ],
            )?,
        };
        let format = match rows {
            Rows::Pairs => choice(
                "format",
                &q.format,
                Format::Csv,
                &[
                    ("csv", Format::Csv),
                    ("jsonl", Format::Jsonl),
                    ("json", Format::Jsonl),
                    ("msrp", Format::MsrpTsv),
                    ("tsv", Format::MsrpTsv),
                ],
            )?,
            Rows::Judgments => choice(
                "format",
                &q.format,
                Format::Csv,
                &[
                    ("csv", Format::Csv),
                    ("jsonl", Format::Jsonl),
                    ("json", Format::Jsonl),
                ],
            )?,
            Rows::Attempts | Rows::Submissions => choice(
                "format",
                &q.format,
                Format::ApHTsv,
                &[
                    ("aph", Format::ApHTsv),
                    ("tsv", Format::ApHTsv),
                    ("csv", Format::Csv),
                    ("jsonl", Format::Jsonl),
                    ("json", Format::Jsonl),
                ],
            )?,
        };
        let labels = choice(
            "labels",
            &q.labels,
            LabelBy::Vote,
            &[
                ("vote", LabelBy::Vote),
                ("dawid_skene", LabelBy::DawidSkene),
                ("glad", LabelBy::Glad),
                ("mace", LabelBy::Mace),
            ],
        )?;
        let keep_unresolved = choice(
            "unresolved",
            &q.unresolved,
            false,
            &[("drop", false), ("keep", true)],
        )?;
        let keep_untrusted = choice(
            "untrusted",
            &q.untrusted,
            false,
            &[("drop", false), ("keep", true)],
        )?;
        let part = choice(
            "split",
            &q.split,
            None,
            &[
                ("all", None),
                ("train", Some(Part::Train)),
                ("dev", Some(Part::Dev)),
                ("validation", Some(Part::Dev)),
                ("test", Some(Part::Test)),
            ],
        )?;
        let split_by = choice(
            "split_by",
            &q.split_by,
            SplitBy::Group,
            &[("group", SplitBy::Group), ("time", SplitBy::Time)],
        )?;
        let seed = match q.seed.as_deref().map(str::trim) {
            None | Some("") => 0,
            Some(v) => v
                .parse::<u64>()
                .map_err(|_| bad("seed", "The seed must be a whole number from 0."))?,
        };
        let d = match kind {
            CampaignKind::Judge => Shares::default(),
            CampaignKind::Apt => Shares {
                train: 0.75,
                dev: 0.0,
                test: 0.25,
            },
        };
        let shares = Shares {
            train: share("train", &q.train, d.train)?,
            dev: share("dev", &q.dev, d.dev)?,
            test: share("test", &q.test, d.test)?,
        };
        shares.check()?;
        let spreadsheet_safe = choice(
            "spreadsheet_safe",
            &q.spreadsheet_safe,
            true,
            &[("true", true), ("false", false)],
        )?;
        Ok(ExportSpec {
            rows,
            format,
            labels,
            keep_unresolved,
            keep_untrusted,
            part,
            split_by,
            seed,
            shares,
            spreadsheet_safe,
        })
    }

    /// How the rows are written.
    pub fn output(&self) -> Output {
        Output {
            format: self.format,
            spreadsheet_safe: self.spreadsheet_safe,
        }
    }

    /// The download's file name, e.g. `judge-<id>-pairs-train.csv`.
    pub fn file_name(&self, kind: CampaignKind, campaign: &str) -> String {
        let prefix = match kind {
            CampaignKind::Judge => "judge",
            CampaignKind::Apt if self.format == Format::ApHTsv => "ap_h",
            CampaignKind::Apt => "apt",
        };
        format!(
            "{prefix}-{campaign}-{}-{}.{}",
            self.rows.as_str(),
            self.part.map_or("all", Part::as_str),
            self.format.extension()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> ExportQuery {
        let json: serde_json::Map<String, serde_json::Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string())))
            .collect();
        serde_json::from_value(serde_json::Value::Object(json)).unwrap()
    }

    #[test]
    fn defaults_follow_the_papers() {
        let judge = ExportSpec::parse(CampaignKind::Judge, &ExportQuery::default()).unwrap();
        assert_eq!(
            (judge.rows, judge.format, judge.labels, judge.part),
            (Rows::Pairs, Format::Csv, LabelBy::Vote, None)
        );
        assert!(!judge.keep_unresolved && !judge.keep_untrusted);
        assert_eq!(judge.shares, Shares::default());
        let apt = ExportSpec::parse(CampaignKind::Apt, &ExportQuery::default()).unwrap();
        assert_eq!((apt.rows, apt.format), (Rows::Attempts, Format::ApHTsv));
        assert_eq!((apt.shares.train, apt.shares.test), (0.75, 0.25));
        assert_eq!(
            apt.file_name(CampaignKind::Apt, "c"),
            "ap_h-c-attempts-all.tsv"
        );
    }

    #[test]
    fn every_field_is_read_and_blank_means_default() {
        let s = ExportSpec::parse(
            CampaignKind::Judge,
            &q(&[
                ("rows", "judgments"),
                ("format", "jsonl"),
                ("labels", "dawid_skene"),
                ("unresolved", "keep"),
                ("untrusted", "keep"),
                ("split", "validation"),
                ("split_by", "time"),
                ("seed", " 7 "),
                ("train", "0.7"),
                ("dev", "0.15"),
                ("test", "0.15"),
            ]),
        )
        .unwrap();
        assert_eq!(s.rows, Rows::Judgments);
        assert_eq!(s.format, Format::Jsonl);
        assert_eq!(s.labels, LabelBy::DawidSkene);
        assert!(s.keep_unresolved && s.keep_untrusted);
        assert_eq!(
            (s.part, s.split_by, s.seed),
            (Some(Part::Dev), SplitBy::Time, 7)
        );
        assert_eq!(
            s.file_name(CampaignKind::Judge, "c"),
            "judge-c-judgments-dev.jsonl"
        );
        let blank = ExportSpec::parse(CampaignKind::Judge, &q(&[("format", ""), ("seed", "")]));
        assert_eq!(blank.unwrap().format, Format::Csv);
    }

    #[test]
    fn bad_values_name_their_field() {
        let field =
            |kind, pairs: &[(&str, &str)]| ExportSpec::parse(kind, &q(pairs)).unwrap_err().field;
        assert_eq!(field(CampaignKind::Judge, &[("format", "xlsx")]), "format");
        assert_eq!(field(CampaignKind::Judge, &[("rows", "attempts")]), "rows");
        assert_eq!(field(CampaignKind::Apt, &[("rows", "pairs")]), "rows");
        assert_eq!(
            field(
                CampaignKind::Judge,
                &[("rows", "judgments"), ("format", "msrp")]
            ),
            "format",
            "MSRP's layout holds pairs only"
        );
        assert_eq!(field(CampaignKind::Apt, &[("format", "msrp")]), "format");
        assert_eq!(
            field(CampaignKind::Judge, &[("split", "sideways")]),
            "split"
        );
        assert_eq!(field(CampaignKind::Judge, &[("seed", "-1")]), "seed");
        assert_eq!(field(CampaignKind::Judge, &[("test", "NaN")]), "test");
        assert_eq!(
            field(CampaignKind::Judge, &[("test", "0.5")]),
            "train",
            "sum is 1.4"
        );
        let e = ExportSpec::parse(CampaignKind::Judge, &q(&[("labels", "magic")])).unwrap_err();
        assert_eq!(
            e.message,
            "labels must be one of vote, dawid_skene, glad, mace."
        );
    }
}
