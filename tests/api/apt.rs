//! The APT writing task over HTTP with the deterministic FakeScorer (see helpers.rs): every Check
//! stored, Submit paid once and never past the cap, balanced serving without repeats, bad input.
use reqwest::{Client, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{error_of, shared_data, spawn_app, TestApp, BUSY_MARKER};

/// With the FakeScorer this rewrite of "alpha beta gamma delta" is MI with BLEURT -0.6: 91 cents.
const PASSING: &str = "alpha beta x1 x2 x3 x4 x5 x6";

async fn json(resp: reqwest::Response) -> Value {
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// An open APT campaign with the given sources (TSV `text origin`), created through the API.
pub(crate) async fn campaign(app: &TestApp, admin: &Client, cap_cents: i32, tsv: &str) -> String {
    let resp = app
        .call(
            admin,
            "admin/create_campaign",
            &[
                ("kind", "apt"),
                ("title", "APT test"),
                ("instructions", "Write it differently."),
                ("budget_cap_cents", &cap_cents.to_string()),
                ("bleurt_threshold", "0.5"),
            ],
        )
        .await;
    let id = json(resp).await.as_str().unwrap().to_owned();
    let resp = app
        .call(
            admin,
            "admin/import_sources",
            &[
                ("campaign_id", &id),
                ("filename", "sources.tsv"),
                ("content", tsv),
                ("default_origin", "upload"),
            ],
        )
        .await;
    json(resp).await;
    let resp = app
        .call(
            admin,
            "admin/set_campaign_status",
            &[("campaign_id", &id), ("status", "open")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    id
}

pub(crate) async fn next(app: &TestApp, c: &Client, id: &str) -> Value {
    json(app.call(c, "apt/next", &[("campaign_id", id)]).await).await
}

pub(crate) async fn check(
    app: &TestApp,
    c: &Client,
    id: &str,
    source: &str,
    text: &str,
) -> reqwest::Response {
    app.call(
        c,
        "apt/check",
        &[("campaign_id", id), ("source_id", source), ("text", text)],
    )
    .await
}

async fn submit(app: &TestApp, c: &Client, id: &str, attempt: &str) -> reqwest::Response {
    app.call(
        c,
        "apt/submit",
        &[("campaign_id", id), ("attempt_id", attempt)],
    )
    .await
}

#[sqlx::test(migrations = "../migrations")]
async fn a_worker_checks_submits_and_is_paid_the_reward(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        2000,
        "text\torigin\nalpha beta gamma delta\tmsrp\nalpha beta gamma delta epsilon\tppnmt\n",
    )
    .await;
    let (worker, _) = app.annotator().await;

    let task = next(&app, &worker, &id).await;
    let write = &task["Write"];
    let source_id = write["source_id"].as_str().unwrap().to_owned();
    assert_eq!(write["total_cents"], 0);
    assert_eq!(write["cap_cents"], 2000);
    assert_eq!(
        next(&app, &worker, &id).await,
        task,
        "the same sentence until it is submitted or skipped"
    );
    let source = write["source"].as_str().unwrap();
    let text = if source.ends_with("epsilon") {
        "alpha beta gamma x1 x2 x3 x4 x5"
    } else {
        PASSING
    };

    let outcome = json(check(&app, &worker, &id, &source_id, text).await).await;
    assert_eq!(outcome["verdict"], "Passes", "{outcome}");
    assert_eq!(outcome["mi_model"], "fake-mi@0");
    let reward = outcome["reward_cents"].as_i64().unwrap();
    assert!(reward > 0);
    let attempt = outcome["attempt_id"].as_str().unwrap();

    let paid = json(submit(&app, &worker, &id, attempt).await).await;
    assert_eq!(paid["paid_cents"], reward);
    assert_eq!(paid["total_cents"], reward);
    assert_eq!(paid["was_already_submitted"], false);
    let task = next(&app, &worker, &id).await;
    assert_eq!(task["Write"]["total_cents"], reward, "the running total");
    assert_ne!(
        task["Write"]["source_id"].as_str().unwrap(),
        source_id,
        "a new sentence"
    );
    let stored: (String, bool, i32, String, f64) = sqlx::query_as(
        "select text, is_mutual_implication, reward_cents, bleurt_model, seconds_since_shown from apt_attempt",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        (
            stored.0.as_str(),
            stored.1,
            i64::from(stored.2),
            stored.3.as_str()
        ),
        (text, true, reward, "fake-bleurt@0")
    );
    assert!(stored.4 >= 0.0);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn every_check_is_stored_and_submit_needs_a_check_of_ones_own(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(&app, &admin, 2000, "text\nalpha beta gamma delta\n").await;
    let (worker, _) = app.annotator().await;
    let (other, _) = app.annotator().await;
    let source_id = next(&app, &worker, &id).await["Write"]["source_id"]
        .as_str()
        .unwrap()
        .to_owned();

    for text in [
        "totally unrelated words here",
        PASSING,
        "alpha beta gamma delta now",
        "alpha beta gamma x",
    ] {
        let resp = check(&app, &worker, &id, &source_id, text).await;
        assert!(resp.status().is_success() || resp.status() == StatusCode::UNPROCESSABLE_ENTITY);
    }
    let n: i64 = sqlx::query_scalar("select count(*) from apt_attempt")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        n, 3,
        "three scored Checks; the one containing the source is refused before scoring"
    );
    let verdicts: Vec<bool> =
        sqlx::query_scalar("select is_mutual_implication from apt_attempt order by created_at")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(verdicts, [false, true, true]);

    // Submit without any Check: an unknown attempt.
    let resp = submit(&app, &worker, &id, &uuid::Uuid::new_v4().to_string()).await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    // Another worker cannot submit this worker's attempt.
    next(&app, &other, &id).await;
    let attempt: uuid::Uuid = sqlx::query_scalar("select apt_attempt_id from apt_attempt limit 1")
        .fetch_one(&pool)
        .await
        .unwrap();
    let resp = submit(&app, &other, &id, &attempt.to_string()).await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    let paid: i64 = sqlx::query_scalar("select count(*) from apt_submission")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(paid, 0);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn fifty_concurrent_submits_pay_once_and_never_past_the_cap(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let sources: String = (0..4)
        .map(|i| format!("alpha beta gamma delta{i}\n"))
        .collect();
    // Cap 200 cents: 91 + 91 + 18.
    let id = campaign(&app, &admin, 200, &format!("text\n{sources}")).await;
    let (worker, _) = app.annotator().await;

    let mut totals = Vec::new();
    for round in 0..3 {
        let source_id = next(&app, &worker, &id).await["Write"]["source_id"]
            .as_str()
            .unwrap()
            .to_owned();
        // 50 different passing Checks, then all 50 submitted at once (tabs, retries, clicks).
        let mut attempts = Vec::new();
        for k in 0..50 {
            let text = format!("alpha beta y{k} x2 x3 x4 x5 x6");
            let outcome = json(check(&app, &worker, &id, &source_id, &text).await).await;
            attempts.push(outcome["attempt_id"].as_str().unwrap().to_owned());
        }
        let results =
            futures::future::join_all(attempts.iter().map(|a| submit(&app, &worker, &id, a))).await;
        let mut fresh = 0;
        for r in results {
            let v = json(r).await;
            if v["was_already_submitted"] == false {
                fresh += 1;
            }
            totals.push(v["total_cents"].as_i64().unwrap());
        }
        assert_eq!(fresh, 1, "round {round}: exactly one submit pays");
    }
    assert!(totals.iter().all(|t| *t <= 200), "{totals:?}");
    let (earned, code): (i32, Option<String>) =
        sqlx::query_as("select earned_cents, completion_code from apt_worker")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(earned, 200);
    let paid: Vec<i32> =
        sqlx::query_scalar("select paid_cents from apt_submission order by created_at")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(paid, [91, 91, 18]);
    // The study is over: a completion page with the code.
    let done = next(&app, &worker, &id).await;
    assert_eq!(
        done["Complete"]["completion_code"].as_str(),
        code.as_deref()
    );
    assert_eq!(done["Complete"]["total_cents"], 200);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn bad_rewrites_get_a_clear_message_and_no_model_call(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        2000,
        "text\nalpha beta gamma delta\nsecond sentence here\n",
    )
    .await;
    let (worker, _) = app.annotator().await;
    let task = next(&app, &worker, &id).await;
    let source_id = task["Write"]["source_id"].as_str().unwrap().to_owned();
    let source = task["Write"]["source"].as_str().unwrap().to_owned();
    let huge = "word ".repeat(250);

    for (text, needle) in [
        ("", "Write a sentence first"),
        ("   \n\t ", "Write a sentence first"),
        (huge.as_str(), "longer than 1000"),
        (&source.to_uppercase(), "the given sentence itself"),
        (
            &format!("Well, {source} indeed"),
            "contains the given sentence",
        ),
    ] {
        let resp = check(&app, &worker, &id, &source_id, text).await;
        assert_eq!(
            resp.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{text:.20}"
        );
        let msg = error_of(resp).await["Validation"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.contains(needle), "{msg}");
    }
    // A Check for a sentence that is not the worker's current one.
    let other: uuid::Uuid = sqlx::query_scalar(
        "select source_sentence_id from source_sentence where source_sentence_id <> $1::uuid",
    )
    .bind(&source_id)
    .fetch_one(&pool)
    .await
    .unwrap();
    let resp = check(&app, &worker, &id, &other.to_string(), PASSING).await;
    assert_eq!(resp.status(), StatusCode::CONFLICT);
    let n: i64 = sqlx::query_scalar("select count(*) from apt_attempt")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 0);
    // Only admins create campaigns and import sources.
    let resp = app
        .call(
            &worker,
            "admin/import_sources",
            &[
                ("campaign_id", &id),
                ("filename", "x.tsv"),
                ("content", "text\nx\n"),
                ("default_origin", "x"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn sources_are_served_half_and_half_by_origin_and_never_twice(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let mut tsv = String::from("text\torigin\n");
    for i in 0..100 {
        tsv.push_str(&format!("msrp sentence {i}\tmsrp\n"));
    }
    for i in 0..30 {
        tsv.push_str(&format!("ppnmt sentence {i}\tppnmt\n"));
    }
    let id = campaign(&app, &admin, 2000, &tsv).await;
    let (worker, _) = app.annotator().await;

    let mut seen = std::collections::HashSet::new();
    let mut ppnmt_in_first_40 = 0;
    for draw in 0..130 {
        let task = next(&app, &worker, &id).await;
        let w = &task["Write"];
        let source_id = w["source_id"].as_str().unwrap().to_owned();
        assert!(
            seen.insert(source_id.clone()),
            "draw {draw} repeated a sentence"
        );
        if draw < 40 && w["source"].as_str().unwrap().starts_with("ppnmt") {
            ppnmt_in_first_40 += 1;
        }
        let resp = app
            .call(
                &worker,
                "apt/skip",
                &[("campaign_id", &id), ("source_id", &source_id)],
            )
            .await;
        assert_eq!(resp.status(), StatusCode::OK);
    }
    // 50/50 by origin although ppnmt has 30 sentences and msrp 100 (sd of the count: ~3.2).
    assert!(
        (8..=32).contains(&ppnmt_in_first_40),
        "{ppnmt_in_first_40} of 40 from ppnmt"
    );
    assert_eq!(
        next(&app, &worker, &id).await["Exhausted"]["total_cents"],
        0
    );
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_bad_source_file_names_its_line_and_imports_nothing(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(&app, &admin, 2000, "text\nfirst\nsecond\nfirst\n").await;
    let before: i64 = sqlx::query_scalar("select count(*) from source_sentence")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(before, 2, "the duplicate in the file is skipped");

    let resp = app
        .call(
            &admin,
            "admin/import_sources",
            &[
                ("campaign_id", &id),
                ("filename", "more.jsonl"),
                ("content", "{\"text\": \"third\"}\n{\"text\": \"fourth\"\n"),
                ("default_origin", "upload"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let msg = error_of(resp).await["Validation"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(msg.starts_with("line 2:"), "{msg}");
    let resp = app
        .call(
            &admin,
            "admin/import_sources",
            &[
                ("campaign_id", &id),
                ("filename", "again.tsv"),
                ("content", "text\nfirst\nfifth\n"),
                ("default_origin", "upload"),
            ],
        )
        .await;
    let summary = json(resp).await;
    assert_eq!(summary["imported"], 1);
    assert_eq!(summary["already_in_campaign"], 1);
    let after: i64 = sqlx::query_scalar("select count(*) from source_sentence")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(after, 3);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn researchers_see_table_2_figure_2_and_earnings_and_annotators_do_not(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        2000,
        "text\nalpha beta gamma delta\nalpha beta gamma epsilon\n",
    )
    .await;
    let (worker, _) = app.annotator().await;
    let (researcher, _) = app.user_with_role("researcher").await;
    // Source 1: a non-MI Check, then a passing one (submitted). Source 2: MI but too similar.
    for round in 0..2 {
        let task = next(&app, &worker, &id).await;
        let source_id = task["Write"]["source_id"].as_str().unwrap().to_owned();
        if round == 0 {
            json(check(&app, &worker, &id, &source_id, "nothing in common at all").await).await;
            let ok = json(check(&app, &worker, &id, &source_id, PASSING).await).await;
            json(submit(&app, &worker, &id, ok["attempt_id"].as_str().unwrap()).await).await;
        } else {
            // The same words in reverse order: MI with BLEURT 1.0, too similar.
            let src = task["Write"]["source"].as_str().unwrap().to_owned();
            let close = src.split(' ').rev().collect::<Vec<_>>().join(" ");
            let v = json(check(&app, &worker, &id, &source_id, &close).await).await;
            assert_eq!(v["verdict"], "TooSimilar", "{v}");
        }
    }

    let resp = app
        .call(&researcher, "research/apt_report", &[("campaign_id", &id)])
        .await;
    let report = json(resp).await;
    let t = &report["table2"];
    assert_eq!(
        (
            t["total_attempts"].as_u64(),
            t["apt_attempts"].as_u64(),
            t["mi_attempts"].as_u64(),
            t["non_mi_attempts"].as_u64()
        ),
        (Some(3), Some(1), Some(2), Some(1))
    );
    assert_eq!(
        (
            t["unique_sources"].as_u64(),
            t["apt_uniques"].as_u64(),
            t["mi_uniques"].as_u64(),
            t["non_mi_uniques"].as_u64()
        ),
        (Some(2), Some(1), Some(2), Some(1))
    );
    let svg = report["figure2_svg"].as_str().unwrap();
    assert!(
        svg.starts_with("<svg") && svg.matches("<rect").count() == 3,
        "{svg}"
    );
    let workers = report["workers"].as_array().unwrap();
    assert_eq!(workers.len(), 1);
    assert_eq!(workers[0]["attempts"], 3);
    assert_eq!(workers[0]["earned_cents"], 91);
    assert!(workers[0]["worker"].as_str().unwrap().starts_with('W'));

    // The page renders for researchers; annotators and visitors are refused.
    let html = app
        .get(&researcher, &format!("/research/apt/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Table 2") && html.contains("<svg"), "{html}");
    let resp = app
        .call(&worker, "research/apt_report", &[("campaign_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    let resp = app
        .call(
            &crate::helpers::client(),
            "research/apt_report",
            &[("campaign_id", &id)],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn attempts_export_in_ap_h_layout_with_a_split_by_source(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let sources: String = (0..12)
        .map(|i| format!("alpha beta gamma delta{i}\tmsrp\n"))
        .collect();
    let id = campaign(&app, &admin, 2000, &format!("text\torigin\n{sources}")).await;
    let (worker, _) = app.annotator().await;
    for _ in 0..12 {
        let source_id = next(&app, &worker, &id).await["Write"]["source_id"]
            .as_str()
            .unwrap()
            .to_owned();
        for k in 0..2 {
            json(
                check(
                    &app,
                    &worker,
                    &id,
                    &source_id,
                    &format!("alpha beta z{k} x2 x3 x4 x5 x6"),
                )
                .await,
            )
            .await;
        }
        app.call(
            &worker,
            "apt/skip",
            &[("campaign_id", &id), ("source_id", &source_id)],
        )
        .await;
    }
    let (researcher, _) = app.user_with_role("researcher").await;
    let get = |c: &Client, q: &str| c.get(app.url(&format!("/export/apt/{id}{q}"))).send();

    let all = get(&researcher, "").await.unwrap();
    assert_eq!(all.status(), StatusCode::OK);
    let text = all.text().await.unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(
        lines[0],
        [
            "token",
            "time",
            "duration",
            "dataset",
            "index",
            "sentence",
            "candidate",
            "BLEURT",
            "MI",
            "dollar",
            "scorer"
        ]
    );
    assert_eq!(lines.len(), 1 + 24);
    assert!(lines[1..].iter().all(|l| l.len() == 11
        && l[10] == crate::helpers::FAKE_SCORER
        && l[0].starts_with('W')
        && l[3] == "msrp"
        && l[8] == "1"
        && l[9] == "0.91"));

    let part = |text: String| -> Vec<String> {
        text.lines()
            .skip(1)
            .map(|l| l.split('\t').nth(5).unwrap().to_owned())
            .collect()
    };
    let train = part(
        get(&researcher, "?split=train&seed=3")
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    );
    let test = part(
        get(&researcher, "?split=test&seed=3")
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(train.len() + test.len(), 24);
    assert!(
        test.len() >= 4 && test.len() <= 8,
        "about a quarter: {}",
        test.len()
    );
    assert!(
        test.iter().all(|s| !train.contains(s)),
        "no source sentence in both parts"
    );
    assert_eq!(
        test,
        part(
            get(&researcher, "?split=test&seed=3")
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        ),
        "reproducible"
    );

    // CSV and JSON lines carry every column (AP_H's, whether submitted, the part, the scorer);
    // the submissions export holds only submitted attempts (none here: every sentence was
    // skipped).
    let csv_text = get(&researcher, "?format=csv&seed=3")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    assert_eq!(reader.headers().unwrap().len(), 13);
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 24);
    assert!(rows.iter().all(|r| &r[12] == crate::helpers::FAKE_SCORER));
    assert_eq!(
        rows.iter().filter(|r| &r[11] == "test").count(),
        test.len(),
        "the same split as the AP_H file"
    );
    assert!(rows.iter().all(|r| &r[10] == "0"));
    let jsonl = get(&researcher, "?format=jsonl")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["MI"], 1);
    assert_eq!(first["submitted"], false);
    assert_eq!(jsonl.lines().count(), 24);
    let subs = get(&researcher, "?rows=submissions").await.unwrap();
    assert_eq!(subs.headers()["x-paracrowd-rows"], "0");
    assert_eq!(
        subs.text().await.unwrap().lines().count(),
        1,
        "the header only"
    );
    assert_eq!(
        get(&researcher, "?format=msrp").await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
    // The export page's statistics count the attempts as source/candidate pairs, split alike.
    let resp = app
        .call(
            &researcher,
            "research/export_view",
            &[("campaign_id", id.as_str()), ("query[seed]", "3")],
        )
        .await;
    let view: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(view["attempts"], 24);
    assert_eq!(view["parts"][0][0], "all");
    assert_eq!(view["parts"][0][1]["pairs"], 24);
    assert_eq!(
        view["parts"][0][1]["paraphrase_pairs"], 24,
        "every attempt was MI"
    );
    assert_eq!(view["parts"][3][0], "test");
    assert_eq!(view["parts"][3][1]["pairs"], test.len());
    assert_eq!(
        get(&worker, "").await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        get(&crate::helpers::client(), "").await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        get(&researcher, "?split=sideways").await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_full_model_queue_answers_busy_and_stores_nothing(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(&app, &admin, 2000, "text\nalpha beta gamma delta\n").await;
    let (worker, _) = app.annotator().await;
    let task = next(&app, &worker, &id).await;
    let source = task["Write"]["source_id"].as_str().unwrap().to_owned();

    let resp = check(&app, &worker, &id, &source, &format!("alpha {BUSY_MARKER}")).await;
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    let error = error_of(resp).await;
    assert_eq!(error, serde_json::json!("Overloaded"));
    let attempts: i64 = sqlx::query_scalar("select count(*) from apt_attempt")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(attempts, 0, "nothing was scored, so nothing is recorded");
    // The worker tries again in a moment and it works.
    let resp = check(&app, &worker, &id, &source, PASSING).await;
    assert_eq!(resp.status(), StatusCode::OK);
    app.stop().await;
}

/// A scorer whose queue is full: `admit` refuses, and being asked to score is a test failure.
struct FullQueue(std::sync::atomic::AtomicU64);

impl app::ml::PairScorer for FullQueue {
    fn score(&self, _: String, _: String) -> app::ml::ScoreFuture {
        panic!("a Check refused at the door must not reach the models")
    }
    fn versions(&self) -> std::sync::Arc<app::ml::ScorerVersions> {
        app::ml::PairScorer::versions(&crate::helpers::FakeScorer)
    }
    fn admit(&self) -> Result<(), app::ml::ScoreError> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Err(app::ml::ScoreError::Busy)
    }
}

/// When the sentence was shown to its worker (seconds since the epoch).
async fn shown_at(pool: &PgPool, source: &str) -> f64 {
    sqlx::query_scalar(
        "select extract(epoch from shown_at)::float8 from apt_assignment where source_sentence_id = $1::uuid",
    )
    .bind(source)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrations = "../migrations")]
async fn a_full_queue_is_answered_busy_before_anything_else_is_done(pool: PgPool) {
    let full = std::sync::Arc::new(FullQueue(Default::default()));
    let app = crate::helpers::spawn_app_scoring_with(pool.clone(), full.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(&app, &admin, 2000, "text\nalpha beta gamma delta\n").await;
    let (worker, _) = app.annotator().await;
    let task = next(&app, &worker, &id).await;
    let source = task["Write"]["source_id"].as_str().unwrap().to_owned();
    let shown = shown_at(&pool, &source).await;

    for _ in 0..3 {
        let resp = check(&app, &worker, &id, &source, PASSING).await;
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(error_of(resp).await, serde_json::json!("Overloaded"));
    }
    assert_eq!(full.0.load(std::sync::atomic::Ordering::Relaxed), 3);
    let attempts: i64 = sqlx::query_scalar("select count(*) from apt_attempt")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(attempts, 0);
    // The worker keeps the sentence, as it was.
    let again = next(&app, &worker, &id).await;
    assert_eq!(again["Write"]["source_id"], source.as_str());
    assert_eq!(shown_at(&pool, &source).await, shown);
    app.stop().await;
}

/// MSRP's 10,948-sentence file (1.9 MB, more once form-encoded) goes through the upload
/// endpoint, which has its own body limit; other endpoints keep the 1 MiB limit.
#[sqlx::test(migrations = "../migrations")]
async fn the_msrp_sentence_file_uploads_through_the_browser_endpoint(pool: PgPool) {
    let Some(content) = shared_data(
        "msrp/msr_paraphrase_data.txt",
        "api::apt::the_msrp_sentence_file_uploads_through_the_browser_endpoint",
    ) else {
        return;
    };
    assert!(content.len() > 1024 * 1024);
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(&app, &admin, 2000, "text\nseed sentence\n").await;
    let resp = app
        .call(
            &admin,
            "admin/import_sources",
            &[
                ("campaign_id", &id),
                ("filename", "msr_paraphrase_data.txt"),
                ("content", &content),
                ("default_origin", "msrp"),
            ],
        )
        .await;
    let summary = json(resp).await;
    let imported = summary["imported"].as_u64().unwrap();
    let dups = summary["duplicates_in_file"].as_u64().unwrap();
    assert_eq!(imported + dups, 10_948, "{summary}");
    // The same size to an ordinary endpoint is refused before it is read.
    let resp = check(&app, &admin, &id, "x", &content).await;
    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_refused_plain_check_goes_back_with_its_text_and_why(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        2000,
        "text\torigin\nalpha beta gamma delta\tmsrp\n",
    )
    .await;
    let (worker, _) = app.annotator().await;
    let task = next(&app, &worker, &id).await;
    let source_id = task["Write"]["source_id"].as_str().unwrap().to_owned();
    let page = format!("/apt/{id}");
    let plain_check = |text: &'static str| {
        let (app, worker, id, source_id, page) = (&app, &worker, &id, &source_id, &page);
        async move {
            let resp = app
                .post_form(
                    worker,
                    "apt/check",
                    page,
                    &[
                        ("campaign_id", id.as_str()),
                        ("source_id", source_id.as_str()),
                        ("text", text),
                    ],
                )
                .await;
            assert_eq!(resp.status(), StatusCode::FOUND, "{text}");
            resp.headers()["location"].to_str().unwrap().to_owned()
        }
    };
    // The models busy: the text goes back to the box, whatever it holds.
    let busy = "Rewritten & tidy: 100% queue-full-please?";
    assert!(busy.contains(BUSY_MARKER));
    assert_eq!(
        plain_check(busy).await,
        format!(
            "{page}?refused=busy&source={source_id}&draft=Rewritten+%26+tidy%3A+100%25+queue-full-please%3F"
        )
    );
    // The given sentence itself: the page says the rule's reason from the text.
    assert_eq!(
        plain_check("  Alpha  beta gamma delta\n").await,
        format!("{page}?refused=invalid&source={source_id}&draft=Alpha++beta+gamma+delta")
    );
    // Neither was stored as a Check; a scorable text is, and the page shows it.
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM apt_attempt")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stored, 0);
    let location = plain_check(PASSING).await;
    assert!(
        location.starts_with(&format!("{page}?checked=")),
        "{location}"
    );
}
