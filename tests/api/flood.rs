//! Floods from one client against the release binary: failed logins for names that do not
//! exist (each one costs an argon2 hash of 19 MiB), and a 1,000,000-row upload, while other
//! users go on working.
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use sqlx::PgPool;

use crate::cli::{url_of, BIN};
use crate::helpers::{call_api, client, healthy, Process, PASSWORD};

/// The release binary on the test's database and a free port, and its base URL; with
/// `nice`, at the lowest priority (`nice` execs it: the process is the server itself), so that
/// its flood of hashes leaves the cores to the tests running beside it.
async fn start(pool: &PgPool, what: &str, nice: bool) -> Option<(Process, String)> {
    if !crate::helpers::binary_can_load_models(what) {
        return None;
    }
    let port = crate::helpers::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut command = if nice {
        let mut c = Command::new("nice");
        c.args(["-n", "19", BIN]);
        c
    } else {
        Command::new(BIN)
    };
    let server = Process(
        command
            .arg("serve")
            .env("DATABASE_URL", url_of(pool))
            .env("PARACROWD_ADDR", format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "error")
            // The same scorer wherever the tests run, so the memory measured is comparable.
            .env("PARACROWD_MODELS", "lite")
            .env_remove("MALLOC_MMAP_THRESHOLD_")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    healthy(&base).await;
    Some((server, base))
}

/// The process's resident memory, in MB.
fn resident_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb / 1024
}

/// 2,000 failed logins for random unknown names, 32 at a time, each tried again when told the
/// server is busy: every one is hashed and refused, and the server's resident memory stays
/// under 500 MB (without the fixed mmap threshold it grew to 9.5 GB after 1,200).
#[sqlx::test(migrations = "../migrations")]
async fn failed_logins_for_unknown_names_are_bounded_and_give_their_memory_back(pool: PgPool) {
    let Some((server, base)) =
        start(&pool, "api::flood::failed_logins_for_unknown_names", true).await
    else {
        return;
    };
    let before = resident_mb(server.0.id());
    let (wrong, busy, other) = (
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
    );
    let next = Arc::new(AtomicU64::new(0));
    let workers = (0..32).map(|_| {
        let (base, next) = (base.clone(), next.clone());
        let (wrong, busy, other) = (wrong.clone(), busy.clone(), other.clone());
        tokio::spawn(async move {
            let c = client();
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= 2000 {
                    break;
                }
                let name = format!("nobody{i}x{}", uuid::Uuid::new_v4().simple());
                // Told "busy", the client tries the same login again shortly: every one of the
                // 2,000 is hashed in the end, as a patient script's would be.
                loop {
                    let resp = call_api(
                        &c,
                        &base,
                        "login",
                        &[("username", &name), ("password", "not the password")],
                    )
                    .await;
                    match resp.status() {
                        StatusCode::UNAUTHORIZED => {
                            wrong.fetch_add(1, Ordering::SeqCst);
                            break;
                        }
                        StatusCode::SERVICE_UNAVAILABLE => {
                            busy.fetch_add(1, Ordering::SeqCst);
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        _ => {
                            other.fetch_add(1, Ordering::SeqCst);
                            break;
                        }
                    }
                }
            }
        })
    });
    futures::future::join_all(workers).await;
    let after = resident_mb(server.0.id());
    let (wrong, busy, other) = (
        wrong.load(Ordering::SeqCst),
        busy.load(Ordering::SeqCst),
        other.load(Ordering::SeqCst),
    );
    eprintln!(
        "2,000 failed logins, 32 at a time: {wrong} wrong password, {busy} busy; resident {before} MB before, {after} MB after"
    );
    assert_eq!((wrong, other), (2000, 0), "every login hashed and refused");
    assert!(after < 500, "resident memory {after} MB after the flood");
    // The server still answers.
    let resp = reqwest::get(format!("{base}/health")).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
}

/// A 1,000,000-row pair file (the probe's 14 MB, under the upload limit): refused with the row
/// that goes past the limit named, while `/health` keeps answering within 100 ms. (The parse
/// used to take minutes, with every request of the server waiting behind it.)
#[sqlx::test(migrations = "../migrations")]
async fn a_million_row_upload_is_read_while_the_server_keeps_answering(pool: PgPool) {
    let Some((_server, base)) = start(&pool, "api::flood::a_million_row_upload", false).await
    else {
        return;
    };
    let admin = client();
    server::admin_bootstrap::create_or_reset_admin(&pool, "floodadmin", PASSWORD)
        .await
        .unwrap();
    let resp = call_api(
        &admin,
        &base,
        "login",
        &[("username", "floodadmin"), ("password", PASSWORD)],
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let campaign = crate::helpers::post_api(
        &admin,
        &base,
        "admin/create_judge_campaign",
        &[
            ("title", "Flood"),
            ("instructions", "Read both sentences."),
            ("definition", "loose"),
            ("judgments_per_pair", "6"),
            ("test_every", "5"),
            ("min_test_accuracy", "0.85"),
            ("min_kappa", "0.2"),
            ("gate_min_judgments", "30"),
            ("gate_rule", ""),
        ],
    )
    .await;
    let id = campaign.as_str().unwrap().to_owned();
    let mut content = String::from("sentence1,sentence2\n");
    for i in 0..1_000_000 {
        content.push_str(&format!("a{i},b{i}\n"));
    }

    let upload = {
        let (admin, base, id) = (admin.clone(), base.clone(), id.clone());
        tokio::spawn(async move {
            let started = Instant::now();
            let resp = call_api(
                &admin,
                &base,
                "admin/import_pairs",
                &[
                    ("campaign_id", id.as_str()),
                    ("filename", "pairs.csv"),
                    ("content", content.as_str()),
                    ("labels_are_tests", "false"),
                ],
            )
            .await;
            (resp.status(), resp.text().await.unwrap(), started.elapsed())
        })
    };
    let c = client();
    let mut times = Vec::new();
    while !upload.is_finished() {
        let started = Instant::now();
        let resp = c.get(format!("{base}/health")).send().await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        times.push(started.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, body, took) = upload.await.unwrap();
    times.sort();
    assert!(!times.is_empty(), "the upload took no time at all?");
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    eprintln!(
        "1,000,000-row upload answered in {took:?}; {} /health probes meanwhile: median {:?}, 90th percentile {:?}, slowest {:?}",
        times.len(),
        at(0.5),
        at(0.9),
        at(1.0)
    );
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body.contains("more than 200000 rows"), "{body}");
    // Within 100 ms, allowing the odd slow probe on a loaded machine; never near the minutes
    // the parse used to stall every request for.
    assert!(at(0.9) < Duration::from_millis(100), "{times:?}");
    assert!(at(1.0) < Duration::from_secs(1), "{times:?}");
}
