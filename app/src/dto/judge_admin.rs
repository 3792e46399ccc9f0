//! A judging campaign as its admin page shows it.
use serde::{Deserialize, Serialize};

use crate::domain::judge::labels::VoteLabel;
use crate::domain::{PairId, UserId, WorkerStatus};

/// The result of importing a file of pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairImportSummary {
    pub imported: u64,
    pub duplicates_in_file: u64,
    pub already_in_campaign: u64,
    pub tests_in_file: u64,
    /// Imported pairs whose two sentences are the same text.
    #[serde(default)]
    pub identical: u64,
    /// Test pairs already in the campaign whose explanation the file added or replaced.
    #[serde(default)]
    pub explanations_updated: u64,
}

/// A pair with its gold fields, as stored (`db::judge` reads it straight from `judge_pair`).
/// For admins only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairRecord {
    /// The pair's id.
    pub pair_id: PairId,
    /// The first sentence.
    pub sentence1: String,
    /// The second sentence.
    pub sentence2: String,
    /// The group (topic, cluster) it came from, if any.
    pub group_key: Option<String>,
    /// A hidden test pair.
    pub is_test: bool,
    /// The test pair's right answer (or an imported pair's reference label).
    pub gold_label: Option<bool>,
    /// Shown to a worker who misses the test pair.
    pub gold_explanation: Option<String>,
    /// Trusted judgments so far.
    pub n_judgments: i32,
    /// Trusted "paraphrase" votes so far.
    pub n_paraphrase: i32,
    /// The label it settled on before its maximum (adaptive redundancy), if it did.
    #[serde(default)]
    pub settled_label: Option<bool>,
    /// The posterior of "paraphrase" from its weighted trusted votes, once it has the minimum.
    #[serde(default)]
    pub posterior: Option<f64>,
    /// Judgments holding one of its slots (trusted, or by a worker since stopped).
    #[serde(default)]
    pub taken: i32,
    /// A test pair promoted from a settled ordinary pair (its gold is the crowd's label).
    #[serde(default)]
    pub gold_promoted: bool,
}

/// A pair with its gold fields and its label, for admins only (the record's fields sit beside
/// `label` on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdminPair {
    #[serde(flatten)]
    pub pair: PairRecord,
    /// The label once the pair has it (settled, or at its maximum by the campaign's rule:
    /// `labels::pair_label`), else `None`.
    pub label: Option<VoteLabel>,
}

/// A worker's standing, for admins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeWorkerView {
    pub user_id: UserId,
    pub username: String,
    pub status: WorkerStatus,
    pub gate_overridden: bool,
    pub judgments: i64,
    pub tests_answered: i64,
    pub test_accuracy: Option<f64>,
    /// Test pairs served to them.
    pub tests_seen: i64,
    /// Test pairs they missed (each miss showed them the right answer).
    pub tests_missed: i64,
    /// Missed enough test pairs, at no better than a coin, to look like an account collecting
    /// the answers (`domain::judge::test_pool::looks_like_gold_harvesting`).
    pub harvesting_gold: bool,
    pub last_reason: Option<String>,
    /// Where the gate stands on them.
    #[serde(default)]
    pub gate: GateStanding,
}

/// Where the quality gate stands on a worker, as the researcher reads it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GateStanding {
    /// The most likely accuracy from check answers and agreement with the others' majority
    /// (`domain::judge::confidence`) ...
    pub accuracy_estimate: Option<f64>,
    /// ... its upper confidence bound at the campaign's error level ...
    pub accuracy_upper: Option<f64>,
    /// ... and the campaign's minimum.
    pub minimum: f64,
    /// Kappa against the others' majority, once there are enough pairs ...
    pub kappa: Option<f64>,
    /// ... and its 95% interval (Fleiss-Cohen-Everitt standard error; for this look only).
    pub kappa_interval: Option<(f64, f64)>,
    /// Why the gate keeps or stops them, in the campaign's rule's terms.
    pub standing: String,
}

/// A judging campaign at a glance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeCampaignOverview {
    pub definition: String,
    pub judgments_per_pair: u32,
    /// Judgments every pair gets before it can settle (equal to `judgments_per_pair`: fixed).
    #[serde(default)]
    pub min_judgments_per_pair: u32,
    /// The posterior at which a pair settles.
    #[serde(default)]
    pub settle_confidence: f64,
    pub test_every: u32,
    pub min_test_accuracy: f64,
    pub min_kappa: f64,
    pub gate_min_judgments: u32,
    /// `confidence`, `evidence` or `paper`.
    pub gate_rule: String,
    /// The `confidence` rule's error level.
    #[serde(default)]
    pub gate_alpha: f64,
    /// ... and the worse level it tests against: the accuracy minimum minus this.
    #[serde(default = "crate::domain::judge::settings::default_gate_worse_by")]
    pub gate_worse_by: f64,
    pub paraphrase_min_votes: u32,
    pub non_paraphrase_max_votes: u32,
    pub lease_seconds: u32,
    /// Answers to a pair on screen for less than this are ignored (milliseconds).
    pub min_display_ms: u32,
    pub pairs: i64,
    pub test_pairs: i64,
    pub complete_pairs: i64,
    /// A test pair is served at most this often (`None`: no cap) ...
    #[serde(default)]
    pub test_exposure_cap: Option<u32>,
    /// ... and this many have been.
    #[serde(default)]
    pub tests_at_cap: i64,
    /// Test pairs promoted from settled pairs.
    #[serde(default)]
    pub promoted_test_pairs: i64,
    /// Pairs settled before their maximum ...
    #[serde(default)]
    pub settled_pairs: i64,
    /// ... and the judgments that saved against fixed redundancy.
    #[serde(default)]
    pub judgments_saved: i64,
    /// The study's pay per judgment, in thousandths of a dollar (0: none set).
    #[serde(default)]
    pub judgment_pay_mills: i32,
    pub judgments: i64,
    /// Set when either gold label is under 30% of the test pairs.
    pub gold_warning: Option<String>,
    /// Set when the test pool is too small for the schedule and the gate.
    pub test_pool_warning: Option<String>,
    /// Test pairs whose right answer has been shown to a worker who missed them.
    pub gold_revealed: i64,
    /// Pairs whose republished judgments still wait for replacements.
    pub pending_republished: i64,
    pub workers: Vec<JudgeWorkerView>,
}

/// What a republish did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepublishSummary {
    /// Usernames of the workers whose judgments were set aside (they are also stopped).
    pub workers: Vec<String>,
    pub judgments: i64,
    pub pairs: i64,
}
