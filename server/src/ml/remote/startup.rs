//! Choosing and starting the Check's scorer on an inference server.
use std::sync::Arc;

use anyhow::{bail, Context};
use app::ml::{PairScorer, SentenceEmbedder};

use super::config::{Fallback, RemoteConfig};
use super::embedder::RemoteEmbedder;
use super::fallback::FallbackScorer;
use super::scorer::{RemoteScorer, ServerProblem, PROBE};
use crate::ml::ScoringEngine;

/// The remote scorer (with the engine behind it when the fallback is on). `engine` holds the
/// same models loaded here: their tokenizers and labels are what we send, and the probe pair
/// scored here is what the server must give before it takes Checks (at start-up and whenever it
/// comes back). Without a fallback the engine is dropped after that probe.
pub async fn scorer(
    config: &RemoteConfig,
    engine: ScoringEngine,
) -> anyhow::Result<Arc<dyn PairScorer>> {
    scorer_saying(config, engine, &|line| println!("{line}")).await
}

/// [`scorer`], saying what it found with `say` (the `score` command writes its scores to
/// standard output, so it says this on standard error).
pub async fn scorer_saying(
    config: &RemoteConfig,
    engine: ScoringEngine,
    say: &(dyn Fn(&str) + Sync),
) -> anyhow::Result<Arc<dyn PairScorer>> {
    let encoders = engine.encoders().cloned().context(
        "PARACROWD_SCORER=remote needs sequence-pair models (the paper's, the stand-ins or ones \
         named by PARACROWD_MI_MODEL and PARACROWD_BLEURT_MODEL); the lite scorer runs only in process",
    )?;
    if encoders.mi.runs_one_row_at_a_time() || encoders.bleurt.runs_one_row_at_a_time() {
        bail!(
            "{} and {} are dynamically quantised (int8): a row's scores depend on the other rows \
             of its batch, so they run one row at a time here, and an inference server's batcher \
             would mix Checks. Serve the fp32 models there (PARACROWD_PAPER_VARIANT=fp32)",
            encoders.versions.mi,
            encoders.versions.bleurt
        );
    }
    let reference = engine
        .score(PROBE.0.into(), PROBE.1.into())
        .await
        .context("the in-process engine failed the probe pair")?;
    let remote = RemoteScorer::new(config, encoders, reference)?;
    match remote.connect().await {
        Ok(()) => {
            say(&format!(
                "Checks are scored on the inference server at {} (deadline {} ms; fallback: {})",
                config.url,
                config.deadline.as_millis(),
                match config.fallback {
                    Fallback::None => "none, Checks answer busy while it is down",
                    Fallback::Local => "in process",
                }
            ));
        }
        Err(ServerProblem::Mismatch(e)) => {
            bail!("{e}. Serve the same model directories there (deploy/triton/)")
        }
        Err(ServerProblem::Down(e)) if config.fallback == Fallback::Local => {
            tracing::warn!(error = %e, "the inference server is not there yet; scoring in process until it is");
            say(&format!(
                "The inference server at {} is not answering ({e}); Checks are scored in process until it is.",
                config.url
            ));
            remote.start_probing();
        }
        Err(ServerProblem::Down(e)) => bail!(
            "{e}. Start the inference server first (deploy/triton/), or set \
             PARACROWD_SCORER_FALLBACK=local to score in process while it is down"
        ),
    }
    Ok(match config.fallback {
        Fallback::Local => Arc::new(FallbackScorer::new(remote, engine)),
        Fallback::None => Arc::new(remote),
    })
}

/// Mining's embedder on the inference server (`local` embeds in its place while the server does
/// not answer, when the fallback is on). Whether the server serves `embed` is checked now and
/// said; it is not fatal (Checks do not need it, and each mining run tries again).
pub async fn embedder(
    config: &RemoteConfig,
    local: Arc<dyn SentenceEmbedder>,
) -> anyhow::Result<Arc<dyn SentenceEmbedder>> {
    let fallback = (config.fallback == Fallback::Local).then_some(local);
    let dir = crate::ml::embedder::default_dir();
    // Without its own copy of the model (tokenizer, version) this server cannot embed either way.
    let then = if !dir.join("model.onnx").is_file() {
        ""
    } else if fallback.is_some() {
        "; mining embeds in process until it is served"
    } else {
        "; the embedding miner fails until it is served (deploy/triton/serve_onnx.py --embed)"
    };
    let embedder = Arc::new(RemoteEmbedder::new(
        &config.url,
        dir,
        tokio::runtime::Handle::current(),
        fallback,
    )?);
    let check = embedder.clone();
    match tokio::task::spawn_blocking(move || check.check()).await? {
        Ok(()) => println!("Mining's embeddings are computed on the inference server"),
        Err(e) => {
            tracing::warn!(error = %e, "mining's embeddings cannot be computed on the inference server");
            println!("Mining's embeddings: {e}{then}.");
        }
    }
    Ok(embedder)
}
