//! A user's clone: the release binary started from a copy of the repository with no `../shared`
//! beside it, no models in the cache and no Hugging Face hub, only what the package registries
//! give (ONNX Runtime, the all-MiniLM-L6-v2 embedding model). It must start, say that it scores
//! with the lite scorer, and serve a Check over HTTP whose verdict names the lite scorer.
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use paracrowd_load::{self as load, setup::Plan};
use sqlx::PgPool;

use crate::cli::{url_of, BIN};

/// Copies the repository's tracked files (as `git clone` would give them) into `dst`.
fn copy_repository(dst: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let listed = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output()
        .expect("git lists the repository's files");
    assert!(listed.status.success());
    for rel in listed.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let rel = std::str::from_utf8(rel).unwrap();
        let (from, to) = (root.join(rel), dst.join(rel));
        if !from.is_file() {
            continue; // deleted in the work tree
        }
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn a_clone_without_shared_scores_a_check_with_the_lite_scorer(pool: PgPool) {
    if !crate::helpers::binary_can_load_models(
        "api::standalone::a_clone_without_shared_scores_a_check",
    ) {
        return;
    }
    let embedding = server::ml::embedder::default_dir();
    if !embedding.join("model.onnx").is_file() {
        crate::shared::missing(
            "MODELS",
            "api::standalone::a_clone_without_shared_scores_a_check",
            &format!(
                "no embedding model at {} (scripts/setup.sh installs it)",
                embedding.display()
            ),
        );
        return;
    }
    let place = tempfile::tempdir().unwrap();
    let clone = place.path().join("paracrowd");
    copy_repository(&clone);
    assert!(
        !clone.join("../shared").exists(),
        "the copy has no ../shared beside it"
    );
    // A cache holding only what scripts/setup.sh installs from the registries.
    let cache = place.path().join("home/.cache/paracrowd");
    std::fs::create_dir_all(&cache).unwrap();
    std::os::unix::fs::symlink(&embedding, cache.join("all-minilm-l6-v2")).unwrap();

    let port = crate::helpers::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut command = Command::new(BIN);
    command
        .arg("serve")
        .current_dir(&clone)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", place.path().join("home"))
        .env("ORT_DYLIB_PATH", std::env::var("ORT_DYLIB_PATH").unwrap())
        .env("DATABASE_URL", url_of(&pool))
        .env("PARACROWD_ADDR", format!("127.0.0.1:{port}"))
        .env("LEPTOS_SITE_ROOT", clone.join("target/site"))
        // No hub: nothing on the serving path may try one, and if it did it would fail here.
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    struct Server(std::process::Child);
    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut server = Server(command.spawn().unwrap());
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(r) = reqwest::get(format!("{base}/health")).await {
            if r.status().is_success() {
                break;
            }
        }
        if let Some(status) = server.0.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            server
                .0
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("the server stopped ({status}): {err}");
        }
        assert!(
            Instant::now() < deadline,
            "the server did not become healthy"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let plan = Plan {
        judges: 0,
        writers: 1,
        pairs: 1,
        sources: 5,
        test_pairs: 0,
        lease_seconds: 30,
    };
    let prepared = load::prepare(&base, &pool, &plan).await.unwrap();
    let writer = &prepared.writers[0];
    let apt = prepared.apt_campaign.clone();
    let call = |name: &'static str, form: Vec<(&'static str, String)>| {
        let writer = writer.clone();
        let base = base.clone();
        async move {
            let resp = writer
                .post(format!("{base}/api/{name}"))
                .header("accept", "application/json")
                .form(&form)
                .send()
                .await
                .unwrap();
            let status = resp.status();
            let body = resp.text().await.unwrap();
            assert!(status.is_success(), "{name}: {status} {body}");
            serde_json::from_str::<serde_json::Value>(&body).unwrap()
        }
    };
    let task = call("apt/next", vec![("campaign_id", apt.clone())]).await;
    let source_id = task["Write"]["source_id"].as_str().unwrap().to_owned();
    let source = task["Write"]["source"].as_str().unwrap().to_owned();
    let outcome = call(
        "apt/check",
        vec![
            ("campaign_id", apt.clone()),
            ("source_id", source_id),
            (
                "text",
                format!(
                    "In other words: {}",
                    source.to_lowercase().replace('.', "!")
                ),
            ),
        ],
    )
    .await;
    println!("Check: {outcome}");
    let scorer = outcome["scorer"].as_str().unwrap();
    assert!(
        scorer.starts_with("lite stand-in, agrees with the paper's MI on "),
        "the verdict names the lite scorer: {outcome}"
    );
    assert!(
        outcome["mi_model"]
            .as_str()
            .unwrap()
            .starts_with("lite-mi:"),
        "{outcome}"
    );
    assert!(
        ["Passes", "NotEquivalent", "TooSimilar"].contains(&outcome["verdict"].as_str().unwrap())
    );
    let stored: (String, String) = sqlx::query_as("select scorer_kind, scorer from apt_attempt")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stored, ("lite".to_owned(), scorer.to_owned()));

    // What it said at start-up: the lite scorer, and why not the others.
    let _ = server.0.kill();
    let out = std::mem::replace(&mut server.0, Command::new("true").spawn().unwrap())
        .wait_with_output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    println!("{said}");
    assert!(said.contains("scoring with the lite scorer"), "{said}");
    assert!(
        said.contains("the paper's models are not installed"),
        "{said}"
    );
    assert!(said.contains("no development stand-ins"), "{said}");
}
