//! The port between the app and the scoring engine (server only): what a Check needs from the
//! models, without ort. The server's `ml` module implements it; tests use a deterministic fake.
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Which models produced a score: a directory name and the first 12 hex digits of the SHA-256
/// of its `model.onnx`, e.g. `mi-standin-minilm-apt@3fa2c1d09b7e`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScorerVersions {
    pub mi: String,
    pub bleurt: String,
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
