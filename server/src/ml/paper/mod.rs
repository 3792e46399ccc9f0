//! The APT paper's own models: RoBERTa-large NLI (ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli)
//! and BLEURT-base-128 (Elron/bleurt-base-128), downloaded from the Hugging Face hub, exported to
//! ONNX and quantised by `paracrowd models install paper` into the model cache.
//!
//! - [`manifest`]: the cache's layout and `manifest.json`.
//! - [`install`]: the install command (a Python environment from PyPI does the export).
pub mod install;
pub mod manifest;

pub use manifest::{Manifest, Variant};
