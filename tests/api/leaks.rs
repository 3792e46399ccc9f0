//! The leak test: everything an annotator can receive during a study with gold pairs (pages
//! with their hydration data, every worker server function, error answers) is collected and
//! searched for gold labels, explanations, other workers' data and admin fields.
use reqwest::{Client, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{client, spawn_app, TestApp};
use crate::judge::{campaign, Setup};

/// Ordinary pairs and test pairs whose texts say nothing about their labels.
fn pairs(n: usize) -> String {
    let mut s = String::from("sentence1,sentence2\n");
    for i in 0..n {
        s.push_str(&format!("Plain pair {i} first.,Plain pair {i} second.\n"));
    }
    s
}

fn tests(n: usize, marker: &str) -> String {
    let mut s = String::from("sentence1,sentence2,gold_label,explanation\n");
    for i in 0..n {
        s.push_str(&format!(
            "Plain test {i} first.,Plain test {i} second.,{},{marker}-{i} explains it.\n",
            i % 2
        ));
    }
    s
}

/// One response as the annotator received it.
struct Seen {
    what: String,
    body: String,
}

struct Recorder<'a> {
    app: &'a TestApp,
    c: &'a Client,
    seen: Vec<Seen>,
}

impl Recorder<'_> {
    async fn call(&mut self, name: &str, form: &[(&str, &str)]) -> (StatusCode, String) {
        let resp = self.app.call(self.c, name, form).await;
        let status = resp.status();
        let body = resp.text().await.unwrap();
        self.seen.push(Seen {
            what: format!("{name} {form:?} -> {status}"),
            body: body.clone(),
        });
        (status, body)
    }

    async fn page(&mut self, path: &str) {
        self.page_answering(path, StatusCode::OK).await;
    }

    /// A page that answers `expected` (a refused page says so in its status too).
    async fn page_answering(&mut self, path: &str, expected: StatusCode) {
        let resp = self.app.get(self.c, path).await;
        let status = resp.status();
        let body = resp.text().await.unwrap();
        assert_eq!(status, expected, "{path}");
        self.seen.push(Seen {
            what: format!("GET {path}"),
            body,
        });
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn an_annotator_never_receives_gold_labels_other_workers_data_or_admin_fields(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, admin_name) = app.user_with_role("admin").await;
    let marker = format!("EXPL{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
    let judge = campaign(
        &app,
        &admin,
        Setup {
            test_every: 3,
            tests_csv: Some(&tests(4, &marker)),
            ..Setup::pairs(&pairs(8))
        },
    )
    .await;
    let apt = crate::apt::campaign(
        &app,
        &admin,
        2000,
        "text\torigin\nalpha beta gamma delta\tmsrp\nalpha beta gamma delta epsilon\tppnmt\n",
    )
    .await;

    // Another worker's judgments and rewrites come first.
    let (other, other_name) = app.annotator().await;
    let other_id = app.user_id(&other_name).await;
    let (judged, _) = crate::judge::work(&app, &other, &judge, 6, |_| false).await;
    assert_eq!(judged.len(), 6);
    let other_text = "alpha beta zqothers x2 x3 x4 x5 x6";
    let task: Value = app
        .call(&other, "apt/next", &[("campaign_id", &apt)])
        .await
        .json()
        .await
        .unwrap();
    let source = task["Write"]["source_id"].as_str().unwrap().to_owned();
    let check: Value = app
        .call(
            &other,
            "apt/check",
            &[
                ("campaign_id", &apt),
                ("source_id", &source),
                ("text", other_text),
            ],
        )
        .await
        .json()
        .await
        .unwrap();
    let other_attempt = check["attempt_id"].as_str().unwrap().to_owned();
    let resp = app
        .call(
            &other,
            "apt/submit",
            &[("campaign_id", &apt), ("attempt_id", &other_attempt)],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);

    // The annotator under test works through both campaigns, recording everything received.
    let (worker, worker_name) = app.annotator().await;
    let mut r = Recorder {
        app: &app,
        c: &worker,
        seen: Vec::new(),
    };
    r.page("/").await;
    r.page(&format!("/judge/{judge}")).await;
    r.page(&format!("/apt/{apt}")).await;
    r.call("current_user", &[]).await;
    r.call("list_my_campaigns", &[]).await;

    // Judge every pair: tests answered right except the first one, which is missed.
    let mut missed: Option<(usize, String)> = None;
    let mut answered = 0;
    loop {
        let (status, body) = r.call("judge/next", &[("campaign_id", &judge)]).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let task: Value = serde_json::from_str(&body).unwrap();
        let Some(j) = task.get("Judge") else { break };
        let a = j["assignment_id"].as_str().unwrap().to_owned();
        let (is_test, gold, explanation): (bool, Option<bool>, Option<String>) = sqlx::query_as(
            "select p.is_test, p.gold_label, p.gold_explanation from judge_assignment a
             join judge_pair p using (pair_id) where a.assignment_id = $1::uuid",
        )
        .bind(&a)
        .fetch_one(&pool)
        .await
        .unwrap();
        let miss = is_test && missed.is_none();
        let answer = match gold {
            Some(g) if miss => !g,
            Some(g) => g,
            None => answered % 2 == 0,
        };
        let form = [
            ("campaign_id", judge.as_str()),
            ("assignment_id", a.as_str()),
            ("is_paraphrase", if answer { "true" } else { "false" }),
        ];
        let (status, body) = r.call("judge/answer", &form).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if miss {
            missed = Some((r.seen.len() - 1, explanation.unwrap()));
        }
        // A double press answers the same (and reveals nothing new).
        r.call("judge/answer", &form).await;
        answered += 1;
        if answered == 4 {
            r.page(&format!("/judge/{judge}")).await;
        }
    }
    assert_eq!(answered, 12, "8 pairs and 4 tests");
    let (missed_at, missed_explanation) = missed.expect("a test pair was served");
    r.page(&format!("/judge/{judge}")).await;

    // Write: check twice, submit, skip, and poke at the other worker's attempt.
    let (_, body) = r.call("apt/next", &[("campaign_id", &apt)]).await;
    let task: Value = serde_json::from_str(&body).unwrap();
    let source = task["Write"]["source_id"].as_str().unwrap().to_owned();
    for text in ["alpha beta x1 x2 x3 x4 x5 x6", "alpha x1 x2"] {
        r.call(
            "apt/check",
            &[
                ("campaign_id", &apt),
                ("source_id", &source),
                ("text", text),
            ],
        )
        .await;
    }
    let mine: String = sqlx::query_scalar(
        "select apt_attempt_id::text from apt_attempt a join app_user u using (app_user_id)
         where u.username = $1 order by a.created_at limit 1",
    )
    .bind(&worker_name)
    .fetch_one(&pool)
    .await
    .unwrap();
    r.call(
        "apt/submit",
        &[("campaign_id", &apt), ("attempt_id", &mine)],
    )
    .await;
    let (status, _) = r
        .call(
            "apt/submit",
            &[("campaign_id", &apt), ("attempt_id", &other_attempt)],
        )
        .await;
    assert!(
        status.is_client_error(),
        "another worker's attempt: {status}"
    );
    let (_, body) = r.call("apt/next", &[("campaign_id", &apt)]).await;
    let task: Value = serde_json::from_str(&body).unwrap();
    if let Some(source) = task["Write"]["source_id"].as_str() {
        r.call("apt/skip", &[("campaign_id", &apt), ("source_id", source)])
            .await;
    }
    r.call("apt/next", &[("campaign_id", &apt)]).await;
    r.page(&format!("/apt/{apt}")).await;
    r.page("/").await;

    // Refused calls answer without data either.
    for name in [
        "research/judge_report",
        "research/apt_report",
        "admin/judge_overview",
    ] {
        let (status, _) = r.call(name, &[("campaign_id", &judge)]).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{name}");
    }
    for path in [
        format!("/research/judge/{judge}"),
        format!("/admin/campaigns/{judge}"),
    ] {
        r.page_answering(&path, StatusCode::FORBIDDEN).await;
    }
    let resp = app.get(&worker, &format!("/export/judge/{judge}")).await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    r.seen.push(Seen {
        what: "GET /export".into(),
        body: resp.text().await.unwrap(),
    });

    // What must never appear.
    let gold: Vec<(String, String, String)> = sqlx::query_as(
        "select sentence1, sentence2, gold_explanation from judge_pair where is_test",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let forbidden: Vec<(String, &str)> = vec![
        (marker.clone(), "a gold explanation"),
        ("gold".into(), "a gold field"),
        ("is_test".into(), "the test flag"),
        (other_name.clone(), "another worker's name"),
        (other_id.clone(), "another worker's id"),
        (
            app::domain::account::pseudonym(&other_id.parse().unwrap()),
            "another worker's pseudonym",
        ),
        ("zqothers".into(), "another worker's rewrite"),
        (other_attempt.clone(), "another worker's attempt id"),
        (admin_name.clone(), "the admin's name"),
        ("password".into(), "a password field"),
        ("argon2".into(), "a password hash"),
        ("open_slots".into(), "pair bookkeeping"),
        ("n_paraphrase".into(), "other workers' votes"),
        ("test_position".into(), "where the test pair sits"),
        ("gate_overridden".into(), "admin worker settings"),
    ];
    assert_eq!(gold.len(), 4);
    let mut checked = 0;
    for (i, seen) in r.seen.iter().enumerate() {
        let body = seen.body.to_lowercase();
        // The miss, and its repeat (a double press or a retry gets the same answer).
        let allowed_here = i == missed_at || i == missed_at + 1;
        for (needle, what) in &forbidden {
            // The login and register pages have a password box; only JSON is checked for it.
            if needle == "password" && seen.what.starts_with("GET") {
                continue;
            }
            if allowed_here && needle == &marker {
                continue;
            }
            assert!(
                !body.contains(&needle.to_lowercase()),
                "{what} ({needle}) in {}:\n{}",
                seen.what,
                seen.body
            );
            checked += 1;
        }
        if !allowed_here {
            assert!(
                !body.contains("\"explanation\""),
                "an explanation field in {}: {}",
                seen.what,
                seen.body
            );
        }
    }
    assert!(r.seen.len() >= 45, "{} responses", r.seen.len());
    assert!(checked >= r.seen.len() * (forbidden.len() - 1), "{checked}");
    // The missed test pair, and only it, came back with its answer and explanation.
    let feedback: Value = serde_json::from_str(&r.seen[missed_at].body).unwrap();
    assert_eq!(
        feedback["feedback"]["explanation"], missed_explanation,
        "{feedback}"
    );
    let others: Vec<&String> = gold
        .iter()
        .map(|g| &g.2)
        .filter(|e| **e != missed_explanation)
        .collect();
    for e in others {
        assert!(!r.seen[missed_at].body.contains(e.as_str()));
    }
    app.stop().await;
}

/// The anonymous home page shows no campaign, user or admin data.
#[sqlx::test(migrations = "../migrations")]
async fn visitors_see_no_study_data(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (admin, admin_name) = app.user_with_role("admin").await;
    let judge = campaign(
        &app,
        &admin,
        Setup {
            test_every: 3,
            gate_min_judgments: 30,
            tests_csv: Some(&tests(1, "EXPLVISITOR")),
            ..Setup::pairs(&pairs(2))
        },
    )
    .await;
    let visitor = client();
    for path in ["/", "/login", "/register", &format!("/judge/{judge}")] {
        let body = app.get(&visitor, path).await.text().await.unwrap();
        for needle in [
            admin_name.as_str(),
            "Judging test",
            "Plain pair",
            "EXPLVISITOR",
        ] {
            assert!(!body.contains(needle), "{needle} in {path}: {body}");
        }
    }
    app.stop().await;
}
