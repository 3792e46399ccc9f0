//! Several servers as deployed, on this machine: PostgreSQL, two release servers on two ports
//! (`PARACROWD_REPLICA=true`), HAProxy in front checking `/health`, and the load tool pointed at
//! HAProxy. Before the load: wrong passwords spread over both servers count once; a judgment
//! through A makes B's dashboard stale, then current; a cancel sent to the server that is not
//! mining a run stops it within a second. In the middle of the load and of a mining run, the
//! server mining the run gets SIGKILL: no acknowledged judgment or attempt is lost or stored
//! twice, the workers carry on through the survivor, and the survivor takes the run over once
//! its heartbeat is stale and finishes it with the same candidate count as a run on one server.
//! The killed server then starts again and leaves the survivor's next run alone.
use std::process::{Command, Stdio};
use std::time::Duration;

use paracrowd_load::{self as load, setup::Plan, LoadConfig};
use sqlx::PgPool;

use crate::cli::{url_of, BIN};
use crate::helpers::{call_api as call, healthy, post_api as post, Process};

const HAPROXY: &str = "/usr/sbin/haproxy";

fn replica(database_url: &str, port: u16) -> Process {
    Process(
        Command::new(BIN)
            .arg("serve")
            .env("DATABASE_URL", database_url)
            .env("PARACROWD_ADDR", format!("127.0.0.1:{port}"))
            .env("PARACROWD_REPLICA", "true")
            .env("PARACROWD_JOB_TIMEOUT_SECS", "2")
            // HAProxy, in front, connects from loopback for every client.
            .env("PARACROWD_CONNECTION_SHARE_EXEMPT", "127.0.0.1")
            // Every simulated annotator registers from loopback.
            .env("PARACROWD_RATE_REGISTRATIONS", "100000/60")
            // The simulated annotators answer as fast as the server lets them.
            .env("PARACROWD_RATE_CALLS", "100000000/60")
            .env("PARACROWD_RATE_ANONYMOUS_CALLS", "100000000/60")
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// HAProxy on `front`, balancing over `backends` and checking each one's `/health`.
fn haproxy(dir: &std::path::Path, front: u16, backends: &[u16]) -> Process {
    let servers: String = backends
        .iter()
        .enumerate()
        .map(|(i, p)| format!("    server app{i} 127.0.0.1:{p} check\n"))
        .collect();
    let cfg = format!(
        "global\n    maxconn 4096\n\
         defaults\n    mode http\n    timeout connect 2s\n    timeout check 3s\n    timeout client 60s\n    timeout server 60s\n\
         \x20   retries 3\n    option redispatch\n    retry-on conn-failure\n\
         frontend front\n    bind 127.0.0.1:{front}\n    default_backend app\n\
         backend app\n    balance roundrobin\n    option httpchk GET /health\n\
         \x20   http-check expect status 200\n    default-server inter 500ms fall 3 rise 2\n{servers}"
    );
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, cfg).unwrap();
    Process(
        Command::new(HAPROXY)
            .args(["-db", "-f"])
            .arg(&path)
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// Whether HAProxy is here; says why not (or fails where the test command installed it).
fn haproxy_present() -> bool {
    if std::path::Path::new(HAPROXY).is_file() {
        return true;
    }
    crate::shared::missing(
        "HAPROXY",
        "api::replicas_haproxy::two_replicas_behind_haproxy",
        &format!("no {HAPROXY} (scripts/setup.sh --test installs it)"),
    );
    false
}

async fn run_status(pool: &PgPool, run: &str) -> (String, Option<String>, i32, i32) {
    sqlx::query_as(
        "select status, claimed_by, attempts, candidates from mining_run where run_id = $1::uuid",
    )
    .bind(run)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrations = "../migrations")]
async fn two_replicas_behind_haproxy_lose_nothing_when_one_is_killed(pool: PgPool) {
    if !crate::helpers::binary_can_load_models("api::replicas_haproxy::two_replicas_behind_haproxy")
        || !haproxy_present()
    {
        return;
    }
    let url = url_of(&pool);
    let (pa, pb, front) = (
        crate::helpers::free_port(),
        crate::helpers::free_port(),
        crate::helpers::free_port(),
    );
    let mut servers = vec![replica(&url, pa), replica(&url, pb)];
    let pids: Vec<u32> = servers.iter().map(|s| s.0.id()).collect();
    healthy(&format!("http://127.0.0.1:{pa}")).await;
    healthy(&format!("http://127.0.0.1:{pb}")).await;
    let dir = tempfile::tempdir().unwrap();
    let _balancer = haproxy(dir.path(), front, &[pa, pb]);
    let base = format!("http://127.0.0.1:{front}");
    healthy(&base).await;

    let plan = Plan {
        judges: 24,
        writers: 4,
        pairs: 400,
        sources: 200,
        test_pairs: 0,
        lease_seconds: 30,
    };
    let mut prepared = load::prepare(&base, &pool, &plan).await.unwrap();
    let (on_a, on_b) = (
        format!("http://127.0.0.1:{pa}"),
        format!("http://127.0.0.1:{pb}"),
    );

    // Three wrong passwords, through both servers: the next try waits on both, as three
    // failures on one server would make it (the counts are PostgreSQL's, not each process's).
    let owner = "replica_owner";
    let password = crate::helpers::PASSWORD;
    let registered = call(
        &reqwest::Client::new(),
        &on_a,
        "register",
        &[
            ("username", owner),
            ("password", password),
            ("password_confirmation", password),
        ],
    )
    .await;
    assert!(registered.status().is_success());
    for (i, server) in [&on_a, &on_b, &on_a].into_iter().enumerate() {
        let wrong = call(
            &reqwest::Client::new(),
            server,
            "login",
            &[("username", owner), ("password", "wrong password")],
        )
        .await;
        assert_eq!(wrong.status(), reqwest::StatusCode::UNAUTHORIZED, "try {i}");
    }
    for server in [&on_a, &on_b] {
        let right = call(
            &reqwest::Client::new(),
            server,
            "login",
            &[("username", owner), ("password", password)],
        )
        .await;
        assert_eq!(
            right.status(),
            reqwest::StatusCode::TOO_MANY_REQUESTS,
            "{server}"
        );
    }

    // The dashboard computed through B; a judgment through A makes B's stale, then current,
    // with the same "computed at" on both.
    let judge = prepared.judges.pop().unwrap();
    let campaign = prepared.judge_campaign.clone();
    let report = |server: String| {
        let (admin, campaign) = (prepared.admin.clone(), campaign.clone());
        async move {
            post(
                &admin,
                &server,
                "research/judge_report",
                &[("campaign_id", &campaign)],
            )
            .await
        }
    };
    assert_eq!(report(on_b.clone()).await["stale"], false);
    let task = post(&judge, &on_a, "judge/next", &[("campaign_id", &campaign)]).await;
    let assignment = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
    post(
        &judge,
        &on_a,
        "judge/answer",
        &[
            ("campaign_id", &campaign),
            ("assignment_id", &assignment),
            ("is_paraphrase", "true"),
        ],
    )
    .await;
    assert_eq!(report(on_b.clone()).await["stale"], true);
    let mut current = serde_json::Value::Null;
    for _ in 0..100 {
        current = report(on_b.clone()).await;
        if current["stale"] == false {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(current["stale"], false, "{current}");
    assert_eq!(current["agreement"]["judgments"], 1);
    assert_eq!(
        report(on_a.clone()).await["computed_at"],
        current["computed_at"]
    );
    let corpus = post(
        &prepared.admin,
        &base,
        "admin/import_corpus",
        &[
            ("name", "big"),
            ("filename", "big.txt"),
            ("content", &crate::mining::random_cluster(12_000, 20, 3000)),
            ("shape", "sentences"),
        ],
    )
    .await;
    let corpus = corpus["corpus_id"].as_str().unwrap().to_owned();
    let start = |c: String| {
        let (admin, base) = (prepared.admin.clone(), base.clone());
        async move {
            post(
                &admin,
                &base,
                "admin/start_mining",
                &[("corpus_id", &c), ("method", "l12")],
            )
            .await
            .as_str()
            .unwrap()
            .to_owned()
        }
    };
    // A cancel sent to the server that is not mining a run stops it within a second.
    let doomed = start(corpus.clone()).await;
    crate::helpers::wait_until("the run claimed", Duration::from_secs(60), || async {
        run_status(&pool, &doomed).await.0 == "running"
    })
    .await;
    let miner = run_status(&pool, &doomed).await.1.unwrap();
    let other = if miner.starts_with(&format!("pid{}-", pids[0])) {
        &on_b
    } else {
        &on_a
    };
    let asked = std::time::Instant::now();
    post(
        &prepared.admin,
        other,
        "admin/cancel_mining",
        &[("run_id", &doomed)],
    )
    .await;
    crate::helpers::wait_until("the run cancelled", Duration::from_secs(10), || async {
        run_status(&pool, &doomed).await.0 == "cancelled"
    })
    .await;
    let took = asked.elapsed();
    eprintln!(
        "a cancel through the other server ended the run in {} ms",
        took.as_millis()
    );
    assert!(took < Duration::from_millis(1500), "{took:?}");

    // The load first, then the run: the kill must land while both are going, whichever of the
    // two would be quicker to get going on a busy machine.
    let config = LoadConfig {
        base_url: base.clone(),
        duration: Duration::from_secs(15),
        think: Duration::ZERO,
        rate: None,
    };
    let load = {
        let prepared = prepared.clone();
        tokio::spawn(async move { load::run(&prepared, &config).await.unwrap() })
    };
    let judgments = || async {
        sqlx::query_scalar::<_, i64>("select count(*) from judge_judgment")
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    let waited = std::time::Instant::now();
    loop {
        let n = judgments().await;
        if n >= 200 {
            break;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(60) && !load.is_finished(),
            "{n} judgments after {:?} of load (the load {})",
            waited.elapsed(),
            if load.is_finished() {
                "ended"
            } else {
                "still going"
            }
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let run = start(corpus.clone()).await;
    // In the middle of the load and of the run: kill the server that mines it. What was seen
    // while waiting is kept, so a timeout says which of the two did not come.
    let mut seen = Vec::new();
    let waited = std::time::Instant::now();
    loop {
        let (status, _, _, _) = run_status(&pool, &run).await;
        let n = judgments().await;
        if status == "running" {
            break;
        }
        if seen
            .last()
            .is_none_or(|(s, _): &(String, i64)| s != &status)
        {
            seen.push((status.clone(), n));
        }
        assert!(
            waited.elapsed() < Duration::from_secs(60) && status == "queued" && !load.is_finished(),
            "the run never seen running during the load; statuses seen (with judgments then): \
             {seen:?}, load finished: {}",
            load.is_finished()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, miner, _, _) = run_status(&pool, &run).await;
    let miner = miner.expect("claimed");
    let victim = pids
        .iter()
        .position(|pid| miner.starts_with(&format!("pid{pid}-")))
        .expect("the run is claimed by one of the two servers");
    let killed = servers.remove(victim); // dropped: SIGKILL
    drop(killed);
    let killed_at: f64 = sqlx::query_scalar("select extract(epoch from clock_timestamp())::float8")
        .fetch_one(&pool)
        .await
        .unwrap();
    let out = load.await.unwrap();

    // Nothing acknowledged lost, nothing twice; only the dead server's failures were seen.
    let check = load::verify(&pool, &prepared, &out).await.unwrap();
    eprintln!(
        "{}",
        load::render(plan.judges - 1, plan.writers, &out, &check, None)
    );
    assert!(check.holds(), "{check:?}");
    assert!(check.judgments_acknowledged > 100, "{check:?}");
    assert!(check.attempts_acknowledged > 0, "{check:?}");
    for ((endpoint, kind), n) in &out.errors {
        assert!(
            kind == "connection" || kind == "502" || kind == "503",
            "{endpoint} {kind}: {n}"
        );
    }

    // The survivor takes the run over once its heartbeat is 2 s old, and finishes it.
    crate::helpers::wait_until("the run taken over", Duration::from_secs(60), || async {
        run_status(&pool, &run).await.1.as_deref() != Some(miner.as_str())
    })
    .await;
    // The claim sets `started_at`: the takeover, in the database's own clock.
    let taken_at: f64 = sqlx::query_scalar(
        "select extract(epoch from started_at)::float8 from mining_run where run_id = $1::uuid",
    )
    .bind(&run)
    .fetch_one(&pool)
    .await
    .unwrap();
    eprintln!(
        "the run was taken over {:.0} ms after the kill (job timeout 2 s, poll 1 s)",
        (taken_at - killed_at) * 1000.0
    );
    crate::helpers::wait_until("the run finished", Duration::from_secs(300), || async {
        run_status(&pool, &run).await.0 != "running"
    })
    .await;
    let (status, survivor, attempts, candidates) = run_status(&pool, &run).await;
    assert_eq!((status.as_str(), attempts), ("finished", 2));
    let survivor = survivor.unwrap();
    assert!(survivor.starts_with(&format!("pid{}-", pids[1 - victim])));
    // The same corpus mined again on the one server left: the same candidates. Meanwhile the
    // killed server starts again on its port, and leaves the survivor's run alone.
    let again = start(corpus).await;
    crate::helpers::wait_until(
        "the second run claimed",
        Duration::from_secs(60),
        || async { run_status(&pool, &again).await.0 != "queued" },
    )
    .await;
    let port = if victim == 0 { pa } else { pb };
    servers.push(replica(&url, port));
    healthy(&format!("http://127.0.0.1:{port}")).await;
    crate::helpers::wait_until("the second run", Duration::from_secs(300), || async {
        run_status(&pool, &again).await.0 != "running"
    })
    .await;
    let (status, by, attempts, again_candidates) = run_status(&pool, &again).await;
    assert_eq!(
        (status.as_str(), attempts),
        ("finished", 1),
        "never interrupted or taken"
    );
    assert!(by
        .unwrap()
        .starts_with(&format!("pid{}-", pids[1 - victim])));
    assert_eq!(again_candidates, candidates);
    drop(servers);
}
