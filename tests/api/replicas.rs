//! Several app servers on one PostgreSQL: mining runs are jobs the database owns
//! (claimed by one server, cancelled through any, taken over when their server stops beating,
//! never touched while it beats), follow-ups go through an outbox any job server drains, and a
//! server runs web only, jobs only, or both. Each test starts two real servers on one database.
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;
use sqlx::PgPool;

use server::config::{Config, Role};

use crate::helpers::{client, spawn_app_with_config, wait_until, TestApp};
use crate::mining::{import, json, random_cluster, run, start, wait_done};

fn config(role: Role, job_timeout: Duration) -> Config {
    Config {
        role,
        job_timeout,
        ..Config::for_tests(String::new())
    }
}

async fn status(pool: &PgPool, run_id: &str) -> (String, Option<String>) {
    sqlx::query_as("select status, claimed_by from mining_run where run_id::text = $1")
        .bind(run_id)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// A run that takes many seconds: 40,000 twenty-word sentences in one cluster, by l12.
async fn long_run(app: &TestApp, admin: &reqwest::Client) -> String {
    let corpus = import(
        app,
        admin,
        "big.txt",
        &random_cluster(40_000, 20, 3000),
        "sentences",
    )
    .await;
    start(
        app,
        admin,
        corpus["corpus_id"].as_str().unwrap(),
        &[("method", "l12")],
    )
    .await
}

#[sqlx::test(migrations = "../migrations")]
async fn a_cancel_sent_to_one_server_stops_the_run_on_another_within_a_second(pool: PgPool) {
    // A serves pages only; B runs the jobs.
    let a = spawn_app_with_config(pool.clone(), config(Role::Web, Duration::from_secs(10))).await;
    let b = spawn_app_with_config(pool.clone(), config(Role::Jobs, Duration::from_secs(10))).await;
    let (admin, _) = a.user_with_role("admin").await;
    let id = long_run(&a, &admin).await;
    let mut seen = Value::Null;
    for _ in 0..300 {
        seen = run(&a, &admin, &id).await;
        if seen["status"] == "running" && seen["done"].as_i64().unwrap() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(seen["status"], "running", "B claimed it: {seen}");

    let asked = Instant::now();
    let resp = a
        .call(&admin, "admin/cancel_mining", &[("run_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let ended = wait_done(&a, &admin, &id).await;
    let took = asked.elapsed();
    eprintln!(
        "cancel through A ended the run on B in {} ms",
        took.as_millis()
    );
    assert_eq!(ended["status"], "cancelled", "{ended}");
    assert_eq!(ended["candidates"], 0);
    // One heartbeat (0.5 s) and the miner's next look at its flag; 1 s on a loaded test machine.
    assert!(took < Duration::from_millis(1500), "{took:?}");
    // Nothing finishes a cancelled run afterwards.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(status(&pool, &id).await.0, "cancelled");
    a.stop().await;
    b.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_beating_server_keeps_its_run_and_a_stopped_one_loses_it_to_a_live_one(pool: PgPool) {
    let timeout = Duration::from_secs(1);
    let app = spawn_app_with_config(pool.clone(), config(Role::Both, timeout)).await;
    let (admin, _) = app.user_with_role("admin").await;
    let corpus = import(
        &app,
        &admin,
        "news.jsonl",
        &crate::mining::news_jsonl(),
        "documents",
    )
    .await;
    let cid = corpus["corpus_id"].as_str().unwrap().to_owned();
    // Another server is mining this run and beats every 200 ms: three job timeouts pass, and
    // the run stays its own (a server starting or looking for work never touches it).
    let run_id: String = sqlx::query_scalar(
        r#"insert into mining_run (corpus_id, method, params, status, started_at, claimed_by,
                                   heartbeat_at, attempts)
           values ($1::uuid, 'l12', '{"max_edit_distance": 12, "min_length_ratio": 0.6666666666666666}',
                   'running', now(), 'the-other-server', now(), 1)
           returning run_id::text"#,
    )
    .bind(&cid)
    .fetch_one(&pool)
    .await
    .unwrap();
    let beating = Instant::now();
    // A second server starts (a restart, a rolling deploy) while the other one beats.
    let restarted = spawn_app_with_config(pool.clone(), config(Role::Both, timeout)).await;
    while beating.elapsed() < timeout * 3 {
        sqlx::query("update mining_run set heartbeat_at = now() where run_id::text = $1")
            .bind(&run_id)
            .execute(&pool)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        status(&pool, &run_id).await,
        ("running".to_owned(), Some("the-other-server".to_owned()))
    );
    // It stops beating (killed): after the timeout this server takes the run over and ends it.
    let stopped = Instant::now();
    wait_until("the run taken over", Duration::from_secs(20), || async {
        status(&pool, &run_id).await.1.as_deref() != Some("the-other-server")
    })
    .await;
    eprintln!(
        "taken over {} ms after the last heartbeat (job timeout {} ms, poll 1 s)",
        stopped.elapsed().as_millis(),
        timeout.as_millis()
    );
    let done = wait_done(&app, &admin, &run_id).await;
    assert_eq!(done["status"], "finished", "{done}");
    app.stop().await;
    restarted.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_web_only_server_queues_runs_and_a_jobs_server_runs_them(pool: PgPool) {
    let web = spawn_app_with_config(pool.clone(), config(Role::Web, Duration::from_secs(10))).await;
    let (admin, _) = web.user_with_role("admin").await;
    let corpus = import(
        &web,
        &admin,
        "news.jsonl",
        &crate::mining::news_jsonl(),
        "documents",
    )
    .await;
    let id = start(
        &web,
        &admin,
        corpus["corpus_id"].as_str().unwrap(),
        &[("method", "l12")],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(run(&web, &admin, &id).await["status"], "queued");

    let jobs =
        spawn_app_with_config(pool.clone(), config(Role::Jobs, Duration::from_secs(10))).await;
    // A jobs server answers health checks and metrics, and serves no pages.
    assert_eq!(
        jobs.get(&client(), "/health").await.status(),
        StatusCode::OK
    );
    assert_eq!(
        jobs.get(&client(), "/metrics").await.status(),
        StatusCode::OK
    );
    assert_eq!(
        jobs.get(&client(), "/login").await.status(),
        StatusCode::NOT_FOUND
    );
    let done = wait_done(&web, &admin, &id).await;
    assert_eq!(done["status"], "finished", "{done}");
    assert!(done["candidates"].as_i64().unwrap() > 0, "{done}");
    web.stop().await;
    jobs.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn follow_ups_committed_with_judgments_are_done_by_whichever_server_runs_jobs(pool: PgPool) {
    // Judgments go through a web-only server, which does no follow-ups: what it committed
    // waits in the outbox, as it would after that server died.
    let web = spawn_app_with_config(pool.clone(), config(Role::Web, Duration::from_secs(10))).await;
    let both = crate::helpers::spawn_app(pool.clone()).await;
    let (admin, _) = web.user_with_role("admin").await;
    let mut lines = crate::mining::tweets("https://example.org/big", "today", 40);
    lines.extend(crate::mining::tweets(
        "https://example.org/small",
        "again",
        12,
    ));
    let corpus = import(&web, &admin, "tweets.jsonl", &lines.join("\n"), "grouped").await;
    let cid = corpus["corpus_id"].as_str().unwrap();
    // The run itself is mined by the other server (the web one runs no jobs).
    let run_id = start(&web, &admin, cid, &[("method", "group")]).await;
    assert_eq!(wait_done(&web, &admin, &run_id).await["status"], "finished");
    both.stop().await;

    let campaign = crate::mining::judging_campaign(&web, &admin).await;
    json(
        web.call(
            &admin,
            "admin/deploy_candidates",
            &[("run_id", &run_id), ("campaign_id", &campaign)],
        )
        .await,
    )
    .await;
    let resp = web
        .call(
            &admin,
            "admin/set_campaign_status",
            &[("campaign_id", &campaign), ("status", "open")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    for _ in 0..6 {
        let (w, _) = web.annotator().await;
        crate::judge::work(&web, &w, &campaign, usize::MAX, |_| false).await;
    }
    let count = |sql: &'static str| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    let waiting = count("select count(*) from follow_up_outbox").await;
    assert!(waiting > 0, "every completed pair left its row");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(count("select count(*) from mining_follow_up").await, 0);

    // A server that runs jobs comes up and does them: both groups decided, the outbox empty.
    let jobs =
        spawn_app_with_config(pool.clone(), config(Role::Jobs, Duration::from_secs(10))).await;
    wait_until("the follow-ups done", Duration::from_secs(20), || async {
        count("select count(*) from follow_up_outbox").await == 0
    })
    .await;
    let decisions: Vec<(String, i32, i32)> = sqlx::query_as(
        "select group_key, paraphrases, pairs from mining_follow_up order by group_key",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        decisions,
        vec![
            ("https://example.org/big".into(), 0, 0),
            ("https://example.org/small".into(), 0, 0),
        ]
    );
    web.stop().await;
    jobs.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_judgment_through_one_server_makes_the_others_dashboard_stale_then_current(pool: PgPool) {
    use crate::judge::{campaign, judge_report, pairs_csv, truth, work, Setup};
    let a = crate::helpers::spawn_app(pool.clone()).await;
    let b = crate::helpers::spawn_app(pool.clone()).await;
    let (admin, _) = a.user_with_role("admin").await;
    let id = campaign(&a, &admin, Setup::pairs(&pairs_csv(4))).await;
    let (researcher, _) = a.user_with_role("researcher").await;
    let (first, _) = a.annotator().await;
    work(&a, &first, &id, 4, truth).await;
    // Computed once, through B; A serves the same numbers, computed at the same moment.
    let on_b = judge_report(&b, &researcher, &id).await;
    let on_a = judge_report(&a, &researcher, &id).await;
    assert_eq!(on_b["stale"], false);
    assert_eq!(
        (&on_a["computed_at"], &on_a["stale"]),
        (&on_b["computed_at"], &serde_json::json!(false))
    );
    // Judgments through A: B's next load says its numbers are stale, then has them.
    let (second, _) = a.annotator().await;
    work(&a, &second, &id, 2, truth).await;
    let stale = judge_report(&b, &researcher, &id).await;
    assert_eq!(stale["stale"], true, "{stale}");
    assert_eq!(stale["agreement"]["judgments"], 4);
    let mut fresh = stale;
    for _ in 0..100 {
        fresh = judge_report(&b, &researcher, &id).await;
        if fresh["stale"] == false {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(fresh["stale"], false, "{fresh}");
    assert_eq!(fresh["agreement"]["judgments"], 6);
    let again_a = judge_report(&a, &researcher, &id).await;
    assert_eq!(again_a["computed_at"], fresh["computed_at"]);
    assert_eq!(
        sqlx::query_scalar::<_, i64>("select count(*) from judge_dashboard")
            .fetch_one(&pool)
            .await
            .unwrap(),
        1
    );
    a.stop().await;
    b.stop().await;
}
