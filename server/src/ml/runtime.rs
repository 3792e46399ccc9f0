//! ONNX Runtime: the library is loaded once per process from an explicit path (ort panics
//! instead of failing when it finds none, so the path is checked first), and sessions are built
//! with the configured execution provider.
use std::path::Path;
use std::sync::{Arc, OnceLock};

use anyhow::{bail, Context};
use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;

use super::config::{MlConfig, Provider};

static ENVIRONMENT: OnceLock<Result<Arc<Environment>, String>> = OnceLock::new();

/// The process-wide ONNX Runtime environment, loading the library at `library` the first time.
pub fn environment(library: &Path) -> anyhow::Result<Arc<Environment>> {
    ENVIRONMENT
        .get_or_init(|| {
            if !library.is_file() {
                return Err(format!(
                    "ONNX Runtime library not found at {} (set ORT_DYLIB_PATH; scripts/setup.sh installs it)",
                    library.display()
                ));
            }
            let builder = ort::init_from(library)
                .map_err(|e| format!("cannot load ONNX Runtime from {}: {e}", library.display()))?;
            builder
                .with_name("paracrowd")
                .build()
                .map(Arc::new)
                .map_err(|e| format!("cannot create the ONNX Runtime environment: {e}"))
        })
        .clone()
        .map_err(anyhow::Error::msg)
}

/// What actually runs a session (a requested CUDA provider may be unavailable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActiveProvider {
    Cpu,
    Cuda,
}

/// Builds a session for `model` with the configured provider and threads. CUDA is registered
/// with `error_on_failure`, so a failure is seen here and logged, and the session falls back to
/// the CPU explicitly rather than silently.
pub fn session(config: &MlConfig, model: &Path) -> anyhow::Result<(Session, ActiveProvider)> {
    let env = environment(&config.ort_library)?;
    if !model.is_file() {
        bail!("model file not found: {}", model.display());
    }
    let build = |cuda: bool| -> ort::Result<Session> {
        let mut builder = Session::builder(&env)?
            .with_optimization_level(GraphOptimizationLevel::Level3)?
            .with_intra_threads(config.intra_threads)?
            // Idle threads sleep instead of spinning: spinning between batches takes the
            // cores the web server and PostgreSQL need (on 2 cores /health p99 went past 90 ms
            // during a burst of Checks).
            .with_intra_op_spinning(false)?
            .with_inter_threads(1)?;
        if cuda {
            builder = register_cuda(builder)?;
        }
        builder.commit_from_file(model)
    };
    if config.provider == Provider::Cuda {
        match build(true) {
            Ok(session) => {
                tracing::info!(model = %model.display(), "execution provider: CUDA");
                return Ok((session, ActiveProvider::Cuda));
            }
            Err(e) => tracing::warn!(
                model = %model.display(),
                error = %e,
                "CUDA was requested but is unavailable; using the CPU"
            ),
        }
    }
    let session =
        build(false).with_context(|| format!("cannot load the model {}", model.display()))?;
    tracing::info!(model = %model.display(), threads = config.intra_threads, "execution provider: CPU");
    Ok((session, ActiveProvider::Cpu))
}

#[cfg(feature = "cuda")]
fn register_cuda(
    builder: ort::session::builder::SessionBuilder,
) -> ort::Result<ort::session::builder::SessionBuilder> {
    Ok(builder.with_execution_providers([ort::ep::CUDA::default().build().error_on_failure()])?)
}

#[cfg(not(feature = "cuda"))]
fn register_cuda(
    _builder: ort::session::builder::SessionBuilder,
) -> ort::Result<ort::session::builder::SessionBuilder> {
    Err(ort::Error::new(
        "this binary was built without the `cuda` feature (cargo build --features cuda)",
    ))
}
