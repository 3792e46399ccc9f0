//! SIGKILL in the middle of load: the real binary (real models) under simulated annotators is
//! killed, restarted on the same port and database, and the load goes on. Nothing acknowledged
//! is lost or stored twice, the dead process's leases run out and give their slots back, the
//! mining run it was doing is taken over by the restarted process, and workers continue where
//! they were.
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use paracrowd_load::{self as load, setup::Plan, LoadConfig};
use sqlx::PgPool;

use crate::cli::{url_of, BIN};
use crate::helpers::{healthy, post_api as post, Process};

fn start_server(database_url: &str, port: u16) -> Process {
    Process(
        Command::new(BIN)
            .arg("serve")
            .env("DATABASE_URL", database_url)
            .env("PARACROWD_ADDR", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "error")
            // A run whose server stopped beating is taken over after 2 s.
            .env("PARACROWD_JOB_TIMEOUT_SECS", "2")
            // Every simulated annotator (and a burst of 500) comes from loopback.
            .env("PARACROWD_CONNECTION_SHARE_EXEMPT", "127.0.0.0/8")
            .env("PARACROWD_RATE_REGISTRATIONS", "100000/60")
            // The simulated annotators answer as fast as the server lets them.
            .env("PARACROWD_RATE_CALLS", "100000000/60")
            .env("PARACROWD_RATE_ANONYMOUS_CALLS", "100000000/60")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// The release binary with the real models on the test's database and a free port:
/// (server, database URL, port, base URL); `None` (skipped) without ONNX Runtime.
async fn serve_with_models(pool: &PgPool) -> Option<(Process, String, u16, String)> {
    if !crate::helpers::binary_can_load_models("api::crash (the release binary with its models)") {
        return None;
    }
    let url = url_of(pool);
    let port = crate::helpers::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let server = start_server(&url, port);
    healthy(&base).await;
    Some((server, url, port, base))
}

#[sqlx::test(migrations = "../migrations")]
async fn a_server_killed_under_load_loses_nothing_and_workers_carry_on(pool: PgPool) {
    let Some((mut server, url, port, base)) = serve_with_models(&pool).await else {
        return;
    };

    let plan = Plan {
        judges: 24,
        writers: 4,
        pairs: 400,
        sources: 200,
        test_pairs: 0,
        lease_seconds: 30,
    };
    let mut prepared = load::prepare(&base, &pool, &plan).await.unwrap();
    // Two more workers, outside the load, to see that they continue where they were.
    let judge_probe = prepared.judges.pop().unwrap();
    let writer_probe = prepared.writers.pop().unwrap();
    let judge = prepared.judge_campaign.clone();
    let apt = prepared.apt_campaign.clone();
    // A long mining run.
    let corpus = post(
        &prepared.admin,
        &base,
        "admin/import_corpus",
        &[
            ("name", "big"),
            ("filename", "big.txt"),
            ("content", &crate::mining::random_cluster(40_000, 20, 3000)),
            ("shape", "sentences"),
        ],
    )
    .await;
    let run = post(
        &prepared.admin,
        &base,
        "admin/start_mining",
        &[
            ("corpus_id", corpus["corpus_id"].as_str().unwrap()),
            ("method", "l12"),
        ],
    )
    .await;
    let run = run.as_str().unwrap().to_owned();

    let before = post(
        &judge_probe,
        &base,
        "judge/next",
        &[("campaign_id", &judge)],
    )
    .await;
    let held = before["Judge"]["assignment_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = post(&writer_probe, &base, "apt/next", &[("campaign_id", &apt)]).await;
    let writing = before["Write"]["source_id"].as_str().unwrap().to_owned();
    let config = LoadConfig {
        base_url: base.clone(),
        duration: Duration::from_secs(12),
        think: Duration::ZERO,
        rate: None,
    };
    let load = {
        let prepared = prepared.clone();
        tokio::spawn(async move { load::run(&prepared, &config).await.unwrap() })
    };
    // In the middle of the load: judgments and Checks are coming in.
    crate::helpers::wait_until(
        "judgments and Checks under load",
        Duration::from_secs(30),
        || async {
            let (judgments, attempts): (i64, i64) = sqlx::query_as(
                "select (select count(*) from judge_judgment where campaign_id = $1::uuid),
                        (select count(*) from apt_attempt where campaign_id = $2::uuid)",
            )
            .bind(&judge)
            .bind(&apt)
            .fetch_one(&pool)
            .await
            .unwrap();
            judgments >= 200 && attempts >= 5
        },
    )
    .await;
    let (status, dead_instance): (String, String) =
        sqlx::query_as("select status, claimed_by from mining_run where run_id = $1::uuid")
            .bind(&run)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(
        status, "running",
        "the run must still be running when the server dies"
    );
    server.kill();
    let killed_at = Instant::now();
    // Leases the dead process handed out and nobody has answered yet.
    let orphaned: Vec<String> = sqlx::query_scalar(
        "select assignment_id::text from judge_assignment
         where campaign_id = $1::uuid and status = 'leased' and lease_expires_at > now()",
    )
    .bind(&judge)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(!orphaned.is_empty());
    let remaining: f64 = sqlx::query_scalar(
        "select extract(epoch from max(lease_expires_at) - now())::float8 from judge_assignment
         where assignment_id::text = any($1)",
    )
    .bind(&orphaned)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(remaining <= 30.5, "leases last 30 s: {remaining}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    server = start_server(&url, port);
    healthy(&base).await;
    // The run the dead process was doing was never finished by it: once its heartbeat is 2 s
    // old, the new process takes it over and mines it again from the start.
    let claim = || async {
        sqlx::query_as::<_, (String, String, i32)>(
            "select status, claimed_by, attempts from mining_run where run_id = $1::uuid",
        )
        .bind(&run)
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    crate::helpers::wait_until("the run taken over", Duration::from_secs(30), || async {
        claim().await.1 != dead_instance
    })
    .await;
    let (status, _, attempts) = claim().await;
    assert_eq!((status.as_str(), attempts), ("running", 2));
    // A cancel (here written as any server would) ends it on the new process.
    sqlx::query("update mining_run set cancel_requested = true where run_id = $1::uuid")
        .bind(&run)
        .execute(&pool)
        .await
        .unwrap();
    crate::helpers::wait_until("the run cancelled", Duration::from_secs(10), || async {
        claim().await.0 == "cancelled"
    })
    .await;

    let out = load.await.unwrap();

    // Nothing acknowledged lost, nothing twice.
    let check = load::verify(&pool, &prepared, &out).await.unwrap();
    eprintln!(
        "{}",
        load::render(plan.judges - 1, plan.writers - 1, &out, &check, None)
    );
    assert!(check.holds(), "{check:?}");
    assert!(check.judgments_acknowledged > 50, "{check:?}");
    assert!(check.attempts_acknowledged > 0, "{check:?}");
    assert!(
        out.errors.keys().any(|(_, kind)| kind == "connection"),
        "the workers saw the server go away: {:?}",
        out.errors
    );
    for ((endpoint, kind), n) in &out.errors {
        assert!(kind == "connection", "{endpoint} {kind}: {n}");
    }

    // Workers continue where they were, in the same session.
    let again = post(
        &judge_probe,
        &base,
        "judge/next",
        &[("campaign_id", &judge)],
    )
    .await;
    assert_eq!(again["Judge"]["assignment_id"], held.as_str(), "{again}");
    let answered = post(
        &judge_probe,
        &base,
        "judge/answer",
        &[
            ("campaign_id", &judge),
            ("assignment_id", &held),
            ("is_paraphrase", "true"),
        ],
    )
    .await;
    assert_eq!(answered["was_already_answered"], false);
    let again = post(&writer_probe, &base, "apt/next", &[("campaign_id", &apt)]).await;
    assert_eq!(again["Write"]["source_id"], writing.as_str(), "{again}");

    // The dead process's leases run out and give their slots back.
    let wait = Duration::from_secs_f64(remaining + 1.0).saturating_sub(killed_at.elapsed());
    tokio::time::sleep(wait).await;
    post(
        &judge_probe,
        &base,
        "judge/next",
        &[("campaign_id", &judge)],
    )
    .await;
    let still_leased: i64 = sqlx::query_scalar(
        "select count(*) from judge_assignment where assignment_id::text = any($1) and status = 'leased'",
    )
    .bind(&orphaned)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(still_leased, 0, "expired leases are given back");
    let inconsistent: i64 = sqlx::query_scalar(
        "select count(*) from judge_pair p where p.campaign_id = $1::uuid and p.open_slots <>
           6 - p.n_judgments - (select count(*) from judge_assignment a
                                where a.pair_id = p.pair_id and a.status = 'leased' and not a.is_test)",
    )
    .bind(&judge)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        inconsistent, 0,
        "every slot is a judgment, a live lease or open"
    );

    server.kill();
}

/// The model queue under a burst: 500 simultaneous Checks against the real models. Past the
/// queue bound they are answered "busy" at once; the rest are scored and stored; nothing else.
/// (`scripts/bench-load.sh` prints the latencies and `/health` during the burst.)
#[sqlx::test(migrations = "../migrations")]
async fn a_burst_of_500_checks_is_scored_up_to_the_queue_bound_and_the_rest_told_busy(
    pool: PgPool,
) {
    let Some((mut server, _, _, base)) = serve_with_models(&pool).await else {
        return;
    };
    let plan = Plan {
        judges: 0,
        writers: 20,
        pairs: 10,
        sources: 100,
        test_pairs: 0,
        lease_seconds: 900,
    };
    let prepared = load::prepare(&base, &pool, &plan).await.unwrap();
    let b = load::burst(&prepared, &base, 500).await.unwrap();
    eprintln!("{}", load::report::render_burst(500, &b));
    assert!(b.other.is_empty(), "{:?}", &b.other[..b.other.len().min(3)]);
    assert_eq!(b.scored.len() + b.busy.len(), 500);
    assert!(
        !b.busy.is_empty(),
        "the queue bound (64) refuses some of 500"
    );
    assert!(b.scored.len() >= 64, "{} scored", b.scored.len());
    assert_eq!(b.health_failures, 0);
    // The server timed every probe itself (read back from /metrics).
    let (_, timed) = b.health_server_within_50ms.expect("/metrics has /health");
    assert_eq!(timed as usize, b.health.len());
    let stored: i64 = sqlx::query_scalar("select count(*) from apt_attempt")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        stored as usize,
        b.scored.len(),
        "scored Checks are stored, busy ones are not"
    );
    server.kill();
}
