//! The payments page's Prolific section against a local fake of Prolific's API, started by
//! the test: the paths, bodies, status codes and paging Prolific documents (submissions listed
//! by study, page by page; bulk approve by study and submission ids; errors as
//! `{"error": {"detail": ...}}`), with its faults: a 500, a refused token, a response lost
//! after the approval happened, and a submission approved by hand meanwhile.
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::{client, TestApp};
use crate::studies::{json as ok_json, judging};
use crate::study_pay::{arrive, complete, connect_and_batch, judge_n, link, terms};

const TOKEN: &str = "fake-prolific-token-7Hq2";
const STUDY: &str = "65f0c0ffee0123456789abcd";

/// Prolific as the test sets it up.
#[derive(Default)]
struct Fake {
    /// Submission id -> (participant, status).
    submissions: BTreeMap<String, (String, String)>,
    /// GETs to answer with a 500 before answering properly.
    fail_reads: u32,
    /// Apply the next approval, then hold the answer past the client's timeout.
    lose_approve_answer: bool,
    /// Every bulk-approve body received.
    approvals: Vec<Value>,
    /// GETs received.
    reads: u32,
    /// Transitions received: (submission id, body).
    transitions: Vec<(String, Value)>,
    /// Bulk bonuses made: id -> the body.
    bonuses: BTreeMap<String, Value>,
    /// Pay calls received, by bonus id.
    pays: Vec<String>,
    /// Answer the next pay with this status and detail (the balance is short, ...).
    refuse_next_pay: Option<(u16, String)>,
    /// Pay, then hold the answer past the client's timeout.
    lose_pay_answer: bool,
}

type Shared = Arc<Mutex<Fake>>;

fn refused(status: StatusCode, detail: &str) -> Response {
    (
        status,
        Json(json!({"error": {"detail": detail, "error_code": 1}})),
    )
        .into_response()
}

fn authorized(h: &HeaderMap) -> bool {
    h.get("authorization").and_then(|v| v.to_str().ok()) == Some(&format!("Token {TOKEN}"))
}

async fn study(State(s): State<Shared>, h: HeaderMap, Path(id): Path<String>) -> Response {
    let mut f = s.lock().unwrap();
    f.reads += 1;
    if !authorized(&h) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid token.");
    }
    if id != STUDY {
        return refused(StatusCode::NOT_FOUND, "Not found.");
    }
    Json(json!({"id": STUDY, "name": "Paraphrase judgments", "status": "ACTIVE"})).into_response()
}

async fn submissions(
    State(s): State<Shared>,
    h: HeaderMap,
    Query(q): Query<BTreeMap<String, String>>,
) -> Response {
    let mut f = s.lock().unwrap();
    f.reads += 1;
    if f.fail_reads > 0 {
        f.fail_reads -= 1;
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "<h1>Server Error (500)</h1>",
        )
            .into_response();
    }
    if !authorized(&h) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid token.");
    }
    if q.get("study").map(String::as_str) != Some(STUDY) {
        return Json(json!({"results": [], "_links": {"next": {"href": null}}})).into_response();
    }
    // Pages of at most 2, whatever was asked: the client must follow the pages.
    let size = q
        .get("page_size")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(20)
        .min(2);
    let page = q
        .get("page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1);
    let all: Vec<Value> = f
        .submissions
        .iter()
        .map(|(id, (who, status))| {
            json!({"id": id, "participant_id": who, "status": status,
                   "started_at": "2026-11-28T10:00:00Z", "study_code": null})
        })
        .collect();
    let chunk: Vec<Value> = all
        .iter()
        .skip((page - 1) * size)
        .take(size)
        .cloned()
        .collect();
    let next = (page * size < all.len()).then(|| {
        format!(
            "http://fake/api/v1/submissions/?study={STUDY}&page={}",
            page + 1
        )
    });
    Json(json!({
        "results": chunk,
        "_links": {"self": {"href": "x", "title": "Current"}, "next": {"href": next, "title": "Next"}},
        "meta": {"count": all.len()}
    }))
    .into_response()
}

async fn bulk_approve(State(s): State<Shared>, h: HeaderMap, Json(body): Json<Value>) -> Response {
    let lose = {
        let mut f = s.lock().unwrap();
        if !authorized(&h) {
            return refused(StatusCode::UNAUTHORIZED, "Invalid token.");
        }
        // Prolific takes either submission ids alone or a study with participant ids.
        let Some(ids) = body["submission_ids"].as_array() else {
            return refused(StatusCode::BAD_REQUEST, "submission_ids is required.");
        };
        if body.get("study_id").is_some() || ids.len() > 1000 {
            return refused(
                StatusCode::BAD_REQUEST,
                "Give submission ids alone, at most 1000.",
            );
        }
        f.approvals.push(body.clone());
        for id in body["submission_ids"].as_array().unwrap() {
            if let Some(sub) = f.submissions.get_mut(id.as_str().unwrap()) {
                if sub.1 == "AWAITING REVIEW" {
                    sub.1 = "APPROVED".into();
                }
            }
        }
        std::mem::take(&mut f.lose_approve_answer)
    };
    if lose {
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
    Json(json!(
        "The request to bulk approve has been made successfully."
    ))
    .into_response()
}

/// `POST /api/v1/submissions/{id}/transition/`: a rejection needs a category and a message
/// of 100 characters or more, and only a submission awaiting review can be rejected.
async fn transition(
    State(s): State<Shared>,
    h: HeaderMap,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let mut f = s.lock().unwrap();
    if !authorized(&h) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid token.");
    }
    if body["action"] != "REJECT"
        || body["rejection_category"].as_str().is_none()
        || body["message"].as_str().map_or(0, |m| m.chars().count()) < 100
    {
        return refused(
            StatusCode::BAD_REQUEST,
            "A rejection needs a category and a message of at least 100 characters.",
        );
    }
    let Some(sub) = f.submissions.get_mut(&id) else {
        return refused(StatusCode::NOT_FOUND, "Not found.");
    };
    if sub.1 != "AWAITING REVIEW" {
        return refused(
            StatusCode::BAD_REQUEST,
            "Submission cannot be transitioned.",
        );
    }
    sub.1 = "REJECTED".into();
    let who = sub.0.clone();
    f.transitions.push((id.clone(), body));
    Json(json!({"id": id, "participant": who, "status": "REJECTED"})).into_response()
}

/// `POST /api/v1/submissions/bonus-payments/`: a bulk bonus from CSV lines, with Prolific's
/// amounts in cents and a third in fees; nothing is paid.
async fn set_up_bonus(State(s): State<Shared>, h: HeaderMap, Json(body): Json<Value>) -> Response {
    let mut f = s.lock().unwrap();
    if !authorized(&h) {
        return refused(StatusCode::UNAUTHORIZED, "Invalid token.");
    }
    let csv = body["csv_bonuses"].as_str().unwrap_or_default();
    let mut cents = 0.0;
    for line in csv.lines().filter(|l| !l.is_empty()) {
        let Some((_, amount)) = line.split_once(',') else {
            return refused(StatusCode::BAD_REQUEST, "Bad CSV.");
        };
        cents += amount.trim().parse::<f64>().unwrap() * 100.0;
    }
    let id = format!("bonus{}", f.bonuses.len() + 1);
    f.bonuses.insert(id.clone(), body.clone());
    let fees = (cents / 3.0).round();
    (
        StatusCode::CREATED,
        Json(
            json!({"id": id, "study": body["study_id"], "amount": cents.round(),
                    "fees": fees, "vat": 0, "total_amount": cents.round() + fees}),
        ),
    )
        .into_response()
}

/// `POST /api/v1/bulk-bonus-payments/{id}/pay/`: pays, every time it is called (Prolific's
/// warning: not idempotent).
async fn pay_bonus(State(s): State<Shared>, h: HeaderMap, Path(id): Path<String>) -> Response {
    let lose = {
        let mut f = s.lock().unwrap();
        if !authorized(&h) {
            return refused(StatusCode::UNAUTHORIZED, "Invalid token.");
        }
        if !f.bonuses.contains_key(&id) {
            return refused(StatusCode::NOT_FOUND, "Not found.");
        }
        if let Some((status, detail)) = f.refuse_next_pay.take() {
            return refused(StatusCode::from_u16(status).unwrap(), &detail);
        }
        f.pays.push(id);
        std::mem::take(&mut f.lose_pay_answer)
    };
    if lose {
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
    (
        StatusCode::ACCEPTED,
        Json(json!("Successfully received bonus payments request.")),
    )
        .into_response()
}

async fn start_fake(fake: Shared) -> String {
    let router = Router::new()
        .route("/api/v1/studies/{id}/", get(study))
        .route("/api/v1/submissions/", get(submissions))
        .route("/api/v1/submissions/bulk-approve/", post(bulk_approve))
        .route("/api/v1/submissions/bonus-payments/", post(set_up_bonus))
        .route("/api/v1/submissions/{id}/transition/", post(transition))
        .route("/api/v1/bulk-bonus-payments/{id}/pay/", post(pay_bonus))
        .with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}")
}

async fn app_with_prolific(pool: PgPool, base_url: &str, token: &str) -> TestApp {
    let config = server::config::Config {
        prolific: Some(app::prolific::Settings {
            base_url: base_url.to_owned(),
            token: app::prolific::Token::new(token).unwrap(),
            timeout: Duration::from_millis(1500),
        }),
        ..server::config::Config::for_tests(String::new())
    };
    crate::helpers::spawn_app_with_config(pool, config).await
}

fn prolific_query(pid: &str, session: &str) -> String {
    format!("PROLIFIC_PID={pid}&STUDY_ID={STUDY}&SESSION_ID={session}")
}

/// The rejection form for `sub-codeonly`.
fn reject_form(id: &str, link: &str, message: &str, call: &str) -> Vec<(&'static str, String)> {
    vec![
        ("campaign_id", id.to_owned()),
        ("study_link_id", link.to_owned()),
        ("submission_id", "sub-codeonly".to_owned()),
        ("category", "NO_CODE".to_owned()),
        ("message", message.to_owned()),
        ("call_id", call.to_owned()),
    ]
}

fn pairs<'a>(form: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    form.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn standings(table: &Value) -> BTreeMap<String, String> {
    table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["participant"].as_str().unwrap().to_owned(),
                r["standing"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[sqlx::test(migrations = "../migrations")]
async fn prolific_submissions_are_reconciled_and_only_completed_work_is_approved_once(
    pool: PgPool,
) {
    let fake: Shared = Arc::default();
    let base = start_fake(fake.clone()).await;
    let app = app_with_prolific(pool.clone(), &base, TOKEN).await;
    let (admin, _) = app.user_with_role("admin").await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let id = judging(&app, &admin).await;
    terms(&app, &admin, &id, "2", "C1234ABC", "", "").await;
    let slug = link(&app, &admin, &id, "prolific").await;

    // Three workers: done completes, codeonly works without completing, late completes
    // but has not submitted on Prolific yet.
    for (pid, session, finish) in [
        ("done0000000000000000000a", "sub-done", true),
        ("codeonly0000000000000000", "sub-codeonly", false),
        ("late00000000000000000000", "sub-late", true),
    ] {
        let w = arrive(&app, &slug, &prolific_query(pid, session)).await;
        judge_n(&app, &w, &id, if finish { 2 } else { 1 }, true).await;
        if finish {
            let c = complete(&app, &w, &id).await;
            assert!(c.to_string().contains("C1234ABC"), "{c}");
        }
    }
    {
        let mut f = fake.lock().unwrap();
        for (sub, who, status) in [
            // Prolific's ids are matched ignoring case, as study links match them.
            ("sub-done", "DONE0000000000000000000A", "AWAITING REVIEW"),
            (
                "sub-codeonly",
                "codeonly0000000000000000",
                "AWAITING REVIEW",
            ),
            ("sub-late", "late00000000000000000000", "ACTIVE"),
            (
                "sub-stranger",
                "stranger0000000000000000",
                "AWAITING REVIEW",
            ),
            ("sub-returned", "returned0000000000000000", "RETURNED"),
        ] {
            f.submissions
                .insert(sub.into(), (who.into(), status.into()));
        }
    }

    // The section names the link and the STUDY_ID its workers carried; nothing is connected.
    let view = ok_json(
        app.call(&researcher, "research/prolific", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(view["token_configured"], true);
    let link_id = view["links"][0]["study_link_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(view["links"][0]["study_id"], Value::Null);
    assert_eq!(view["links"][0]["seen_study_ids"], json!([STUDY]));
    let form = [
        ("campaign_id", id.as_str()),
        ("study_link_id", link_id.as_str()),
    ];
    let r = app
        .call(&researcher, "research/prolific_reconcile", &form)
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(r.text().await.unwrap().contains("Connect this link"));

    // A malformed study id is refused; the right one is kept and tested with one read.
    let r = app
        .call(
            &researcher,
            "research/prolific_connect",
            &[
                ("campaign_id", &id),
                ("study_link_id", &link_id),
                ("study_id", "no spaces"),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    ok_json(
        app.call(
            &researcher,
            "research/prolific_connect",
            &[
                ("campaign_id", &id),
                ("study_link_id", &link_id),
                ("study_id", STUDY),
            ],
        )
        .await,
    )
    .await;
    let tested = ok_json(app.call(&researcher, "research/prolific_test", &form).await).await;
    assert!(
        tested.as_str().unwrap().contains("Paraphrase judgments"),
        "{tested}"
    );

    // The table, read over three pages and through a 500 (a read is retried).
    fake.lock().unwrap().fail_reads = 1;
    let table = ok_json(
        app.call(&researcher, "research/prolific_reconcile", &form)
            .await,
    )
    .await;
    let s = standings(&table);
    assert_eq!(s["DONE0000000000000000000A"], "Approvable");
    assert_eq!(s["codeonly0000000000000000"], "NotCompletedHere");
    assert_eq!(s["late00000000000000000000"], "NotSubmittedThere");
    assert_eq!(s["stranger0000000000000000"], "UnknownHere");
    assert_eq!(s["returned0000000000000000"], "ReturnedOrTimedOut");
    assert_eq!(s.len(), 5);
    assert_eq!(table["approvable"], 1);
    assert_eq!(table["attention"], 2);
    // The two that need the researcher come first.
    assert_eq!(table["rows"][0]["standing"], "NotCompletedHere");
    assert_eq!(table["rows"][1]["standing"], "UnknownHere");

    // Meanwhile: late submits, and done is approved on Prolific by hand. The approval reads
    // the table again and names only late.
    {
        let mut f = fake.lock().unwrap();
        f.submissions.get_mut("sub-late").unwrap().1 = "AWAITING REVIEW".into();
        f.submissions.get_mut("sub-done").unwrap().1 = "APPROVED".into();
    }
    let call = uuid::Uuid::new_v4().to_string();
    let approve_form = [
        ("campaign_id", id.as_str()),
        ("study_link_id", link_id.as_str()),
        ("call_id", call.as_str()),
    ];
    // A double click: the same call twice at once makes one call to Prolific.
    let (a, b) = tokio::join!(
        app.call(&researcher, "research/prolific_approve", &approve_form),
        app.call(&researcher, "research/prolific_approve", &approve_form)
    );
    let mut outcomes = Vec::new();
    for r in [a, b] {
        let status = r.status();
        let body = r.text().await.unwrap();
        outcomes.push((status, body));
    }
    assert!(
        outcomes
            .iter()
            .any(|(s, b)| s.is_success() && b.contains("\"repeated\":false")),
        "{outcomes:?}"
    );
    let again = ok_json(
        app.call(&researcher, "research/prolific_approve", &approve_form)
            .await,
    )
    .await;
    assert_eq!(again["repeated"], true, "{again}");
    {
        let f = fake.lock().unwrap();
        assert_eq!(f.approvals.len(), 1, "{:?}", f.approvals);
        assert_eq!(f.approvals[0], json!({"submission_ids": ["sub-late"]}));
    }

    // The participant who entered a code without the work is rejected, one by one, with
    // Prolific's category and a message long enough for Prolific.
    let reject_call = uuid::Uuid::new_v4().to_string();
    let short = reject_form(&id, &link_id, "You did not do the task.", &reject_call);
    let r = app
        .call(&researcher, "research/prolific_reject", &pairs(&short))
        .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(fake.lock().unwrap().transitions.is_empty());
    const WHY: &str = "You entered the completion code without judging any pair in the study, so there is no work to pay for. Please contact us if this is wrong.";
    let full = reject_form(&id, &link_id, WHY, &reject_call);
    let said = ok_json(
        app.call(&researcher, "research/prolific_reject", &pairs(&full))
            .await,
    )
    .await;
    assert!(
        said.as_str()
            .unwrap()
            .contains("rejected submission sub-codeonly"),
        "{said}"
    );
    // The same call again (a double click) makes no second call.
    ok_json(
        app.call(&researcher, "research/prolific_reject", &pairs(&full))
            .await,
    )
    .await;
    {
        let f = fake.lock().unwrap();
        assert_eq!(f.transitions.len(), 1);
        assert_eq!(
            f.transitions[0],
            (
                "sub-codeonly".to_string(),
                json!({"action": "REJECT", "rejection_category": "NO_CODE", "message": WHY})
            )
        );
    }
    // A submission no longer awaiting review is not sent.
    let again = reject_form(&id, &link_id, WHY, &uuid::Uuid::new_v4().to_string());
    let r = app
        .call(&researcher, "research/prolific_reject", &pairs(&again))
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert_eq!(fake.lock().unwrap().transitions.len(), 1);

    // A lost answer: Prolific approves, the answer never comes. The call is recorded as
    // unknown, and a new approval finds nothing left to approve and calls nothing.
    fake.lock().unwrap().submissions.insert(
        "sub-done2".into(),
        ("done0000000000000000000a".into(), "AWAITING REVIEW".into()),
    );
    fake.lock().unwrap().submissions.remove("sub-done");
    fake.lock().unwrap().lose_approve_answer = true;
    let lost_call = uuid::Uuid::new_v4().to_string();
    let r = app
        .call(
            &researcher,
            "research/prolific_approve",
            &[
                ("campaign_id", &id),
                ("study_link_id", &link_id),
                ("call_id", &lost_call),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
    assert!(r.text().await.unwrap().contains("did not answer"));
    let view = ok_json(
        app.call(&researcher, "research/prolific", &[("campaign_id", &id)])
            .await,
    )
    .await;
    let calls = view["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(
        calls[0]["outcome"]
            .as_str()
            .unwrap()
            .contains("may or may not"),
        "{calls:?}"
    );
    assert_eq!(calls[1]["what"], "Reject submission sub-codeonly");
    assert_eq!(calls[1]["done"], true);
    assert_eq!(calls[2]["what"], "Approve 1 submission");
    assert_eq!(calls[2]["done"], true);
    let retry = uuid::Uuid::new_v4().to_string();
    let r = ok_json(
        app.call(
            &researcher,
            "research/prolific_approve",
            &[
                ("campaign_id", &id),
                ("study_link_id", &link_id),
                ("call_id", &retry),
            ],
        )
        .await,
    )
    .await;
    assert_eq!(r["approved"], 0, "{r}");
    let f = fake.lock().unwrap();
    assert_eq!(f.approvals.len(), 2);
    // No call ever named the worker who did not complete here, or the stranger.
    for body in &f.approvals {
        let ids = body["submission_ids"].to_string();
        assert!(
            !ids.contains("codeonly") && !ids.contains("stranger"),
            "{ids}"
        );
    }
    assert!(f.reads >= 6, "{}", f.reads);
}

#[sqlx::test(migrations = "../migrations")]
async fn a_refused_token_is_said_plainly_and_never_shown(pool: PgPool) {
    let fake: Shared = Arc::default();
    let base = start_fake(fake.clone()).await;
    let wrong = "wrong-token-that-must-not-leak";
    let app = app_with_prolific(pool.clone(), &base, wrong).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    link(&app, &admin, &id, "prolific").await;
    let view = ok_json(
        app.call(&admin, "research/prolific", &[("campaign_id", &id)])
            .await,
    )
    .await;
    let link_id = view["links"][0]["study_link_id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok_json(
        app.call(
            &admin,
            "research/prolific_connect",
            &[
                ("campaign_id", &id),
                ("study_link_id", &link_id),
                ("study_id", STUDY),
            ],
        )
        .await,
    )
    .await;
    for name in ["research/prolific_test", "research/prolific_reconcile"] {
        let r = app
            .call(
                &admin,
                name,
                &[("campaign_id", &id), ("study_link_id", &link_id)],
            )
            .await;
        assert_eq!(r.status(), StatusCode::BAD_GATEWAY, "{name}");
        let body = r.text().await.unwrap();
        assert!(body.contains("refused the API token (401)"), "{body}");
        assert!(body.contains("Invalid token."), "{body}");
        assert!(!body.contains(wrong), "{body}");
    }
    // The page never holds the token either.
    let page = app.get(&admin, &format!("/research/payments/{id}")).await;
    assert!(!page.text().await.unwrap().contains(wrong));
    // Not retried: a refusal is an answer.
    assert_eq!(fake.lock().unwrap().reads, 2);
    // Annotators cannot read the section.
    let (annotator, _) = app.annotator().await;
    let r = app
        .call(&annotator, "research/prolific", &[("campaign_id", &id)])
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let _ = client();
}

#[sqlx::test(migrations = "../migrations")]
async fn without_a_token_the_section_says_how_to_set_one(pool: PgPool) {
    let app = crate::helpers::spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    link(&app, &admin, &id, "prolific").await;
    let view = ok_json(
        app.call(&admin, "research/prolific", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(view["token_configured"], false);
    let link_id = view["links"][0]["study_link_id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok_json(
        app.call(
            &admin,
            "research/prolific_connect",
            &[
                ("campaign_id", &id),
                ("study_link_id", &link_id),
                ("study_id", STUDY),
            ],
        )
        .await,
    )
    .await;
    let r = app
        .call(
            &admin,
            "research/prolific_test",
            &[("campaign_id", &id), ("study_link_id", &link_id)],
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(r.text().await.unwrap().contains("PARACROWD_PROLIFIC_TOKEN"));
    // A link of another platform cannot be connected.
    let generic = link(&app, &admin, &id, "generic").await;
    let other: String =
        sqlx::query_scalar("select study_link_id::text from study_link where slug = $1")
            .bind(&generic)
            .fetch_one(&pool)
            .await
            .unwrap();
    let r = app
        .call(
            &admin,
            "research/prolific_connect",
            &[
                ("campaign_id", &id),
                ("study_link_id", &other),
                ("study_id", STUDY),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    // Nor can the database be made to hold such a connection.
    let bad = sqlx::query(
        "insert into prolific_connection (study_link_id, study_id) values ($1::uuid, 'x')",
    )
    .bind(&other)
    .execute(&pool)
    .await;
    assert!(bad.is_err());
}

/// A campaign with a connected Prolific link and one completed worker owed $0.03, and the
/// batch of it. Returns (app, researcher, campaign id, link id, batch id).
async fn owed_batch(
    pool: PgPool,
    fake: &Shared,
) -> (TestApp, reqwest::Client, String, String, String, String) {
    let base = start_fake(fake.clone()).await;
    let app = app_with_prolific(pool, &base, TOKEN).await;
    let (admin, _) = app.user_with_role("admin").await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let id = judging(&app, &admin).await;
    terms(&app, &admin, &id, "2", "C1234ABC", "", "").await;
    let slug = link(&app, &admin, &id, "prolific").await;
    let w = arrive(
        &app,
        &slug,
        &prolific_query("paid0000000000000000000a", "sub-paid"),
    )
    .await;
    judge_n(&app, &w, &id, 2, true).await;
    complete(&app, &w, &id).await;
    let (link_id, batch, made) =
        connect_and_batch(&app, &researcher, &id, "prolific", ("study_id", STUDY)).await;
    assert_eq!(made["total_cents"], 3, "{made}");
    (app, researcher, id, link_id, batch, base)
}

/// Sets the batch up on Prolific through the page's server function (it must succeed).
async fn bonus_set_up(app: &TestApp, c: &reqwest::Client, id: &str, batch: &str, link: &str) {
    ok_json(
        app.call(
            c,
            "research/prolific_bonus_set_up",
            &[
                ("campaign_id", id),
                ("batch_id", batch),
                ("study_link_id", link),
            ],
        )
        .await,
    )
    .await;
}

async fn bonus_of(app: &TestApp, c: &reqwest::Client, id: &str) -> Value {
    let view = ok_json(
        app.call(c, "research/prolific", &[("campaign_id", id)])
            .await,
    )
    .await;
    view["batches"][0].clone()
}

#[sqlx::test(migrations = "../migrations")]
async fn a_bonus_batch_is_paid_through_prolific_exactly_once(pool: PgPool) {
    let fake: Shared = Arc::default();
    let (app, researcher, id, link_id, batch, base) = owed_batch(pool.clone(), &fake).await;
    let pay = [("campaign_id", id.as_str()), ("batch_id", batch.as_str())];
    // Paying before it is set up says so.
    let r = app
        .call(&researcher, "research/prolific_bonus_pay", &pay)
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    // Set up: Prolific gets the batch's Prolific file, and its amount and fees are shown.
    bonus_set_up(&app, &researcher, &id, &batch, &link_id).await;
    bonus_set_up(&app, &researcher, &id, &batch, &link_id).await;
    {
        let f = fake.lock().unwrap();
        assert_eq!(f.bonuses.len(), 1, "set up once");
        assert_eq!(
            f.bonuses["bonus1"],
            json!({"study_id": STUDY, "csv_bonuses": "paid0000000000000000000a,0.03\n"})
        );
    }
    let b = bonus_of(&app, &researcher, &id).await;
    assert_eq!(b["bonus"]["amount_cents"], 3, "{b}");
    assert_eq!(b["bonus"]["fees_cents"], 1, "{b}");
    assert_eq!(b["bonus"]["total_cents"], 4, "{b}");
    assert_eq!(b["bonus"]["state"], "Created");

    // Refused by Prolific (a short balance): nothing paid, it may be tried again.
    fake.lock().unwrap().refuse_next_pay = Some((400, "Insufficient balance.".into()));
    let r = app
        .call(&researcher, "research/prolific_bonus_pay", &pay)
        .await;
    assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
    assert!(r.text().await.unwrap().contains("Insufficient balance."));
    let b = bonus_of(&app, &researcher, &id).await;
    assert_eq!(b["bonus"]["state"], "Created");
    assert!(b["bonus"]["detail"]
        .as_str()
        .unwrap()
        .contains("Insufficient balance."));
    assert_eq!(b["paid"], false);

    // Two tabs (or two servers) pay at once: Prolific is asked once, and the batch is marked
    // paid from its answer.
    let (a, c) = tokio::join!(
        app.call(&researcher, "research/prolific_bonus_pay", &pay),
        app.call(&researcher, "research/prolific_bonus_pay", &pay)
    );
    let statuses = [a.status(), c.status()];
    assert!(statuses.contains(&StatusCode::OK), "{statuses:?}");
    assert!(statuses.contains(&StatusCode::CONFLICT), "{statuses:?}");
    assert_eq!(fake.lock().unwrap().pays, vec!["bonus1".to_string()]);
    let b = bonus_of(&app, &researcher, &id).await;
    assert_eq!(b["bonus"]["state"], "Paid", "{b}");
    assert_eq!(b["paid"], true);
    // Again later, and after a restart of the server: never again.
    let r = app
        .call(&researcher, "research/prolific_bonus_pay", &pay)
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(r.text().await.unwrap().contains("paid already"));
    let restarted = app_with_prolific(pool.clone(), &base, TOKEN).await;
    let r = restarted
        .call(&researcher, "research/prolific_bonus_pay", &pay)
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert_eq!(fake.lock().unwrap().pays.len(), 1);
    // A batch paid through Prolific cannot be discarded.
    let r = app
        .call(&researcher, "research/discard_payment_batch", &pay)
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
}

#[sqlx::test(migrations = "../migrations")]
async fn a_payment_whose_answer_is_lost_is_never_sent_again_by_itself(pool: PgPool) {
    let fake: Shared = Arc::default();
    let (app, researcher, id, link_id, batch, _) = owed_batch(pool.clone(), &fake).await;
    let pay = [("campaign_id", id.as_str()), ("batch_id", batch.as_str())];
    bonus_set_up(&app, &researcher, &id, &batch, &link_id).await;
    fake.lock().unwrap().lose_pay_answer = true;
    let r = app
        .call(&researcher, "research/prolific_bonus_pay", &pay)
        .await;
    assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
    assert!(r.text().await.unwrap().contains("did not answer"));
    let b = bonus_of(&app, &researcher, &id).await;
    assert_eq!(b["bonus"]["state"], "Unknown", "{b}");
    assert_eq!(b["paid"], false);
    // The retry does not pay again: Prolific did pay, and the fake would pay twice.
    for _ in 0..3 {
        let r = app
            .call(&researcher, "research/prolific_bonus_pay", &pay)
            .await;
        assert_eq!(r.status(), StatusCode::CONFLICT);
        assert!(r.text().await.unwrap().contains("may be paid"));
    }
    assert_eq!(fake.lock().unwrap().pays.len(), 1);
    // A batch that may be paid cannot be discarded either.
    let r = app
        .call(&researcher, "research/discard_payment_batch", &pay)
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    // The researcher looks on Prolific and says it was paid: the batch is marked paid.
    ok_json(
        app.call(
            &researcher,
            "research/prolific_bonus_resolve",
            &[("campaign_id", &id), ("batch_id", &batch), ("paid", "true")],
        )
        .await,
    )
    .await;
    let b = bonus_of(&app, &researcher, &id).await;
    assert_eq!(b["bonus"]["state"], "Paid");
    assert_eq!(b["paid"], true);
    let r = app
        .call(
            &researcher,
            "research/prolific_bonus_resolve",
            &[
                ("campaign_id", &id),
                ("batch_id", &batch),
                ("paid", "false"),
            ],
        )
        .await;
    assert_eq!(
        r.status(),
        StatusCode::CONFLICT,
        "a paid bonus is not reopened"
    );
    assert_eq!(fake.lock().unwrap().pays.len(), 1);
}

#[sqlx::test(migrations = "../migrations")]
async fn a_bonus_the_researcher_saw_unpaid_can_be_paid_again_and_a_fresh_one_waits(pool: PgPool) {
    let fake: Shared = Arc::default();
    let (app, researcher, id, link_id, batch, _) = owed_batch(pool.clone(), &fake).await;
    let pay = [("campaign_id", id.as_str()), ("batch_id", batch.as_str())];
    bonus_set_up(&app, &researcher, &id, &batch, &link_id).await;
    // A server that stopped while paying leaves it "paying": the researcher cannot reopen it
    // until well past any call's timeout.
    sqlx::query("update prolific_bonus set state = 'paying', pay_started_at = now()")
        .execute(&pool)
        .await
        .unwrap();
    let resolve_unpaid = [
        ("campaign_id", id.as_str()),
        ("batch_id", batch.as_str()),
        ("paid", "false"),
    ];
    let r = app
        .call(
            &researcher,
            "research/prolific_bonus_resolve",
            &resolve_unpaid,
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    sqlx::query("update prolific_bonus set pay_started_at = now() - interval '1 hour'")
        .execute(&pool)
        .await
        .unwrap();
    ok_json(
        app.call(
            &researcher,
            "research/prolific_bonus_resolve",
            &resolve_unpaid,
        )
        .await,
    )
    .await;
    ok_json(
        app.call(&researcher, "research/prolific_bonus_pay", &pay)
            .await,
    )
    .await;
    assert_eq!(fake.lock().unwrap().pays.len(), 1);
    assert_eq!(bonus_of(&app, &researcher, &id).await["paid"], true);
}

#[sqlx::test(migrations = "../migrations")]
async fn a_campaigns_forms_cannot_reach_another_campaigns_link_or_batch(pool: PgPool) {
    let fake: Shared = Arc::default();
    // Campaign B: a connected link and a batch owed to its worker.
    let (app, researcher, b_id, b_link, b_batch, _) = owed_batch(pool.clone(), &fake).await;
    // Campaign A, with its own Prolific link.
    let (admin, _) = app.user_with_role("admin").await;
    let a_id = judging(&app, &admin).await;
    link(&app, &admin, &a_id, "prolific").await;
    let view = ok_json(
        app.call(&researcher, "research/prolific", &[("campaign_id", &a_id)])
            .await,
    )
    .await;
    let a_link = view["links"][0]["study_link_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(a_link, b_link);
    let status = |name: &'static str, form: Vec<(&'static str, String)>| {
        let app = &app;
        let researcher = &researcher;
        async move {
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            app.call(researcher, name, &form).await.status()
        }
    };
    // B's link under A's id: not A's to connect, read, approve or reject.
    let a = || ("campaign_id", a_id.clone());
    let bl = || ("study_link_id", b_link.clone());
    assert_eq!(
        status(
            "research/prolific_connect",
            vec![a(), bl(), ("study_id", "other".into())]
        )
        .await,
        StatusCode::NOT_FOUND
    );
    for name in ["research/prolific_test", "research/prolific_reconcile"] {
        assert_eq!(
            status(name, vec![a(), bl()]).await,
            StatusCode::CONFLICT,
            "{name}"
        );
    }
    let call = ("call_id", uuid::Uuid::new_v4().to_string());
    assert_eq!(
        status("research/prolific_approve", vec![a(), bl(), call.clone()]).await,
        StatusCode::CONFLICT
    );
    // B's batch under A's id: not set up, paid or settled.
    let bb = || ("batch_id", b_batch.clone());
    assert_eq!(
        status(
            "research/prolific_bonus_set_up",
            vec![a(), bb(), ("study_link_id", a_link.clone())]
        )
        .await,
        StatusCode::CONFLICT
    );
    ok_json(
        app.call(
            &researcher,
            "research/prolific_connect",
            &[
                ("campaign_id", &a_id),
                ("study_link_id", &a_link),
                ("study_id", STUDY),
            ],
        )
        .await,
    )
    .await;
    assert_eq!(
        status(
            "research/prolific_bonus_set_up",
            vec![a(), bb(), ("study_link_id", a_link.clone())]
        )
        .await,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        status("research/prolific_bonus_pay", vec![a(), bb()]).await,
        StatusCode::CONFLICT
    );
    assert_eq!(
        status(
            "research/prolific_bonus_resolve",
            vec![a(), bb(), ("paid", "true".into())]
        )
        .await,
        StatusCode::NOT_FOUND
    );
    // Nothing reached Prolific, and B's own batch is untouched.
    {
        let f = fake.lock().unwrap();
        assert!(f.approvals.is_empty() && f.bonuses.is_empty() && f.pays.is_empty());
    }
    let b = bonus_of(&app, &researcher, &b_id).await;
    assert_eq!(b["bonus"], Value::Null);
    assert_eq!(b["paid"], false);
}
