//! Scoring engine tests with real models through ort: the stand-ins in `../shared/models` and the
//! tiny random fixtures, against Python reference outputs (`tests/fixtures/scoring_reference.json`,
//! made by `scripts/reference/make_scoring_reference.py`); the lite scorer against its training
//! script; the model resolver; the paper models' install, offline on tiny models; and the same
//! models on NVIDIA Triton (nvidia-pytriton) through the remote scorer.
//!
//! They need ONNX Runtime (`ORT_DYLIB_PATH`) and the models (`PARACROWD_MODELS_DIR`, default
//! `../shared/models`). When either is missing they print why and pass, unless
//! `PARACROWD_REQUIRE_MODELS=1` (set by `scripts/test.sh`), which makes that a failure.
#[path = "../common/shared.rs"]
mod shared;

mod embedder;
mod engine;
mod lite;
mod paper_install;
mod reference;
mod remote;
mod source;
mod support;
mod triton;
