//! The payments page's MTurk section through the official SDK, against a local fake of MTurk's
//! requester API started by the test: AWS's JSON 1.1 protocol (`POST /` with
//! `X-Amz-Target: MTurkRequesterServiceV20170117.<Operation>`), its shapes, its paging
//! (`NextToken`), its errors (`{"__type": "RequestError", "Message": ...}`), and its faults: a
//! 500, refused credentials, a bonus refused for want of funds, a bonus paid whose answer is
//! lost, an assignment approved by hand meanwhile. `SendBonus` pays every call whose
//! `UniqueRequestToken` it has not seen, as MTurk does.
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use sqlx::PgPool;

use crate::helpers::TestApp;
use crate::studies::{json as ok_json, judging};
use crate::study_pay::{arrive, complete, connect_and_batch, judge_n, link, terms};

const KEY: &str = "AKIDFAKEMTURK0000001";
const HIT: &str = "3HITFAKE0000000000000000000001";
const SANDBOX: &str = "https%3A%2F%2Fworkersandbox.mturk.com";

/// One assignment as the fake holds it.
#[derive(Clone)]
struct Assignment {
    worker: String,
    hit: String,
    status: String,
}

/// A bonus the fake paid.
#[derive(Clone, Debug)]
struct Paid {
    worker: String,
    assignment: String,
    amount: String,
    reason: String,
}

/// MTurk as the test sets it up.
#[derive(Default)]
struct Fake {
    assignments: BTreeMap<String, Assignment>,
    /// Reads to answer with a 500 first.
    fail_reads: u32,
    approvals: Vec<String>,
    rejections: Vec<(String, String)>,
    /// Every SendBonus received, and the bonuses paid.
    bonus_calls: u32,
    paid: Vec<Paid>,
    tokens: BTreeSet<String>,
    /// ListBonusPayments received.
    bonus_reads: u32,
    /// Refuse the next SendBonus for this worker with this message (the balance is short).
    refuse_bonus_of: Option<(String, String)>,
    /// Pay the next bonus, then hold the answer past the client's timeout.
    lose_next_bonus_answer: bool,
    /// Hold every SendBonus answer this long (so that concurrent pays overlap).
    hold_bonus: Duration,
}

type Shared = Arc<Mutex<Fake>>;

fn error(status: StatusCode, kind: &str, message: &str) -> Response {
    (
        status,
        [("content-type", "application/x-amz-json-1.1")],
        json!({"__type": kind, "Message": message}).to_string(),
    )
        .into_response()
}

fn answer(body: Value) -> Response {
    (
        StatusCode::OK,
        [("content-type", "application/x-amz-json-1.1")],
        body.to_string(),
    )
        .into_response()
}

fn paid_json(p: &Paid) -> Value {
    json!({"WorkerId": p.worker, "BonusAmount": p.amount, "AssignmentId": p.assignment,
           "Reason": p.reason, "GrantTime": 1_795_000_000.0})
}

async fn mturk(State(s): State<Shared>, h: HeaderMap, body: Bytes) -> Response {
    let op = h
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .and_then(|t| t.strip_prefix("MTurkRequesterServiceV20170117."))
        .unwrap_or("")
        .to_owned();
    let signed = h
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| {
            a.starts_with("AWS4-HMAC-SHA256") && a.contains(&format!("Credential={KEY}/"))
        });
    if !signed {
        return error(
            StatusCode::BAD_REQUEST,
            "UnrecognizedClientException",
            "The security token included in the request is invalid.",
        );
    }
    let b: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (hold, refusal) = {
        let mut f = s.lock().unwrap();
        let reads = [
            "GetAccountBalance",
            "GetHIT",
            "ListAssignmentsForHIT",
            "ListBonusPayments",
        ];
        if reads.contains(&op.as_str()) && f.fail_reads > 0 {
            f.fail_reads -= 1;
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "ServiceFault",
                "Try again.",
            );
        }
        match op.as_str() {
            "GetAccountBalance" => return answer(json!({"AvailableBalance": "10000.00"})),
            "GetHIT" => {
                if b["HITId"] != HIT {
                    return error(
                        StatusCode::BAD_REQUEST,
                        "RequestError",
                        "Hit does not exist.",
                    );
                }
                return answer(
                    json!({"HIT": {"HITId": HIT, "Title": "Judge sentence pairs",
                    "HITStatus": "Assignable", "MaxAssignments": 9,
                    "NumberOfAssignmentsCompleted": 2}}),
                );
            }
            "ListAssignmentsForHIT" => {
                // Pages of at most 2, whatever was asked: the client must follow NextToken.
                let hit = b["HITId"].as_str().unwrap_or("").to_owned();
                let start: usize = b["NextToken"]
                    .as_str()
                    .and_then(|t| t.strip_prefix("page-"))
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                let all: Vec<Value> = f
                    .assignments
                    .iter()
                    .filter(|(_, a)| a.hit == hit)
                    .map(|(id, a)| {
                        json!({"AssignmentId": id, "WorkerId": a.worker,
                        "HITId": a.hit, "AssignmentStatus": a.status})
                    })
                    .collect();
                let page: Vec<Value> = all.iter().skip(start).take(2).cloned().collect();
                let mut out = json!({"NumResults": page.len(), "Assignments": page});
                if start + 2 < all.len() {
                    out["NextToken"] = json!(format!("page-{}", start + 2));
                }
                return answer(out);
            }
            "ApproveAssignment" | "RejectAssignment" => {
                let id = b["AssignmentId"].as_str().unwrap_or("").to_owned();
                let Some(a) = f.assignments.get_mut(&id) else {
                    return error(
                        StatusCode::BAD_REQUEST,
                        "RequestError",
                        "Assignment does not exist.",
                    );
                };
                if a.status != "Submitted" {
                    return error(
                        StatusCode::BAD_REQUEST,
                        "RequestError",
                        "This operation can be called with a status of: Submitted",
                    );
                }
                if op == "ApproveAssignment" {
                    a.status = "Approved".into();
                    f.approvals.push(id);
                } else {
                    let Some(feedback) = b["RequesterFeedback"].as_str() else {
                        return error(
                            StatusCode::BAD_REQUEST,
                            "RequestError",
                            "Feedback is required.",
                        );
                    };
                    a.status = "Rejected".into();
                    let feedback = feedback.to_owned();
                    f.rejections.push((id, feedback));
                }
                return answer(json!({}));
            }
            "ListBonusPayments" => {
                f.bonus_reads += 1;
                let id = b["AssignmentId"].as_str().unwrap_or("");
                let list: Vec<Value> = f
                    .paid
                    .iter()
                    .filter(|p| p.assignment == id)
                    .map(paid_json)
                    .collect();
                return answer(json!({"NumResults": list.len(), "BonusPayments": list}));
            }
            "SendBonus" => {
                f.bonus_calls += 1;
                let refuse = f
                    .refuse_bonus_of
                    .take_if(|(w, _)| b["WorkerId"].as_str() == Some(w.as_str()));
                if let Some((_, m)) = refuse {
                    (f.hold_bonus, Some(m))
                } else {
                    let token = b["UniqueRequestToken"].as_str().unwrap_or("").to_owned();
                    let assignment = b["AssignmentId"].as_str().unwrap_or("").to_owned();
                    let worker = b["WorkerId"].as_str().unwrap_or("").to_owned();
                    if f.assignments.get(&assignment).map(|a| a.worker.as_str())
                        != Some(worker.as_str())
                    {
                        return error(
                            StatusCode::BAD_REQUEST,
                            "RequestError",
                            "Assignment not found for this worker.",
                        );
                    }
                    if !token.is_empty() && !f.tokens.insert(token.clone()) {
                        return error(
                            StatusCode::BAD_REQUEST,
                            "RequestError",
                            &format!("The request token {token} has already been used."),
                        );
                    }
                    let reason = b["Reason"].as_str().unwrap_or("").to_owned();
                    let amount = b["BonusAmount"].as_str().unwrap_or("").to_owned();
                    f.paid.push(Paid {
                        worker,
                        assignment,
                        amount,
                        reason,
                    });
                    if std::mem::take(&mut f.lose_next_bonus_answer) {
                        (Duration::from_secs(5), None)
                    } else {
                        (f.hold_bonus, None)
                    }
                }
            }
            _ => return error(StatusCode::BAD_REQUEST, "UnknownOperationException", &op),
        }
    };
    tokio::time::sleep(hold).await;
    match refusal {
        Some(m) => error(StatusCode::BAD_REQUEST, "RequestError", &m),
        None => answer(json!({})),
    }
}

async fn start_fake(fake: Shared) -> String {
    let router = Router::new().route("/", post(mturk)).with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}")
}

async fn app_with_mturk(pool: PgPool, endpoint: &str, key: &str) -> TestApp {
    let config = server::config::Config {
        mturk: app::mturk::Settings {
            endpoint: Some(endpoint.to_owned()),
            timeout: Duration::from_millis(1500),
            fixed_credentials: Some((key.to_owned(), "fake-secret".to_owned())),
        },
        ..server::config::Config::for_tests(String::new())
    };
    crate::helpers::spawn_app_with_config(pool, config).await
}

fn mturk_query(worker: &str, assignment: &str) -> String {
    format!("workerId={worker}&assignmentId={assignment}&hitId={HIT}&turkSubmitTo={SANDBOX}")
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

fn submitted(fake: &Shared, id: &str, worker: &str, status: &str) {
    fake.lock().unwrap().assignments.insert(
        id.into(),
        Assignment {
            worker: worker.into(),
            hit: HIT.into(),
            status: status.into(),
        },
    );
}

#[sqlx::test(migrations = "../migrations")]
async fn mturk_assignments_are_reconciled_approved_once_and_rejected_with_feedback(pool: PgPool) {
    let fake: Shared = Arc::default();
    let base = start_fake(fake.clone()).await;
    let app = app_with_mturk(pool.clone(), &base, KEY).await;
    let (admin, _) = app.user_with_role("admin").await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let id = judging(&app, &admin).await;
    terms(&app, &admin, &id, "2", "", "", "").await;
    let slug = link(&app, &admin, &id, "mturk").await;
    for (worker, assignment, finish) in [
        ("A1DONE", "ASG-DONE", true),
        ("A2CODEONLY", "ASG-CODEONLY", false),
        ("A3LATE", "ASG-LATE", true),
    ] {
        let w = arrive(&app, &slug, &mturk_query(worker, assignment)).await;
        judge_n(&app, &w, &id, if finish { 2 } else { 1 }, true).await;
        if finish {
            complete(&app, &w, &id).await;
        }
    }
    // MTurk lists submitted, approved and rejected assignments only: late has not submitted.
    submitted(&fake, "ASG-DONE", "A1DONE", "Submitted");
    submitted(&fake, "ASG-CODEONLY", "A2CODEONLY", "Submitted");
    submitted(&fake, "ASG-STRANGER", "A4STRANGER", "Submitted");
    submitted(&fake, "ASG-OLD", "A5OLD", "Approved");

    // The section names the link, the HIT its workers carried and that they came from the
    // sandbox; nothing is connected, so nothing can be read.
    let view = ok_json(
        app.call(&researcher, "research/mturk", &[("campaign_id", &id)])
            .await,
    )
    .await;
    let link_id = view["links"][0]["study_link_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(view["links"][0]["hit_ids"], json!([]));
    assert_eq!(view["links"][0]["seen_hit_ids"], json!([HIT]));
    assert_eq!(view["links"][0]["seen_sandbox"], true);
    let form = [
        ("campaign_id", id.as_str()),
        ("study_link_id", link_id.as_str()),
    ];
    let r = app
        .call(&researcher, "research/mturk_reconcile", &form)
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(r.text().await.unwrap().contains("Connect this link"));

    // A malformed HIT id is refused; the right one is kept, in the sandbox, and tested.
    let connect = |hits: &'static str| {
        vec![
            ("campaign_id", id.clone()),
            ("study_link_id", link_id.clone()),
            ("hit_ids", hits.to_owned()),
            ("sandbox", "true".to_owned()),
        ]
    };
    let bad = connect("3HIT; drop");
    let bad: Vec<(&str, &str)> = bad.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = app.call(&researcher, "research/mturk_connect", &bad).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let good = connect(HIT);
    let good: Vec<(&str, &str)> = good.iter().map(|(k, v)| (*k, v.as_str())).collect();
    ok_json(app.call(&researcher, "research/mturk_connect", &good).await).await;
    let view = ok_json(
        app.call(&researcher, "research/mturk", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(view["links"][0]["hit_ids"], json!([HIT]));
    assert_eq!(view["links"][0]["sandbox"], true);
    let tested = ok_json(app.call(&researcher, "research/mturk_test", &form).await).await;
    let tested = tested.as_str().unwrap();
    assert!(
        tested.contains("sandbox") && tested.contains("10000.00"),
        "{tested}"
    );
    assert!(
        tested.contains("Judge sentence pairs") && tested.contains("Assignable"),
        "{tested}"
    );

    // The table, over two pages and through a 500 (the SDK retries a read).
    fake.lock().unwrap().fail_reads = 1;
    let table = ok_json(
        app.call(&researcher, "research/mturk_reconcile", &form)
            .await,
    )
    .await;
    let s = standings(&table);
    assert_eq!(s["A1DONE"], "Approvable");
    assert_eq!(s["A2CODEONLY"], "NotCompletedHere");
    assert_eq!(s["A3LATE"], "NoSubmission");
    assert_eq!(s["A4STRANGER"], "UnknownHere");
    assert_eq!(s["A5OLD"], "Approved");
    assert_eq!(s.len(), 5, "{table}");
    assert_eq!(table["approvable"], 1);
    assert_eq!(table["rows"][0]["standing"], "NotCompletedHere");

    // Meanwhile late submits and done is approved on the requester site by hand: the
    // approval reads the assignments again and approves late alone, once for a double click.
    submitted(&fake, "ASG-LATE", "A3LATE", "Submitted");
    fake.lock()
        .unwrap()
        .assignments
        .get_mut("ASG-DONE")
        .unwrap()
        .status = "Approved".into();
    let call = uuid::Uuid::new_v4().to_string();
    let approve = [
        ("campaign_id", id.as_str()),
        ("study_link_id", link_id.as_str()),
        ("call_id", call.as_str()),
    ];
    let (a, b) = tokio::join!(
        app.call(&researcher, "research/mturk_approve", &approve),
        app.call(&researcher, "research/mturk_approve", &approve)
    );
    let (sa, sb) = (a.status(), b.status());
    let bodies = [a.text().await.unwrap(), b.text().await.unwrap()];
    assert!(sa.is_success() || sb.is_success(), "{sa} {sb} {bodies:?}");
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("MTurk approved 1 assignment.")),
        "{bodies:?}"
    );
    let again = ok_json(
        app.call(&researcher, "research/mturk_approve", &approve)
            .await,
    )
    .await;
    assert_eq!(again["repeated"], true, "{again}");
    assert_eq!(fake.lock().unwrap().approvals, vec!["ASG-LATE".to_owned()]);

    // Rejecting the code without the work: too short a message is refused before any call;
    // a real one is sent once, even when pressed twice.
    let call = uuid::Uuid::new_v4().to_string();
    let reject = |message: &str| {
        vec![
            ("campaign_id", id.clone()),
            ("study_link_id", link_id.clone()),
            ("assignment_id", "ASG-CODEONLY".to_owned()),
            ("message", message.to_owned()),
            ("call_id", call.clone()),
        ]
    };
    let short = reject("No.");
    let short: Vec<(&str, &str)> = short.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = app.call(&researcher, "research/mturk_reject", &short).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let feedback = "You submitted the HIT without judging the pairs the study asked for.";
    let full = reject(feedback);
    let full: Vec<(&str, &str)> = full.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let done = ok_json(app.call(&researcher, "research/mturk_reject", &full).await).await;
    assert!(done.as_str().unwrap().contains("rejected"), "{done}");
    ok_json(app.call(&researcher, "research/mturk_reject", &full).await).await;
    assert_eq!(
        fake.lock().unwrap().rejections,
        vec![("ASG-CODEONLY".to_owned(), feedback.to_owned())]
    );
    // An assignment no longer submitted is not sent.
    let call2 = uuid::Uuid::new_v4().to_string();
    let r = app
        .call(
            &researcher,
            "research/mturk_reject",
            &[
                ("campaign_id", &id),
                ("study_link_id", &link_id),
                ("assignment_id", "ASG-OLD"),
                ("message", feedback),
                ("call_id", &call2),
            ],
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);

    // Both calls are listed with their outcomes, on the MTurk section only.
    let view = ok_json(
        app.call(&researcher, "research/mturk", &[("campaign_id", &id)])
            .await,
    )
    .await;
    let calls: Vec<String> = view["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} / {}",
                c["what"].as_str().unwrap(),
                c["outcome"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            "Reject assignment ASG-CODEONLY / Accepted by MTurk".to_owned(),
            "Approve 1 assignment / Accepted by MTurk".to_owned(),
        ]
    );
    let prolific = ok_json(
        app.call(&researcher, "research/prolific", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(prolific["calls"], json!([]));

    // Credentials MTurk does not know: said plainly, with where credentials come from.
    let stranger = app_with_mturk(pool.clone(), &base, "AKIDSOMEONEELSE00000").await;
    let (researcher2, _) = stranger.user_with_role("researcher").await;
    let r = stranger
        .call(&researcher2, "research/mturk_test", &form)
        .await;
    assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
    let text = r.text().await.unwrap();
    assert!(
        text.contains("refused the AWS credentials") && text.contains("AWS_ACCESS_KEY_ID"),
        "{text}"
    );
    assert!(!text.contains("fake-secret"), "{text}");
}

/// A campaign with an MTurk link connected to `HIT` in production, two completed workers
/// owed 3 cents each with submitted assignments, and the batch of them. Returns (app,
/// researcher, campaign id, link id, batch id).
async fn owed_batch(
    pool: PgPool,
    fake: &Shared,
) -> (TestApp, reqwest::Client, String, String, String) {
    let base = start_fake(fake.clone()).await;
    let app = app_with_mturk(pool, &base, KEY).await;
    let (admin, _) = app.user_with_role("admin").await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let id = judging(&app, &admin).await;
    terms(&app, &admin, &id, "2", "", "", "").await;
    let slug = link(&app, &admin, &id, "mturk").await;
    for (worker, assignment) in [("A1PAID", "ASG-1"), ("A2PAID", "ASG-2")] {
        let w = arrive(&app, &slug, &mturk_query(worker, assignment)).await;
        judge_n(&app, &w, &id, 2, true).await;
        complete(&app, &w, &id).await;
        submitted(fake, assignment, worker, "Approved");
    }
    let (link_id, batch, made) =
        connect_and_batch(&app, &researcher, &id, "mturk", ("hit_ids", HIT)).await;
    assert_eq!(made["total_cents"], 6, "{made}");
    (app, researcher, id, link_id, batch)
}

async fn batch_of(app: &TestApp, c: &reqwest::Client, id: &str) -> Value {
    let view = ok_json(app.call(c, "research/mturk", &[("campaign_id", id)]).await).await;
    view["batches"][0].clone()
}

/// Each worker's bonuses paid by the fake, by worker.
fn paid_by_worker(fake: &Shared) -> BTreeMap<String, usize> {
    let mut n = BTreeMap::new();
    for p in &fake.lock().unwrap().paid {
        *n.entry(p.worker.clone()).or_default() += 1;
    }
    n
}

#[sqlx::test(migrations = "../migrations")]
async fn mturk_bonuses_are_sent_once_through_a_refusal_and_a_double_click(pool: PgPool) {
    let fake: Shared = Arc::default();
    let (app, researcher, id, link_id, batch) = owed_batch(pool.clone(), &fake).await;
    let pay = [
        ("campaign_id", id.as_str()),
        ("batch_id", batch.as_str()),
        ("study_link_id", link_id.as_str()),
    ];

    // In the sandbox nothing paid is real: no bonus is sent from a sandbox connection.
    let connect = |sandbox: &'static str| {
        [
            ("campaign_id", id.clone()),
            ("study_link_id", link_id.clone()),
            ("hit_ids", HIT.to_owned()),
            ("sandbox", sandbox.to_owned()),
        ]
    };
    let sandbox = connect("true");
    let sandbox: Vec<(&str, &str)> = sandbox.iter().map(|(k, v)| (*k, v.as_str())).collect();
    ok_json(
        app.call(&researcher, "research/mturk_connect", &sandbox)
            .await,
    )
    .await;
    let r = app.call(&researcher, "research/mturk_pay", &pay).await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(r.text().await.unwrap().contains("sandbox"));
    assert_eq!(fake.lock().unwrap().bonus_calls, 0);
    let production = connect("false");
    let production: Vec<(&str, &str)> = production.iter().map(|(k, v)| (*k, v.as_str())).collect();
    ok_json(
        app.call(&researcher, "research/mturk_connect", &production)
            .await,
    )
    .await;

    // A1PAID's bonus is refused (the balance is short): nothing is paid for it; A2PAID's is.
    // Two presses at once, each answer held 300 ms: every worker's bonus is sent by one.
    {
        let mut f = fake.lock().unwrap();
        f.refuse_bonus_of = Some((
            "A1PAID".into(),
            "Your account balance is insufficient.".into(),
        ));
        f.hold_bonus = Duration::from_millis(300);
    }
    let (a, b) = tokio::join!(
        app.call(&researcher, "research/mturk_pay", &pay),
        app.call(&researcher, "research/mturk_pay", &pay)
    );
    let texts = [a.text().await.unwrap(), b.text().await.unwrap()];
    assert!(
        texts.iter().any(|t| t.contains("insufficient")),
        "{texts:?}"
    );
    assert_eq!(fake.lock().unwrap().bonus_calls, 2, "{texts:?}");
    assert_eq!(
        paid_by_worker(&fake),
        BTreeMap::from([("A2PAID".to_owned(), 1)])
    );
    let b = batch_of(&app, &researcher, &id).await;
    assert_eq!(
        (
            b["sent"].as_i64(),
            b["refused"].as_i64(),
            b["paid"].as_bool()
        ),
        (Some(1), Some(1), Some(false)),
        "{b}"
    );
    assert!(
        b["detail"].as_str().unwrap().contains("insufficient"),
        "{b}"
    );
    // A batch with a bonus sent cannot be discarded (its amounts would be owed again).
    let r = app
        .call(
            &researcher,
            "research/discard_payment_batch",
            &[("campaign_id", &id), ("batch_id", &batch)],
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);

    // Pressed again: the refused one is looked for first (not there), then sent with its token;
    // the one already sent is not called again. Every worker paid once; the batch marked paid.
    let reads_before = fake.lock().unwrap().bonus_reads;
    let text = ok_json(app.call(&researcher, "research/mturk_pay", &pay).await).await;
    assert!(text.as_str().unwrap().contains("marked paid"), "{text}");
    assert_eq!(fake.lock().unwrap().bonus_reads, reads_before + 1);
    assert_eq!(fake.lock().unwrap().bonus_calls, 3);
    assert_eq!(
        paid_by_worker(&fake),
        BTreeMap::from([("A1PAID".to_owned(), 1), ("A2PAID".to_owned(), 1)])
    );
    let b = batch_of(&app, &researcher, &id).await;
    assert_eq!(
        (
            b["sent"].as_i64(),
            b["sent_cents"].as_i64(),
            b["paid"].as_bool()
        ),
        (Some(2), Some(6), Some(true)),
        "{b}"
    );
    for p in &fake.lock().unwrap().paid {
        assert_eq!(p.amount, "0.03");
        assert!(
            p.reason.starts_with("Bonus for your work on"),
            "{}",
            p.reason
        );
    }
    // Paid: a further press sends nothing.
    let r = app.call(&researcher, "research/mturk_pay", &pay).await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert_eq!(fake.lock().unwrap().bonus_calls, 3);
}

#[sqlx::test(migrations = "../migrations")]
async fn a_bonus_whose_answer_was_lost_is_looked_for_on_mturk_and_never_sent_twice(pool: PgPool) {
    let fake: Shared = Arc::default();
    let (app, researcher, id, link_id, batch) = owed_batch(pool.clone(), &fake).await;
    let pay = [
        ("campaign_id", id.as_str()),
        ("batch_id", batch.as_str()),
        ("study_link_id", link_id.as_str()),
    ];

    // A2PAID's bonus was sent from the batch's mturk.csv already (the same worker, amount and
    // reason): it is found on MTurk and not sent again.
    let title: String = sqlx::query_scalar("select title from campaign")
        .fetch_one(&pool)
        .await
        .unwrap();
    let reason = format!(
        "Bonus for your work on \"{title}\". Thank you! (batch {})",
        &batch.replace('-', "")[..12]
    );
    fake.lock().unwrap().paid.push(Paid {
        worker: "A2PAID".into(),
        assignment: "ASG-2".into(),
        amount: "0.03".into(),
        reason,
    });
    // A1PAID's is paid, and its answer lost: it stays unsure.
    fake.lock().unwrap().lose_next_bonus_answer = true;
    let text = ok_json(app.call(&researcher, "research/mturk_pay", &pay).await).await;
    assert!(text.as_str().unwrap().contains("no answer"), "{text}");
    assert_eq!(fake.lock().unwrap().bonus_calls, 1, "{text}");
    assert_eq!(paid_by_worker(&fake).values().sum::<usize>(), 2);
    let b = batch_of(&app, &researcher, &id).await;
    assert_eq!(
        (
            b["sent"].as_i64(),
            b["unsure"].as_i64(),
            b["paid"].as_bool()
        ),
        (Some(1), Some(1), Some(false)),
        "{b}"
    );
    // It cannot be marked paid (or discarded) by hand while unsure.
    let r = app
        .call(
            &researcher,
            "research/mark_batch_paid",
            &[("campaign_id", &id), ("batch_id", &batch)],
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let r = app
        .call(
            &researcher,
            "research/discard_payment_batch",
            &[("campaign_id", &id), ("batch_id", &batch)],
        )
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);

    // Another server is sending it right now (taken a moment ago): a press leaves it alone.
    sqlx::query("update mturk_bonus set state = 'sending', last_sent_at = clock_timestamp() where state = 'unknown'")
        .execute(&pool)
        .await
        .unwrap();
    let calls_before = fake.lock().unwrap().bonus_calls;
    let text = ok_json(app.call(&researcher, "research/mturk_pay", &pay).await).await;
    assert!(
        text.as_str().unwrap().contains("another tab or server"),
        "{text}"
    );
    assert_eq!(fake.lock().unwrap().bonus_calls, calls_before);

    // That server stopped 16 minutes ago: the bonus is looked for on MTurk, found, and marked
    // sent without a second SendBonus; the batch is then paid.
    sqlx::query("update mturk_bonus set last_sent_at = now() - interval '16 minutes' where state = 'sending'")
        .execute(&pool)
        .await
        .unwrap();
    let reads_before = fake.lock().unwrap().bonus_reads;
    let text = ok_json(app.call(&researcher, "research/mturk_pay", &pay).await).await;
    assert!(text.as_str().unwrap().contains("marked paid"), "{text}");
    assert_eq!(fake.lock().unwrap().bonus_reads, reads_before + 1);
    assert_eq!(fake.lock().unwrap().bonus_calls, calls_before);
    assert_eq!(
        paid_by_worker(&fake),
        BTreeMap::from([("A1PAID".to_owned(), 1), ("A2PAID".to_owned(), 1)])
    );
    let b = batch_of(&app, &researcher, &id).await;
    assert_eq!(
        (
            b["sent"].as_i64(),
            b["unsure"].as_i64(),
            b["paid"].as_bool()
        ),
        (Some(2), Some(0), Some(true)),
        "{b}"
    );

    // The database holds one token per worker's bonus.
    let tokens: i64 = sqlx::query_scalar("select count(distinct request_token) from mturk_bonus")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(tokens, 2);
}
