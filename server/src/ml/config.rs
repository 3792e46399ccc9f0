//! Settings of the scoring engine, from the environment.
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

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
    /// `PARACROWD_MI_MODEL`: the MI judge (3-way NLI or binary MI classifier) directory.
    /// Default: `$PARACROWD_MODELS_DIR/mi-standin-minilm-apt`.
    pub mi_model_dir: PathBuf,
    /// `PARACROWD_BLEURT_MODEL`: the BLEURT directory. Default: the distilled stand-in,
    /// `$PARACROWD_MODELS_DIR/bleurt-standin-minilm-apt`.
    pub bleurt_model_dir: PathBuf,
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
        let models =
            PathBuf::from(var("PARACROWD_MODELS_DIR").unwrap_or_else(|| "../shared/models".into()));
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
            mi_model_dir: var("PARACROWD_MI_MODEL")
                .map(PathBuf::from)
                .unwrap_or_else(|| models.join("mi-standin-minilm-apt")),
            bleurt_model_dir: var("PARACROWD_BLEURT_MODEL")
                .map(PathBuf::from)
                .unwrap_or_else(|| models.join("bleurt-standin-minilm-apt")),
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
