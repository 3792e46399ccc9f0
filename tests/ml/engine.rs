//! The engine: dynamic batching gives the same scores as one pair at a time, and a burst beyond
//! the queue bound is refused at once while the rest are scored.
use std::time::Duration;

use app::ml::{PairScorer, ScoreError};
use server::ml::{Scorer, ScoringEngine};

use crate::support::pair_models;

const PAIRS: [(&str, &str); 6] = [
    (
        "A man is playing a guitar.",
        "A person is playing an instrument.",
    ),
    ("The cat sat on the mat.", "The dog sat on the mat."),
    (
        "Two years later, the insurance coverage would begin.",
        "The insurance will start in two years.",
    ),
    (
        "The weather is lovely today.",
        "It is raining heavily today.",
    ),
    (
        "A soccer game with multiple males playing.",
        "Some men are playing a sport.",
    ),
    (
        "Stocks fell sharply on Monday.",
        "On Monday, share prices dropped a lot.",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_checks_are_batched_and_score_as_if_alone() {
    let Some(models) =
        pair_models("ml::engine::concurrent_checks_are_batched_and_score_as_if_alone")
    else {
        return;
    };
    let cfg = models.config();
    let mut alone = Scorer::load(&cfg).unwrap();
    let expected: Vec<_> = PAIRS
        .iter()
        .map(|p| alone.score_pairs(&[*p]).unwrap().remove(0))
        .collect();
    // A long wait makes the worker gather the concurrent requests into batches.
    let engine = ScoringEngine::with_scorer(
        Scorer::load(&cfg).unwrap(),
        8,
        Duration::from_millis(50),
        64,
    );

    let calls = PAIRS
        .iter()
        .map(|(a, b)| engine.score(a.to_string(), b.to_string()));
    let results = futures::future::join_all(calls).await;

    for (got, want) in results.into_iter().zip(&expected) {
        let got = got.unwrap();
        assert_eq!(got.is_mutual_implication, want.is_mutual_implication);
        for (x, y) in got.forward_probs.iter().zip(&want.forward_probs) {
            assert!((x - y).abs() < 1e-4);
        }
        assert!((got.bleurt - want.bleurt).abs() < 1e-4);
        assert!(got.latency_ms > 0.0);
    }
    let stats = engine.stats();
    let batches = stats.batches.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        stats.pairs.load(std::sync::atomic::Ordering::Relaxed),
        PAIRS.len() as u64
    );
    assert!(
        batches < PAIRS.len() as u64,
        "{batches} batches for {} concurrent calls",
        PAIRS.len()
    );
    // What `/metrics` shows is the same count.
    let load = app::ml::PairScorer::load(&engine).expect("the engine counts its load");
    assert_eq!(
        (load.batches, load.pairs, load.queue_depth),
        (batches, PAIRS.len() as u64, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_beyond_the_queue_is_refused_at_once_and_the_rest_are_scored() {
    let Some(models) = pair_models(
        "ml::engine::a_burst_beyond_the_queue_is_refused_at_once_and_the_rest_are_scored",
    ) else {
        return;
    };
    let cfg = models.config();
    let queue = 4;
    let engine = ScoringEngine::with_scorer(
        Scorer::load(&cfg).unwrap(),
        2,
        Duration::from_millis(1),
        queue,
    );

    // 40 submissions in one go: no await between them, so the worker can take at most a couple.
    let mut accepted = Vec::new();
    let mut busy = 0u64;
    let mut refused_at_the_door = 0u64;
    assert_eq!(engine.admit(), Ok(()));
    for i in 0..40 {
        let (a, b) = PAIRS[i % PAIRS.len()];
        match engine.submit(a.to_owned(), b.to_owned()) {
            Ok(rx) => accepted.push(rx),
            Err(ScoreError::Busy) => busy += 1,
            Err(e) => panic!("unexpected {e}"),
        }
        // What a Check asks before any other work; a refusal counts as a busy answer.
        if engine.admit() == Err(ScoreError::Busy) {
            refused_at_the_door += 1;
        }
    }
    assert!(
        refused_at_the_door > 0,
        "admit never refused while submissions were refused"
    );

    assert!(busy >= (40 - queue - 4) as u64, "{busy} busy answers");
    assert!(accepted.len() >= queue, "{} accepted", accepted.len());
    for rx in accepted {
        let scores = rx.await.unwrap().unwrap();
        assert!(scores.bleurt.is_finite());
    }
    assert_eq!(
        engine
            .stats()
            .busy
            .load(std::sync::atomic::Ordering::Relaxed),
        busy + refused_at_the_door
    );
    // After the burst the engine accepts work again.
    assert_eq!(engine.admit(), Ok(()));
    assert!(engine
        .score(PAIRS[0].0.into(), PAIRS[0].1.into())
        .await
        .is_ok());
}

/// Each thread's nice value, by thread id, from `/proc/self/task`.
fn thread_nice_values() -> std::collections::BTreeMap<u32, i32> {
    let mut out = std::collections::BTreeMap::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(tid) = task.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue; // the thread ended meanwhile
        };
        // Fields after the command name (which may hold spaces) start at field 3; nice is 19.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let nice = rest.split(' ').nth(16).unwrap().parse().unwrap();
        out.insert(tid, nice);
    }
    out
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_models_run_below_the_callers_priority_and_still_score() {
    let Some(models) =
        pair_models("ml::engine::the_models_run_below_the_callers_priority_and_still_score")
    else {
        return;
    };
    let mut cfg = models.config();
    cfg.intra_threads = 3;
    cfg.nice = 13;
    let own = server::ml::priority::this_thread_nice().unwrap();
    let before = thread_nice_values();
    let engine = ScoringEngine::start(&cfg).unwrap();
    let after = thread_nice_values();
    let lowered = after
        .iter()
        .filter(|(tid, nice)| !before.contains_key(tid) && **nice == 13)
        .count();
    // The engine's thread, and ONNX Runtime's intra-op pool of each of the two models (three
    // threads each: the calling thread and two of its own).
    assert!(lowered >= 5, "{lowered} new threads at nice 13: {after:?}");
    assert_eq!(server::ml::priority::this_thread_nice().unwrap(), own);
    let scores = engine
        .score(PAIRS[0].0.into(), PAIRS[0].1.into())
        .await
        .unwrap();
    assert!(scores.bleurt.is_finite());
}
