//! Which scorer produced a Check is said wherever its numbers go: the annotator's verdict, the
//! researcher's report (with the count per scorer when they were mixed), every APT export, and a
//! banner on the admin pages while the Check does not run on the paper's models.
use std::sync::Arc;

use app::ml::ScorerKind;
use reqwest::StatusCode;
use serde_json::Value;
use sqlx::PgPool;

use crate::apt::campaign;
use crate::helpers::{spawn_app, spawn_app_scoring_with, NamedFake, TestApp, FAKE_SCORER};

const BANNER: &str = "Checks are not scored by the APT paper";
const PAPER: &str = "the APT paper's models (RoBERTa-large NLI and BLEURT-base-128)";

async fn json(resp: reqwest::Response) -> Value {
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// One Check by a new annotator on the campaign's current sentence; its outcome.
async fn one_check(app: &TestApp, id: &str) -> Value {
    let (worker, _) = app.annotator().await;
    let task = json(app.call(&worker, "apt/next", &[("campaign_id", id)]).await).await;
    let source = task["Write"]["source_id"].as_str().unwrap().to_owned();
    json(
        app.call(
            &worker,
            "apt/check",
            &[
                ("campaign_id", id),
                ("source_id", &source),
                ("text", "alpha beta x1 x2 x3"),
            ],
        )
        .await,
    )
    .await
}

async fn text(app: &TestApp, c: &reqwest::Client, path: &str) -> String {
    let resp = app.get(c, path).await;
    assert_eq!(resp.status(), StatusCode::OK, "{path}");
    resp.text().await.unwrap()
}

#[sqlx::test(migrations = "../migrations")]
async fn the_check_the_report_and_every_export_name_the_scorer(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        2000,
        "text\torigin\nalpha beta gamma delta\tmsrp\n",
    )
    .await;
    let outcome = one_check(&app, &id).await;
    assert_eq!(outcome["scorer"], FAKE_SCORER, "{outcome}");
    let stored: (String, String) = sqlx::query_as("select scorer_kind, scorer from apt_attempt")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stored, ("custom".to_owned(), FAKE_SCORER.to_owned()));

    let report = json(
        app.call(&admin, "research/apt_report", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(
        report["scorers"],
        serde_json::json!([{"scorer": FAKE_SCORER, "attempts": 1, "is_papers": false}])
    );
    let page = text(&app, &admin, &format!("/research/apt/{id}")).await;
    assert!(
        page.contains("Every Check was scored by ") && page.contains(FAKE_SCORER),
        "report page"
    );
    assert!(
        page.contains("Not every Check was scored by the APT paper"),
        "report page warns"
    );

    // Every APT export format says it, on every row.
    let aph = text(&app, &admin, &format!("/export/apt/{id}")).await;
    let mut lines = aph.lines();
    assert!(lines.next().unwrap().ends_with("\tdollar\tscorer"));
    assert!(lines.next().unwrap().ends_with(&format!("\t{FAKE_SCORER}")));
    let csv = text(&app, &admin, &format!("/export/apt/{id}?format=csv")).await;
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let column = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "scorer")
        .unwrap();
    assert_eq!(
        &reader.records().next().unwrap().unwrap()[column],
        FAKE_SCORER
    );
    let jsonl = text(
        &app,
        &admin,
        &format!("/export/apt/{id}?format=jsonl&rows=attempts"),
    )
    .await;
    let row: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(row["scorer"], FAKE_SCORER);

    // The admins' banner, and the status behind it (researchers may read it, annotators not).
    let status = json(app.call(&admin, "research/scorer_status", &[]).await).await;
    assert_eq!(
        (status["is_papers"].as_bool(), status["kind"].as_str()),
        (Some(false), Some("custom"))
    );
    let admin_page = text(&app, &admin, "/admin/campaigns").await;
    assert!(admin_page.contains(BANNER), "the banner on the admin pages");
    let (annotator, _) = app.annotator().await;
    assert_eq!(
        app.call(&annotator, "research/scorer_status", &[])
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert!(
        !text(&app, &annotator, "/").await.contains(BANNER),
        "annotators see no banner"
    );
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_campaign_scored_by_two_scorers_shows_the_count_of_each(pool: PgPool) {
    // First the lite scorer, then (after a restart) the paper's models.
    let lite = Arc::new(NamedFake {
        kind: ScorerKind::Lite,
        description: "lite stand-in, agrees with the paper's MI on 75% of held-out pairs",
    });
    let app = spawn_app_scoring_with(pool.clone(), lite).await;
    let (admin, admin_name) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        2000,
        "text\torigin\nalpha beta gamma delta\tmsrp\n",
    )
    .await;
    one_check(&app, &id).await;
    one_check(&app, &id).await;
    app.stop().await;

    let paper = Arc::new(NamedFake {
        kind: ScorerKind::Paper,
        description: PAPER,
    });
    let app = spawn_app_scoring_with(pool.clone(), paper).await;
    let admin = crate::helpers::client();
    app.login(&admin, &admin_name, crate::helpers::PASSWORD)
        .await;
    assert_eq!(one_check(&app, &id).await["scorer"], PAPER);
    let report = json(
        app.call(&admin, "research/apt_report", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(
        report["scorers"],
        serde_json::json!([
            {"scorer": "lite stand-in, agrees with the paper's MI on 75% of held-out pairs", "attempts": 2, "is_papers": false},
            {"scorer": PAPER, "attempts": 1, "is_papers": true},
        ])
    );
    let page = text(&app, &admin, &format!("/research/apt/{id}")).await;
    assert!(page.contains("Mixed scorers: this campaign"), "report page");
    // On the paper's models, no banner.
    assert!(!text(&app, &admin, "/admin/campaigns")
        .await
        .contains(BANNER));
    app.stop().await;
}
