//! Studies through crowd platforms: a study link signs a worker in with an account
//! keyed by (platform, their id), brings them back to it on a reload or another device, shows
//! the study information and consent first, and turns away malformed, paused, expired and full
//! arrivals without creating anything; the limit holds under 50 concurrent arrivals.
use reqwest::{Client, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{client, error_of, spawn_app, TestApp};
use crate::judge::{campaign, pairs_csv, Setup};

pub(crate) async fn json(resp: reqwest::Response) -> Value {
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// An open judging campaign with 20 pairs and no test pairs (the gate waits for 30 judgments).
pub(crate) async fn judging(app: &TestApp, admin: &Client) -> String {
    let pairs = pairs_csv(20);
    campaign(
        app,
        admin,
        Setup {
            judgments_per_pair: 3,
            test_every: 5,
            gate_min_judgments: 30,
            ..Setup::pairs(&pairs)
        },
    )
    .await
}

/// Creates a link and returns its slug.
pub(crate) async fn link(
    app: &TestApp,
    admin: &Client,
    id: &str,
    platform: &str,
    max: &str,
    days: &str,
) -> String {
    json(
        app.call(
            admin,
            "admin/create_study_link",
            &[
                ("campaign_id", id),
                ("platform", platform),
                ("label", "test"),
                ("max_workers", max),
                ("expires_in_days", days),
            ],
        )
        .await,
    )
    .await;
    let setup = json(
        app.call(admin, "admin/study_setup", &[("campaign_id", id)])
            .await,
    )
    .await;
    let url = setup["links"].as_array().unwrap().last().unwrap()["url"]
        .as_str()
        .unwrap()
        .to_owned();
    url.trim_start_matches("/s/")
        .split('?')
        .next()
        .unwrap()
        .to_owned()
}

async fn open(app: &TestApp, c: &Client, slug: &str, query: &str) -> reqwest::Response {
    app.call(c, "study/open", &[("slug", slug), ("query", query)])
        .await
}

pub(crate) async fn count(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_scalar::<_, i64>(sql)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrations = "../migrations")]
async fn a_prolific_link_signs_in_one_account_per_id_and_brings_it_back(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    json(
        app.call(
            &admin,
            "admin/save_study_info",
            &[
                ("campaign_id", &id),
                ("summary", "Judge 20 pairs of news sentences."),
                ("minutes", "12"),
                ("pay", "$2.00, plus $0.01 per pair"),
                ("consent_text", ""),
                ("completion_code", "C1234ABC"),
            ],
        )
        .await,
    )
    .await;
    let slug = link(&app, &admin, &id, "prolific", "", "").await;
    let query = "PROLIFIC_PID=5f3a9c0d1e2b4a0012345678&STUDY_ID=6123abc&SESSION_ID=s1";

    let worker = client();
    let entry = json(open(&app, &worker, &slug, query).await).await;
    let w = &entry["Worker"];
    assert_eq!(w["study"]["summary"], "Judge 20 pairs of news sentences.");
    assert_eq!(w["study"]["minutes"], 12);
    assert_eq!(w["study"]["pay"], "$2.00, plus $0.01 per pair");
    assert!(
        w["study"]["quality_rule"]
            .as_str()
            .unwrap()
            .contains("check"),
        "{w}"
    );
    assert_eq!(w["consent"], "NotAsked");
    assert_eq!(w["returning"], false);
    assert_eq!(w["task_href"], format!("/judge/{id}"));
    let (name, role) = app.whoami(&worker).await.expect("signed in");
    assert!(name.starts_with("prolific-"), "{name}");
    assert_eq!(role, "annotator");
    // The study's items are served, and the home page lists this study only.
    let task = json(
        app.call(&worker, "judge/next", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert!(task.get("Judge").is_some(), "{task}");

    // A reload, and another device with the same link: the same account, returning.
    let again = json(open(&app, &worker, &slug, query).await).await;
    assert_eq!(again["Worker"]["returning"], true);
    let other_device = client();
    json(open(&app, &other_device, &slug, query).await).await;
    assert_eq!(app.whoami(&other_device).await.unwrap().0, name);

    // Another id (a replayed link with someone else's PID) is another account, not theirs.
    let stranger = client();
    json(
        open(
            &app,
            &stranger,
            &slug,
            "PROLIFIC_PID=aaaaaaaaaaaaaaaaaaaaaaaa&STUDY_ID=6123abc&SESSION_ID=s2",
        )
        .await,
    )
    .await;
    assert_ne!(app.whoami(&stranger).await.unwrap().0, name);
    // The same id in other case is the same worker: their account, no second place.
    let shouting = client();
    json(
        open(
            &app,
            &shouting,
            &slug,
            "PROLIFIC_PID=5F3A9C0D1E2B4A0012345678&STUDY_ID=6123abc&SESSION_ID=s3",
        )
        .await,
    )
    .await;
    assert_eq!(app.whoami(&shouting).await.unwrap().0, name);
    // A link with another id, opened in this worker's browser (sent from another site), does
    // not move the browser to that id: refused, nothing created, still this worker.
    let crafted = open(
        &app,
        &worker,
        &slug,
        "PROLIFIC_PID=bbbbbbbbbbbbbbbbbbbbbbbb&STUDY_ID=6123abc&SESSION_ID=s4",
    )
    .await;
    assert_eq!(crafted.status(), StatusCode::OK);
    let crafted = json(crafted).await;
    assert_eq!(
        crafted["Refused"]["reason"], "OtherParticipant",
        "{crafted}"
    );
    assert_eq!(app.whoami(&worker).await.unwrap().0, name);
    assert_eq!(
        count(&pool, "select count(*) from platform_account").await,
        2
    );
    assert_eq!(
        count(&pool, "select workers::bigint from study_link").await,
        2,
        "a returning worker takes no second place"
    );
    // No password signs in to a link account.
    let login = app.login(&client(), &name, crate::helpers::PASSWORD).await;
    assert_eq!(login.status(), StatusCode::UNAUTHORIZED);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn bad_paused_expired_and_unknown_links_create_nothing(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    let slug = link(&app, &admin, &id, "prolific", "", "").await;
    let c = client();

    for (query, field) in [
        ("", "PROLIFIC_PID"),
        ("PROLIFIC_PID=abc&STUDY_ID=1", "SESSION_ID"),
        ("PROLIFIC_PID=a%20b&STUDY_ID=1&SESSION_ID=2", "PROLIFIC_PID"),
        (
            &format!("PROLIFIC_PID={}&STUDY_ID=1&SESSION_ID=2", "x".repeat(65)),
            "PROLIFIC_PID",
        ),
        (
            "PROLIFIC_PID=a&PROLIFIC_PID=b&STUDY_ID=1&SESSION_ID=2",
            "PROLIFIC_PID",
        ),
    ] {
        let resp = open(&app, &c, &slug, query).await;
        assert_eq!(resp.status(), StatusCode::OK, "the page says why: {query}");
        let entry = json(resp).await;
        assert_eq!(entry["Refused"]["reason"], "BadParameters", "{query}");
        assert!(
            entry["Refused"]["detail"].as_str().unwrap().contains(field),
            "{query}: {entry}"
        );
    }
    let unknown = json(open(&app, &c, "0123456789abcdef0123456789abcdef", "pid=x").await).await;
    assert_eq!(unknown["Refused"]["reason"], "UnknownLink");

    let setup = json(
        app.call(&admin, "admin/study_setup", &[("campaign_id", &id)])
            .await,
    )
    .await;
    let link_id = setup["links"][0]["study_link_id"]
        .as_str()
        .unwrap()
        .to_owned();
    json(
        app.call(
            &admin,
            "admin/set_study_link_paused",
            &[
                ("campaign_id", &id),
                ("study_link_id", &link_id),
                ("paused", "true"),
            ],
        )
        .await,
    )
    .await;
    let ok_query = "PROLIFIC_PID=abc&STUDY_ID=1&SESSION_ID=2";
    let paused = json(open(&app, &c, &slug, ok_query).await).await;
    assert_eq!(paused["Refused"]["reason"], "Paused");
    sqlx::query("update study_link set paused = false, expires_at = now() - interval '1 second'")
        .execute(&pool)
        .await
        .unwrap();
    let expired = json(open(&app, &c, &slug, ok_query).await).await;
    assert_eq!(expired["Refused"]["reason"], "Expired");

    // A browser logged in with a password account keeps it.
    sqlx::query("update study_link set expires_at = null")
        .execute(&pool)
        .await
        .unwrap();
    let admin_opens = json(open(&app, &admin, &slug, ok_query).await).await;
    assert_eq!(admin_opens["Refused"]["reason"], "OtherAccount");
    assert_eq!(app.whoami(&admin).await.unwrap().1, "admin");

    assert!(app.whoami(&c).await.is_none(), "nobody was signed in");
    assert_eq!(
        count(&pool, "select count(*) from platform_account").await,
        0
    );
    assert_eq!(count(&pool, "select count(*) from study_arrival").await, 0);
    // A blocked worker, and a closed study.
    let blocked_query = "PROLIFIC_PID=tobeblocked&STUDY_ID=1&SESSION_ID=2";
    json(open(&app, &client(), &slug, blocked_query).await).await;
    sqlx::query(
        "update app_user set status = 'blocked' where app_user_id =
           (select app_user_id from platform_account where external_id = 'tobeblocked')",
    )
    .execute(&pool)
    .await
    .unwrap();
    let blocked = json(open(&app, &client(), &slug, blocked_query).await).await;
    assert_eq!(blocked["Refused"]["reason"], "Blocked");
    sqlx::query("update campaign set status = 'closed'")
        .execute(&pool)
        .await
        .unwrap();
    let closed = json(open(&app, &client(), &slug, ok_query).await).await;
    assert_eq!(closed["Refused"]["reason"], "NotOpen");
    // Only admins manage links.
    let (annotator, _) = app.annotator().await;
    let refused = app
        .call(&annotator, "admin/study_setup", &[("campaign_id", &id)])
        .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn fifty_concurrent_arrivals_for_the_last_ten_places_admit_ten(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    let slug = link(&app, &admin, &id, "generic", "12", "").await;
    for i in 0..2 {
        json(open(&app, &client(), &slug, &format!("pid=early{i}")).await).await;
    }
    let arrivals = (0..50).map(|i| {
        let app = &app;
        let slug = slug.clone();
        async move {
            let c = client();
            let entry = json(open(app, &c, &slug, &format!("pid=late{i}")).await).await;
            entry.get("Worker").is_some()
        }
    });
    let admitted = futures::future::join_all(arrivals)
        .await
        .into_iter()
        .filter(|w| *w)
        .count();
    assert_eq!(admitted, 10);
    assert_eq!(
        count(&pool, "select workers::bigint from study_link").await,
        12
    );
    assert_eq!(count(&pool, "select count(*) from study_arrival").await, 12);
    assert_eq!(
        count(&pool, "select count(*) from platform_account").await,
        12,
        "the forty turned away have no account"
    );
    let full = json(open(&app, &client(), &slug, "pid=late99").await).await;
    assert_eq!(full["Refused"]["reason"], "Full");
    // Someone already in comes back even when the study is full, or the link paused.
    let back = json(open(&app, &client(), &slug, "pid=early0").await).await;
    assert_eq!(back["Worker"]["returning"], true);
    sqlx::query("update study_link set paused = true")
        .execute(&pool)
        .await
        .unwrap();
    let back = json(open(&app, &client(), &slug, "pid=early1").await).await;
    assert_eq!(back["Worker"]["returning"], true);
    let new = json(open(&app, &client(), &slug, "pid=late98").await).await;
    assert_eq!(new["Refused"]["reason"], "Paused");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn consent_comes_before_the_first_item_and_a_decline_is_recorded(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    let save = |consent: &'static str| {
        let (app, admin, id) = (&app, &admin, id.clone());
        async move {
            json(
                app.call(
                    admin,
                    "admin/save_study_info",
                    &[
                        ("campaign_id", &id),
                        ("summary", ""),
                        ("minutes", ""),
                        ("pay", ""),
                        ("consent_text", consent),
                        ("completion_code", ""),
                    ],
                )
                .await,
            )
            .await
        }
    };
    assert_eq!(save("I agree to take part (version 1).").await, 1);
    let slug = link(&app, &admin, &id, "generic", "", "").await;

    let worker = client();
    let entry = json(open(&app, &worker, &slug, "pid=alice").await).await;
    assert_eq!(entry["Worker"]["consent"], "Needed");
    assert_eq!(entry["Worker"]["study"]["version"], 1);
    // No item before consent.
    let early = app
        .call(&worker, "judge/next", &[("campaign_id", &id)])
        .await;
    assert_eq!(early.status(), StatusCode::CONFLICT);
    assert!(error_of(early)
        .await
        .to_string()
        .contains("study information"));
    // Agreeing to an outdated version is refused; to the current one, recorded.
    let stale = app
        .call(
            &worker,
            "study/decide",
            &[("slug", &slug), ("version", "0"), ("agree", "true")],
        )
        .await;
    assert_eq!(stale.status(), StatusCode::CONFLICT);
    let agreed = json(
        app.call(
            &worker,
            "study/decide",
            &[("slug", &slug), ("version", "1"), ("agree", "true")],
        )
        .await,
    )
    .await;
    assert_eq!(agreed, "Agreed");
    let task = json(
        app.call(&worker, "judge/next", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert!(task.get("Judge").is_some(), "{task}");

    // A new version asks again at the next visit, and until it is agreed to there are no items.
    assert_eq!(save("I agree to take part (version 2).").await, 2);
    let again = json(open(&app, &worker, &slug, "pid=alice").await).await;
    assert_eq!(again["Worker"]["consent"], "Needed");
    let asked_again = app
        .call(&worker, "judge/next", &[("campaign_id", &id)])
        .await;
    assert_eq!(asked_again.status(), StatusCode::CONFLICT);
    let agreed_again = app
        .call(
            &worker,
            "study/decide",
            &[("slug", &slug), ("version", "2"), ("agree", "true")],
        )
        .await;
    assert_eq!(agreed_again.status(), StatusCode::OK);

    // Declining is recorded with its version and time, and ends the session.
    let bob = client();
    json(open(&app, &bob, &slug, "pid=bob").await).await;
    let declined = json(
        app.call(
            &bob,
            "study/decide",
            &[("slug", &slug), ("version", "2"), ("agree", "false")],
        )
        .await,
    )
    .await;
    assert_eq!(declined, "Declined");
    assert!(app.whoami(&bob).await.is_none(), "signed out");
    assert_eq!(
        count(&pool, "select workers::bigint from study_link").await,
        1,
        "declining gives the place back"
    );
    let rows: Vec<(i32, bool)> = sqlx::query_as(
        "select c.version, c.agreed from study_consent c
         join platform_account p using (app_user_id) where p.external_id = 'bob'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(rows, vec![(2, false)]);
    let recorded: Vec<(i32, bool)> = sqlx::query_as(
        "select c.version, c.agreed from study_consent c
         join platform_account p using (app_user_id)
         where p.external_id = 'alice' order by version",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(recorded, vec![(1, true), (2, true)]);
    // A study worker cannot work on a campaign they were not recruited for.
    let other = judging(&app, &admin).await;
    let elsewhere = app
        .call(&worker, "judge/next", &[("campaign_id", &other)])
        .await;
    assert_eq!(elsewhere.status(), StatusCode::CONFLICT);
    let mine = json(app.call(&worker, "list_my_campaigns", &[]).await).await;
    assert_eq!(mine.as_array().unwrap().len(), 1, "{mine}");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn an_mturk_preview_shows_the_study_and_signs_nobody_in(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    let slug = link(&app, &admin, &id, "mturk", "", "").await;
    let c = client();
    let preview = json(
        open(
            &app,
            &c,
            &slug,
            "assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=3HIT",
        )
        .await,
    )
    .await;
    assert_eq!(preview["Preview"]["study"]["title"], "Judging test");
    assert!(app.whoami(&c).await.is_none());
    let evil = json(
        open(
            &app,
            &c,
            &slug,
            "workerId=A1&assignmentId=3A&hitId=3H&turkSubmitTo=https%3A%2F%2Fevil.example",
        )
        .await,
    )
    .await;
    assert_eq!(evil["Refused"]["reason"], "BadParameters");
    let ok = json(
        open(
            &app,
            &c,
            &slug,
            "workerId=A1&assignmentId=3A&hitId=3H&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com",
        )
        .await,
    )
    .await;
    assert!(ok["Worker"]["study"]["title"].is_string(), "{ok}");
    assert!(app.whoami(&c).await.unwrap().0.starts_with("mturk-"));
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_study_page_renders_without_javascript_with_its_status(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    let slug = link(&app, &admin, &id, "prolific", "", "").await;
    let c = client();
    let page = app
        .get(
            &c,
            &format!("/s/{slug}?PROLIFIC_PID=p1&STUDY_ID=s&SESSION_ID=x"),
        )
        .await;
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Judging test") && html.contains("Start"),
        "{html}"
    );
    assert!(
        app.whoami(&c).await.is_some(),
        "the page signed the worker in"
    );

    let bad = app.get(&client(), &format!("/s/{slug}?STUDY_ID=s")).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    assert!(bad
        .text()
        .await
        .unwrap()
        .contains("This study link is incomplete"));
    let unknown = app
        .get(&client(), "/s/0123456789abcdef0123456789abcdef?pid=x")
        .await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

/// New platform ids from one address are limited (a script minting accounts through a link);
/// a worker coming back is not counted, and a refused arrival creates nothing.
#[sqlx::test(migrations = "../migrations")]
async fn new_accounts_from_one_address_are_limited_and_returning_workers_are_not(pool: PgPool) {
    let config = server::config::Config {
        rate_limits: app::domain::rate_limit::RateLimits {
            study_accounts: app::domain::rate_limit::RateLimit::parse("2/86400").unwrap(),
            ..Default::default()
        },
        ..server::config::Config::for_tests(String::new())
    };
    let app = crate::helpers::spawn_app_with_config(pool.clone(), config).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    let slug = link(&app, &admin, &id, "prolific", "", "").await;
    let pid = |n: u32| format!("PROLIFIC_PID={n:024x}&STUDY_ID=6123abc&SESSION_ID=s{n}");
    let first = client();
    for n in 1..=2 {
        let c = if n == 1 { first.clone() } else { client() };
        let entry = json(open(&app, &c, &slug, &pid(n)).await).await;
        assert!(entry.get("Worker").is_some(), "{entry}");
        if n == 1 {
            // A link with another id in the first worker's browser is refused before it is
            // counted: the second newcomer still has the second place.
            let crafted = json(open(&app, &first, &slug, &pid(9)).await).await;
            assert_eq!(
                crafted["Refused"]["reason"], "OtherParticipant",
                "{crafted}"
            );
        }
    }
    let third = open(&app, &client(), &slug, &pid(3)).await;
    assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(third.headers().contains_key(reqwest::header::RETRY_AFTER));
    assert_eq!(
        count(&pool, "select count(*) from platform_account").await,
        2
    );
    // The first worker, back: their account, not a new one.
    let again = json(open(&app, &first, &slug, &pid(1)).await).await;
    assert_eq!(again["Worker"]["returning"], true, "{again}");
    app.stop().await;
}

/// Accounts that open a study link from one network with one browser signature are shown
/// together on the dashboard; only digests are kept (never the address); a researcher may
/// exclude a member; a shared network with another browser, or one browser on another network,
/// is no group.
#[sqlx::test(migrations = "../migrations")]
async fn accounts_opened_from_one_network_and_browser_are_shown_together(pool: PgPool) {
    // The test's requests come through a "proxy" on loopback that names the client.
    let config = server::config::Config {
        trusted_proxies: app::client_addr::TrustedProxies::parse("127.0.0.1/32").unwrap(),
        ..server::config::Config::for_tests(String::new())
    };
    let app = crate::helpers::spawn_app_with_config(pool.clone(), config).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    let slug = link(&app, &admin, &id, "prolific", "", "").await;
    let browser = |agent: &str, address: &str| {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("x-forwarded-for", address.parse().unwrap());
        headers.insert("accept-language", "en-GB,en;q=0.9".parse().unwrap());
        Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(agent)
            .default_headers(headers)
            .timeout(std::time::Duration::from_secs(120))
            .build()
            .unwrap()
    };
    let phone = "Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36";
    let desktop = "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0";
    let visitors = [
        browser(phone, "203.0.113.5"),
        browser(phone, "203.0.113.5"),
        browser(phone, "198.51.100.7"),
        browser(desktop, "203.0.113.5"),
    ];
    for (n, c) in visitors.iter().enumerate() {
        let query = format!(
            "PROLIFIC_PID={:024x}&STUDY_ID=6123abc&SESSION_ID=s{n}",
            n + 1
        );
        let entry = json(open(&app, c, &slug, &query).await).await;
        assert!(entry.get("Worker").is_some(), "{entry}");
        // One judgment each: they are the campaign's workers.
        let task = crate::judge::next(&app, c, &id).await;
        let a = task["Judge"]["assignment_id"].as_str().unwrap();
        let answered = crate::judge::answer(&app, c, &id, a, true).await;
        assert_eq!(answered.status(), StatusCode::OK);
    }
    // The second visit of the first worker is counted on its row, not a new one.
    json(
        open(
            &app,
            &visitors[0],
            &slug,
            &format!("PROLIFIC_PID={:024x}&STUDY_ID=6123abc&SESSION_ID=s0", 1),
        )
        .await,
    )
    .await;
    assert_eq!(count(&pool, "select count(*) from study_visit").await, 4);
    assert_eq!(
        count(&pool, "select max(visits)::int8 from study_visit").await,
        2
    );
    // Digests salted with the campaign, not the address.
    let salted: i64 = sqlx::query_scalar(
        "select count(*) from study_visit
         where network = sha256(convert_to(campaign_id::text || E'\\n' || 'v4:203.0.113.5', 'UTF8'))",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(salted, 3);
    // The same visitor in another campaign has other digests: nothing links the two.
    let other = judging(&app, &admin).await;
    let other_slug = link(&app, &admin, &other, "prolific", "", "").await;
    let entry = json(
        open(
            &app,
            &browser(phone, "203.0.113.5"),
            &other_slug,
            &format!("PROLIFIC_PID={:024x}&STUDY_ID=6123abd&SESSION_ID=t1", 1),
        )
        .await,
    )
    .await;
    assert!(entry.get("Worker").is_some(), "{entry}");
    let across: i64 = sqlx::query_scalar(
        "select count(*) from study_visit a join study_visit b
           on a.campaign_id <> b.campaign_id
          and (a.network = b.network or a.browser = b.browser)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(across, 0);

    let (researcher, _) = app.user_with_role("researcher").await;
    let report = json(
        app.call(
            &researcher,
            "research/judge_report",
            &[("campaign_id", &id)],
        )
        .await,
    )
    .await;
    let groups = report["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{report}");
    assert_eq!(groups[0]["kind"], "SameNetworkAndBrowser");
    let members: Vec<&str> = groups[0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(members.len(), 2, "{report}");
    let in_group: Vec<&Value> = report["workers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["groups"] == serde_json::json!([1]))
        .collect();
    assert_eq!(in_group.len(), 2, "{report}");
    let html = crate::judge::dashboard_page(&app, &researcher, &id).await;
    assert!(html.contains(r#"data-testid="account-groups""#), "{html}");
    assert_eq!(crate::judge::testids(&html, "group-mark"), 2);
    assert_eq!(crate::judge::testids(&html, "exclude-confirm"), 2);

    // A member may be excluded; a worker in no group may not.
    let outsider = report["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["groups"] == serde_json::json!([]))
        .unwrap()["worker"]
        .as_str()
        .unwrap()
        .to_owned();
    let exclude = |worker: String| {
        let (app, researcher, id) = (&app, &researcher, id.clone());
        async move {
            app.call(
                researcher,
                "research/exclude_worker",
                &[("campaign_id", id.as_str()), ("worker", worker.as_str())],
            )
            .await
        }
    };
    assert_eq!(exclude(outsider).await.status(), StatusCode::CONFLICT);
    let done = json(exclude(members[0].to_owned()).await).await;
    assert_eq!(done["judgments"], 1, "{done}");
    let reason: String = sqlx::query_scalar(
        "select reason from judge_worker_event order by created_at desc limit 1",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(
        reason.contains(
            "the study link was opened from the same network and browser as another account's"
        ) && !reason.contains(members[1]),
        "{reason}"
    );
    // The other member still can be: the group stands after the first is excluded.
    let done = json(exclude(members[1].to_owned()).await).await;
    assert_eq!(done["judgments"], 1, "{done}");
    app.stop().await;
}
