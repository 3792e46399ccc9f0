//! Every admin server function checks the caller's role on the server.
use reqwest::StatusCode;
use sqlx::PgPool;

use crate::helpers::{client, error_of, spawn_app};

#[sqlx::test(migrations = "../migrations")]
async fn anonymous_annotators_and_researchers_are_refused_by_every_admin_function(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (_, victim) = app.annotator().await;
    let victim_id = app.user_id(&victim).await;
    let (annotator, _) = app.annotator().await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let anonymous = client();
    let some_id = uuid::Uuid::new_v4().to_string();
    let c = some_id.as_str();
    let calls: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("admin/list_users", vec![]),
        (
            "admin/set_user_role",
            vec![("user_id", &victim_id), ("role", "admin")],
        ),
        (
            "admin/set_user_blocked",
            vec![("user_id", &victim_id), ("blocked", "true")],
        ),
        ("admin/list_campaigns", vec![]),
        ("admin/get_campaign", vec![("campaign_id", c)]),
        (
            "admin/create_campaign",
            vec![
                ("kind", "apt"),
                ("title", "t"),
                ("instructions", ""),
                ("budget_cap_cents", "2000"),
                ("bleurt_threshold", "0.5"),
            ],
        ),
        (
            "admin/set_campaign_status",
            vec![("campaign_id", c), ("status", "open")],
        ),
        (
            "admin/import_sources",
            vec![
                ("campaign_id", c),
                ("filename", "s.tsv"),
                ("content", "text\nx\n"),
                ("default_origin", "u"),
            ],
        ),
        (
            "admin/create_judge_campaign",
            vec![
                ("title", "t"),
                ("instructions", ""),
                ("definition", "loose"),
                ("judgments_per_pair", "6"),
                ("test_every", "5"),
                ("min_test_accuracy", "0.85"),
                ("min_kappa", "0.2"),
                ("gate_min_judgments", "30"),
            ],
        ),
        (
            "admin/import_pairs",
            vec![
                ("campaign_id", c),
                ("filename", "p.csv"),
                ("content", "sentence1,sentence2\na,b\n"),
                ("labels_are_tests", "true"),
            ],
        ),
        ("admin/judge_overview", vec![("campaign_id", c)]),
        (
            "admin/list_pairs",
            vec![("campaign_id", c), ("tests_only", "true"), ("page", "0")],
        ),
        (
            "admin/set_test_pair",
            vec![
                ("campaign_id", c),
                ("pair_id", c),
                ("gold", "paraphrase"),
                ("explanation", ""),
            ],
        ),
        (
            "admin/republish",
            vec![("campaign_id", c), ("min_kappa", "0.4")],
        ),
        (
            "admin/import_corpus",
            vec![
                ("name", "c"),
                ("filename", "c.txt"),
                ("content", "One sentence.\nAnother one.\n"),
                ("shape", "sentences"),
            ],
        ),
        ("admin/mining_overview", vec![]),
        (
            "admin/start_mining",
            vec![("corpus_id", c), ("method", "l12")],
        ),
        ("admin/mining_run", vec![("run_id", c)]),
        ("admin/cancel_mining", vec![("run_id", c)]),
        ("admin/restart_mining", vec![("run_id", c)]),
        ("admin/mining_candidates", vec![("run_id", c)]),
        (
            "admin/deploy_candidates",
            vec![("run_id", c), ("campaign_id", c)],
        ),
        (
            "admin/set_judge_worker_status",
            vec![
                ("campaign_id", c),
                ("user_id", &victim_id),
                ("status", "stopped"),
            ],
        ),
    ];

    for (who, c, expected) in [
        (
            "anonymous",
            &anonymous,
            (StatusCode::UNAUTHORIZED, "Unauthenticated"),
        ),
        (
            "annotator",
            &annotator,
            (StatusCode::FORBIDDEN, "Forbidden"),
        ),
        (
            "researcher",
            &researcher,
            (StatusCode::FORBIDDEN, "Forbidden"),
        ),
    ] {
        for (name, form) in &calls {
            let resp = app.call(c, name, form).await;
            assert_eq!(resp.status(), expected.0, "{who} calling {name}");
            assert_eq!(error_of(resp).await, expected.1, "{who} calling {name}");
        }
    }

    let (role, status): (String, String) =
        sqlx::query_as("select role, status from app_user where username = $1")
            .bind(&victim)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((role.as_str(), status.as_str()), ("annotator", "active"));
    let campaigns: i64 = sqlx::query_scalar("select count(*) from campaign")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(campaigns, 0);
    let corpora: i64 = sqlx::query_scalar("select count(*) from corpus")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(corpora, 0);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn an_admin_lists_users_and_changes_roles(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (worker, name) = app.annotator().await;
    let (admin, admin_name) = app.user_with_role("admin").await;
    let id = app.user_id(&name).await;

    let resp = app.call(&admin, "admin/list_users", &[]).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let users: serde_json::Value = resp.json().await.unwrap();
    let users = users.as_array().unwrap();
    assert_eq!(users.len(), 2);
    assert_eq!(users[0]["username"], admin_name.as_str(), "admins first");
    assert_eq!(users[0]["is_you"], true);
    assert!(users.iter().all(|u| u.get("password_hash").is_none()));

    let resp = app
        .call(
            &admin,
            "admin/set_user_role",
            &[("user_id", &id), ("role", "researcher")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        app.whoami(&worker).await,
        Some((name, "researcher".into())),
        "takes effect at once"
    );

    let resp = app
        .call(
            &admin,
            "admin/set_user_role",
            &[("user_id", &id), ("role", "root")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let resp = app
        .call(
            &admin,
            "admin/set_user_role",
            &[("user_id", "not-a-uuid"), ("role", "admin")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let missing = uuid::Uuid::new_v4().to_string();
    let resp = app
        .call(
            &admin,
            "admin/set_user_role",
            &[("user_id", &missing), ("role", "admin")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn an_admin_cannot_demote_or_block_themselves(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (admin, name) = app.user_with_role("admin").await;
    let id = app.user_id(&name).await;

    let demote = app
        .call(
            &admin,
            "admin/set_user_role",
            &[("user_id", &id), ("role", "annotator")],
        )
        .await;
    let block = app
        .call(
            &admin,
            "admin/set_user_blocked",
            &[("user_id", &id), ("blocked", "true")],
        )
        .await;

    assert_eq!(demote.status(), StatusCode::CONFLICT);
    assert_eq!(block.status(), StatusCode::CONFLICT);
    assert_eq!(app.whoami(&admin).await, Some((name, "admin".into())));
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn campaigns_are_listed_only_for_logged_in_users(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (worker, _) = app.annotator().await;
    sqlx::query("insert into campaign (kind, title, status) values ('judge', 'Open study', 'open'), ('apt', 'Draft study', 'draft')")
        .execute(&pool)
        .await
        .unwrap();

    let anonymous = app.call(&client(), "list_my_campaigns", &[]).await;
    let listed = app.call(&worker, "list_my_campaigns", &[]).await;

    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(listed.status(), StatusCode::OK);
    let list: serde_json::Value = listed.json().await.unwrap();
    let titles: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Open study"]);
    app.stop().await;
}
