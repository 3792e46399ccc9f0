//! Model serving: ONNX Runtime through `ort`, tokenizers, and dynamic batching on dedicated
//! threads (never on the async runtime).
//!
//! - [`runtime`]: loads the ONNX Runtime library and picks the execution provider (CPU, CUDA).
//! - [`model`]: one sequence-pair model directory (`model.onnx`, `tokenizer.json`, `config.json`).
//! - [`scorer`]: the MI judge and BLEURT together (or the lite scorer): scores (source, attempt)
//!   pairs in one batch.
//! - [`engine`]: the bounded queue and the worker thread that batches concurrent Checks.
//! - [`source`]: where the Check's models come from (explicit paths, the paper's models, the
//!   development stand-ins, the lite scorer), decided once at start-up.
//! - [`paper`]: installing the paper's models into the model cache, and their manifest.
//! - [`lite`]: the lite scorer (sentence embeddings and two small heads).
//! - [`embedder`]: sentence embeddings (all-MiniLM-L6-v2) for the ParaSCI miner, loaded lazily.
//! - [`config`]: where the models are and how the engine runs.
//! - [`remote`]: the same models on an inference server (Triton, KServe) over gRPC, with the
//!   engine as fallback (`PARACROWD_SCORER=remote`).
pub mod config;
pub mod embedder;
pub mod engine;
pub mod lite;
pub mod model;
pub mod paper;
pub mod priority;
pub mod remote;
pub mod runtime;
pub mod scorer;
pub mod source;

pub use config::MlConfig;
pub use engine::ScoringEngine;
pub use scorer::Scorer;
