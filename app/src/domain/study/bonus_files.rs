//! The bonus files each platform accepts as they are:
//! * Prolific's bulk bonus box: `participant_id,amount` lines, no header, amounts in the
//!   study's currency with two decimals;
//! * a CSV for Mechanical Turk's `SendBonus` (its parameters as columns: `WorkerId`,
//!   `AssignmentId`, `BonusAmount`, `Reason`, `UniqueRequestToken`, which makes a retried call
//!   pay once);
//! * a generic CSV with every number the payments page shows, and why each worker's part is
//!   complete (the platforms' own files have no column for it: MTurk's `Reason` is the message
//!   the worker reads with the bonus).
use super::pay::dollars;
use super::platform::Platform;

/// One worker's line of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BonusLine {
    /// Their id on the platform (letters, digits, `-`, `_`).
    pub external_id: String,
    /// The platform.
    pub platform: Platform,
    /// MTurk's assignment id of their first arrival (empty elsewhere).
    pub assignment_id: String,
    /// Items made.
    pub items: i64,
    /// Seconds worked.
    pub seconds: f64,
    /// The amount of this batch, in cents.
    pub amount_cents: i64,
    /// Why their part of the study is complete, for the researcher
    /// (`completion::Reason::for_researchers`); empty when it is not.
    pub completion: String,
}

/// Which file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BonusFile {
    /// Prolific's bulk bonus lines.
    Prolific,
    /// MTurk's `SendBonus` parameters.
    Mturk,
    /// Every column.
    Generic,
}

impl BonusFile {
    /// Reads the name used in the download's address.
    pub fn parse(s: &str) -> Option<BonusFile> {
        match s {
            "prolific" => Some(BonusFile::Prolific),
            "mturk" => Some(BonusFile::Mturk),
            "generic" => Some(BonusFile::Generic),
            _ => None,
        }
    }

    /// The name used in the download's address.
    pub fn as_str(self) -> &'static str {
        match self {
            BonusFile::Prolific => "prolific",
            BonusFile::Mturk => "mturk",
            BonusFile::Generic => "generic",
        }
    }

    /// Which lines of a batch the file holds: a platform's file holds that platform's workers.
    pub fn holds(self, line: &BonusLine) -> bool {
        match self {
            BonusFile::Prolific => line.platform == Platform::Prolific,
            BonusFile::Mturk => line.platform == Platform::Mturk,
            BonusFile::Generic => true,
        }
    }
}

/// Ids need no quoting: platform ids, assignment ids and batch ids are letters, digits, `-` and
/// `_` (checked on arrival, `ExternalId`).
///
/// A free-text CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180), and with a
/// leading `'` when a spreadsheet would read it as a formula.
fn field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_owned()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// The file of `kind` for the batch `batch_id` (a uuid), paying `reason` (MTurk shows it to the
/// worker).
pub fn render(kind: BonusFile, batch_id: &str, reason: &str, lines: &[BonusLine]) -> String {
    let mut out = String::new();
    let lines = lines.iter().filter(|l| kind.holds(l));
    match kind {
        BonusFile::Prolific => {
            for l in lines {
                out.push_str(&format!("{},{}\n", l.external_id, dollars(l.amount_cents)));
            }
        }
        BonusFile::Mturk => {
            out.push_str("WorkerId,AssignmentId,BonusAmount,Reason,UniqueRequestToken\n");
            for l in lines {
                out.push_str(&format!(
                    "{},{},{},{},{}\n",
                    l.external_id,
                    l.assignment_id,
                    dollars(l.amount_cents),
                    field(reason),
                    unique_request_token(batch_id, &l.external_id),
                ));
            }
        }
        BonusFile::Generic => {
            out.push_str(
                "batch_id,platform,participant_id,items,minutes_worked,amount,completion\n",
            );
            for l in lines {
                out.push_str(&format!(
                    "{},{},{},{},{:.1},{},{}\n",
                    batch_id,
                    l.platform,
                    l.external_id,
                    l.items,
                    l.seconds / 60.0,
                    dollars(l.amount_cents),
                    field(&l.completion)
                ));
            }
        }
    }
    out
}

/// The reason a worker reads with their bonus, in the files and through the platforms' APIs.
/// It names the batch, so a bonus found on the platform is known by its batch (a worker paid
/// the same amount in two batches has two bonuses that differ only here).
pub fn bonus_reason(title: &str, batch_id: &str) -> String {
    let title: String = title.chars().take(200).collect();
    let batch: String = batch_id.chars().filter(|c| *c != '-').take(12).collect();
    format!("Bonus for your work on \"{title}\". Thank you! (batch {batch})")
}

/// MTurk's `UniqueRequestToken` for a worker's bonus in a batch: at most 64 characters, the
/// same every time the file is made, so a `SendBonus` sent twice pays once.
pub fn unique_request_token(batch_id: &str, worker_id: &str) -> String {
    let batch: String = batch_id.chars().filter(|c| *c != '-').take(32).collect();
    let mut token = format!("{batch}-{worker_id}");
    token.truncate(64);
    token
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines() -> Vec<BonusLine> {
        vec![
            BonusLine {
                external_id: "5f0c1a2b3c4d5e6f7a8b9c0d".into(),
                platform: Platform::Prolific,
                assignment_id: String::new(),
                items: 50,
                seconds: 900.0,
                amount_cents: 125,
                completion: "all items done".into(),
            },
            BonusLine {
                external_id: "A1B2C3D4E5F6G7".into(),
                platform: Platform::Mturk,
                assignment_id: "3ASSIGN123".into(),
                items: 12,
                seconds: 300.0,
                amount_cents: 7,
                completion: "stopped by the quality check".into(),
            },
        ]
    }

    #[test]
    fn prolific_gets_id_comma_amount_lines_without_a_header() {
        let f = render(BonusFile::Prolific, "b", "r", &lines());
        assert_eq!(f, "5f0c1a2b3c4d5e6f7a8b9c0d,1.25\n");
    }

    #[test]
    fn mturk_gets_send_bonus_parameters_with_a_stable_token() {
        let batch = "0b9e6a52-3d1c-4f7e-9a0b-1c2d3e4f5a6b";
        let f = render(BonusFile::Mturk, batch, "Bonus, as promised", &lines());
        assert_eq!(
            f,
            "WorkerId,AssignmentId,BonusAmount,Reason,UniqueRequestToken\n\
             A1B2C3D4E5F6G7,3ASSIGN123,0.07,\"Bonus, as promised\",0b9e6a523d1c4f7e9a0b1c2d3e4f5a6b-A1B2C3D4E5F6G7\n"
        );
        let long = unique_request_token(batch, &"W".repeat(64));
        assert_eq!(long.len(), 64);
        assert_eq!(long, unique_request_token(batch, &"W".repeat(64)));
    }

    #[test]
    fn the_generic_csv_has_every_worker_and_column() {
        let f = render(BonusFile::Generic, "b1", "r", &lines());
        let rows: Vec<&str> = f.lines().collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[0],
            "batch_id,platform,participant_id,items,minutes_worked,amount,completion"
        );
        assert_eq!(
            rows[1],
            "b1,prolific,5f0c1a2b3c4d5e6f7a8b9c0d,50,15.0,1.25,all items done"
        );
        assert_eq!(
            rows[2],
            "b1,mturk,A1B2C3D4E5F6G7,12,5.0,0.07,stopped by the quality check"
        );
    }

    #[test]
    fn fields_that_a_spreadsheet_would_run_are_defused() {
        assert_eq!(field("=1+1"), "'=1+1");
        assert_eq!(field("a\"b"), "\"a\"\"b\"");
        assert_eq!(BonusFile::parse("mturk"), Some(BonusFile::Mturk));
        assert_eq!(BonusFile::parse("paypal"), None);
    }
}
