//! The `paracrowd` binary itself: `create-admin`, and `serve` on its embedded PostgreSQL from
//! first start to SIGTERM.
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sqlx::PgPool;

use crate::helpers::client;

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_paracrowd");

/// The URL of the test's own database.
pub(crate) fn url_of(pool: &PgPool) -> String {
    let o = pool.connect_options();
    format!(
        "postgres://{}@{}:{}/{}",
        o.get_username(),
        o.get_host(),
        o.get_port(),
        o.get_database().expect("sqlx::test sets a database")
    )
}

#[sqlx::test(migrations = "../migrations")]
async fn create_admin_creates_an_admin_who_can_log_in(pool: PgPool) {
    let mut child = Command::new(BIN)
        .args(["create-admin", "chief"])
        .env("DATABASE_URL", url_of(&pool))
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"a long admin password\n")
        .unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("admin chief is ready"));

    let app = crate::helpers::spawn_app(pool).await;
    let c = client();
    assert!(app
        .login(&c, "chief", "a long admin password")
        .await
        .status()
        .is_success());
    assert_eq!(app.whoami(&c).await, Some(("chief".into(), "admin".into())));
    app.stop().await;
}

#[tokio::test]
async fn serve_starts_its_own_postgres_prints_the_admin_password_and_stops_on_sigterm() {
    // `serve` loads the scoring models first; scripts/test.sh provides them.
    if !crate::helpers::binary_can_load_models("api::cli::serve_starts_its_own_postgres") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let port = crate::helpers::free_port();
    let mut child = Command::new(BIN)
        .arg("serve")
        .env_remove("DATABASE_URL")
        .env("PARACROWD_DATA_DIR", dir.path().join("data"))
        .env("PARACROWD_ADDR", format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "info")
        .env("PARACROWD_LOG_FORMAT", "json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let logs = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let lines = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });

    // Wait for the health endpoint.
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = client().get(format!("{base}/health")).send().await {
            if r.status().is_success() {
                break;
            }
        }
        assert!(Instant::now() < deadline, "server did not become healthy");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let probe = client()
        .get(format!("{base}/health"))
        .header("x-request-id", "probe-7f3a")
        .send()
        .await
        .unwrap();
    assert_eq!(probe.headers()["x-request-id"], "probe-7f3a");
    let pid_file = dir.path().join("data/postgres/cluster/postmaster.pid");
    assert!(pid_file.exists(), "the embedded cluster runs");

    // A lost admin password reset beside the running server (as the README says): the command
    // uses the server's cluster and leaves it running, and the new password logs in.
    let reset = tokio::task::spawn_blocking({
        let data = dir.path().join("data");
        move || {
            let mut c = Command::new(BIN)
                .args(["create-admin", "admin"])
                .env_remove("DATABASE_URL")
                .env("PARACROWD_DATA_DIR", data)
                .env("RUST_LOG", "warn")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            c.stdin
                .take()
                .unwrap()
                .write_all(b"a-new-admin-password-42\n")
                .unwrap();
            c.wait_with_output().unwrap()
        }
    })
    .await
    .unwrap();
    assert!(reset.status.success(), "{reset:?}");
    assert!(
        pid_file.exists(),
        "the command left the server's cluster running"
    );
    let health: serde_json::Value = client()
        .get(format!("{base}/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["database"], "ok", "{health}");
    let login = |password: &'static str| {
        client()
            .post(format!("{base}/api/login"))
            .header("Origin", &base)
            .form(&[("username", "admin"), ("password", password)])
            .send()
    };
    assert!(login("a-new-admin-password-42")
        .await
        .unwrap()
        .status()
        .is_success());
    assert!(!login("not-the-password-42")
        .await
        .unwrap()
        .status()
        .is_success());

    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
    assert!(
        !pid_file.exists(),
        "SIGTERM stops the embedded PostgreSQL too"
    );
    let out = lines.join().unwrap().join("\n");
    // Structured logs: every line is one JSON object; each request logs its id, status and time.
    let logs: Vec<serde_json::Value> = logs
        .join()
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let line = logs
        .iter()
        .find(|l| l["span"]["request_id"] == "probe-7f3a")
        .unwrap_or_else(|| panic!("no log line with the request id: {logs:#?}"));
    assert_eq!(line["span"]["path"], "/health", "{line}");
    assert_eq!(line["fields"]["status"], 200, "{line}");
    assert!(line["fields"]["latency"].is_string(), "{line}");
    assert!(out.contains("username: admin"), "{out}");
    assert!(out.contains("password: "), "{out}");
}

/// Runs `paracrowd ARGS` against the test's database; returns (success, stdout + stderr).
async fn run_cli(pool: &PgPool, args: &[&str]) -> (bool, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("DATABASE_URL", url_of(pool))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[sqlx::test(migrations = "../migrations")]
async fn import_commands_load_sentences_and_pairs_all_or_nothing(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let make = |kind: &str| {
        let pool = pool.clone();
        let kind = kind.to_owned();
        async move {
            let id: uuid::Uuid = sqlx::query_scalar(
                "insert into campaign (kind, title) values ($1, 'cli') returning campaign_id",
            )
            .bind(&kind)
            .fetch_one(&pool)
            .await
            .unwrap();
            if kind == "judge" {
                sqlx::query("insert into judge_settings (campaign_id) values ($1)")
                    .bind(id)
                    .execute(&pool)
                    .await
                    .unwrap();
            }
            id.to_string()
        }
    };
    let judge = make("judge").await;
    let apt = make("apt").await;

    let pairs = dir.path().join("gold.jsonl");
    std::fs::write(
        &pairs,
        "{\"sentence1\": \"a\", \"sentence2\": \"b\", \"label\": 1, \"explanation\": \"same\"}\n{\"sentence1\": \"c\", \"sentence2\": \"d\"}\n",
    )
    .unwrap();
    let (ok, out) = run_cli(
        &pool,
        &["import-pairs", &judge, pairs.to_str().unwrap(), "--tests"],
    )
    .await;
    assert!(ok, "{out}");
    assert!(
        out.contains("imported 2 pairs (1 test pairs in the file"),
        "{out}"
    );
    let tests: i64 = sqlx::query_scalar("select count(*) from judge_pair where is_test")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(tests, 1);

    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "sentence1,sentence2\nx,y\n\"\",z\n").unwrap();
    let (ok, out) = run_cli(&pool, &["import-pairs", &judge, bad.to_str().unwrap()]).await;
    assert!(!ok);
    assert!(out.contains("line 3: sentence 1 is empty"), "{out}");
    let (ok, out) = run_cli(&pool, &["import-pairs", &apt, pairs.to_str().unwrap()]).await;
    assert!(!ok && out.contains("not a judging campaign"), "{out}");

    let sources = dir.path().join("s.tsv");
    std::fs::write(&sources, "text\torigin\nOne.\tmsrp\nTwo.\tppnmt\n").unwrap();
    let (ok, out) = run_cli(&pool, &["import-sources", &apt, sources.to_str().unwrap()]).await;
    assert!(ok && out.contains("imported 2 sentences"), "{out}");
    let n: i64 = sqlx::query_scalar("select count(*) from judge_pair")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 2, "the bad file added nothing");

    // Without an origin, MSRP's own files are recorded as `msrp` (as from the campaign page), so
    // serving balances them against other origins; an origin given is kept.
    let msrp = dir.path().join("msr_paraphrase_test.txt");
    std::fs::write(
        &msrp,
        "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\tThree is here.\tThree is there.\n",
    )
    .unwrap();
    let (ok, out) = run_cli(&pool, &["import-sources", &apt, msrp.to_str().unwrap()]).await;
    assert!(ok && out.contains("imported 1 sentence"), "{out}");
    let plain = dir.path().join("plain.tsv");
    std::fs::write(&plain, "text\nFour.\n").unwrap();
    let (ok, out) = run_cli(
        &pool,
        &["import-sources", &apt, plain.to_str().unwrap(), "news"],
    )
    .await;
    assert!(ok && out.contains("imported 1 sentence"), "{out}");
    let origins: Vec<(String, String)> = sqlx::query_as(
        "select text, origin from source_sentence where text in ('Three is here.', 'Four.') order by text",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        origins,
        [
            ("Four.".to_owned(), "news".to_owned()),
            ("Three is here.".to_owned(), "msrp".to_owned())
        ]
    );
}

/// A server told it is one of several replicas will not start a PostgreSQL of its own.
#[test]
fn a_replica_without_database_url_refuses_to_start_an_embedded_postgresql() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .arg("serve")
        .env_remove("DATABASE_URL")
        .env("PARACROWD_REPLICA", "true")
        .env("PARACROWD_DATA_DIR", dir.path())
        .env("PARACROWD_MODELS", "standin")
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("PARACROWD_REPLICA") && said.contains("DATABASE_URL"),
        "{said}"
    );
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "no cluster was made"
    );
}

/// Runs `paracrowd replay ARGS` with no database and no models; returns (success, stdout,
/// stderr).
fn replay(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN)
        .arg("replay")
        .args(args)
        .env_remove("DATABASE_URL")
        .env("PARACROWD_MODELS", "none-needed")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A study of 300 items with gold labels, each judged by 8 of 21 workers in turn: 20 right 92%
/// of the time and one who always says "paraphrase".
fn replay_study() -> String {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut text = String::from("item\tworker\tlabel\tgold\n");
    for item in 0..300 {
        let truth = unit() < 0.4;
        let mut who: Vec<usize> = Vec::new();
        while who.len() < 8 {
            let w = (unit() * 21.0) as usize;
            if !who.contains(&w) {
                who.push(w);
            }
        }
        for w in who {
            let label = w == 20 || (unit() < 0.92) == truth;
            text.push_str(&format!(
                "p{item}\tw{w}\t{}\t{}\n",
                u8::from(label),
                u8::from(truth)
            ));
        }
    }
    text
}

#[test]
fn replay_runs_a_past_study_through_the_gate_and_adaptive_redundancy() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("labels.tsv");
    std::fs::write(&file, replay_study()).unwrap();
    let path = file.to_str().unwrap();

    let (ok, out, err) = replay(&[path, "--max", "8"]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 1, "one JSON line: {out}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    let n = |k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{k} in {out}"));
    assert_eq!(n("labels_available"), 2400.0);
    assert_eq!((n("items"), n("test_items")), (300.0, 60.0));
    assert!(n("labels_used") < 0.6 * 2400.0, "{out}");
    assert_eq!(n("workers_stopped"), 1.0, "the always-yes worker: {out}");
    assert!(
        n("accuracy") > 0.97 && n("agreement_with_all_labels") > 0.95,
        "{out}"
    );
    assert_eq!(s["aggregator"], "posterior");
    assert_eq!(s["weighting"], "accuracy");
    assert!(n("unresolved") <= n("items") - n("test_items"), "{out}");

    // The count-only rule on the same study, to compare with: every vote weighs alike (the
    // always-yes worker's as much as anyone's), so the items settle on other votes.
    let (ok, counted, err) = replay(&[path, "--max", "8", "--weighting", "counted"]);
    assert!(ok, "{err}");
    let c: serde_json::Value = serde_json::from_str(&counted).unwrap();
    assert_eq!(c["weighting"], "counted");
    assert_eq!(c["labels_available"], 2400);
    assert_ne!(c["labels_used"], s["labels_used"], "{counted} {out}");

    // Fixed redundancy of all 8, no gate: every row is used and nobody stopped.
    let (ok, out, err) = replay(&[
        path,
        "--min",
        "8",
        "--max",
        "8",
        "--gate",
        "off",
        "--min-accuracy",
        "0.1",
        "--aggregator",
        "dawid_skene",
    ]);
    assert!(ok, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["labels_used"], 2400, "{out}");
    assert_eq!(s["workers_stopped"], 0, "{out}");
    assert_eq!(s["aggregator"], "dawid_skene");

    // Every gold item a test pair: a live campaign refuses 1, a replay takes it.
    let (ok, out, err) = replay(&[path, "--test-every", "1"]);
    assert!(ok, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["test_items"], 300, "{out}");
}

#[test]
fn replay_refuses_bad_files_and_settings_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.tsv");
    std::fs::write(&file, "item\tworker\tlabel\np1\tw1\t1\np1\tw2\tmaybe\n").unwrap();
    let path = file.to_str().unwrap();
    let (ok, out, err) = replay(&[path]);
    assert!(!ok && out.is_empty(), "{out}");
    assert!(
        err.contains("bad.tsv") && err.contains("line 3") && err.contains("\"maybe\""),
        "{err}"
    );
    std::fs::write(&file, "item\tlabel\np1\t1\n").unwrap();
    let (ok, _, err) = replay(&[path]);
    assert!(!ok && err.contains("`worker`"), "{err}");
    let (ok, _, err) = replay(&[path, "--min", "7", "--max", "6"]);
    assert!(!ok && err.contains("minimum"), "{err}");
    let (ok, _, err) = replay(&[path, "--alpha", "0.9"]);
    assert!(!ok && err.contains("--alpha"), "{err}");
    let (ok, _, err) = replay(&[path, "--worse-by", "0.7"]);
    assert!(!ok && err.contains("--worse-by"), "{err}");
    let (ok, _, err) = replay(&[path, "--weighting", "votes"]);
    assert!(
        !ok && err.contains("accuracy") && err.contains("counted"),
        "{err}"
    );
    // The confidence rule's worse level lies above an accuracy of 0.
    let (ok, _, err) = replay(&[path, "--min-accuracy", "0.1"]);
    assert!(!ok && err.contains("--worse-by"), "{err}");
    let (ok, _, err) = replay(&[path, "--test-every", "101"]);
    assert!(!ok && err.contains("--test-every"), "{err}");
    let (ok, _, err) = replay(&[dir.path().join("missing.tsv").to_str().unwrap()]);
    assert!(!ok && err.contains("missing.tsv cannot be read"), "{err}");
}
