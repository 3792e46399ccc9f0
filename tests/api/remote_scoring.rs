//! Checks scored on a real Triton (nvidia-pytriton serving the test's Check models) through the whole app,
//! with the fallback on: the server is SIGKILLed while writers are Checking. Every stored attempt
//! is a score that came back (equal to the in-process engine's for its text), each records who
//! scored it, nothing is stored for a Check that was answered "busy", and the engine takes over.
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use app::ml::PairScorer;
use reqwest::StatusCode;
use server::ml::config::MlConfig;
use server::ml::remote::config::{Fallback, RemoteConfig};
use server::ml::ScoringEngine;
use sqlx::PgPool;

use crate::apt::{campaign, check, next};
use crate::helpers::spawn_app_scoring_with;
#[path = "../ml/support.rs"]
#[allow(dead_code)]
mod ml_support;
#[path = "../ml/triton.rs"]
mod triton;

const SOURCES: [&str; 6] = [
    "A man is playing a guitar on the stage.",
    "Stocks fell sharply on Monday after the report.",
    "The committee approved the new budget yesterday.",
    "Two years later, the insurance coverage would begin.",
    "The children were playing football in the park.",
    "Heavy rain closed several roads in the north.",
];

const REWRITES: [&str; 4] = [
    "Someone performs music with an instrument",
    "It happened in a completely different way",
    "People say this was expected for a while",
    "Nobody could have guessed the outcome",
];

#[sqlx::test(migrations = "../migrations")]
async fn a_killed_inference_server_stores_only_scores_that_came_back_and_the_engine_takes_over(
    pool: PgPool,
) {
    let what = "api::remote_scoring::a_killed_inference_server_stores_only_scores_that_came_back";
    let Some(models) = ml_support::pair_models(what) else {
        return;
    };
    let Some(python) = triton::python(what) else {
        return;
    };
    let (mi, bleurt) = (models.mi.clone(), models.bleurt.clone());
    let mut triton = triton::Triton::start(&python, triton::Serve::checks(&mi, &bleurt)).await;
    // Room for all six writers while the engine scores in Triton's place.
    let config = MlConfig {
        queue_capacity: 64,
        ..models.config()
    };
    let engine = tokio::task::spawn_blocking(move || ScoringEngine::start(&config))
        .await
        .unwrap()
        .unwrap();
    let mut remote = RemoteConfig::new(triton.url());
    remote.fallback = Fallback::Local;
    remote.probe_every = Duration::from_millis(200);
    remote.deadline = Duration::from_secs(30);
    let scorer = server::ml::remote::startup::scorer(&remote, engine.clone())
        .await
        .unwrap();
    let app = spawn_app_scoring_with(pool.clone(), scorer.clone()).await;
    let app = Arc::new(app);
    let (admin, _) = app.user_with_role("admin").await;
    let tsv = format!("text\n{}\n", SOURCES.join("\n"));
    let id = campaign(&app, &admin, 2000, &tsv).await;

    // Six writers Check in a loop; the server is killed under them.
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..6 {
        let (client, _) = app.annotator().await;
        let task = next(&app, &client, &id).await;
        let source = task["Write"]["source_id"].as_str().unwrap().to_owned();
        let (app, id, stop) = (app.clone(), id.clone(), stop.clone());
        writers.push(tokio::spawn(async move {
            let mut acknowledged = BTreeMap::new();
            let mut busy = 0;
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                let text = format!("{} (take {w}-{n})", REWRITES[n % REWRITES.len()]);
                n += 1;
                let resp = check(&app, &client, &id, &source, &text).await;
                match resp.status() {
                    StatusCode::OK => {
                        let body: serde_json::Value = resp.json().await.unwrap();
                        acknowledged.insert(body["attempt_id"].as_str().unwrap().to_owned(), text);
                    }
                    StatusCode::SERVICE_UNAVAILABLE => busy += 1,
                    other => panic!("{other}: {}", resp.text().await.unwrap()),
                }
            }
            (acknowledged, busy)
        }));
    }
    tokio::time::sleep(Duration::from_millis(2000)).await;
    triton.kill();
    tokio::time::sleep(Duration::from_millis(2000)).await;
    stop.store(true, Ordering::SeqCst);
    let mut acknowledged = BTreeMap::new();
    let mut busy = 0;
    for w in writers {
        let (a, b) = w.await.unwrap();
        acknowledged.extend(a);
        busy += b;
    }

    // Stored = acknowledged, exactly.
    type Row = (String, String, String, String, Vec<f32>, Vec<f32>, f32);
    let rows: Vec<Row> = sqlx::query_as(
        "select a.apt_attempt_id::text, s.text, a.text, a.served_by, a.forward_probs,
                a.backward_probs, a.bleurt_forward
         from apt_attempt a join source_sentence s using (source_sentence_id)",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let stored: BTreeSet<&String> = rows.iter().map(|r| &r.0).collect();
    let acked: BTreeSet<&String> = acknowledged.keys().collect();
    assert_eq!(
        stored, acked,
        "every stored attempt was acknowledged, and every acknowledged one stored"
    );

    // Every stored score is the models' score of that text (whoever computed it).
    let mut by = BTreeMap::<String, usize>::new();
    for (id, source, text, served_by, forward, backward, bleurt_forward) in &rows {
        let want = engine.score(source.clone(), text.clone()).await.unwrap();
        let close = |a: &[f32], b: &[f32]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-5)
        };
        assert!(
            close(forward, &want.forward_probs)
                && close(backward, &want.backward_probs)
                && (bleurt_forward - want.bleurt_forward).abs() <= 1e-5,
            "attempt {id} ({served_by}) holds a score that is not its text's"
        );
        *by.entry(served_by.clone()).or_default() += 1;
    }
    eprintln!(
        "{} Checks acknowledged ({by:?}), {busy} answered busy",
        acknowledged.len()
    );
    assert!(
        by.get("inference_server").copied().unwrap_or(0) > 0,
        "{by:?}"
    );
    assert!(
        by.get("in_process").copied().unwrap_or(0) > 0,
        "the engine took over after the kill: {by:?}"
    );
    let load = scorer.load().unwrap().remote.unwrap();
    assert!(!load.up, "{load:?}");
    assert!(load.fallbacks > 0 && load.failures > 0, "{load:?}");
    let metrics = app::metrics::render(&app::metrics::snapshot(scorer.load()));
    assert!(
        metrics.contains("paracrowd_scoring_remote_up 0"),
        "{metrics}"
    );
    if let Ok(app) = Arc::try_unwrap(app) {
        app.stop().await;
    }
}
