//! Scoring benchmark (a README command, not a test): first every scorer this machine has (the
//! lite scorer, the development stand-ins, the paper's int8 and fp32 models where installed),
//! Check latency p50/p95 at 1 and 8 concurrent callers; then, for the stand-ins, raw ort time
//! per forward pass, the engine at 1, 8 and 32 callers, and throughput batched vs unbatched.
//!
//! Usage: scripts/bench-scoring.sh   (env: BENCH_CHECKS per caller count, default 64)
use std::time::{Duration, Instant};

use common::Shared;

use server::ml::model::PairModel;
use server::ml::paper::install::CHECK_PAIRS;
use server::ml::paper::Variant;
use server::ml::source::{ModelSources, Preference, STANDIN_BLEURT, STANDIN_MI};
use server::ml::{MlConfig, Scorer, ScoringEngine};

#[path = "common/mod.rs"]
mod common;
use common::{machine, percentile, run_callers};

/// MSRP test pairs beside a development checkout; elsewhere the install's built-in check pairs.
fn bench_pairs(config: &MlConfig, n: usize) -> Vec<(String, String)> {
    let data = config
        .models
        .standin_dir
        .as_ref()
        .map(|dir| dir.join("../data/msrp/msr_paraphrase_test.txt"));
    match data.as_deref().map(server::score_cmd::read_pairs) {
        Some(Ok(mut pairs)) if pairs.len() >= n => {
            pairs.truncate(n);
            let from = data.as_deref().map(|d| d.display().to_string());
            println!("pairs: the first {n} of {}", from.unwrap_or_default());
            pairs
        }
        _ => {
            println!(
                "pairs: the {} built-in check pairs (no MSRP data here)",
                CHECK_PAIRS.len()
            );
            CHECK_PAIRS
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        }
    }
}

/// Each scorer this machine has, loaded through the resolver as `serve` would load it.
async fn every_scorer(config: &MlConfig, pairs: &[(String, String)], checks: usize) {
    println!(
        "Check latency by scorer (engine, max batch {}):",
        config.max_batch
    );
    println!(
        "  {:<34} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "scorer", "1: p50", "1: p95", "8: p50", "8: p95", "8: Chk/s"
    );
    let sources = [
        ("lite scorer", Preference::Lite, None),
        ("development stand-ins", Preference::StandIn, None),
        (
            "paper's models, int8",
            Preference::Paper,
            Some(Variant::Int8),
        ),
        (
            "paper's models, fp32",
            Preference::Paper,
            Some(Variant::Fp32),
        ),
    ];
    for (name, preference, variant) in sources {
        let mut c = config.clone();
        c.models.explicit = None;
        c.models.preference = preference;
        c.models.paper_variant = variant;
        let scorer = match Scorer::load(&c) {
            Ok(s) => s,
            Err(e) => {
                println!(
                    "  {name:<34} not here: {}",
                    server::ml::source::one_line(&e)
                );
                continue;
            }
        };
        let description = scorer.versions().description.clone();
        let engine = ScoringEngine::with_scorer(scorer, c.max_batch, c.max_wait, 1024);
        // Each phase Checks texts no earlier phase has seen (the lite scorer keeps recent
        // embeddings, and a real Check's rewrite is new).
        let fresh = |phase: usize, n: usize| -> Vec<(String, String)> {
            (0..n)
                .map(|k| {
                    let (a, b) = &pairs[(phase * 1000 + k) % pairs.len()];
                    (a.clone(), format!("{b} ({phase}.{k})"))
                })
                .collect()
        };
        let (one_n, eight_n) = (checks.max(8), 8 * (checks / 8).max(4));
        run_callers(&engine.shared(), &fresh(0, 4), 1, 4).await; // warm-up
        let (one, _) = run_callers(&engine.shared(), &fresh(1, one_n), 1, one_n).await;
        let (eight, wall) = run_callers(&engine.shared(), &fresh(2, eight_n), 8, eight_n / 8).await;
        println!(
            "  {name:<34} {:>6.1} ms {:>6.1} ms {:>6.1} ms {:>6.1} ms {:>10.1}",
            percentile(&one, 0.5),
            percentile(&one, 0.95),
            percentile(&eight, 0.5),
            percentile(&eight, 0.95),
            eight.len() as f64 / wall.as_secs_f64()
        );
        println!("  {:<34} ({description})", "");
    }
    println!();
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let config = MlConfig::from_env()?;
    let checks: usize = std::env::var("BENCH_CHECKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    println!("machine: {}", machine());
    let pairs = bench_pairs(&config, 256);
    println!(
        "ort intra-op threads: {}, max batch {}, max wait {:?}, queue {}\n",
        config.intra_threads, config.max_batch, config.max_wait, config.queue_capacity
    );
    every_scorer(&config, &pairs, checks).await;

    // The stand-ins in detail (the engine's batching, raw ort against the engine).
    let Some(dir) = config.models.standin_dir.clone() else {
        println!("(no development stand-ins here: the engine details below need them)");
        return Ok(());
    };
    let (mi_dir, bleurt_dir) = (dir.join(STANDIN_MI), dir.join(STANDIN_BLEURT));
    if !mi_dir.is_dir() {
        println!("(no development stand-ins here: the engine details below need them)");
        return Ok(());
    }
    let mut config = config;
    config.models = ModelSources::explicit(&mi_dir, &bleurt_dir);
    println!("the engine in detail, on the stand-ins:");

    // 1. Raw ort: one Check = both directions through each model (batch of 2 per model).
    let mut mi = PairModel::load(&mi_dir, &config)?;
    let mut bleurt = PairModel::load(&bleurt_dir, &config)?;
    let mut raw = Vec::new();
    for (i, (a, b)) in pairs.iter().cycle().take(checks.max(20)).enumerate() {
        let both = [(a.as_str(), b.as_str()), (b.as_str(), a.as_str())];
        let t = Instant::now();
        mi.logits(&both)?;
        bleurt.logits(&both)?;
        if i >= 3 {
            raw.push(t.elapsed().as_secs_f64() * 1000.0); // after warm-up
        }
    }
    raw.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let raw_p50 = percentile(&raw, 0.5);
    println!("raw ort, one Check (MI + BLEURT forward, 2 directions each): p50 {raw_p50:.1} ms, p95 {:.1} ms", percentile(&raw, 0.95));
    for batch in [8usize, 32] {
        let chunk: Vec<(&str, &str)> = pairs
            .iter()
            .take(batch)
            .flat_map(|(a, b)| [(a.as_str(), b.as_str()), (b.as_str(), a.as_str())])
            .collect();
        let t = Instant::now();
        mi.logits(&chunk)?;
        bleurt.logits(&chunk)?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        println!("raw ort, {batch} Checks in one forward pass per model: {ms:.1} ms ({:.1} ms per Check)", ms / batch as f64);
    }
    drop((mi, bleurt));

    // 2. The engine at 1, 8 and 32 concurrent callers.
    println!("\nengine (batched, max batch {}):", config.max_batch);
    let batched = ScoringEngine::with_scorer(
        Scorer::load(&config)?,
        config.max_batch,
        config.max_wait,
        1024,
    );
    run_callers(&batched.shared(), &pairs, 1, 4).await; // warm-up
    let mut throughput = Vec::new();
    for callers in [1usize, 8, 32] {
        let per_caller = (checks / callers).max(2);
        let (lat, wall) = run_callers(&batched.shared(), &pairs, callers, per_caller).await;
        let rate = lat.len() as f64 / wall.as_secs_f64();
        println!(
            "  {callers:>2} callers: Check p50 {:.1} ms, p95 {:.1} ms, {rate:.1} Checks/s ({} Checks)",
            percentile(&lat, 0.5),
            percentile(&lat, 0.95),
            lat.len()
        );
        if callers == 1 {
            println!(
                "     p50 / raw ort p50 = {:.2} (goal <= 1.3)",
                percentile(&lat, 0.5) / raw_p50
            );
        }
        throughput.push((callers, rate));
    }
    let s = batched.stats();
    let (b, p) = (
        s.batches.load(std::sync::atomic::Ordering::Relaxed),
        s.pairs.load(std::sync::atomic::Ordering::Relaxed),
    );
    println!(
        "  mean batch size {:.1} ({p} Checks in {b} batches)",
        p as f64 / b.max(1) as f64
    );
    drop(batched);

    // 3. Unbatched: same engine, max batch 1.
    let unbatched = ScoringEngine::with_scorer(Scorer::load(&config)?, 1, Duration::ZERO, 1024);
    let per_caller = (checks / 32).max(2);
    let (lat, wall) = run_callers(&unbatched.shared(), &pairs, 32, per_caller).await;
    let rate = lat.len() as f64 / wall.as_secs_f64();
    let batched32 = throughput
        .iter()
        .find(|(c, _)| *c == 32)
        .map(|x| x.1)
        .unwrap_or(f64::NAN);
    println!("\nengine unbatched (max batch 1), 32 callers: Check p50 {:.1} ms, p95 {:.1} ms, {rate:.1} Checks/s", percentile(&lat, 0.5), percentile(&lat, 0.95));
    println!(
        "throughput at 32 callers, batched / unbatched = {:.2}x (goal >= 3x)",
        batched32 / rate
    );
    Ok(())
}
