//! The port between the app and the scoring engine (server only): what a Check needs from the
//! models, without ort. The server's `ml` module implements it; tests use a deterministic fake.
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Which models produced a score: a directory name and the first 12 hex digits of the SHA-256
/// of its `model.onnx`, e.g. `mi-standin-minilm-apt@3fa2c1d09b7e`, and which kind of scorer
/// that is, in words for annotators, researchers and exports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScorerVersions {
    pub mi: String,
    pub bleurt: String,
    pub kind: ScorerKind,
    /// E.g. "the APT paper's models (RoBERTa-large NLI and BLEURT-base-128)".
    pub description: String,
    /// Where the models ran: in this process or on an inference server.
    #[serde(default)]
    pub served_by: ServedBy,
}

/// Where a score was computed (`apt_attempt.served_by`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ServedBy {
    /// ONNX Runtime inside the web server (the scoring engine).
    #[default]
    InProcess,
    /// An inference server over the Open Inference Protocol (Triton, KServe).
    InferenceServer,
}

impl ServedBy {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InProcess => "in_process",
            Self::InferenceServer => "inference_server",
        }
    }
}

/// Where the Check's models came from (`server::ml::source` decides at start-up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ScorerKind {
    /// The APT paper's RoBERTa-large NLI and BLEURT-base-128, exported to ONNX (fp32).
    Paper,
    /// The int8 dynamically quantised copy of the paper's models.
    PaperInt8,
    /// The development stand-ins (MiniLM cross-encoders distilled from the paper's labels).
    StandIn,
    /// The lite scorer: sentence embeddings and two small heads.
    Lite,
    /// Models named by the operator that are none of the above.
    Custom,
}

impl ScorerKind {
    /// The stored name (`apt_attempt.scorer_kind`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paper => "paper",
            Self::PaperInt8 => "paper_int8",
            Self::StandIn => "standin",
            Self::Lite => "lite",
            Self::Custom => "custom",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Paper,
            Self::PaperInt8,
            Self::StandIn,
            Self::Lite,
            Self::Custom,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }

    /// Only the paper's own models (or their int8 copy) score as the study did.
    pub fn is_papers(self) -> bool {
        matches!(self, Self::Paper | Self::PaperInt8)
    }
}

/// Scores of one (source, attempt) pair, both directions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairScores {
    /// The MI judge's label names, in output order (from its `id2label`).
    pub labels: Vec<String>,
    /// Softmax probabilities for (source -> attempt).
    pub forward_probs: Vec<f32>,
    /// Softmax probabilities for (attempt -> source).
    pub backward_probs: Vec<f32>,
    pub is_mutual_implication: bool,
    /// BLEURT(reference = source, candidate = attempt) and the reverse.
    pub bleurt_forward: f32,
    pub bleurt_backward: f32,
    /// The mean of both directions, as the original study.
    pub bleurt: f32,
    pub versions: Arc<ScorerVersions>,
    /// Time from the request entering the queue to its answer, milliseconds.
    pub latency_ms: f64,
}

/// Why a pair was not scored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    #[error("the scoring queue is full")]
    Busy,
    #[error("the scoring engine is not running")]
    Unavailable,
    #[error("scoring failed: {0}")]
    Failed(String),
}

pub type ScoreFuture = Pin<Box<dyn Future<Output = Result<PairScores, ScoreError>> + Send>>;

/// Scores sentence pairs. Dyn-safe so the state can hold `Arc<dyn PairScorer>`.
pub trait PairScorer: Send + Sync {
    fn score(&self, source: String, attempt: String) -> ScoreFuture;
    fn versions(&self) -> Arc<ScorerVersions>;
    /// `Err(Busy)` when the queue is full now (counted like any other busy answer), so a Check
    /// can answer "busy" before doing other work. `score` still refuses by itself when the
    /// queue fills in between.
    fn admit(&self) -> Result<(), ScoreError> {
        Ok(())
    }
    /// The queue and batches so far, for `/metrics`; `None` when the scorer keeps no count.
    fn load(&self) -> Option<ScorerLoad> {
        None
    }
}

/// A scorer's queue and batch counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScorerLoad {
    pub queue_depth: u64,
    pub batches: u64,
    pub pairs: u64,
    pub busy: u64,
    /// The inference server's side, when Checks are scored there.
    pub remote: Option<RemoteLoad>,
}

/// How the inference server has answered this process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteLoad {
    /// Whether the last call (or readiness probe) reached it.
    pub up: bool,
    /// Checks it scored.
    pub scored: u64,
    /// Calls that failed or passed their deadline.
    pub failures: u64,
    /// Checks scored in process because it was down.
    pub fallbacks: u64,
}

/// Sentence embeddings for the embedding miner (server only; blocking: call it from a blocking
/// thread). The server's implementation loads all-MiniLM-L6-v2 at first use.
pub trait SentenceEmbedder: Send + Sync {
    /// One L2-normalised vector per text, in order. The error says what is wrong in words
    /// (e.g. the model is not installed, and where it was looked for).
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String>;
    /// `dirname@sha256-prefix` of the model.
    fn version(&self) -> Result<String, String>;
}
