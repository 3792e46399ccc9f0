//! Locating models and the reference, and loading models with test configs.
use std::path::{Path, PathBuf};
use std::time::Duration;

use server::ml::config::{MlConfig, Provider};
use server::ml::source::ModelSources;

/// The models directory, or `None` (after saying why) when the tests cannot run here.
pub fn models_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(
        std::env::var("PARACROWD_MODELS_DIR")
            .unwrap_or_else(|_| format!("{}/../../shared/models", env!("CARGO_MANIFEST_DIR"))),
    );
    let lib = std::env::var("ORT_DYLIB_PATH").ok();
    let missing = if !dir.join("mi-standin-minilm-apt/model.onnx").is_file() {
        Some(format!("no models at {}", dir.display()))
    } else if !lib.as_deref().is_some_and(|l| Path::new(l).is_file()) {
        Some(format!("ORT_DYLIB_PATH={lib:?} is not a file"))
    } else {
        None
    };
    match missing {
        None => Some(dir),
        Some(why) if std::env::var("PARACROWD_REQUIRE_MODELS").is_ok_and(|v| v == "1") => {
            panic!("model tests required but cannot run: {why}")
        }
        Some(why) => {
            eprintln!("SKIPPED (model tests): {why}");
            None
        }
    }
}

pub fn config(models: &Path) -> MlConfig {
    MlConfig {
        ort_library: PathBuf::from(std::env::var("ORT_DYLIB_PATH").unwrap()),
        models: ModelSources::explicit(
            models.join("mi-standin-minilm-apt"),
            models.join("bleurt-standin-minilm-apt"),
        ),
        provider: Provider::Cpu,
        intra_threads: 1,
        max_batch: 8,
        max_wait: Duration::from_millis(2),
        queue_capacity: 16,
        nice: 0,
    }
}

/// A copy of a fixture directory with a `config.json` written for it (the fixtures ship none).
pub fn with_config(src: &Path, config: serde_json::Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(src).unwrap().flatten() {
        let name = entry.file_name();
        if name != "config.json" {
            std::fs::copy(entry.path(), dir.path().join(&name)).unwrap();
        }
    }
    std::fs::write(dir.path().join("config.json"), config.to_string()).unwrap();
    dir
}

/// The Python reference file.
pub fn reference() -> serde_json::Value {
    let path = format!(
        "{}/../tests/fixtures/scoring_reference.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A reference file's `pairs`, as (sentence 1, sentence 2).
pub fn pairs(reference: &serde_json::Value) -> Vec<(String, String)> {
    reference["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().to_owned(),
                p[1].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

pub fn assert_close(actual: &[f32], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: width");
    for (a, e) in actual.iter().zip(expected) {
        assert!(
            (f64::from(*a) - e).abs() <= tol,
            "{what}: {actual:?} vs {expected:?}"
        );
    }
}
