//! The access matrix: every server function, route and page, called as anonymous, annotator,
//! researcher and admin, against one declared table of who may call what. The table must name
//! every server function the server registers and every page the router serves, so a new one
//! cannot be added without deciding who may call it.
use std::collections::BTreeSet;

use reqwest::{Client, StatusCode};
use sqlx::PgPool;

use crate::helpers::{client, error_of, spawn_app, TestApp};

/// Who may call an entry: everyone, any logged-in user, researchers and admins, admins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Public,
    User,
    Research,
    Admin,
}

/// The caller's role, in the order the matrix runs them (admins last: their calls change state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    Anonymous,
    Annotator,
    Researcher,
    Admin,
}

impl Caller {
    fn level(self) -> Option<Level> {
        match self {
            Caller::Anonymous => None,
            Caller::Annotator => Some(Level::User),
            Caller::Researcher => Some(Level::Research),
            Caller::Admin => Some(Level::Admin),
        }
    }

    fn may(self, needed: Level) -> bool {
        needed == Level::Public
            || match (self.level(), needed) {
                (None, _) => false,
                (Some(_), Level::User) => true,
                (Some(have), needed) => have >= needed,
            }
    }
}

/// A server function (`POST /api/<name>`), with arguments that decode, so a refusal can only
/// come from the role check.
struct Fn {
    name: &'static str,
    level: Level,
    args: &'static [(&'static str, &'static str)],
    /// Logs in, out or registers: called with a fresh client so the matrix's own sessions stay.
    fresh: bool,
}

const fn f(name: &'static str, level: Level, args: &'static [(&'static str, &'static str)]) -> Fn {
    Fn {
        name,
        level,
        args,
        fresh: false,
    }
}

/// Placeholders in arguments and paths: `{apt}`, `{judge}` (campaigns), `{victim}` (a user id
/// the matrix does not log in as), `{pair}` (a pair of `{judge}`), `{mturk}` (the slug of an MTurk
/// study link of `{judge}`), `{batch}` (a bonus batch of `{judge}`), `{any}` (an unknown id).
const SERVER_FNS: &[Fn] = &[
    Fn {
        name: "current_user",
        level: Level::Public,
        args: &[],
        fresh: false,
    },
    Fn {
        name: "register",
        level: Level::Public,
        args: &[
            ("username", "{new_name}"),
            ("password", "a long enough password"),
            ("password_confirmation", "a long enough password"),
        ],
        fresh: true,
    },
    Fn {
        name: "login",
        level: Level::Public,
        args: &[
            ("username", "{own_name}"),
            ("password", crate::helpers::PASSWORD),
        ],
        fresh: true,
    },
    Fn {
        name: "logout",
        level: Level::Public,
        args: &[],
        fresh: true,
    },
    f("list_my_campaigns", Level::User, &[]),
    f("apt/next", Level::User, &[("campaign_id", "{apt}")]),
    f(
        "apt/check",
        Level::User,
        &[
            ("campaign_id", "{apt}"),
            ("source_id", "{any}"),
            ("text", "a rewrite"),
        ],
    ),
    f(
        "apt/checked",
        Level::User,
        &[("campaign_id", "{apt}"), ("attempt_id", "{any}")],
    ),
    f(
        "apt/submit",
        Level::User,
        &[("campaign_id", "{apt}"), ("attempt_id", "{any}")],
    ),
    f(
        "apt/skip",
        Level::User,
        &[("campaign_id", "{apt}"), ("source_id", "{any}")],
    ),
    f("judge/next", Level::User, &[("campaign_id", "{judge}")]),
    f(
        "judge/answer",
        Level::User,
        &[
            ("campaign_id", "{judge}"),
            ("assignment_id", "{any}"),
            ("is_paraphrase", "true"),
        ],
    ),
    f(
        "judge/feedback",
        Level::User,
        &[("campaign_id", "{judge}"), ("assignment_id", "{any}")],
    ),
    f(
        "research/apt_report",
        Level::Research,
        &[("campaign_id", "{apt}")],
    ),
    f(
        "research/judge_report",
        Level::Research,
        &[("campaign_id", "{judge}")],
    ),
    // An unknown worker: allowed callers get a 404, which the matrix reads as allowed.
    f(
        "research/exclude_worker",
        Level::Research,
        &[("campaign_id", "{judge}"), ("worker", "W00000000")],
    ),
    f(
        "research/export_view",
        Level::Research,
        &[("campaign_id", "{judge}")],
    ),
    f("research/scorer_status", Level::Research, &[]),
    f("admin/list_users", Level::Admin, &[]),
    f(
        "admin/set_user_role",
        Level::Admin,
        &[("user_id", "{victim}"), ("role", "researcher")],
    ),
    f(
        "admin/set_user_blocked",
        Level::Admin,
        &[("user_id", "{victim}"), ("blocked", "true")],
    ),
    f("admin/list_campaigns", Level::Admin, &[]),
    f(
        "admin/get_campaign",
        Level::Admin,
        &[("campaign_id", "{apt}")],
    ),
    f(
        "admin/create_campaign",
        Level::Admin,
        &[
            ("kind", "apt"),
            ("title", "made by the matrix"),
            ("instructions", ""),
            ("budget_cap_cents", "2000"),
            ("bleurt_threshold", "0.5"),
        ],
    ),
    f(
        "admin/set_campaign_status",
        Level::Admin,
        &[("campaign_id", "{apt}"), ("status", "open")],
    ),
    f(
        "admin/import_sources",
        Level::Admin,
        &[
            ("campaign_id", "{apt}"),
            ("filename", "s.tsv"),
            ("content", "text\nOne more source sentence.\n"),
            ("default_origin", "upload"),
        ],
    ),
    f(
        "admin/create_judge_campaign",
        Level::Admin,
        &[
            ("title", "made by the matrix"),
            ("instructions", ""),
            ("definition", "loose"),
            ("judgments_per_pair", "6"),
            ("test_every", "5"),
            ("min_test_accuracy", "0.85"),
            ("min_kappa", "0.2"),
            ("gate_min_judgments", "30"),
        ],
    ),
    f(
        "admin/import_pairs",
        Level::Admin,
        &[
            ("campaign_id", "{judge}"),
            ("filename", "p.csv"),
            (
                "content",
                "sentence1,sentence2\nA new first.,A new second.\n",
            ),
            ("labels_are_tests", "false"),
        ],
    ),
    f(
        "admin/judge_overview",
        Level::Admin,
        &[("campaign_id", "{judge}")],
    ),
    f(
        "admin/list_pairs",
        Level::Admin,
        &[
            ("campaign_id", "{judge}"),
            ("tests_only", "true"),
            ("page", "0"),
        ],
    ),
    f(
        "admin/set_test_pair",
        Level::Admin,
        &[
            ("campaign_id", "{judge}"),
            ("pair_id", "{pair}"),
            ("gold", "paraphrase"),
            ("explanation", "Set by the matrix."),
        ],
    ),
    f(
        "admin/set_judge_worker_status",
        Level::Admin,
        &[
            ("campaign_id", "{judge}"),
            ("user_id", "{victim}"),
            ("status", "stopped"),
        ],
    ),
    f(
        "admin/promote_settled_pairs",
        Level::Admin,
        &[("campaign_id", "{judge}")],
    ),
    f(
        "admin/republish",
        Level::Admin,
        &[("campaign_id", "{judge}"), ("min_kappa", "0.4")],
    ),
    f(
        "admin/import_corpus",
        Level::Admin,
        &[
            ("name", "matrix corpus"),
            ("filename", "c.txt"),
            ("content", "One sentence here.\nAnother one there.\n"),
            ("shape", "sentences"),
        ],
    ),
    f("admin/mining_overview", Level::Admin, &[]),
    f(
        "admin/start_mining",
        Level::Admin,
        &[("corpus_id", "{any}"), ("method", "l12")],
    ),
    f("admin/mining_run", Level::Admin, &[("run_id", "{any}")]),
    f("admin/cancel_mining", Level::Admin, &[("run_id", "{any}")]),
    f("admin/restart_mining", Level::Admin, &[("run_id", "{any}")]),
    f(
        "admin/mining_candidates",
        Level::Admin,
        &[("run_id", "{any}")],
    ),
    f(
        "admin/deploy_candidates",
        Level::Admin,
        &[("run_id", "{any}"), ("campaign_id", "{judge}")],
    ),
    // A study link's MTurk preview: answered to anyone, and signs nobody in (a worker's arrival
    // would replace the caller's session; `studies.rs` tests those).
    f(
        "study/open",
        Level::Public,
        &[
            ("slug", "{mturk}"),
            ("query", "assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE"),
        ],
    ),
    f(
        "study/decide",
        Level::User,
        &[("slug", "{mturk}"), ("version", "1"), ("agree", "true")],
    ),
    f(
        "admin/study_setup",
        Level::Admin,
        &[("campaign_id", "{judge}")],
    ),
    f(
        "admin/save_study_info",
        Level::Admin,
        &[
            ("campaign_id", "{judge}"),
            ("summary", "Matrix study."),
            ("minutes", "5"),
            ("pay", ""),
            ("consent_text", ""),
            ("completion_code", ""),
        ],
    ),
    f(
        "admin/create_study_link",
        Level::Admin,
        &[
            ("campaign_id", "{judge}"),
            ("platform", "generic"),
            ("label", "matrix"),
            ("max_workers", ""),
            ("expires_in_days", ""),
        ],
    ),
    f("open_studies", Level::Public, &[]),
    f("study/progress", Level::User, &[("campaign_id", "{judge}")]),
    f("study/complete", Level::User, &[("campaign_id", "{judge}")]),
    f(
        "research/payments",
        Level::Research,
        &[("campaign_id", "{judge}")],
    ),
    f(
        "research/make_payment_batch",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("batch_id", "{any}"),
            ("top_up", "true"),
        ],
    ),
    f(
        "research/mark_batch_paid",
        Level::Research,
        &[("campaign_id", "{judge}"), ("batch_id", "{any}")],
    ),
    f(
        "research/discard_payment_batch",
        Level::Research,
        &[("campaign_id", "{judge}"), ("batch_id", "{any}")],
    ),
    f(
        "research/prolific",
        Level::Research,
        &[("campaign_id", "{judge}")],
    ),
    f(
        "research/prolific_connect",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("study_link_id", "{any}"),
            ("study_id", "st1"),
        ],
    ),
    f(
        "research/prolific_test",
        Level::Research,
        &[("campaign_id", "{judge}"), ("study_link_id", "{any}")],
    ),
    f(
        "research/prolific_reconcile",
        Level::Research,
        &[("campaign_id", "{judge}"), ("study_link_id", "{any}")],
    ),
    f(
        "research/prolific_approve",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("study_link_id", "{any}"),
            ("call_id", "{any}"),
        ],
    ),
    f(
        "research/prolific_reject",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("study_link_id", "{any}"),
            ("submission_id", "sub1"),
            ("category", "NO_CODE"),
            ("message", "m"),
            ("call_id", "{any}"),
        ],
    ),
    f(
        "research/prolific_bonus_set_up",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("batch_id", "{any}"),
            ("study_link_id", "{any}"),
        ],
    ),
    f(
        "research/prolific_bonus_pay",
        Level::Research,
        &[("campaign_id", "{judge}"), ("batch_id", "{any}")],
    ),
    f(
        "research/prolific_bonus_resolve",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("batch_id", "{any}"),
            ("paid", "true"),
        ],
    ),
    f(
        "research/mturk",
        Level::Research,
        &[("campaign_id", "{judge}")],
    ),
    f(
        "research/mturk_connect",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("study_link_id", "{any}"),
            ("hit_ids", "HIT1"),
            ("sandbox", "true"),
        ],
    ),
    f(
        "research/mturk_test",
        Level::Research,
        &[("campaign_id", "{judge}"), ("study_link_id", "{any}")],
    ),
    f(
        "research/mturk_reconcile",
        Level::Research,
        &[("campaign_id", "{judge}"), ("study_link_id", "{any}")],
    ),
    f(
        "research/mturk_approve",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("study_link_id", "{any}"),
            ("call_id", "{any}"),
        ],
    ),
    f(
        "research/mturk_reject",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("study_link_id", "{any}"),
            ("assignment_id", "as1"),
            ("message", "m"),
            ("call_id", "{any}"),
        ],
    ),
    f(
        "research/mturk_pay",
        Level::Research,
        &[
            ("campaign_id", "{judge}"),
            ("batch_id", "{any}"),
            ("study_link_id", "{any}"),
        ],
    ),
    f(
        "admin/set_study_link_paused",
        Level::Admin,
        &[
            ("campaign_id", "{judge}"),
            ("study_link_id", "{any}"),
            ("paused", "true"),
        ],
    ),
];

/// Routes outside the server functions (downloads, probes).
const ROUTES: &[(&str, Level)] = &[
    ("/health", Level::Public),
    ("/metrics", Level::Public),
    ("/export/judge/{judge}", Level::Research),
    ("/export/apt/{apt}", Level::Research),
    ("/payments/{batch}/generic.csv", Level::Research),
];

/// Every page of the router (its template, then a concrete path).
const PAGES: &[(&str, &str, Level)] = &[
    ("/", "/", Level::Public),
    ("/login", "/login", Level::Public),
    ("/register", "/register", Level::Public),
    ("/apt/{id}", "/apt/{apt}", Level::User),
    ("/judge/{id}", "/judge/{judge}", Level::User),
    ("/research/apt/{id}", "/research/apt/{apt}", Level::Research),
    (
        "/research/judge/{id}",
        "/research/judge/{judge}",
        Level::Research,
    ),
    (
        "/research/export/{id}",
        "/research/export/{judge}",
        Level::Research,
    ),
    ("/admin/users", "/admin/users", Level::Admin),
    ("/admin/campaigns", "/admin/campaigns", Level::Admin),
    (
        "/admin/campaigns/{id}",
        "/admin/campaigns/{apt}",
        Level::Admin,
    ),
    ("/admin/mining", "/admin/mining", Level::Admin),
    (
        "/s/{slug}",
        "/s/{mturk}?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE",
        Level::Public,
    ),
    ("/study/{id}/done", "/study/{judge}/done", Level::User),
    (
        "/research/payments/{id}",
        "/research/payments/{judge}",
        Level::Research,
    ),
];

/// The values the placeholders stand for.
struct Ids {
    apt: String,
    judge: String,
    victim: String,
    pair: String,
    /// The slug of an MTurk study link of `{judge}`.
    mturk: String,
    /// A bonus batch of `{judge}`.
    batch: String,
}

impl Ids {
    fn fill(&self, s: &str, own_name: &str) -> String {
        s.replace("{apt}", &self.apt)
            .replace("{judge}", &self.judge)
            .replace("{victim}", &self.victim)
            .replace("{pair}", &self.pair)
            .replace("{mturk}", &self.mturk)
            .replace("{batch}", &self.batch)
            .replace("{any}", &uuid::Uuid::new_v4().to_string())
            .replace("{own_name}", own_name)
            .replace("{new_name}", &crate::helpers::username("matrix"))
    }
}

async fn fixtures(app: &TestApp, admin: &Client) -> Ids {
    let (_, victim_name) = app.annotator().await;
    let judge = crate::judge::campaign(
        app,
        admin,
        crate::judge::Setup {
            test_every: 5,
            gate_min_judgments: 30,
            tests_csv: Some(&crate::judge::tests_csv(2)),
            ..crate::judge::Setup::pairs(&crate::judge::pairs_csv(4))
        },
    )
    .await;
    let resp = app
        .call(
            admin,
            "admin/create_campaign",
            &[
                ("kind", "apt"),
                ("title", "APT matrix"),
                ("instructions", "Rewrite."),
                ("budget_cap_cents", "2000"),
                ("bleurt_threshold", "0.5"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let apt: String = resp.json().await.unwrap();
    let pair: String = sqlx::query_scalar(
        "select pair_id::text from judge_pair where campaign_id = $1::uuid limit 1",
    )
    .bind(&judge)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let link = app
        .call(
            admin,
            "admin/create_study_link",
            &[
                ("campaign_id", &judge),
                ("platform", "mturk"),
                ("label", ""),
                ("max_workers", ""),
                ("expires_in_days", ""),
            ],
        )
        .await;
    assert_eq!(link.status(), StatusCode::OK);
    let mturk: String = sqlx::query_scalar("select slug from study_link limit 1")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    // An (empty) bonus batch of `{judge}`, for its files.
    let batch: String = sqlx::query_scalar(
        "insert into payment_batch (batch_id, campaign_id, top_up)
         values (gen_random_uuid(), $1::uuid, false) returning batch_id::text",
    )
    .bind(&judge)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    Ids {
        apt,
        judge,
        victim: app.user_id(&victim_name).await,
        pair,
        mturk,
        batch,
    }
}

/// What a refusal looks like for this caller.
fn refusal(caller: Caller) -> (StatusCode, &'static str, &'static str) {
    if caller == Caller::Anonymous {
        (
            StatusCode::UNAUTHORIZED,
            "Unauthenticated",
            "Please log in first.",
        )
    } else {
        (
            StatusCode::FORBIDDEN,
            "Forbidden",
            "You do not have permission to do that.",
        )
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn every_function_route_and_page_answers_each_role_as_the_table_declares(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, admin_name) = app.user_with_role("admin").await;
    let ids = fixtures(&app, &admin).await;
    let (annotator, annotator_name) = app.annotator().await;
    let (researcher, researcher_name) = app.user_with_role("researcher").await;

    // The table names every registered server function, and every page.
    let registered: BTreeSet<String> = leptos::server_fn::axum::server_fn_paths()
        .map(|(path, _)| path.trim_start_matches("/api/").to_owned())
        .collect();
    let declared: BTreeSet<String> = SERVER_FNS.iter().map(|f| f.name.to_owned()).collect();
    assert_eq!(
        registered, declared,
        "server functions registered vs declared"
    );
    let pages: BTreeSet<String> = leptos_axum::generate_route_list(app::App)
        .iter()
        .map(|r| r.path().to_owned())
        .collect();
    let declared: BTreeSet<String> = PAGES.iter().map(|p| p.0.to_owned()).collect();
    assert_eq!(pages, declared, "pages routed vs declared");

    let anonymous = client();
    let callers = [
        // Anonymous logs in (with a fresh client) as the annotator.
        (Caller::Anonymous, &anonymous, annotator_name.as_str()),
        (Caller::Annotator, &annotator, annotator_name.as_str()),
        (Caller::Researcher, &researcher, researcher_name.as_str()),
        (Caller::Admin, &admin, admin_name.as_str()),
    ];
    let before = admin_state(&pool, &ids.victim).await;
    let mut checked = 0;
    for (caller, c, own_name) in callers {
        if caller == Caller::Admin {
            // Nothing a refused caller sent changed what only admins may change.
            assert_eq!(admin_state(&pool, &ids.victim).await, before);
        }
        let allowed = |level| caller.may(level);
        let (status, error, message) = refusal(caller);
        for entry in SERVER_FNS {
            let form: Vec<(String, String)> = entry
                .args
                .iter()
                .map(|(k, v)| (k.to_string(), ids.fill(v, own_name)))
                .collect();
            let form: Vec<(&str, &str)> =
                form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let fresh;
            let c = if entry.fresh && caller != Caller::Anonymous {
                fresh = client();
                let resp = app.login(&fresh, own_name, crate::helpers::PASSWORD).await;
                assert_eq!(resp.status(), StatusCode::OK);
                &fresh
            } else if entry.fresh {
                fresh = client();
                &fresh
            } else {
                c
            };
            let resp = app.call(c, entry.name, &form).await;
            let got = resp.status();
            let what = format!("{caller:?} calling {}", entry.name);
            if allowed(entry.level) {
                assert!(
                    got != StatusCode::UNAUTHORIZED || entry.name == "login",
                    "{what}: {got} {}",
                    error_of(resp).await
                );
                assert!(
                    got != StatusCode::FORBIDDEN && !got.is_server_error(),
                    "{what}: {got} {}",
                    error_of(resp).await
                );
                if entry.name == "login" {
                    assert!(got.is_success(), "{what}: {got}");
                }
            } else {
                assert_eq!(got, status, "{what}");
                assert_eq!(error_of(resp).await, error, "{what}");
            }
            checked += 1;
        }
        for (path, level) in ROUTES {
            let resp = app.get(c, &ids.fill(path, own_name)).await;
            let got = resp.status();
            if allowed(*level) {
                assert_eq!(got, StatusCode::OK, "{caller:?} getting {path}");
            } else {
                assert_eq!(got, status, "{caller:?} getting {path}");
            }
            checked += 1;
        }
        for (template, path, level) in PAGES {
            let resp = app.get(c, &ids.fill(path, own_name)).await;
            let got = resp.status();
            let body = resp.text().await.unwrap();
            let what = format!("{caller:?} opening {template}");
            assert!(!got.is_server_error(), "{what}: {got}");
            let refused = body.contains("Please log in first.")
                || body.contains("You do not have permission to do that.");
            if allowed(*level) {
                assert_eq!(got, StatusCode::OK, "{what}");
                assert!(!refused, "{what}: {body}");
            } else {
                assert!(body.contains(message), "{what}: {got} {body}");
                // The refusal is the page's HTTP status too, not a 200.
                assert_eq!(got, status, "{what}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 4 * (SERVER_FNS.len() + ROUTES.len() + PAGES.len()));

    // The admin's own calls did change it.
    assert_ne!(admin_state(&pool, &ids.victim).await, before);
    let (role, status): (String, String) =
        sqlx::query_as("select role, status from app_user where app_user_id = $1::uuid")
            .bind(&ids.victim)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((role.as_str(), status.as_str()), ("researcher", "blocked"));
    app.stop().await;
}

/// What only admins may change: campaigns, their sentences and pairs, gold labels, corpora, runs,
/// the victim's role and status, workers' gate status.
async fn admin_state(pool: &PgPool, victim: &str) -> String {
    sqlx::query_scalar(
        "select concat_ws(' / ',
            (select count(*) from campaign),
            (select string_agg(status, ',' order by campaign_id) from campaign),
            (select count(*) from source_sentence),
            (select count(*) from judge_pair),
            (select count(*) from judge_pair where is_test),
            (select string_agg(coalesce(gold_explanation, '-'), ',' order by pair_id) from judge_pair),
            (select count(*) from corpus),
            (select count(*) from mining_run),
            (select role || ' ' || status from app_user where app_user_id = $1::uuid),
            (select count(*) from judge_worker where status <> 'active'))",
    )
    .bind(victim)
    .fetch_one(pool)
    .await
    .unwrap()
}
