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
    // An argument that is not an id is refused as it is read, before the function runs, with
    // the parser's words.
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let said = resp.text().await.unwrap();
    assert!(said.contains("UUID parsing failed"), "{said}");
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

/// A state-changing request with the admin's cookie is refused when it comes
/// from another origin (another port of the same host, a sibling subdomain, `null`, a foreign
/// `Referer`) or is not a form (`text/plain`, no `Content-Type`); nothing changes. The app's own
/// origin and a program that sends neither header pass.
#[sqlx::test(migrations = "../migrations")]
async fn forged_posts_from_other_origins_and_bodies_that_are_not_forms_change_nothing(
    pool: PgPool,
) {
    use reqwest::header::{CONTENT_TYPE, HOST, ORIGIN, REFERER};
    let app = spawn_app(pool.clone()).await;
    let (_, name) = app.annotator().await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = app.user_id(&name).await;
    let role = || {
        let pool = pool.clone();
        let name = name.clone();
        async move {
            sqlx::query_scalar::<_, String>("select role from app_user where username = $1")
                .bind(name)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    let port = app.addr.port();
    let own = format!("http://127.0.0.1:{port}");
    let form = format!("user_id={id}&role=researcher");
    let url = app.url("/api/admin/set_user_role");
    let send = |headers: Vec<(reqwest::header::HeaderName, String)>| {
        let mut req = admin
            .post(&url)
            .header(reqwest::header::ACCEPT, "application/json")
            .body(form.clone());
        for (name, value) in headers {
            req = req.header(name, value);
        }
        req.send()
    };
    let form_type = (CONTENT_TYPE, "application/x-www-form-urlencoded".to_owned());
    let refused = [
        (
            vec![
                form_type.clone(),
                (ORIGIN, format!("http://127.0.0.1:{}", port + 1)),
            ],
            StatusCode::FORBIDDEN,
        ),
        (
            vec![
                form_type.clone(),
                (HOST, format!("app.localhost:{port}")),
                (ORIGIN, format!("http://evil.app.localhost:{port}")),
            ],
            StatusCode::FORBIDDEN,
        ),
        (
            vec![form_type.clone(), (ORIGIN, "null".to_owned())],
            StatusCode::FORBIDDEN,
        ),
        (
            vec![
                form_type.clone(),
                (REFERER, "http://attacker.example/page".to_owned()),
            ],
            StatusCode::FORBIDDEN,
        ),
        (
            vec![
                (CONTENT_TYPE, "text/plain".to_owned()),
                (ORIGIN, own.clone()),
            ],
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            vec![(CONTENT_TYPE, "text/plain;charset=UTF-8".to_owned())],
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (vec![], StatusCode::UNSUPPORTED_MEDIA_TYPE),
    ];
    for (headers, status) in refused {
        let shown = format!("{headers:?}");
        let resp = send(headers).await.unwrap();
        assert_eq!(resp.status(), status, "{shown}");
        assert_eq!(role().await, "annotator", "nothing changed: {shown}");
    }
    // The app's own page (Origin, or only a Referer), then a program with neither header.
    for headers in [
        vec![form_type.clone(), (ORIGIN, own.clone())],
        vec![form_type.clone(), (REFERER, format!("{own}/admin/users"))],
        vec![form_type.clone()],
    ] {
        let shown = format!("{headers:?}");
        let resp = send(headers).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "{shown}");
        assert_eq!(role().await, "researcher", "{shown}");
        sqlx::query("update app_user set role = 'annotator' where username = $1")
            .bind(&name)
            .execute(&pool)
            .await
            .unwrap();
    }
    app.stop().await;
}
