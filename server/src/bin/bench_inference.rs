//! Inference-server benchmark (a README command, not a test): the same Checks through (a) the
//! in-process engine and (b) NVIDIA Triton over gRPC (the remote scorer), p50/p95 at 1, 8 and 32
//! callers and throughput, and the network hop's cost at one caller as a ratio.
//!
//! `scripts/bench-inference.sh` starts Triton (nvidia-pytriton serving the same ONNX files
//! through `deploy/triton/serve_onnx.py`) and passes its address in `BENCH_TRITON_URL`.
use std::sync::Arc;

use app::ml::PairScorer;
use server::ml::remote::config::RemoteConfig;
use server::ml::{MlConfig, ScoringEngine};

#[path = "common/mod.rs"]
mod common;
use common::{machine, percentile, run_callers, Shared};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let url = std::env::var("BENCH_TRITON_URL").map_err(|_| {
        anyhow::anyhow!("BENCH_TRITON_URL is not set: run scripts/bench-inference.sh")
    })?;
    let checks: usize = std::env::var("BENCH_CHECKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96);
    let config = MlConfig::from_env()?;
    let engine = {
        let config = config.clone();
        tokio::task::spawn_blocking(move || ScoringEngine::start(&config)).await??
    };
    let models = engine.versions();
    let remote =
        server::ml::remote::startup::scorer(&RemoteConfig::new(url.clone()), engine.clone())
            .await?;
    println!(
        "machine: {} (no GPU here: both sides run on the CPU)",
        machine()
    );
    println!(
        "models: {} and {} ({})",
        models.mi, models.bleurt, models.description
    );
    println!(
        "engine: ort intra-op threads {}, max batch {}; Triton: {url}, dynamic batcher, 1 ort thread per model\n",
        config.intra_threads, config.max_batch
    );
    let pairs: Vec<(String, String)> = server::ml::paper::install::CHECK_PAIRS
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let fresh = |phase: usize, n: usize| -> Vec<(String, String)> {
        (0..n)
            .map(|k| {
                let (a, b) = &pairs[k % pairs.len()];
                (a.clone(), format!("{b} ({phase}.{k})"))
            })
            .collect()
    };

    println!(
        "  {:<22} {:>8} {:>9} {:>9} {:>11}",
        "scorer, callers", "Checks", "p50", "p95", "Checks/s"
    );
    let scorers: [(&str, Arc<dyn PairScorer>); 2] = [
        ("in-process engine", engine.shared()),
        ("Triton over gRPC", remote),
    ];
    let mut p50_one = Vec::new();
    for (name, scorer) in &scorers {
        run_callers(scorer, &fresh(0, 8), 1, 8).await; // warm-up
        for (phase, callers) in [1usize, 8, 32].into_iter().enumerate() {
            let per_caller = (checks / callers).max(3);
            let (lat, wall) = run_callers(
                scorer,
                &fresh(phase + 1, callers * per_caller),
                callers,
                per_caller,
            )
            .await;
            let p50 = percentile(&lat, 0.5);
            println!(
                "  {:<22} {:>8} {:>6.1} ms {:>6.1} ms {:>11.1}",
                format!("{name}, {callers}"),
                lat.len(),
                p50,
                percentile(&lat, 0.95),
                lat.len() as f64 / wall.as_secs_f64()
            );
            if callers == 1 {
                p50_one.push(p50);
            }
        }
    }
    println!(
        "\nthe network hop at one caller: Triton p50 / engine p50 = {:.2}",
        p50_one[1] / p50_one[0]
    );
    Ok(())
}
