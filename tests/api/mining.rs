//! Mining over HTTP: import a corpus, run L12 and F2 as background jobs, read the progress,
//! cancel, restart, an interrupted run after a restart of the server, candidates and deploying
//! them to a judging campaign.
use std::time::Duration;

use reqwest::{Client, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{error_of, spawn_app, TestApp};

pub(crate) async fn json(resp: reqwest::Response) -> Value {
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    serde_json::from_str(&body).unwrap()
}

pub(crate) async fn import(
    app: &TestApp,
    admin: &Client,
    filename: &str,
    content: &str,
    shape: &str,
) -> Value {
    json(
        app.call(
            admin,
            "admin/import_corpus",
            &[
                ("name", filename),
                ("filename", filename),
                ("content", content),
                ("shape", shape),
            ],
        )
        .await,
    )
    .await
}

pub(crate) async fn start(
    app: &TestApp,
    admin: &Client,
    corpus: &str,
    form: &[(&str, &str)],
) -> String {
    let mut f = vec![("corpus_id", corpus)];
    f.extend_from_slice(form);
    json(app.call(admin, "admin/start_mining", &f).await)
        .await
        .as_str()
        .unwrap()
        .to_owned()
}

pub(crate) async fn run(app: &TestApp, admin: &Client, id: &str) -> Value {
    json(app.call(admin, "admin/mining_run", &[("run_id", id)]).await).await
}

/// Polls until the run is no longer queued or running (at most a minute).
pub(crate) async fn wait_done(app: &TestApp, admin: &Client, id: &str) -> Value {
    for _ in 0..600 {
        let r = run(app, admin, id).await;
        if !matches!(r["status"].as_str(), Some("queued" | "running")) {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("run {id} did not end");
}

/// A small news-like corpus: two clusters of documents whose first sentences are rewordings.
pub(crate) fn news_jsonl() -> String {
    let docs = [
        ("quake", "q1", "Quake\n\nA strong earthquake struck the coast of Chile on Monday morning. Officials said nobody was hurt. The shaking lasted a minute."),
        ("quake", "q2", "A powerful earthquake struck the coast of Chile on Monday. Officials said no one was hurt. Buildings swayed in the capital."),
        ("quake", "q3", "Chile was struck by a strong earthquake near its coast early Monday, officials reported. Nobody was hurt."),
        ("vote", "v1", "Parliament approved the new budget by a narrow margin on Tuesday. The opposition walked out."),
        ("vote", "v2", "Parliament approved the new budget by a slim margin on Tuesday. The opposition protested loudly."),
    ];
    docs.iter()
        .map(|(c, id, text)| serde_json::json!({"topic": c, "file": id, "text": text}).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[sqlx::test(migrations = "../migrations")]
async fn a_corpus_is_mined_with_l12_and_f2_and_candidates_deployed_once(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let corpus = import(&app, &admin, "news.jsonl", &news_jsonl(), "documents").await;
    assert_eq!(
        (corpus["clusters"].as_i64(), corpus["documents"].as_i64()),
        (Some(2), Some(5))
    );
    // The headline "Quake" is not a sentence.
    assert_eq!(corpus["sentences"], 12);
    let cid = corpus["corpus_id"].as_str().unwrap();

    let l12 = start(&app, &admin, cid, &[("method", "l12")]).await;
    let done = wait_done(&app, &admin, &l12).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert_eq!(done["done"], done["total"]);
    // quake: 8 sentences, 28 pairs; vote: 4 sentences, 6 pairs.
    assert_eq!(done["total"], 34);
    let params: Vec<(String, String)> = serde_json::from_value(done["params"].clone()).unwrap();
    assert!(
        params.contains(&("max_edit_distance".into(), "12".into())),
        "{params:?}"
    );
    let found = done["candidates"].as_i64().unwrap();
    assert!(found >= 3, "{done}");
    assert!(
        done["stats"]["self_bleu"].as_f64().unwrap() > 10.0,
        "{done}"
    );
    let sample = json(
        app.call(
            &admin,
            "admin/mining_candidates",
            &[("run_id", &l12), ("sample", "true"), ("limit", "50")],
        )
        .await,
    )
    .await;
    let sample = sample.as_array().unwrap();
    assert_eq!(sample.len() as i64, found);
    let texts: Vec<(&str, &str)> = sample
        .iter()
        .map(|c| {
            (
                c["sentence1"].as_str().unwrap(),
                c["sentence2"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        texts.contains(&(
            "Parliament approved the new budget by a narrow margin on Tuesday.",
            "Parliament approved the new budget by a slim margin on Tuesday."
        )),
        "{texts:?}"
    );
    assert!(sample
        .iter()
        .all(|c| c["edit_distance"].as_i64().unwrap() <= 12));

    let f2 = start(
        &app,
        &admin,
        cid,
        &[("method", "f2"), ("min_shared_long_words", "3")],
    )
    .await;
    let done = wait_done(&app, &admin, &f2).await;
    assert_eq!(done["status"], "finished", "{done}");
    // First two sentences: quake 3 documents x 2 = 6 leads, 12 cross pairs; vote 2 x 2, 4.
    assert_eq!(done["total"], 16);
    assert!(done["candidates"].as_i64().unwrap() >= 2, "{done}");

    // Deploy: the campaign gets the pairs once, marked with their run.
    let campaign = json(
        app.call(
            &admin,
            "admin/create_judge_campaign",
            &[
                ("title", "Mined"),
                ("instructions", ""),
                ("definition", "loose"),
                ("judgments_per_pair", "6"),
                ("test_every", "0"),
                ("min_test_accuracy", "0.85"),
                ("min_kappa", "0.2"),
                ("gate_min_judgments", "30"),
            ],
        )
        .await,
    )
    .await;
    let campaign = campaign.as_str().unwrap();
    let first = json(
        app.call(
            &admin,
            "admin/deploy_candidates",
            &[("run_id", &l12), ("campaign_id", campaign), ("limit", "2")],
        )
        .await,
    )
    .await;
    assert_eq!(
        (
            first["added"].as_u64(),
            first["already_in_campaign"].as_u64()
        ),
        (Some(2), Some(0))
    );
    let all = json(
        app.call(
            &admin,
            "admin/deploy_candidates",
            &[("run_id", &l12), ("campaign_id", campaign)],
        )
        .await,
    )
    .await;
    assert_eq!(all["added"].as_i64().unwrap(), found - 2);
    assert_eq!(all["already_in_campaign"], 2);
    let (pairs, from_run): (i64, i64) = sqlx::query_as(
        "select count(*), count(*) filter (where mining_run_id::text = $2) from judge_pair where campaign_id::text = $1",
    )
    .bind(campaign)
    .bind(&l12)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((pairs, from_run), (found, found));
    let open_slots: i64 = sqlx::query_scalar(
        "select min(open_slots)::int8 from judge_pair where campaign_id::text = $1",
    )
    .bind(campaign)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(open_slots, 6);

    // Bad requests say what is wrong and change nothing.
    let resp = app
        .call(
            &admin,
            "admin/start_mining",
            &[
                ("corpus_id", cid),
                ("method", "l12"),
                ("max_edit_distance", "0"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error_of(resp)
        .await
        .to_string()
        .contains("max_edit_distance"));
    let resp = app
        .call(
            &admin,
            "admin/start_mining",
            &[("corpus_id", cid), ("method", "magic")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let resp = app
        .call(
            &admin,
            "admin/deploy_candidates",
            &[
                ("run_id", &l12),
                ("campaign_id", campaign),
                ("min_edit_distance", "5"),
                ("max_edit_distance", "2"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let resp = app
        .call(
            &admin,
            "admin/import_corpus",
            &[
                ("name", "bad"),
                ("filename", "bad.jsonl"),
                (
                    "content",
                    "{\"topic\": \"a\", \"text\": \"Fine.\"}\n{broken",
                ),
                ("shape", "documents"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error_of(resp).await.to_string().contains("line 2"));
    let corpora: i64 = sqlx::query_scalar("select count(*) from corpus")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(corpora, 1);
    let overview = json(app.call(&admin, "admin/mining_overview", &[]).await).await;
    assert_eq!(overview["runs"].as_array().unwrap().len(), 2);
    assert_eq!(overview["campaigns"].as_array().unwrap().len(), 1);
    app.stop().await;
}

/// One cluster of `n` sentences of `words` words drawn from `vocabulary` words.
pub(crate) fn random_cluster(n: usize, words: usize, vocabulary: u64) -> String {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = String::new();
    for _ in 0..n {
        let w: Vec<String> = (0..words)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                format!("w{}", state % vocabulary)
            })
            .collect();
        out.push_str(&w.join(" "));
        out.push_str(".\n");
    }
    out
}

#[sqlx::test(migrations = "../migrations")]
async fn a_run_that_finds_too_many_candidates_fails_and_says_why(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    // 1,600 ten-word sentences over 4 words: nearly every one of the 1.28 million pairs is
    // within 12 edits.
    let corpus = import(
        &app,
        &admin,
        "loose.txt",
        &random_cluster(1600, 10, 4),
        "sentences",
    )
    .await;
    let id = start(
        &app,
        &admin,
        corpus["corpus_id"].as_str().unwrap(),
        &[("method", "l12")],
    )
    .await;
    let r = wait_done(&app, &admin, &id).await;
    assert_eq!(r["status"], "failed", "{r}");
    assert!(r["error"].as_str().unwrap().contains("too loose"), "{r}");
    assert_eq!(r["candidates"], 0);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_run_shows_progress_can_be_cancelled_and_restarted(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let corpus = import(
        &app,
        &admin,
        "big.txt",
        &random_cluster(40_000, 20, 3000),
        "sentences",
    )
    .await;
    let cid = corpus["corpus_id"].as_str().unwrap();
    let id = start(&app, &admin, cid, &[("method", "l12")]).await;
    // Progress moves while it runs.
    let mut seen = Value::Null;
    for _ in 0..300 {
        seen = run(&app, &admin, &id).await;
        if seen["status"] == "running" && seen["done"].as_i64().unwrap() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(seen["status"], "running", "{seen}");
    assert_eq!(seen["total"], 40_000i64 * 39_999 / 2);
    assert!(
        seen["rate"].as_f64().unwrap() > 0.0 && seen["seconds_left"].as_f64().is_some(),
        "{seen}"
    );
    let resp = app
        .call(&admin, "admin/restart_mining", &[("run_id", &id)])
        .await;
    assert_eq!(
        resp.status(),
        StatusCode::CONFLICT,
        "a running run cannot be restarted"
    );
    let resp = app
        .call(&admin, "admin/cancel_mining", &[("run_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let ended = wait_done(&app, &admin, &id).await;
    assert_eq!(ended["status"], "cancelled");
    assert_eq!(ended["candidates"], 0);
    let resp = app
        .call(&admin, "admin/mining_candidates", &[("run_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::CONFLICT);

    // Restarted, it runs from the start again.
    let resp = app
        .call(&admin, "admin/restart_mining", &[("run_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let mut again = Value::Null;
    for _ in 0..300 {
        again = run(&app, &admin, &id).await;
        if again["status"] == "running" && again["done"].as_i64().unwrap() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(again["status"], "running", "{again}");
    let resp = app
        .call(&admin, "admin/cancel_mining", &[("run_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(wait_done(&app, &admin, &id).await["status"], "cancelled");
    let resp = app
        .call(&admin, "admin/cancel_mining", &[("run_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::CONFLICT);
    app.stop().await;
}

/// What a killed server leaves behind: a run marked running, half done, claimed by a server
/// whose heartbeat stopped an hour ago, claimed `attempts` times.
async fn abandoned_run(pool: &PgPool, corpus: &str, attempts: i32) -> String {
    sqlx::query_scalar(
        r#"insert into mining_run (corpus_id, method, params, status, done, total, started_at,
                                   claimed_by, heartbeat_at, attempts)
           values ($1::uuid, 'l12', '{"max_edit_distance": 12, "min_length_ratio": 0.6666666666666666}',
                   'running', 17, 34, now() - interval '1 hour', 'a-dead-server',
                   now() - interval '1 hour', $2)
           returning run_id::text"#,
    )
    .bind(corpus)
    .bind(attempts)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrations = "../migrations")]
async fn a_run_left_running_by_a_dead_server_is_taken_over_and_finishes_as_on_one_server(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let corpus = import(&app, &admin, "news.jsonl", &news_jsonl(), "documents").await;
    let cid = corpus["corpus_id"].as_str().unwrap().to_owned();
    // The same run on one server, from start to end.
    let whole = start(&app, &admin, &cid, &[("method", "l12")]).await;
    let whole = wait_done(&app, &admin, &whole).await;
    assert_eq!(whole["status"], "finished", "{whole}");

    // A live server takes over the dead one's run, mines it from the start, and ends where the
    // run on one server ended.
    let run_id = abandoned_run(&pool, &cid, 1).await;
    let done = wait_done(&app, &admin, &run_id).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert_eq!(done["done"], 34);
    assert_eq!(done["candidates"], whole["candidates"]);
    let (by, attempts): (String, i32) =
        sqlx::query_as("select claimed_by, attempts from mining_run where run_id::text = $1")
            .bind(&run_id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_ne!(by, "a-dead-server");
    assert_eq!(attempts, 2);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_run_that_stopped_its_servers_three_times_is_interrupted_and_can_be_restarted(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let corpus = import(&app, &admin, "news.jsonl", &news_jsonl(), "documents").await;
    let cid = corpus["corpus_id"].as_str().unwrap().to_owned();
    let run_id = abandoned_run(&pool, &cid, 3).await;
    let r = wait_done(&app, &admin, &run_id).await;
    assert_eq!(r["status"], "interrupted", "{r}");
    assert!(
        r["error"].as_str().unwrap().contains("server stopped"),
        "{r}"
    );
    let resp = app
        .call(&admin, "admin/restart_mining", &[("run_id", &run_id)])
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let done = wait_done(&app, &admin, &run_id).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert_eq!(done["done"], 34);
    app.stop().await;
}

/// A judging campaign for mined pairs: 6 judgments a pair, no test pairs, no gate in reach.
pub(crate) async fn judging_campaign(app: &TestApp, admin: &Client) -> String {
    json(
        app.call(
            admin,
            "admin/create_judge_campaign",
            &[
                ("title", "Mined groups"),
                ("instructions", ""),
                ("definition", "loose"),
                ("judgments_per_pair", "6"),
                ("test_every", "0"),
                ("min_test_accuracy", "0.85"),
                ("min_kappa", "0.2"),
                ("gate_min_judgments", "10000"),
            ],
        )
        .await,
    )
    .await
    .as_str()
    .unwrap()
    .to_owned()
}

/// Tweets sharing a URL: `n` texts of one story, worded differently (`tag` makes them the
/// group's own).
pub(crate) fn tweets(url: &str, tag: &str, n: usize) -> Vec<String> {
    let subjects = [
        "komodo dragon genome",
        "dragon genome",
        "komodo genome",
        "the komodo dragon",
    ];
    let verbs = [
        "sequenced by scientists",
        "decoded at last",
        "mapped in full",
        "read by researchers",
    ];
    (0..n)
        .map(|i| {
            let text = format!(
                "{} {} {tag} story {i} {}",
                subjects[i % 4],
                verbs[(i / 4) % 4],
                "news ".repeat(i % 3)
            );
            serde_json::json!({"url": url, "text": text}).to_string()
        })
        .collect()
}

#[sqlx::test(migrations = "../migrations")]
async fn group_selection_deploys_a_follow_up_sized_by_the_paraphrases_judged_in_the_first_batch(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let mut lines = tweets("https://example.org/big", "today", 40);
    lines.extend(tweets("https://example.org/small", "again", 12));
    let corpus = import(&app, &admin, "tweets.jsonl", &lines.join("\n"), "grouped").await;
    assert_eq!(corpus["clusters"], 2, "{corpus}");
    let cid = corpus["corpus_id"].as_str().unwrap();
    let run_id = start(&app, &admin, cid, &[("method", "group")]).await;
    let done = wait_done(&app, &admin, &run_id).await;
    assert_eq!(done["status"], "finished", "{done}");
    let first: i64 = sqlx::query_scalar(
        "select count(*) from mining_candidate where run_id::text = $1 and batch = 1",
    )
    .bind(&run_id)
    .fetch_one(&pool)
    .await
    .unwrap();
    // Two seeds x 10 from the top 20 per group; a seed drawn by the other seed counts once.
    assert!((36..=40).contains(&first), "{first}");
    // The follow-up reserve is never listed or deployed by hand.
    let listed = json(
        app.call(
            &admin,
            "admin/mining_candidates",
            &[("run_id", &run_id), ("limit", "500")],
        )
        .await,
    )
    .await;
    assert_eq!(listed.as_array().unwrap().len() as i64, first);
    assert!(listed.as_array().unwrap().iter().all(|c| c["batch"] == 1));

    let campaign = judging_campaign(&app, &admin).await;
    let deployed = json(
        app.call(
            &admin,
            "admin/deploy_candidates",
            &[("run_id", &run_id), ("campaign_id", &campaign)],
        )
        .await,
    )
    .await;
    assert_eq!(deployed["added"].as_i64(), Some(first));
    let resp = app
        .call(
            &admin,
            "admin/set_campaign_status",
            &[("campaign_id", &campaign), ("status", "open")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);

    // The workers call 5 pairs of the big group paraphrases, and nothing else.
    let yes: std::collections::HashSet<(String, String)> = sqlx::query_as(
        r#"select sentence1, sentence2 from judge_pair
           where campaign_id::text = $1 and group_key = 'https://example.org/big'
           order by mining_candidate_id limit 5"#,
    )
    .bind(&campaign)
    .fetch_all(&pool)
    .await
    .unwrap()
    .into_iter()
    .collect();
    let choose = |task: &Value| {
        let t = &task["Judge"];
        yes.contains(&(
            t["sentence1"].as_str().unwrap().to_owned(),
            t["sentence2"].as_str().unwrap().to_owned(),
        ))
    };
    let mut workers = Vec::new();
    for _ in 0..6 {
        workers.push(app.annotator().await.0);
    }
    for w in &workers {
        crate::judge::work(&app, w, &campaign, usize::MAX, choose).await;
    }
    // The decisions are taken off the annotators' requests: wait for both groups'.
    let mut decisions: Vec<(String, i32, i32, i32)> = Vec::new();
    for _ in 0..100 {
        decisions = sqlx::query_as(
            r#"select group_key, paraphrases, pairs, deployed from mining_follow_up
               where campaign_id::text = $1 order by group_key"#,
        )
        .bind(&campaign)
        .fetch_all(&pool)
        .await
        .unwrap();
        if decisions.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        decisions,
        vec![
            ("https://example.org/big".into(), 5, 20, 20),
            ("https://example.org/small".into(), 0, 0, 0),
        ]
    );
    let (pairs, follow_ups): (i64, i64) = sqlx::query_as(
        r#"select count(*), count(*) filter (where m.batch = 2)
           from judge_pair p join mining_candidate m on m.candidate_id = p.mining_candidate_id
           where p.campaign_id::text = $1"#,
    )
    .bind(&campaign)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((pairs, follow_ups), (first + 20, 20));
    // Judging the follow-ups decides nothing more; the run's page shows the decisions.
    for w in &workers {
        crate::judge::work(&app, w, &campaign, usize::MAX, |_| true).await;
    }
    // The follow-up runs after each judgment's commit: wait for the decisions to come to rest.
    let r = crate::helpers::settled(
        "the run's follow-ups",
        Duration::from_millis(300),
        Duration::from_secs(20),
        || run(&app, &admin, &run_id),
    )
    .await;
    assert_eq!(r["follow_ups"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(r["follow_ups"][0]["deployed"], 20);
    let total: i64 =
        sqlx::query_scalar("select count(*) from judge_pair where campaign_id::text = $1")
            .bind(&campaign)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(total, first + 20);
    app.stop().await;
}

/// Whether the sentence embedding model is installed; says why not (or fails when required).
fn embedding_model_present() -> bool {
    let dir = server::ml::embedder::default_dir();
    let lib = std::env::var("ORT_DYLIB_PATH").ok();
    if dir.join("model.onnx").is_file() && lib.is_some_and(|l| std::path::Path::new(&l).is_file()) {
        return true;
    }
    let why = format!(
        "no embedding model at {} or no ORT_DYLIB_PATH",
        dir.display()
    );
    crate::shared::missing("MODELS", "api::mining (the embedding miner)", &why);
    false
}

#[sqlx::test(migrations = "../migrations")]
async fn the_embedding_miner_pairs_sections_of_a_paper_that_say_the_same(pool: PgPool) {
    if !embedding_model_present() {
        return;
    }
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    // ParaSCI §4.1.1's example: a paper (the cluster) whose sections are its documents.
    let sections = [
        ("abstract", "We propose a simple yet robust stochastic answer network (SAN) that simulates multi-step reasoning in machine reading comprehension. Our model is evaluated on two benchmarks."),
        ("introduction", "We introduce Stochastic Answer Networks (SAN), a simple yet robust model for machine reading comprehension. Reading comprehension has seen rapid progress."),
        ("results", "Table 3 lists the accuracy on the development set. The learning rate was 0.002."),
    ];
    let lines: Vec<String> = sections
        .iter()
        .map(|(id, text)| {
            serde_json::json!({"cluster": "san-paper", "id": id, "text": text}).to_string()
        })
        .collect();
    let corpus = import(&app, &admin, "paper.jsonl", &lines.join("\n"), "documents").await;
    let cid = corpus["corpus_id"].as_str().unwrap();
    // Bad parameters are named before anything runs.
    let bad = app
        .call(
            &admin,
            "admin/start_mining",
            &[
                ("corpus_id", cid),
                ("method", "embedding"),
                ("min_cosine", "1.5"),
            ],
        )
        .await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_of(bad).await["Validation"]["field"], "min_cosine");

    // The paper's 0.931 is for BERT; MiniLM's cosines run lower, so this run uses 0.8.
    let id = start(
        &app,
        &admin,
        cid,
        &[("method", "embedding"), ("min_cosine", "0.8")],
    )
    .await;
    let done = wait_done(&app, &admin, &id).await;
    assert_eq!(done["status"], "finished", "{done}");
    // 6 sentences embedded + 15 pairs compared.
    assert_eq!(
        (done["done"].as_i64(), done["total"].as_i64()),
        (Some(21), Some(21))
    );
    let params: Vec<(String, String)> = serde_json::from_value(done["params"].clone()).unwrap();
    assert!(
        params
            .iter()
            .any(|(k, v)| k == "model" && v.contains("all-minilm-l6-v2@")),
        "the model version is recorded: {params:?}"
    );
    let found = json(
        app.call(&admin, "admin/mining_candidates", &[("run_id", &id)])
            .await,
    )
    .await;
    let found = found.as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0]["sentence1"]
        .as_str()
        .unwrap()
        .starts_with("We propose a simple"));
    assert!(found[0]["sentence2"]
        .as_str()
        .unwrap()
        .starts_with("We introduce Stochastic"));
    let score = found[0]["score"].as_f64().unwrap();
    assert!((0.8..=1.0).contains(&score), "{score}");
    app.stop().await;
}

/// A deploy of more than 1,000 candidates adds nothing until confirmed with
/// the count it was shown (a limit above the count included); a smaller sample goes in at once.
#[sqlx::test(migrations = "../migrations")]
async fn deploying_all_of_a_large_run_is_confirmed_first(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    // One cluster of 50 sentences two words apart: every pair is an L12 candidate (1,225).
    let text = (1..=50)
        .map(|i| format!("Sentence {i} talks about the weather in town {i} today."))
        .collect::<Vec<_>>()
        .join(" ");
    let jsonl = serde_json::json!({"topic": "big", "file": "d1", "text": text}).to_string();
    let corpus = import(&app, &admin, "big.jsonl", &jsonl, "documents").await;
    assert_eq!(corpus["sentences"], 50, "{corpus}");
    let cid = corpus["corpus_id"].as_str().unwrap();
    let run = start(&app, &admin, cid, &[("method", "l12")]).await;
    let done = wait_done(&app, &admin, &run).await;
    assert_eq!(done["candidates"], 1225, "{done}");
    let campaign = judging_campaign(&app, &admin).await;
    let pairs = || async {
        sqlx::query_scalar::<_, i64>("select count(*) from judge_pair where campaign_id::text = $1")
            .bind(&campaign)
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    let deploy = |extra: Vec<(&'static str, &'static str)>| {
        let mut form = vec![("run_id", run.clone()), ("campaign_id", campaign.clone())];
        form.extend(extra.into_iter().map(|(k, v)| (k, v.to_owned())));
        let app = &app;
        let admin = &admin;
        async move {
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            json(app.call(admin, "admin/deploy_candidates", &form).await).await
        }
    };

    // All of them: nothing added, the count to confirm said.
    let asked = deploy(vec![]).await;
    assert_eq!(asked["needs_confirmation"], 1225, "{asked}");
    assert_eq!(asked["added"], 0);
    assert_eq!(pairs().await, 0, "nothing was added");
    // A "sample" larger than the run is all of it too.
    let asked = deploy(vec![("limit", "5000"), ("sample", "true")]).await;
    assert_eq!(asked["needs_confirmation"], 1225, "{asked}");
    // A count confirmed for another selection is not a confirmation of this one.
    let asked = deploy(vec![("confirm_count", "100")]).await;
    assert_eq!(asked["needs_confirmation"], 1225, "{asked}");
    assert_eq!(pairs().await, 0);

    let sample = deploy(vec![("limit", "100"), ("sample", "true")]).await;
    assert_eq!(
        (
            sample["added"].as_i64(),
            sample["needs_confirmation"].is_null()
        ),
        (Some(100), true)
    );
    let all = deploy(vec![("confirm_count", "1225")]).await;
    assert_eq!(
        (all["added"].as_i64(), all["already_in_campaign"].as_i64()),
        (Some(1125), Some(100)),
        "{all}"
    );
    assert_eq!(pairs().await, 1225);
}

/// Once the miner's pass is over, a run that is writing its candidates says
/// so ("saving", written of to write) instead of sitting at "running 100%"; here the writing is
/// held up by a lock on the candidate table until the test has seen that.
#[sqlx::test(migrations = "../migrations")]
async fn a_run_writing_its_candidates_says_so_with_its_own_progress(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let corpus = import(&app, &admin, "news.jsonl", &news_jsonl(), "documents").await;
    let cid = corpus["corpus_id"].as_str().unwrap();
    let mut lock = pool.begin().await.unwrap();
    sqlx::query("lock table mining_candidate in share mode")
        .execute(&mut *lock)
        .await
        .unwrap();
    let id = start(&app, &admin, cid, &[("method", "l12")]).await;
    let mut saving = Value::Null;
    for _ in 0..300 {
        let r = run(&app, &admin, &id).await;
        if !r["saving"].is_null() {
            saving = r;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(saving["status"], "running", "{saving}");
    assert_eq!(
        saving["done"], saving["total"],
        "the pass is over: {saving}"
    );
    let to_write = saving["saving"][1].as_i64().unwrap();
    assert!(to_write >= 3, "{saving}");
    assert_eq!(
        saving["saving"][0], 0,
        "nothing written while the table is locked"
    );
    lock.rollback().await.unwrap();
    let done = wait_done(&app, &admin, &id).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert!(done["saving"].is_null(), "{done}");
    assert_eq!(done["candidates"].as_i64(), Some(to_write));
}
