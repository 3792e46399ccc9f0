//! Settings of the scoring engine, from the environment.
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use super::lite::HeadsSource;
use super::paper::Variant;
use super::source::{cache_dir, ModelSources, Preference};

/// Which ONNX Runtime execution provider to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Cpu,
    /// Needs the `cuda` cargo feature and the onnxruntime-gpu library.
    Cuda,
}

/// Scoring engine settings.
#[derive(Debug, Clone)]
pub struct MlConfig {
    /// `ORT_DYLIB_PATH`: ONNX Runtime's shared library (`scripts/get-onnxruntime.sh` installs it).
    pub ort_library: PathBuf,
    /// Where the Check's models may come from (see [`super::source`]).
    pub models: ModelSources,
    /// `PARACROWD_ML_PROVIDER`: `cpu` (default) or `cuda`.
    pub provider: Provider,
    /// `PARACROWD_ML_THREADS`: ONNX Runtime intra-op threads (default: all cores).
    pub intra_threads: usize,
    /// `PARACROWD_ML_MAX_BATCH`: most Checks scored in one forward pass (default 32).
    pub max_batch: usize,
    /// `PARACROWD_ML_MAX_WAIT_MS`: how long a batch waits for more Checks (default 2 ms).
    pub max_wait: Duration,
    /// `PARACROWD_ML_QUEUE`: Checks that may wait; beyond it callers get "busy" (default 64).
    pub queue_capacity: usize,
    /// `PARACROWD_ML_NICE`: the scoring threads' nice value, 0 to 19 (default 0: the server's
    /// priority). Above 0, pages, judgments and PostgreSQL get the cores first while Checks are
    /// scored; on 2 saturated cores nice 10 gave ~8% more judgments/s and ~30% fewer Checks/s.
    pub nice: i32,
}

impl MlConfig {
    pub fn from_env() -> anyhow::Result<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let number = |name: &str, default: usize| -> anyhow::Result<usize> {
            var(name)
                .map(|v| {
                    v.parse()
                        .with_context(|| format!("{name} must be a whole number"))
                })
                .transpose()
                .map(|v| v.unwrap_or(default))
        };
        let provider = match var("PARACROWD_ML_PROVIDER").as_deref() {
            None | Some("cpu") => Provider::Cpu,
            Some("cuda") => Provider::Cuda,
            Some(other) => {
                anyhow::bail!("PARACROWD_ML_PROVIDER must be cpu or cuda, not {other:?}")
            }
        };
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        Ok(Self {
            ort_library: PathBuf::from(
                var("ORT_DYLIB_PATH").unwrap_or_else(|| "libonnxruntime.so".into()),
            ),
            models: model_sources(&var)?,
            provider,
            intra_threads: number("PARACROWD_ML_THREADS", cores)?.max(1),
            max_batch: number("PARACROWD_ML_MAX_BATCH", 32)?.max(1),
            max_wait: Duration::from_millis(number("PARACROWD_ML_MAX_WAIT_MS", 2)? as u64),
            queue_capacity: number("PARACROWD_ML_QUEUE", 64)?.max(1),
            nice: match number("PARACROWD_ML_NICE", 0)? {
                n if n <= super::priority::MAX_NICE as usize => n as i32,
                n => anyhow::bail!(
                    "PARACROWD_ML_NICE must be between 0 and {}, not {n}",
                    super::priority::MAX_NICE
                ),
            },
        })
    }
}

/// The model sources from the environment (see the README's configuration table).
fn model_sources(var: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<ModelSources> {
    let mut sources = ModelSources::defaults(&cache_dir());
    sources.explicit = match (var("PARACROWD_MI_MODEL"), var("PARACROWD_BLEURT_MODEL")) {
        (Some(mi), Some(bleurt)) => Some((PathBuf::from(mi), PathBuf::from(bleurt))),
        (None, None) => None,
        (Some(_), None) | (None, Some(_)) => anyhow::bail!(
            "set both PARACROWD_MI_MODEL and PARACROWD_BLEURT_MODEL, or neither (then the models are found as the README describes)"
        ),
    };
    if let Some(p) = var("PARACROWD_MODELS") {
        sources.preference = Preference::parse(&p)?;
    }
    sources.paper_variant = match var("PARACROWD_PAPER_VARIANT").as_deref() {
        None => None,
        Some("int8") => Some(Variant::Int8),
        Some("fp32") => Some(Variant::Fp32),
        Some(other) => anyhow::bail!("PARACROWD_PAPER_VARIANT must be int8 or fp32, not {other:?}"),
    };
    if let Some(dir) = var("PARACROWD_MODELS_DIR") {
        sources.standin_dir = Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("PARACROWD_EMBEDDING_MODEL") {
        sources.embedding_dir = PathBuf::from(dir);
    }
    if let Some(file) = var("PARACROWD_LITE_HEADS") {
        sources.lite_heads = HeadsSource::File(PathBuf::from(file));
    }
    Ok(sources)
}
