//! Server-rendered pages, the health endpoint, and forms posted without JavaScript.
use reqwest::StatusCode;
use sqlx::PgPool;

use crate::helpers::{client, spawn_app, PASSWORD};

#[sqlx::test(migrations = "../migrations")]
async fn health_reports_the_database(pool: PgPool) {
    let app = spawn_app(pool).await;

    let resp = client().get(app.url("/health")).send().await.unwrap();

    assert_eq!(resp.status(), StatusCode::OK);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["database"], "ok");
    assert!(resp_has_request_id(&app).await);
    app.stop().await;
}

async fn resp_has_request_id(app: &crate::helpers::TestApp) -> bool {
    let resp = client().get(app.url("/health")).send().await.unwrap();
    resp.headers().get("x-request-id").is_some()
}

#[sqlx::test(migrations = "../migrations")]
async fn health_answers_503_when_the_database_is_gone(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    pool.close().await;

    let resp = client().get(app.url("/health")).send().await.unwrap();

    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_home_page_invites_visitors_and_lists_campaigns_for_users(pool: PgPool) {
    let app = spawn_app(pool).await;

    let visitor = app.get(&client(), "/").await;
    assert_eq!(visitor.status(), StatusCode::OK);
    let html = visitor.text().await.unwrap();
    assert!(html.contains("Create an account"), "{html}");
    assert!(
        html.contains("/pkg/paracrowd.js"),
        "the page loads the wasm bundle"
    );

    let (c, name) = app.annotator().await;
    let html = app.get(&c, "/").await.text().await.unwrap();
    assert!(
        html.contains(&format!("Welcome, <!>{name}")) || html.contains(&name),
        "{html}"
    );
    assert!(html.contains("No campaigns are open for you yet"), "{html}");
    assert!(html.contains("Log out"));
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_users_page_shows_users_to_admins_only(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (annotator, worker_name) = app.annotator().await;
    let (admin, _) = app.user_with_role("admin").await;

    let html = app.get(&admin, "/admin/users").await.text().await.unwrap();
    assert!(html.contains(&worker_name), "{html}");
    assert!(html.contains("Block"));

    let html = app
        .get(&annotator, "/admin/users")
        .await
        .text()
        .await
        .unwrap();
    assert!(!html.contains(&format!("data-username=\"{worker_name}\"")));
    assert!(html.contains("You do not have permission"), "{html}");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn an_unknown_path_is_a_404_page(pool: PgPool) {
    let app = spawn_app(pool).await;

    let resp = app.get(&client(), "/no/such/page").await;

    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert!(resp.text().await.unwrap().contains("Page not found"));
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn login_without_javascript_redirects_and_shows_errors_on_the_form(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, name) = app.annotator().await;
    let c = client();

    // Wrong password: back to the form, which shows the error.
    let resp = app
        .post_form(
            &c,
            "login",
            "/login",
            &[("username", &name), ("password", "wrong password")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::FOUND);
    let location = resp.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&app.url("/login")), "{location}");
    let html = client()
        .get(&location)
        .header("accept", "text/html")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("Wrong username or password."), "{html}");

    // Right password: on to the home page, logged in.
    let resp = app
        .post_form(
            &c,
            "login",
            "/login",
            &[("username", &name), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::FOUND);
    assert_eq!(resp.headers()["location"], "/");
    let html = app.get(&c, "/").await.text().await.unwrap();
    assert!(html.contains("Your campaigns"), "{html}");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_request_body_over_the_limit_is_refused(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let big = "x".repeat(2 * 1024 * 1024);

    let resp = app
        .call(
            &client(),
            "register",
            &[
                ("username", &big),
                ("password", &big),
                ("password_confirmation", &big),
            ],
        )
        .await;

    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let n: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(n, 0);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn campaign_pages_render_for_admins_and_the_judge_page_for_workers(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (admin, _) = app.user_with_role("admin").await;
    let (annotator, _) = app.annotator().await;
    let resp = app
        .call(
            &admin,
            "admin/create_campaign",
            &[
                ("kind", "judge"),
                ("title", "Judge <b>this</b>"),
                ("instructions", ""),
                ("budget_cap_cents", "2000"),
                ("bleurt_threshold", "0.5"),
            ],
        )
        .await;
    let id: String = resp.json().await.unwrap();
    app.call(
        &admin,
        "admin/import_pairs",
        &[
            ("campaign_id", &id),
            ("filename", "p.tsv"),
            ("content", "sent_1\tsent_2\tlabel\tExplanation\nA cat sat.\tA cat was sitting.\t1\tSecret reason\n<script>x</script>\tplain\t\t\n"),
            ("labels_are_tests", "true"),
        ],
    )
    .await;
    app.call(
        &admin,
        "admin/set_campaign_status",
        &[("campaign_id", &id), ("status", "open")],
    )
    .await;

    let html = app
        .get(&admin, "/admin/campaigns")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("Judge &lt;b&gt;this&lt;/b&gt;"),
        "titles are escaped: {html}"
    );
    let html = app
        .get(&admin, &format!("/admin/campaigns/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("Secret reason"),
        "admins see gold explanations"
    );
    assert!(
        !html.contains("<script>x</script>"),
        "pair text never arrives raw"
    );
    assert!(
        html.contains("test pairs are unbalanced"),
        "one gold pair, all paraphrase"
    );

    for path in ["/admin/campaigns", &format!("/admin/campaigns/{id}")] {
        let html = app.get(&annotator, path).await.text().await.unwrap();
        assert!(
            html.contains("You do not have permission"),
            "{path}: {html}"
        );
        assert!(!html.contains("Secret reason"));
    }
    // The worker's page is rendered complete on the server (the pair is there, no gold).
    let html = app
        .get(&annotator, &format!("/judge/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("Is sentence 2 a paraphrase of sentence 1?"),
        "{html}"
    );
    assert!(html.contains("aria-label=\"Sentence 1\""));
    assert!(!html.contains("Secret reason"));
    app.stop().await;
}

/// The value of an unlabelled counter or gauge line in Prometheus text.
fn metric(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("{name} missing:\n{text}"))
        .trim()
        .parse()
        .unwrap()
}

#[sqlx::test(migrations = "../migrations")]
async fn metrics_count_judgments_and_time_requests_by_route_template(pool: PgPool) {
    use crate::judge::{campaign, pairs_csv, work, Setup};
    let app = spawn_app(pool).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 1,
            ..Setup::pairs(&pairs_csv(3))
        },
    )
    .await;
    let scrape = || async {
        let resp = app.get(&client(), "/metrics").await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert!(resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4"));
        resp.text().await.unwrap()
    };
    let before = metric(&scrape().await, "paracrowd_judgments_total");
    let (worker, _) = app.annotator().await;
    let (seen, _) = work(&app, &worker, &id, 100, |_| true).await;
    assert_eq!(seen.len(), 3);
    // Export pages are timed under their template, never their concrete id.
    app.get(&admin, &format!("/export/judge/{id}")).await;

    let text = scrape().await;
    // Other tests run in this process at the same time: at least ours were counted.
    assert!(
        metric(&text, "paracrowd_judgments_total") >= before + 3,
        "{text}"
    );
    let count_line = text
        .lines()
        .find(|l| {
            l.starts_with("paracrowd_http_request_duration_seconds_count{")
                && l.contains("route=\"/api/judge/answer\",method=\"POST\",status=\"2xx\"")
        })
        .unwrap_or_else(|| panic!("no histogram for judge/answer:\n{text}"));
    let n: u64 = count_line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(n >= 3, "{count_line}");
    assert!(
        text.contains("route=\"/export/judge/{campaign}\""),
        "{text}"
    );
    assert!(!text.contains(&id), "no ids in metrics");
    // The +Inf bucket of every series equals its count.
    for line in text.lines().filter(|l| l.contains("le=\"+Inf\"")) {
        let series = line
            .split(",le=")
            .next()
            .unwrap()
            .replace("_bucket{", "_count{");
        let inf = line.rsplit(' ').next().unwrap();
        let count = text
            .lines()
            .find(|l| l.starts_with(&format!("{series}}}")))
            .unwrap_or_else(|| panic!("no count for {series}"));
        assert_eq!(count.rsplit(' ').next().unwrap(), inf, "{series}");
    }
    app.stop().await;
}

/// Every response (a page, a static file, a server function, a
/// refusal) says no sniffing, no referrer to other sites and no framing; no HSTS over plain HTTP.
#[sqlx::test(migrations = "../migrations")]
async fn every_response_carries_the_security_headers(pool: PgPool) {
    let app = spawn_app(pool).await;
    let c = client();
    let responses = [
        c.get(app.url("/")).send().await.unwrap(),
        c.get(app.url("/login")).send().await.unwrap(),
        c.get(app.url("/health")).send().await.unwrap(),
        c.get(app.url("/no-such-page")).send().await.unwrap(),
        app.call(&c, "judge/next", &[("campaign_id", "x")]).await,
    ];
    for resp in responses {
        let h = resp.headers();
        let shown = format!("{} {:?}", resp.url(), h);
        assert_eq!(h["x-content-type-options"], "nosniff", "{shown}");
        assert_eq!(h["referrer-policy"], "same-origin", "{shown}");
        assert_eq!(h["x-frame-options"], "DENY", "{shown}");
        assert!(
            h["content-security-policy"]
                .to_str()
                .unwrap()
                .contains("frame-ancestors 'none'"),
            "{shown}"
        );
        assert!(h.get("strict-transport-security").is_none(), "{shown}");
    }

    // Every page's script policy names a fresh nonce, and every script on the page carries it:
    // no inline script runs without it (the browser tests fail on any CSP violation).
    let mut nonces = Vec::new();
    for path in ["/", "/login", "/register", "/no-such-page"] {
        let resp = c.get(app.url(path)).send().await.unwrap();
        let policy = resp.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        let html = resp.text().await.unwrap();
        let script_src = policy
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src"))
            .unwrap_or_else(|| panic!("{path}: no script-src in {policy}"));
        assert!(!script_src.contains("unsafe-inline"), "{policy}");
        assert!(script_src.contains("'wasm-unsafe-eval'"), "{policy}");
        let nonce = script_src
            .split_whitespace()
            .find_map(|s| s.strip_prefix("'nonce-")?.strip_suffix('\''))
            .unwrap_or_else(|| panic!("{path}: no nonce in {policy}"))
            .to_owned();
        assert!(nonce.len() >= 16, "{nonce}");
        let scripts = html.matches("<script").count();
        assert!(scripts > 0, "{path}: no hydration script");
        assert_eq!(
            html.matches(&format!("<script nonce=\"{nonce}\"")).count()
                + html
                    .matches(&format!("<script type=\"module\" nonce=\"{nonce}\""))
                    .count(),
            scripts,
            "{path}: a script without the page's nonce:\n{html}"
        );
        nonces.push(nonce);
    }
    nonces.sort();
    nonces.dedup();
    assert_eq!(nonces.len(), 4, "a nonce was used twice");
    // Anything that is not a page allows nothing to run.
    let resp = c.get(app.url("/health")).send().await.unwrap();
    assert!(resp.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .starts_with("default-src 'none'"));
    app.stop().await;
}
