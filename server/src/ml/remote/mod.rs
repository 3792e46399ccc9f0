//! Scoring on an inference server: the Check's models (and mining's embeddings) run on NVIDIA
//! Triton Inference Server, KServe or any server of the Open Inference Protocol (KServe v2),
//! over gRPC. Tokenisation stays here, with the same tokenizers and label order as the
//! in-process engine: tensors go over the wire, logits come back.
//!
//! - [`config`]: `PARACROWD_SCORER=remote`, the server's address, deadline and fallback.
//! - [`client`]: the generated gRPC client, with tensors sent and read as raw bytes.
//! - [`contract`]: the model metadata the server reports, checked against our tokenizers.
//! - [`scorer`]: the Check through the server; a failed or slow server answers "busy", never a
//!   wrong score, and a background probe notices when it is back.
//! - [`health`]: whether the server takes Checks, and the one probe that looks for it.
//! - [`fallback`]: the in-process engine taking over while the server is down.
//! - [`startup`]: the scorer a server starts with, and the check that both sides run the same
//!   models.
//! - [`embedder`]: sentence embeddings for mining, at a lower priority than Checks.
pub mod client;
pub mod config;
pub mod contract;
pub mod embedder;
pub mod fallback;
pub mod health;
pub mod scorer;
pub mod startup;

/// The code tonic generates from `proto/open_inference.proto` (build.rs).
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod proto {
    tonic::include_proto!("inference");
}

pub use config::{Fallback, RemoteConfig, ScorerBackend};
pub use fallback::FallbackScorer;
pub use scorer::RemoteScorer;

/// The model names the server must serve (`deploy/triton/`).
pub const MI_MODEL: &str = "mi";
pub const BLEURT_MODEL: &str = "bleurt";
pub const EMBED_MODEL: &str = "embed";

/// Triton's priority levels (1 is served first) for the models that share a queue.
pub const CHECK_PRIORITY: i64 = 1;
pub const MINING_PRIORITY: i64 = 2;
