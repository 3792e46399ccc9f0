//! Register, log in, log out, wrong passwords, duplicates, blocking, throttling, cookies.
use reqwest::StatusCode;
use sqlx::PgPool;

use server::config::Config;

use app::client_addr::TrustedProxies;

use crate::helpers::{
    client, error_of, spawn_app, spawn_app_with_config, username, TestApp, PASSWORD,
};

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
    // Passwords a guesser tries first are refused with a reason and advice.
    for weak in ["12345678", "password", "        ", "valid_name2024"] {
        let resp = app
            .call(
                &client(),
                "register",
                &[
                    ("username", "valid_name"),
                    ("password", weak),
                    ("password_confirmation", weak),
                ],
            )
            .await;
        assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY, "{weak:?}");
        let error = error_of(resp).await;
        assert_eq!(error["Validation"]["field"], "password", "{weak:?}");
        let message = error["Validation"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("This password is too easy to guess") && message.contains("word"),
            "{weak:?}: {message}"
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

/// A login from `from` (an address a trusted proxy names in `X-Forwarded-For`).
async fn login_from(app: &TestApp, from: &str, name: &str, password: &str) -> reqwest::Response {
    client()
        .post(app.url("/api/login"))
        .header(reqwest::header::ACCEPT, "application/json")
        .header("x-forwarded-for", from)
        .form(&[("username", name), ("password", password)])
        .send()
        .await
        .unwrap()
}

/// The app behind a proxy on 127.0.0.1, so each test request can come from its own address.
async fn behind_a_proxy(pool: PgPool) -> TestApp {
    let config = Config {
        trusted_proxies: TrustedProxies::parse("127.0.0.1, ::1").unwrap(),
        ..Config::for_tests(String::new())
    };
    spawn_app_with_config(pool, config).await
}

/// The seconds a refused login is told to wait, from its `Retry-After` header and its body
/// (which must agree).
async fn retry_after(resp: reqwest::Response) -> u64 {
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    let header: u64 = resp.headers()[reqwest::header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let body = error_of(resp).await["RateLimited"]["retry_after_secs"]
        .as_u64()
        .unwrap();
    assert_eq!(header, body);
    header
}

/// A guesser waits longer and longer, but nobody is locked out — not the
/// account's owner on another address, not a user behind the guesser's proxy.
#[sqlx::test(migrations = "../migrations")]
async fn a_guesser_waits_ever_longer_while_the_owner_and_neighbours_still_log_in(pool: PgPool) {
    let app = behind_a_proxy(pool.clone()).await;
    let (_, owner) = app.annotator().await;
    let (_, neighbour) = app.annotator().await;
    let guesser = "203.0.113.7";

    // Three wrong passwords are answered; the fourth try must wait, whatever the password.
    for i in 0..3 {
        let resp = login_from(&app, guesser, &owner, "wrong password").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    assert_eq!(
        retry_after(login_from(&app, guesser, &owner, PASSWORD).await).await,
        1
    );
    assert_eq!(
        retry_after(login_from(&app, guesser, &owner, "wrong password").await).await,
        1
    );
    // Once the wait has passed (the failures made two seconds older), one more guess, and the
    // next wait is twice as long.
    sqlx::query("update login_failure set failed_at = failed_at - interval '2 seconds'")
        .execute(&pool)
        .await
        .unwrap();
    let resp = login_from(&app, guesser, &owner, "wrong password").await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        retry_after(login_from(&app, guesser, &owner, PASSWORD).await).await,
        2
    );

    // The owner, from their own address, logs in at once; so does a neighbour behind the
    // guesser's address, on their own account.
    assert_eq!(
        login_from(&app, "198.51.100.20", &owner, PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        login_from(&app, guesser, &neighbour, PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );

    // 25 failures from one address over many names do not lock out a user behind it.
    let office = "192.0.2.44";
    for i in 0..25 {
        let resp = login_from(&app, office, &format!("spray_{i}"), "wrong password").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    assert_eq!(
        login_from(&app, office, &neighbour, PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );
    // ... but that address is slowed down on the names it failed on.
    assert!(retry_after(login_from(&app, office, "spray_3", "wrong password").await).await >= 1);
    app.stop().await;
}

/// Without a trusted proxy, `X-Forwarded-For` is the client's own say and is ignored: a guesser
/// cannot get fresh tries by naming a new address in it.
#[sqlx::test(migrations = "../migrations")]
async fn a_forwarded_for_header_from_an_untrusted_peer_buys_no_fresh_tries(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, owner) = app.annotator().await;
    for i in 0..3 {
        let from = format!("203.0.113.{i}");
        let resp = login_from(&app, &from, &owner, "wrong password").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    let resp = login_from(&app, "203.0.113.99", &owner, PASSWORD).await;
    assert!(retry_after(resp).await >= 1);
    app.stop().await;
}

/// Failed logins live in the database: two servers count the same ones.
#[sqlx::test(migrations = "../migrations")]
async fn servers_on_one_database_count_the_same_failed_logins(pool: PgPool) {
    let one = spawn_app(pool.clone()).await;
    let two = spawn_app(pool).await;
    let (_, owner) = one.annotator().await;
    for (i, app) in [&one, &two, &one].into_iter().enumerate() {
        let resp = app.login(&client(), &owner, "wrong password").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    for app in [&one, &two] {
        assert!(retry_after(app.login(&client(), &owner, PASSWORD).await).await >= 1);
    }
    one.stop().await;
    two.stop().await;
}

/// A username is compared by its NFKC case-folded form everywhere — at login,
/// in the throttle's counts and in the unique index — and look-alike names cannot be registered.
#[sqlx::test(migrations = "../migrations")]
async fn usernames_compare_by_canonical_form_and_look_alikes_are_refused(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    assert_eq!(
        app.register(&client(), "vicki", PASSWORD).await.status(),
        StatusCode::OK
    );
    // Case and full-width forms are the same name; a dotted capital I is not.
    for same in ["VICKI", "ｖｉｃｋｉ", " Vicki "] {
        let resp = app.login(&client(), same, PASSWORD).await;
        assert_eq!(resp.status(), StatusCode::OK, "{same:?}");
    }
    let resp = app.login(&client(), "vİcki", PASSWORD).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    // Failures under any spelling of the name count together.
    for (i, spelling) in ["vicki", "VICKI", "ｖｉｃｋｉ"].into_iter().enumerate() {
        let resp = app.login(&client(), spelling, "wrong password").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "attempt {i}");
    }
    assert!(retry_after(app.login(&client(), "vIcKi", PASSWORD).await).await >= 1);
    let mut keys: Vec<String> = sqlx::query_scalar("select distinct account from login_failure")
        .fetch_all(&pool)
        .await
        .unwrap();
    keys.sort();
    assert_eq!(keys, ["vicki", "vi\u{307}cki"]);

    // Look-alikes of a taken name are refused, naming the field; a different name is not.
    assert_eq!(
        app.register(&client(), "m.lopez", PASSWORD).await.status(),
        StatusCode::OK
    );
    for look_alike in ["VICKI", "m.1opez", "ｖｉｃｋｉ", "rn_lopez", "M-L0PEZ"] {
        let resp = app.register(&client(), look_alike, PASSWORD).await;
        assert_eq!(
            resp.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{look_alike:?}"
        );
        let error = error_of(resp).await;
        assert_eq!(error["Validation"]["field"], "username", "{look_alike:?}");
        assert!(
            error["Validation"]["message"]
                .as_str()
                .unwrap()
                .contains("looks too much like"),
            "{error}"
        );
    }
    assert_eq!(
        app.register(&client(), "vicky", PASSWORD).await.status(),
        StatusCode::OK
    );
    let n: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 3);
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

/// Registrations from one address are limited (counted in PostgreSQL, so two servers count
/// together); another address registers meanwhile; a refused form is not counted.
#[sqlx::test(migrations = "../migrations")]
async fn registrations_from_one_address_are_limited_across_servers(pool: PgPool) {
    let config = || Config {
        trusted_proxies: TrustedProxies::parse("127.0.0.1, ::1").unwrap(),
        rate_limits: app::domain::rate_limit::RateLimits {
            registrations: app::domain::rate_limit::RateLimit::parse("3/86400").unwrap(),
            ..Default::default()
        },
        ..Config::for_tests(String::new())
    };
    let one = spawn_app_with_config(pool.clone(), config()).await;
    let two = spawn_app_with_config(pool.clone(), config()).await;
    let register_from = |app: &TestApp, from: &str, name: &str, password: &str| {
        client()
            .post(app.url("/api/register"))
            .header(reqwest::header::ACCEPT, "application/json")
            .header("x-forwarded-for", from.to_owned())
            .form(&[
                ("username", name.to_owned()),
                ("password", password.to_owned()),
                ("password_confirmation", password.to_owned()),
            ])
            .send()
    };
    let script = "198.51.100.66";
    // A form refused for its fields first: not counted. (One-day windows: a window boundary
    // cannot fall between the requests of this test but once a day, at midnight UTC.)
    let short = register_from(&one, script, "shorty", "short")
        .await
        .unwrap();
    assert_eq!(short.status(), StatusCode::UNPROCESSABLE_ENTITY);
    for (i, app) in [&one, &two, &one].into_iter().enumerate() {
        let resp = register_from(app, script, &format!("scripted{i}"), PASSWORD)
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "registration {i}");
    }
    for app in [&one, &two] {
        let wait = retry_after(
            register_from(app, script, "scripted9", PASSWORD)
                .await
                .unwrap(),
        )
        .await;
        assert!((1..=86_400).contains(&wait), "{wait}");
    }
    let made: i64 =
        sqlx::query_scalar("select count(*) from app_user where username like 'scripted%'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(made, 3);
    // Someone else, from their own address, is not held back.
    let resp = register_from(&two, "203.0.113.5", "neighbour", PASSWORD)
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    one.stop().await;
    two.stop().await;
}

/// Server-function calls per account are limited, counted by both servers together (a batch of
/// calls at a time), with `Retry-After`; the judging calls count too; another account is not
/// held back.
#[sqlx::test(migrations = "../migrations")]
async fn calls_from_one_account_are_limited_across_servers(pool: PgPool) {
    let config = || Config {
        rate_limits: app::domain::rate_limit::RateLimits {
            // A batch of 2; one-day windows, so no window ends inside the test but at midnight.
            calls: app::domain::rate_limit::RateLimit::parse("40/86400").unwrap(),
            ..Config::for_tests(String::new()).rate_limits
        },
        ..Config::for_tests(String::new())
    };
    let one = spawn_app_with_config(pool.clone(), config()).await;
    let two = spawn_app_with_config(pool.clone(), config()).await;
    let (script, _) = one.annotator().await;
    let mut statuses = Vec::new();
    for i in 0..60 {
        let app = if i % 2 == 0 { &one } else { &two };
        statuses.push(app.call(&script, "list_my_campaigns", &[]).await.status());
    }
    let ok = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    let limited = statuses
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!(ok + limited, 60, "{statuses:?}");
    // At most one batch each past the limit: the servers' counts not yet added.
    assert!(
        (38..=44).contains(&ok),
        "{ok} of 60 went ahead: {statuses:?}"
    );
    for app in [&one, &two] {
        let wait = retry_after(app.call(&script, "list_my_campaigns", &[]).await).await;
        assert!((1..=86_400).contains(&wait), "{wait}");
        let judging = app
            .call(
                &script,
                "judge/next",
                &[("campaign_id", "00000000-0000-0000-0000-000000000001")],
            )
            .await;
        assert_eq!(judging.status(), StatusCode::TOO_MANY_REQUESTS);
    }
    // The count is in PostgreSQL, for every server to read.
    let stored: i64 =
        sqlx::query_scalar("select sum(count)::int8 from rate_count where action = 'call'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(stored >= 40, "{stored}");
    let (neighbour, _) = two.annotator().await;
    let resp = one.call(&neighbour, "list_my_campaigns", &[]).await;
    assert_eq!(resp.status(), StatusCode::OK);
    one.stop().await;
    two.stop().await;
}

/// Calls made without an account are limited per address (counted in PostgreSQL); another
/// address is not held back, nor is a signed-in account behind the same address.
#[sqlx::test(migrations = "../migrations")]
async fn calls_without_an_account_are_limited_per_address(pool: PgPool) {
    let config = Config {
        trusted_proxies: TrustedProxies::parse("127.0.0.1, ::1").unwrap(),
        rate_limits: app::domain::rate_limit::RateLimits {
            anonymous_calls: app::domain::rate_limit::RateLimit::parse("10/86400").unwrap(),
            ..Config::for_tests(String::new()).rate_limits
        },
        ..Config::for_tests(String::new())
    };
    let app = spawn_app_with_config(pool.clone(), config).await;
    let visitor = client();
    let from = |address: &str| {
        visitor
            .post(app.url("/api/current_user"))
            .header(reqwest::header::ACCEPT, "application/json")
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header("x-forwarded-for", address.to_owned())
            .body("")
            .send()
    };
    for i in 0..10 {
        let resp = from("198.51.100.77").await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "call {i}");
    }
    let wait = retry_after(from("198.51.100.77").await.unwrap()).await;
    assert!((1..=86_400).contains(&wait), "{wait}");
    // Another address of the same IPv6 /64 is the same client; another /64 is not.
    for i in 0..10 {
        let resp = from("2001:db8:5:6::1").await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "v6 call {i}");
    }
    retry_after(from("2001:db8:5:6:ffff::2").await.unwrap()).await;
    assert_eq!(
        from("2001:db8:5:7::1").await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(from("203.0.113.9").await.unwrap().status(), StatusCode::OK);
    app.stop().await;
}

/// The batched call counts leave no windows behind: a subject's first batch in a window deletes
/// the action's windows long past, whoever's they were (an account that never comes back
/// included), and leaves the current and the previous window, and other actions, alone.
#[sqlx::test(migrations = "../migrations")]
async fn counting_calls_deletes_every_subjects_windows_long_past(pool: sqlx::PgPool) {
    use app::db::rate_counts::add;
    use app::domain::rate_limit::Counted;
    let minute = std::time::Duration::from_secs(60);
    let rows = |action: &'static str| {
        let pool = pool.clone();
        async move {
            let mut rows: Vec<(String, i64)> = sqlx::query_as(
                "select subject, extract(epoch from window_start)::int8 / 60 from rate_count
                 where action = $1 order by 1, 2",
            )
            .bind(action)
            .fetch_all(&pool)
            .await
            .unwrap();
            rows.sort();
            rows
        }
    };
    assert_eq!(
        add(&pool, Counted::Call, "gone", minute, 100, 30)
            .await
            .unwrap(),
        30
    );
    assert_eq!(
        add(&pool, Counted::Call, "gone", minute, 100, 30)
            .await
            .unwrap(),
        60
    );
    add(&pool, Counted::AnonymousCall, "10.0.0.1", minute, 100, 5)
        .await
        .unwrap();
    add(&pool, Counted::Call, "stays", minute, 104, 30)
        .await
        .unwrap();
    // Window 105's first batch: 100 is long past (before 104), 104 is the previous window.
    add(&pool, Counted::Call, "comes", minute, 105, 30)
        .await
        .unwrap();
    assert_eq!(
        rows("call").await,
        vec![("comes".to_owned(), 105), ("stays".to_owned(), 104)]
    );
    // Another action's windows are its own to clear.
    assert_eq!(
        rows("anonymous_call").await,
        vec![("10.0.0.1".to_owned(), 100)]
    );
}
