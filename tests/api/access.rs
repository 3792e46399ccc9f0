//! What admins do with users (the role checks of every endpoint are in access_matrix.rs).
use reqwest::StatusCode;
use sqlx::PgPool;

use crate::helpers::{client, spawn_app};

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
