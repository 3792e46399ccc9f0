//! The remote scorer against a real Triton (nvidia-pytriton) serving the stand-ins: the same
//! scores as the in-process engine to 1e-5, alone and in concurrent bursts; the metadata check;
//! "busy" (never a score) while the server is killed, and recovery when it is back; Checks going
//! ahead of mining's embeddings; embeddings equal to the in-process ones.
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use app::ml::{PairScorer, PairScores, ScoreError, SentenceEmbedder, ServedBy};
use server::ml::remote::config::{Fallback, RemoteConfig};
use server::ml::remote::embedder::RemoteEmbedder;
use server::ml::ScoringEngine;

use crate::support::{pair_models, reference, PairModels};
use crate::triton::{self, Serve, Triton};

const TOLERANCE: f32 = 1e-5;

fn fixture_pairs() -> Vec<(String, String)> {
    crate::support::pairs(&reference())
}

fn assert_same(remote: &PairScores, local: &PairScores, what: &str) {
    let close = |a: &[f32], b: &[f32]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= TOLERANCE)
    };
    assert!(
        close(&remote.forward_probs, &local.forward_probs)
            && close(&remote.backward_probs, &local.backward_probs)
            && close(
                &[remote.bleurt_forward, remote.bleurt_backward, remote.bleurt],
                &[local.bleurt_forward, local.bleurt_backward, local.bleurt]
            ),
        "{what}: remote {remote:?}\nlocal {local:?}"
    );
    assert_eq!(
        remote.is_mutual_implication, local.is_mutual_implication,
        "{what}"
    );
    assert_eq!(remote.labels, local.labels, "{what}");
}

/// The two Check models and the Python with Triton; `None` (after saying why) where these
/// tests cannot run.
struct Setup {
    models: PairModels,
    python: PathBuf,
    mi: PathBuf,
    bleurt: PathBuf,
}

fn setup(what: &str) -> Option<Setup> {
    let models = pair_models(what)?;
    let python = triton::python(what)?;
    Some(Setup {
        mi: models.mi.clone(),
        bleurt: models.bleurt.clone(),
        models,
        python,
    })
}

/// A port nothing listens on (bound, then released).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn remote_config(url: String, fallback: Fallback) -> RemoteConfig {
    let mut c = RemoteConfig::new(url);
    c.fallback = fallback;
    c.probe_every = Duration::from_millis(200);
    // The tests share two cores with several Tritons: a deadline here is about equality, not
    // speed (a killed server fails its calls at once, deadline or not).
    c.deadline = Duration::from_secs(30);
    c
}

/// The in-process engine and the remote scorer (no fallback) for the server at `url`.
async fn engine_and_remote(
    models: &PairModels,
    url: String,
) -> (ScoringEngine, Arc<dyn PairScorer>) {
    let local = engine(models).await;
    let remote =
        server::ml::remote::startup::scorer(&remote_config(url, Fallback::None), local.clone())
            .await
            .unwrap();
    (local, remote)
}

async fn engine(models: &PairModels) -> ScoringEngine {
    let cfg = models.config();
    tokio::task::spawn_blocking(move || ScoringEngine::start(&cfg))
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inference_server_scores_as_the_engine_alone_and_in_bursts() {
    let Some(fx) =
        setup("ml::remote::the_inference_server_scores_as_the_engine_alone_and_in_bursts")
    else {
        return;
    };
    let triton = Triton::start(&fx.python, Serve::checks(&fx.mi, &fx.bleurt)).await;
    let (local, remote) = engine_and_remote(&fx.models, triton.url()).await;
    assert_eq!(remote.versions().served_by, ServedBy::InferenceServer);
    assert_eq!(
        remote.versions().mi,
        local.versions().mi,
        "the same model version"
    );

    let pairs = fixture_pairs();
    let mut expected = Vec::new();
    for (s, a) in &pairs {
        // One at a time through the engine: each pair's own forward pass.
        expected.push(local.score(s.clone(), a.clone()).await.unwrap());
    }
    for ((s, a), want) in pairs.iter().zip(&expected) {
        let got = remote.score(s.clone(), a.clone()).await.unwrap();
        assert_eq!(got.versions.served_by, ServedBy::InferenceServer);
        assert_same(&got, want, &format!("alone: {s} / {a}"));
    }
    // Bursts: every pair 4 times at once, so Triton's batcher groups requests of one shape.
    let burst = (0..4)
        .flat_map(|_| pairs.iter().zip(&expected))
        .map(|((s, a), want)| {
            let remote = remote.clone();
            let (s, a, want) = (s.clone(), a.clone(), want.clone());
            tokio::spawn(async move {
                let got = remote.score(s.clone(), a.clone()).await.unwrap();
                assert_same(&got, &want, &format!("in a burst: {s} / {a}"));
            })
        })
        .collect::<Vec<_>>();
    for task in burst {
        task.await.unwrap();
    }
    let load = remote.load().unwrap().remote.unwrap();
    assert!(load.up);
    assert_eq!(
        load.scored,
        9 + 36,
        "9 alone and 36 in bursts (the start-up probe pair is not a Check)"
    );
    assert_eq!(load.failures, 0);

    // It serves no `embed`: mining's embedder (checked at start-up) names the model and server.
    let embed_dir = server::ml::embedder::default_dir();
    if embed_dir.join("tokenizer.json").is_file() && embed_dir.join("model.onnx").is_file() {
        let embedder = RemoteEmbedder::new(
            &triton.url(),
            embed_dir,
            tokio::runtime::Handle::current(),
            None,
        )
        .unwrap();
        let err = tokio::task::spawn_blocking(move || embedder.check())
            .await
            .unwrap()
            .unwrap_err();
        assert!(
            err.contains("\"embed\" at") && err.contains(&triton.url()),
            "{err}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_other_models_under_our_names_is_refused_at_start_up() {
    let Some(fx) =
        setup("ml::remote::a_server_with_other_models_under_our_names_is_refused_at_start_up")
    else {
        return;
    };
    // Swapped: its "mi" gives one value per pair, its "bleurt" two.
    let triton = Triton::start(&fx.python, Serve::checks(&fx.bleurt, &fx.mi)).await;
    let err = server::ml::remote::startup::scorer(
        &remote_config(triton.url(), Fallback::Local),
        engine(&fx.models).await,
    )
    .await
    .err()
    .expect("refused")
    .to_string();
    // The stand-ins' MI judge has two labels (not MI, MI), the tiny models' NLI judge three.
    let labels = if fx.models.standins { 2 } else { 3 };
    assert!(
        err.contains("model \"mi\" does not match ours")
            && err.contains(&format!(
                "\"logits\" has shape [-1, 1], expected [-1, {labels}]"
            )),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_fallback_an_unreachable_server_stops_start_up_with_what_to_do() {
    let Some(models) = pair_models(
        "ml::remote::without_a_fallback_an_unreachable_server_stops_start_up_with_what_to_do",
    ) else {
        return;
    };
    let closed = free_port();
    let err = server::ml::remote::startup::scorer(
        &remote_config(format!("http://127.0.0.1:{closed}"), Fallback::None),
        engine(&models).await,
    )
    .await
    .err()
    .expect("refused")
    .to_string();
    assert!(
        err.contains("cannot be reached") && err.contains("PARACROWD_SCORER_FALLBACK=local"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_gives_busy_never_a_score_and_is_used_again_when_back() {
    let Some(fx) =
        setup("ml::remote::a_killed_server_gives_busy_never_a_score_and_is_used_again_when_back")
    else {
        return;
    };
    let serve = |port| Serve {
        grpc_port: port,
        ..Serve::checks(&fx.mi, &fx.bleurt)
    };
    let mut triton = Triton::start(&fx.python, serve(None)).await;
    let port = triton.grpc_port;
    let (local, remote) = engine_and_remote(&fx.models, triton.url()).await;
    let pairs = fixture_pairs();
    let mut expected = Vec::new();
    for (s, a) in &pairs {
        expected.push(local.score(s.clone(), a.clone()).await.unwrap());
    }

    // A burst of Checks in waves; the server is killed while they are in flight.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let callers = (0..8)
        .map(|caller| {
            let remote = remote.clone();
            let (pairs, expected, stop) = (pairs.clone(), expected.clone(), stop.clone());
            tokio::spawn(async move {
                let (mut scored, mut busy) = (0, 0);
                let mut i = caller;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let (s, a) = &pairs[i % pairs.len()];
                    match remote.score(s.clone(), a.clone()).await {
                        Ok(got) => {
                            assert_same(&got, &expected[i % pairs.len()], "a score that came back");
                            scored += 1;
                        }
                        Err(ScoreError::Busy) => busy += 1,
                        Err(other) => panic!("a failed server answers busy, not {other:?}"),
                    }
                    i += 1;
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                (scored, busy)
            })
        })
        .collect::<Vec<_>>();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    triton.kill();
    let killed_at = std::time::Instant::now();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // Down: answered at once, without waiting for the deadline.
    let asked = std::time::Instant::now();
    let (s, a) = &pairs[0];
    assert_eq!(
        remote.score(s.clone(), a.clone()).await,
        Err(ScoreError::Busy)
    );
    assert!(
        asked.elapsed() < Duration::from_millis(100),
        "{:?}",
        asked.elapsed()
    );
    let load = remote.load().unwrap().remote.unwrap();
    assert!(!load.up && load.failures >= 1, "{load:?}");
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let (mut scored, mut busy) = (0, 0);
    for c in callers {
        let (s, b) = c.await.unwrap();
        scored += s;
        busy += b;
    }
    eprintln!(
        "before and after the kill: {scored} scored (all equal to the engine's), {busy} busy; down {:.2} s",
        killed_at.elapsed().as_secs_f64()
    );
    assert!(scored > 0 && busy > 0, "scored {scored}, busy {busy}");

    // Back on the same address: the probe finds it and Checks go there again.
    let _back = Triton::start(&fx.python, serve(Some(port))).await;
    let came_back = std::time::Instant::now();
    loop {
        if let Ok(got) = remote.score(s.clone(), a.clone()).await {
            assert_same(&got, &expected[0], "after the restart");
            break;
        }
        assert!(
            came_back.elapsed() < Duration::from_secs(10),
            "still busy 10 s after the server came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(remote.load().unwrap().remote.unwrap().up);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_go_ahead_of_mining_embeddings_which_equal_the_in_process_ones() {
    let Some(fx) =
        setup("ml::remote::checks_go_ahead_of_mining_embeddings_which_equal_the_in_process_ones")
    else {
        return;
    };
    let embed_dir = server::ml::embedder::default_dir();
    if !embed_dir.join("model.onnx").is_file() {
        assert!(
            std::env::var("PARACROWD_REQUIRE_TRITON").is_err(),
            "no embedding model at {}",
            embed_dir.display()
        );
        eprintln!("SKIPPED: no embedding model at {}", embed_dir.display());
        return;
    }
    let trace_dir = tempfile::tempdir().unwrap();
    let trace = trace_dir.path().join("trace.txt");
    let triton = Triton::start(
        &fx.python,
        Serve {
            embed: Some(&embed_dir),
            trace: Some(&trace),
            ..Serve::checks(&fx.mi, &fx.bleurt)
        },
    )
    .await;
    let local = engine(&fx.models).await;
    let remote =
        server::ml::remote::startup::scorer(&remote_config(triton.url(), Fallback::None), local)
            .await
            .unwrap();
    let embedder = Arc::new(
        RemoteEmbedder::new(
            &triton.url(),
            embed_dir.clone(),
            tokio::runtime::Handle::current(),
            None,
        )
        .unwrap(),
    );
    let in_process = Arc::new(server::ml::embedder::LazyEmbedder::new(
        embed_dir.clone(),
        fx.models.config(),
    ));

    // Equal vectors, and the same version.
    let texts: Vec<String> = fixture_pairs()
        .into_iter()
        .flat_map(|(a, b)| [a, b])
        .collect();
    let (remote_vectors, local_vectors, versions) = {
        let (e, l, t) = (embedder.clone(), in_process.clone(), texts.clone());
        tokio::task::spawn_blocking(move || {
            (
                e.embed(&t).unwrap(),
                l.embed(&t).unwrap(),
                (e.version().unwrap(), l.version().unwrap()),
            )
        })
        .await
        .unwrap()
    };
    assert_eq!(versions.0, versions.1);
    assert_eq!(remote_vectors.len(), texts.len());
    assert_eq!(local_vectors.len(), texts.len());
    for (r, l) in remote_vectors.iter().zip(&local_vectors) {
        assert_eq!(r.len(), l.len());
        let worst = r
            .iter()
            .zip(l)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        assert!(worst <= TOLERANCE, "embedding differs by {worst}");
    }

    // A mining-sized job: 3,000 sentences, while Checks arrive.
    let corpus: Vec<String> = (0..3000)
        .map(|i| format!("{} (variant {i})", texts[i % texts.len()]))
        .collect();
    let mining = {
        let e = embedder.clone();
        tokio::task::spawn_blocking(move || e.embed(&corpus).map(|v| v.len()))
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pairs = fixture_pairs();
    let mut checks = 0;
    while !mining.is_finished() && checks < 20 {
        let (s, a) = &pairs[checks % pairs.len()];
        remote.score(s.clone(), a.clone()).await.unwrap();
        checks += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(mining.await.unwrap().unwrap(), 3000);
    assert!(checks >= 5, "only {checks} Checks ran while mining");

    // The server's gate, in the order it saw events: no embedding chunk started while a Check
    // was running, and Checks did run between chunks (mining was under way around them).
    let events = std::fs::read_to_string(&trace).unwrap();
    let mut running = 0i32;
    let (mut chunks_during_checks, mut checks_between_chunks) = (0, 0);
    let mut chunk_seen = false;
    for line in events.lines() {
        let event = line.split(' ').nth(1).unwrap();
        match event {
            "check-start" => {
                running += 1;
                if chunk_seen {
                    checks_between_chunks += 1;
                }
            }
            "check-end" => running -= 1,
            "embed-chunk" => {
                chunk_seen = true;
                if running > 0 {
                    chunks_during_checks += 1;
                }
            }
            other => panic!("unknown event {other}"),
        }
    }
    assert_eq!(chunks_during_checks, 0, "{events}");
    assert!(
        checks_between_chunks >= 5,
        "{checks_between_chunks} Checks between chunks"
    );
}

#[test]
fn the_committed_model_repository_is_what_the_script_writes_for_the_papers_interfaces() {
    // The tiny models exported through the paper's install have the paper models' interfaces.
    let what = "ml::remote::the_committed_model_repository_is_what_the_script_writes";
    let Some(python) = triton::python(what) else {
        return;
    };
    let Some(paper) = crate::support::tiny_pair_models(what) else {
        return;
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/triton");
    let out = tempfile::tempdir().unwrap();
    for device in ["gpu", "cpu"] {
        let target = out.path().join(device);
        let embed = server::ml::embedder::default_dir();
        let with_embed = embed.join("model.onnx").is_file();
        let mut command = std::process::Command::new(&python);
        command
            .arg(root.join("make_repository.py"))
            .arg("--mi")
            .arg(&paper.mi)
            .arg("--bleurt")
            .arg(&paper.bleurt)
            .args(["--device", device, "--out"])
            .arg(&target);
        if with_embed {
            command.arg("--embed").arg(&embed);
        } else {
            assert!(
                std::env::var("PARACROWD_REQUIRE_TRITON").is_err(),
                "no embedding model at {}",
                embed.display()
            );
        }
        let run = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let models_written: &[&str] = if with_embed {
            &["mi", "bleurt", "embed"]
        } else {
            &["mi", "bleurt"]
        };
        assert_eq!(
            stdout.matches("parses as Triton's ModelConfig").count(),
            models_written.len(),
            "{stdout}"
        );
        for model in models_written {
            let written = std::fs::read_to_string(target.join(model).join("config.pbtxt")).unwrap();
            assert!(target.join(model).join("1/model.onnx").is_file());
            if device == "gpu" {
                let committed = std::fs::read_to_string(
                    root.join("model_repository")
                        .join(model)
                        .join("config.pbtxt"),
                )
                .unwrap();
                assert_eq!(
                    written, committed,
                    "deploy/triton/model_repository/{model} drifted"
                );
            } else {
                assert!(written.contains("kind: KIND_CPU"), "{written}");
            }
        }
    }
    let mi = std::fs::read_to_string(root.join("model_repository/mi/config.pbtxt")).unwrap();
    assert!(
        mi.contains("dims: [ 3 ]")
            && !mi.contains("token_type_ids")
            && mi.contains("dynamic_batching"),
        "the paper's MI judge: three labels, no token types, batched\n{mi}"
    );
    let embed = std::fs::read_to_string(root.join("model_repository/embed/config.pbtxt")).unwrap();
    assert!(embed.contains("default_priority_level: 2"), "{embed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_comes_up_later_is_checked_then_takes_the_checks() {
    let Some(fx) =
        setup("ml::remote::a_server_that_comes_up_later_is_checked_then_takes_the_checks")
    else {
        return;
    };
    let port = free_port();
    // Down at start-up, with the fallback on: the server starts and scores in process.
    let scorer = server::ml::remote::startup::scorer(
        &remote_config(format!("http://127.0.0.1:{port}"), Fallback::Local),
        engine(&fx.models).await,
    )
    .await
    .unwrap();
    let (s, a) = &fixture_pairs()[0];
    let first = scorer.score(s.clone(), a.clone()).await.unwrap();
    assert_eq!(first.versions.served_by, ServedBy::InProcess);

    let _triton = Triton::start(
        &fx.python,
        Serve {
            grpc_port: Some(port),
            ..Serve::checks(&fx.mi, &fx.bleurt)
        },
    )
    .await;
    // The probe checks its metadata and the probe pair, then Checks go there.
    let started = std::time::Instant::now();
    loop {
        let got = scorer.score(s.clone(), a.clone()).await.unwrap();
        if got.versions.served_by == ServedBy::InferenceServer {
            assert_same(&got, &first, "the server's score of the same pair");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "still scored in process a minute after the server came up"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let load = scorer.load().unwrap().remote.unwrap();
    assert!(load.up && load.fallbacks >= 1, "{load:?}");
}

/// `paracrowd score` with `PARACROWD_SCORER=remote`, as a researcher runs it.
fn score_command(
    models: &PairModels,
    url: &str,
    fallback: &str,
    input: &std::path::Path,
) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_paracrowd"))
        .arg("score")
        .arg(input)
        .env("PARACROWD_MI_MODEL", &models.mi)
        .env("PARACROWD_BLEURT_MODEL", &models.bleurt)
        .env("PARACROWD_SCORER", "remote")
        .env("PARACROWD_SCORER_URL", url)
        .env("PARACROWD_SCORER_FALLBACK", fallback)
        .env("RUST_LOG", "error")
        .output()
        .unwrap()
}

/// The `score` command scores where `serve` would score Checks: on the inference server, with
/// the scores the engine gives, and the scorer column saying so; with the server unreachable it
/// fails as `serve` does without a fallback, and scores in process (saying so) with one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_score_command_scores_where_serve_would_and_fails_where_it_would() {
    let Some(fx) =
        setup("ml::remote::the_score_command_scores_where_serve_would_and_fails_where_it_would")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("pairs.tsv");
    let pairs = fixture_pairs();
    let mut text = "sentence1\tsentence2\n".to_owned();
    for (s, a) in &pairs {
        text.push_str(&format!("{s}\t{a}\n"));
    }
    std::fs::write(&input, text).unwrap();
    let rows = |out: &std::process::Output| -> Vec<Vec<String>> {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(1)
            .map(|l| l.split('\t').map(str::to_owned).collect())
            .collect()
    };

    // Nothing listening, no fallback: refused, with what to do (serve's own refusal).
    let closed = format!("http://127.0.0.1:{}", free_port());
    let out = score_command(&fx.models, &closed, "none", &input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("PARACROWD_SCORER_FALLBACK=local"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no scores written");

    // With the fallback: scored in process, and said so.
    let out = score_command(&fx.models, &closed, "local", &input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("not answering"), "{stderr}");
    assert_eq!(rows(&out).len(), pairs.len());

    // On the inference server: its scores, the engine's to the tolerance, named in each row.
    let triton = Triton::start(&fx.python, Serve::checks(&fx.mi, &fx.bleurt)).await;
    let url = triton.url();
    let models = fx.models.clone();
    let input2 = input.clone();
    let out = tokio::task::spawn_blocking(move || score_command(&models, &url, "none", &input2))
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("scored on the inference server"),
        "{stderr}"
    );
    let local = engine(&fx.models).await;
    let got = rows(&out);
    assert_eq!(got.len(), pairs.len());
    for ((s, a), row) in pairs.iter().zip(&got) {
        let want = local.score(s.clone(), a.clone()).await.unwrap();
        assert!(
            row.last().unwrap().contains("on the inference server"),
            "{row:?}"
        );
        let bleurt: f32 = row[row.len() - 5].parse().unwrap();
        assert!(
            (bleurt - want.bleurt).abs() < 1e-4,
            "{s} / {a}: {bleurt} vs {}",
            want.bleurt
        );
    }
}
