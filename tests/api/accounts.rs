//! Register, log in, log out, wrong passwords, duplicates, blocking, throttling, cookies.
use reqwest::StatusCode;
use sqlx::PgPool;

use crate::helpers::{client, error_of, spawn_app, username, PASSWORD};

#[sqlx::test(migrations = "../migrations")]
async fn registering_creates_an_annotator_and_logs_them_in(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let c = client();
    let name = username("newbie");

    let resp = app.register(&c, &name, PASSWORD).await;

    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["location"], "/");
    assert_eq!(
        app.whoami(&c).await,
        Some((name.clone(), "annotator".into()))
    );
    let hash: String = sqlx::query_scalar("select password_hash from app_user where username = $1")
        .bind(&name)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(
        hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{hash}"
    );
    assert!(!hash.contains(PASSWORD));
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_taken_username_is_refused_whatever_its_case(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let name = username("Dup");
    assert!(app
        .register(&client(), &name, PASSWORD)
        .await
        .status()
        .is_success());

    let resp = app
        .register(&client(), &name.to_uppercase(), PASSWORD)
        .await;

    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let err = error_of(resp).await;
    assert_eq!(err["Validation"]["field"], "username");
    assert!(err["Validation"]["message"]
        .as_str()
        .unwrap()
        .contains("taken"));
    let n: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 1);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn two_simultaneous_registrations_of_one_name_create_one_account(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let name = username("race");
    let (c1, c2) = (client(), client());

    let (a, b) = tokio::join!(
        app.register(&c1, &name, PASSWORD),
        app.register(&c2, &name, PASSWORD)
    );

    let statuses = [a.status(), b.status()];
    assert!(statuses.contains(&StatusCode::OK), "{statuses:?}");
    assert!(
        statuses.contains(&StatusCode::UNPROCESSABLE_ENTITY),
        "{statuses:?}"
    );
    let n: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 1);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn invalid_registrations_say_why_and_create_nothing(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let huge = "x".repeat(300);
    let cases: [(&str, &str, &str, &str); 6] = [
        ("ab", PASSWORD, PASSWORD, "username"),
        ("<script>alert(1)</script>", PASSWORD, PASSWORD, "username"),
        ("", PASSWORD, PASSWORD, "username"),
        ("valid_name", "short", "short", "password"),
        ("valid_name", &huge, &huge, "password"),
        (
            "valid_name",
            PASSWORD,
            "something else",
            "password_confirmation",
        ),
    ];
    for (name, pw, confirm, field) in cases {
        let resp = app
            .call(
                &client(),
                "register",
                &[
                    ("username", name),
                    ("password", pw),
                    ("password_confirmation", confirm),
                ],
            )
            .await;
        assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY, "{name:?}");
        assert_eq!(
            error_of(resp).await["Validation"]["field"],
            field,
            "{name:?}"
        );
    }
    // A form with a missing field is a clear 400, not a crash.
    let resp = app
        .call(&client(), "register", &[("username", "someone")])
        .await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let n: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 0);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn unknown_user_and_wrong_password_get_the_same_answer(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, name) = app.annotator().await;

    let wrong = app.login(&client(), &name, "not the password").await;
    let unknown = app
        .login(&client(), &username("ghost"), "not the password")
        .await;

    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    assert!(wrong.headers().get("set-cookie").is_none());
    let (a, b) = (wrong.text().await.unwrap(), unknown.text().await.unwrap());
    assert_eq!(a, b);
    assert_eq!(a, "\"BadCredentials\"");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn logging_in_and_out_works_and_logout_kills_the_session_on_the_server(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, name) = app.annotator().await;
    let c = client();

    let resp = app.login(&c, &name, PASSWORD).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let cookie = session_cookie(&resp).expect("login sets the session cookie");
    assert_eq!(app.whoami(&c).await.map(|u| u.0), Some(name.clone()));

    let resp = app.call(&c, "logout", &[]).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(app.whoami(&c).await, None);

    // Replaying the old cookie from another client does not bring the session back.
    let replay = reqwest::Client::new()
        .post(app.url("/api/current_user"))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(replay.text().await.unwrap(), "null");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_session_id_changes_at_login_and_the_old_one_stops_working(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, other) = app.annotator().await;
    let c = client();
    let first = session_cookie(&app.register(&c, &username("fix"), PASSWORD).await).unwrap();

    let second = session_cookie(&app.login(&c, &other, PASSWORD).await).unwrap();

    assert_ne!(first, second);
    let replay = reqwest::Client::new()
        .post(app.url("/api/current_user"))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("cookie", first)
        .send()
        .await
        .unwrap();
    assert_eq!(replay.text().await.unwrap(), "null");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_session_cookie_is_http_only_and_same_site_lax(pool: PgPool) {
    let app = spawn_app(pool).await;
    let c = client();

    let resp = app.register(&c, &username("cookie"), PASSWORD).await;

    let set_cookie = resp.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(set_cookie.starts_with("paracrowd_session="), "{set_cookie}");
    assert!(set_cookie.contains("HttpOnly"), "{set_cookie}");
    assert!(set_cookie.contains("SameSite=Lax"), "{set_cookie}");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_blocked_user_cannot_log_in_and_their_open_session_ends(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (worker, name) = app.annotator().await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = app.user_id(&name).await;

    let resp = app
        .call(
            &admin,
            "admin/set_user_blocked",
            &[("user_id", &id), ("blocked", "true")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);

    assert_eq!(
        app.whoami(&worker).await,
        None,
        "the open session ends at the next request"
    );
    // The right and a wrong password get the same answer as an unknown account: the login
    // form does not tell anyone which accounts exist or are blocked.
    let answers = [
        app.login(&client(), &name, PASSWORD).await,
        app.login(&client(), &name, "wrong password").await,
        app.login(&client(), "nobody-by-this-name", PASSWORD).await,
    ];
    for resp in answers {
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(error_of(resp).await, "BadCredentials");
    }

    let resp = app
        .call(
            &admin,
            "admin/set_user_blocked",
            &[("user_id", &id), ("blocked", "false")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        app.login(&client(), &name, PASSWORD).await.status(),
        StatusCode::OK
    );
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn login_attempts_are_rate_limited_per_account(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, name) = app.annotator().await;

    for i in 0..5 {
        let resp = app.login(&client(), &name, "wrong password").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    // Even the right password is refused until the window passes.
    let resp = app.login(&client(), &name, PASSWORD).await;
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    let err = error_of(resp).await;
    assert!(err["RateLimited"]["retry_after_secs"].as_u64().unwrap() > 0);
    // Another account from the same address is not locked out by these five.
    let (_, other) = app.annotator().await;
    assert_eq!(
        app.login(&client(), &other, PASSWORD).await.status(),
        StatusCode::OK
    );
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn login_attempts_are_rate_limited_per_address(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, name) = app.annotator().await;

    // 20 failures spread over many usernames (4 each, under the per-account limit).
    for i in 0..20 {
        let resp = app
            .login(&client(), &format!("spray_{}", i % 5), "wrong password")
            .await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "attempt {i}");
    }

    let resp = app.login(&client(), &name, PASSWORD).await;
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_first_admin_is_created_once(pool: PgPool) {
    let first = server::admin_bootstrap::ensure_first_admin(&pool)
        .await
        .unwrap();
    let (name, password) = first.expect("an empty database gets an admin");
    assert_eq!(name, "admin");
    assert_eq!(password.len(), 20);
    assert!(server::admin_bootstrap::ensure_first_admin(&pool)
        .await
        .unwrap()
        .is_none());

    let app = spawn_app(pool).await;
    let c = client();
    assert_eq!(
        app.login(&c, "admin", &password).await.status(),
        StatusCode::OK
    );
    assert_eq!(app.whoami(&c).await, Some(("admin".into(), "admin".into())));
    app.stop().await;
}

/// `name=value` of the session cookie a response sets.
fn session_cookie(resp: &reqwest::Response) -> Option<String> {
    resp.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("paracrowd_session="))
        .map(|v| v.split(';').next().unwrap().to_owned())
}
