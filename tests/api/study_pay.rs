//! Completing a study and paying its workers: the completion rule (the items asked
//! for, the gate, the end of the items), written once however many tabs ask, each platform's
//! way back (Prolific's redirect, MTurk's externalSubmit form, a code); the payments page's
//! time worked, bonus, hourly rate and top-up on fixed timestamps; bonus batches made once per
//! batch id and paid once under concurrent requests, and the platforms' files.
use reqwest::{Client, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{client, error_of, spawn_app, TestApp};
use crate::judge::{answer, next, work};
use crate::studies::{count, json, judging};

/// Saves the study information with a completion rule, pay terms and a consent text ("" for
/// none; each new text is a new version to agree to).
pub(crate) async fn terms(
    app: &TestApp,
    admin: &Client,
    id: &str,
    complete_after: &str,
    code: &str,
    min_hourly: &str,
    consent: &str,
) {
    json(
        app.call(
            admin,
            "admin/save_study_info",
            &[
                ("campaign_id", id),
                ("summary", "Judge pairs of sentences."),
                ("minutes", "10"),
                ("pay", "$1.00 and $0.015 a pair"),
                ("consent_text", consent),
                ("completion_code", code),
                ("complete_after", complete_after),
                ("base_pay", "1.00"),
                ("judgment_pay", "0.015"),
                ("min_hourly", min_hourly),
            ],
        )
        .await,
    )
    .await;
}

/// Makes the batch the payments page `page` offers next, with no top-up; its JSON.
async fn bonus_batch(
    app: &TestApp,
    researcher: &Client,
    id: &str,
    page: &serde_json::Value,
) -> serde_json::Value {
    json(
        app.call(
            researcher,
            "research/make_payment_batch",
            &[
                ("campaign_id", id),
                ("batch_id", page["next_batch_id"].as_str().unwrap()),
                ("top_up", "false"),
            ],
        )
        .await,
    )
    .await
}

/// Connects the campaign `id`'s only link on `platform` (`mturk` or `prolific`) with `connection`
/// (the connect call's own field, e.g. `("study_id", ...)`), then makes the batch the payments
/// page offers next, with no top-up. Returns (link id, batch id, the batch's JSON).
pub(crate) async fn connect_and_batch(
    app: &TestApp,
    researcher: &Client,
    id: &str,
    platform: &str,
    connection: (&str, &str),
) -> (String, String, serde_json::Value) {
    let view = crate::studies::json(
        app.call(
            researcher,
            &format!("research/{platform}"),
            &[("campaign_id", id)],
        )
        .await,
    )
    .await;
    let link_id = view["links"][0]["study_link_id"]
        .as_str()
        .unwrap()
        .to_owned();
    crate::studies::json(
        app.call(
            researcher,
            &format!("research/{platform}_connect"),
            &[("campaign_id", id), ("study_link_id", &link_id), connection],
        )
        .await,
    )
    .await;
    let page = crate::studies::json(
        app.call(researcher, "research/payments", &[("campaign_id", id)])
            .await,
    )
    .await;
    let batch = page["next_batch_id"].as_str().unwrap().to_owned();
    let made = crate::studies::json(
        app.call(
            researcher,
            "research/make_payment_batch",
            &[
                ("campaign_id", id),
                ("batch_id", &batch),
                ("top_up", "false"),
            ],
        )
        .await,
    )
    .await;
    (link_id, batch, made)
}

/// Creates a link with no limit and returns its slug.
pub(crate) async fn link(app: &TestApp, admin: &Client, id: &str, platform: &str) -> String {
    crate::studies::link(app, admin, id, platform, "", "").await
}

pub(crate) async fn arrive(app: &TestApp, slug: &str, query: &str) -> Client {
    let c = client();
    let entry = json(
        app.call(&c, "study/open", &[("slug", slug), ("query", query)])
            .await,
    )
    .await;
    assert!(entry.get("Worker").is_some(), "{entry}");
    c
}

/// Answers `n` pairs (`p` for each), each asked for with `judge/next`.
pub(crate) async fn judge_n(app: &TestApp, c: &Client, id: &str, n: usize, p: bool) {
    for _ in 0..n {
        let task = next(app, c, id).await;
        let a = task["Judge"]["assignment_id"]
            .as_str()
            .expect("a pair")
            .to_owned();
        let resp = answer(app, c, id, &a, p).await;
        assert!(resp.status().is_success(), "{}", resp.status());
    }
}

pub(crate) async fn complete(app: &TestApp, c: &Client, id: &str) -> Value {
    json(app.call(c, "study/complete", &[("campaign_id", id)]).await).await
}

const PROLIFIC: &str = "PROLIFIC_PID=5f3a9c0d1e2b4a0012345678&STUDY_ID=st1&SESSION_ID=se1";
const MTURK: &str = "workerId=A1TURKWORKER&assignmentId=3ASSIGNXYZ&hitId=3HITABC&turkSubmitTo=https%3A%2F%2Fwww.mturk.com";

#[sqlx::test(migrations = "../migrations")]
async fn the_items_asked_for_complete_a_study_once_and_send_the_worker_back_to_prolific(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    // An open campaign is listed for visitors only once its study information is written.
    let open = json(app.call(&client(), "open_studies", &[]).await).await;
    assert_eq!(open, serde_json::json!([]));
    terms(&app, &admin, &id, "6", "C1234ABC", "", "").await;
    let slug = link(&app, &admin, &id, "prolific").await;
    // A visitor reads what the open study involves, and nothing else about it.
    let open = json(app.call(&client(), "open_studies", &[]).await).await;
    assert_eq!(
        open,
        serde_json::json!([{
            "kind": "judge",
            "title": title(&pool).await,
            "summary": "Judge pairs of sentences.",
            "minutes": 10,
            "pay": "$1.00 and $0.015 a pair"
        }])
    );
    let worker = arrive(&app, &slug, PROLIFIC).await;

    // What the task page shows around the items.
    let progress = json(
        app.call(&worker, "study/progress", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(progress["complete_after"], 6);
    assert_eq!(progress["pay_per_item"], "$0.015 a pair");
    assert_eq!(progress["minutes"], 10);
    assert_eq!(progress["done_href"], format!("/study/{id}/done"));

    // Not done yet: told what is left, nothing recorded.
    let early = complete(&app, &worker, &id).await;
    let message = early["NotYet"]["message"].as_str().unwrap();
    assert!(message.contains("0 of the 6"), "{message}");
    assert_eq!(early["NotYet"]["task_href"], format!("/judge/{id}"));
    // A second device, signed in before the end.
    let early = arrive(&app, &slug, PROLIFIC).await;
    judge_n(&app, &worker, &id, 5, true).await;
    let five = complete(&app, &worker, &id).await;
    assert!(five["NotYet"]["message"]
        .as_str()
        .unwrap()
        .contains("5 of the 6"));
    assert_eq!(
        count(&pool, "select count(*) from study_completion").await,
        0
    );
    judge_n(&app, &worker, &id, 1, false).await;
    // Six made: no seventh pair, from either device, even before they finish.
    for c in [&worker, &early] {
        let more = app.call(c, "judge/next", &[("campaign_id", &id)]).await;
        assert_eq!(more.status(), StatusCode::CONFLICT);
        assert!(error_of(more).await.to_string().contains("completion page"));
    }

    // Eight tabs finish at once: one completion, the same code and way back for all.
    let tabs = (0..8).map(|_| complete(&app, &worker, &id));
    let mut views = futures::future::join_all(tabs).await;
    let firsts = views
        .iter_mut()
        .map(|v| v["Done"]["first"].take())
        .filter(|first| first == true)
        .count();
    assert_eq!(
        firsts, 1,
        "one request completed it; the others read it back"
    );
    for v in &views {
        assert_eq!(v, &views[0]);
    }
    let done = &views[0]["Done"];
    assert_eq!(done["items"], 6);
    assert_eq!(done["code"], "C1234ABC");
    assert_eq!(
        done["return_to"]["Prolific"]["url"],
        "https://app.prolific.com/submissions/complete?cc=C1234ABC"
    );
    assert!(done["earned"].as_str().unwrap().contains("$0.09"), "{done}");
    assert_eq!(
        count(&pool, "select count(*) from study_completion").await,
        1
    );

    // No more items for them, and the link opened again shows the completion.
    for c in [&worker, &early] {
        let more = app.call(c, "judge/next", &[("campaign_id", &id)]).await;
        assert_eq!(more.status(), StatusCode::CONFLICT);
        assert!(error_of(more).await.to_string().contains("completed"));
    }
    let again = client();
    let entry = json(
        app.call(
            &again,
            "study/open",
            &[("slug", &slug), ("query", PROLIFIC)],
        )
        .await,
    )
    .await;
    assert_eq!(entry["Worker"]["completed"], true);
    assert_eq!(entry["Worker"]["task_href"], format!("/study/{id}/done"));
    let refused = app
        .call(&again, "judge/next", &[("campaign_id", &id)])
        .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let mut later = complete(&app, &again, &id).await;
    assert_eq!(later["Done"]["first"].take(), false);
    assert_eq!(later, views[0]);

    // Only workers who came through a link have a completion page.
    let (annotator, _) = app.annotator().await;
    assert_eq!(complete(&app, &annotator, &id).await, "NoLink");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_stopped_worker_completes_and_mturk_and_plain_links_get_their_way_back(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    // No number of items and no code: the gate or the end of the items completes.
    terms(&app, &admin, &id, "", "", "", "").await;
    let turk = link(&app, &admin, &id, "mturk").await;
    let plain = link(&app, &admin, &id, "generic").await;

    let turker = arrive(&app, &turk, MTURK).await;
    work(&app, &turker, &id, 2, |_| true).await;
    assert!(complete(&app, &turker, &id).await.get("NotYet").is_some());
    // The gate stops them (its rule is tested in judge.rs): they complete, to be paid.
    sqlx::query("update judge_worker set status = 'stopped'")
        .execute(&pool)
        .await
        .unwrap();
    let done = complete(&app, &turker, &id).await;
    let done = &done["Done"];
    assert!(done["reason"].as_str().unwrap().contains("quality check"));
    // The researcher tells them from a finisher: stopped, on the payments page.
    let (researcher, _) = app.user_with_role("researcher").await;
    let v = payments(&app, &researcher, &id).await;
    let stopped = v["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["platform"] == "mturk")
        .unwrap()
        .clone();
    assert_eq!(stopped["completion"], "Stopped", "{stopped}");
    assert_eq!(
        done["return_to"]["Mturk"],
        serde_json::json!({
            "submit_url": "https://www.mturk.com/mturk/externalSubmit",
            "assignment_id": "3ASSIGNXYZ"
        })
    );

    // A plain link when no pair is left for the worker: a code of their own, on screen.
    let person = arrive(&app, &plain, "pid=person-1").await;
    assert!(complete(&app, &person, &id).await.get("NotYet").is_some());
    let (judged, last) = work(&app, &person, &id, 100, |_| true).await;
    assert_eq!(judged.len(), 20, "every pair once");
    assert!(last.get("NothingLeft").is_some(), "{last}");
    let done = complete(&app, &person, &id).await;
    let done = &done["Done"];
    assert_eq!(done["return_to"], "Code");
    assert!(done["reason"].as_str().unwrap().contains("no more items"));
    let code = done["code"].as_str().unwrap();
    assert_eq!(code.len(), 10);
    assert!(code.chars().all(|c| c.is_ascii_alphanumeric()), "{code}");
    app.stop().await;
}

/// Places a worker's arrival, judgments and completion at fixed seconds from now - 1 hour.
async fn timeline(pool: &PgPool, external_id: &str, judged_at: &[i32], completed_at: Option<i32>) {
    let user: uuid::Uuid =
        sqlx::query_scalar("select app_user_id from platform_account where external_id = $1")
            .bind(external_id)
            .fetch_one(pool)
            .await
            .unwrap();
    let t0 = "now() - interval '1 hour'";
    sqlx::query(&format!(
        "update study_arrival set arrived_at = {t0} where app_user_id = $1"
    ))
    .bind(user)
    .execute(pool)
    .await
    .unwrap();
    let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
        "select judgment_id from judge_judgment where app_user_id = $1 order by created_at, judgment_id",
    )
    .bind(user)
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(ids.len(), judged_at.len(), "{external_id}");
    for (j, s) in ids.iter().zip(judged_at) {
        sqlx::query(&format!(
            "update judge_judgment set created_at = {t0} + make_interval(secs => $2) where judgment_id = $1"
        ))
        .bind(j)
        .bind(f64::from(*s))
        .execute(pool)
        .await
        .unwrap();
    }
    if let Some(s) = completed_at {
        sqlx::query(&format!(
            "update study_completion set completed_at = {t0} + make_interval(secs => $2) where app_user_id = $1"
        ))
        .bind(user)
        .bind(f64::from(s))
        .execute(pool)
        .await
        .unwrap();
    }
}

async fn payments(app: &TestApp, c: &Client, id: &str) -> Value {
    json(
        app.call(c, "research/payments", &[("campaign_id", id)])
            .await,
    )
    .await
}

async fn file(app: &TestApp, c: &Client, batch: &str, name: &str) -> (StatusCode, String) {
    let resp = app.get(c, &format!("/payments/{batch}/{name}")).await;
    (resp.status(), resp.text().await.unwrap())
}

#[sqlx::test(migrations = "../migrations")]
async fn payments_owe_bonus_and_top_up_and_a_batch_is_made_and_paid_once(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let id = judging(&app, &admin).await;
    // $1.00 base, $0.015 a judgment, at least $15.00 an hour, done after 6 judgments.
    terms(&app, &admin, &id, "6", "C1234ABC", "15.00", "").await;
    let prolific = link(&app, &admin, &id, "prolific").await;
    let turk = link(&app, &admin, &id, "mturk").await;

    let a = arrive(&app, &prolific, PROLIFIC).await;
    judge_n(&app, &a, &id, 6, true).await;
    assert!(complete(&app, &a, &id).await.get("Done").is_some());
    let b = arrive(&app, &turk, MTURK).await;
    judge_n(&app, &b, &id, 3, false).await;
    // A: judgments 60 s apart from the arrival, done at 400 s. B: a 40-minute pause (counted as
    // ten minutes) between two judgments, not complete.
    timeline(
        &pool,
        "5f3a9c0d1e2b4a0012345678",
        &[60, 120, 180, 240, 300, 360],
        Some(400),
    )
    .await;
    timeline(&pool, "A1TURKWORKER", &[30, 60, 2460], None).await;

    let v = payments(&app, &researcher, &id).await;
    let rows = v["workers"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let row = |ext: &str| {
        rows.iter()
            .find(|r| r["external_id"] == ext)
            .unwrap()
            .clone()
    };
    let pa = row("5f3a9c0d1e2b4a0012345678");
    assert_eq!(pa["items"], 6);
    assert!(
        (pa["minutes_worked"].as_f64().unwrap() - 400.0 / 60.0).abs() < 0.02,
        "{pa}"
    );
    assert_eq!(pa["completed"], true);
    assert_eq!(pa["completion"], "Items", "done after the study's 6 items");
    assert_eq!(pa["base_cents"], 100);
    assert_eq!(pa["bonus_cents"], 9); // 6 × $0.015
                                      // $1.09 in 400 s is $9.81 an hour; $15.00 an hour is ceil(166.7) = 167 cents: 58 to add.
    assert!(
        (pa["hourly_cents"].as_f64().unwrap() - 981.0).abs() < 0.5,
        "{pa}"
    );
    assert_eq!(pa["under_minimum"], true);
    assert_eq!(pa["top_up_cents"], 58);
    let pb = row("A1TURKWORKER");
    assert_eq!(pb["bonus_cents"], 5); // 3 × $0.015 = 4.5 cents, half up
    assert_eq!(pb["completed"], false);
    assert_eq!(pb["completion"], serde_json::Value::Null);
    assert_eq!(
        pb["top_up_cents"], 0,
        "no top-up while their time still runs"
    );
    assert!(
        (pb["minutes_worked"].as_f64().unwrap() - 660.0 / 60.0).abs() < 0.02,
        "{pb}"
    );
    assert_eq!(v["outstanding_cents"], 14);
    assert_eq!(v["outstanding_with_top_up_cents"], 72);
    assert!((v["median_minutes"].as_f64().unwrap() - 400.0 / 60.0).abs() < 0.02);

    // Two researchers press at once, with eight pages' ids: one batch, nothing in two.
    let make = |batch: String| {
        let (app, researcher, id) = (&app, &researcher, id.clone());
        async move {
            app.call(
                researcher,
                "research/make_payment_batch",
                &[
                    ("campaign_id", &id),
                    ("batch_id", &batch),
                    ("top_up", "true"),
                ],
            )
            .await
        }
    };
    let ids: Vec<String> = (0..8).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    let made = futures::future::join_all(ids.iter().map(|b| make(b.clone()))).await;
    let mut winner = None;
    for (r, b) in made.into_iter().zip(&ids) {
        if r.status().is_success() {
            assert!(winner.is_none(), "a second batch was made");
            winner = Some((b.clone(), json(r).await));
        } else {
            assert_eq!(r.status(), StatusCode::CONFLICT);
        }
    }
    let (batch_id, first) = winner.expect("one batch");
    assert_eq!(first["total_cents"], 72);
    assert_eq!(first["workers"], 2);
    assert_eq!(
        count(&pool, "select sum(amount_cents)::int8 from payment_item").await,
        72
    );
    // A double click and a retry: the same id sent eight times returns that batch, adds nothing.
    let again = futures::future::join_all((0..8).map(|_| make(batch_id.clone()))).await;
    for r in again {
        assert_eq!(json(r).await, first);
    }
    assert_eq!(count(&pool, "select count(*) from payment_batch").await, 1);

    // The files, as the platforms take them.
    let (status, prolific_file) = file(&app, &researcher, &batch_id, "prolific.txt").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(prolific_file, "5f3a9c0d1e2b4a0012345678,0.67\n");
    let (_, mturk_file) = file(&app, &researcher, &batch_id, "mturk.csv").await;
    let token = format!("{}-A1TURKWORKER", batch_id.replace('-', ""));
    let short_batch = &batch_id.replace('-', "")[..12];
    let title = title(&pool).await;
    assert_eq!(
        mturk_file,
        format!(
            "WorkerId,AssignmentId,BonusAmount,Reason,UniqueRequestToken\n\
             A1TURKWORKER,3ASSIGNXYZ,0.05,\"Bonus for your work on \"\"{title}\"\". Thank you! (batch {short_batch})\",{token}\n"
        )
    );
    let (_, generic) = file(&app, &researcher, &batch_id, "generic.csv").await;
    assert_eq!(generic.lines().count(), 3, "{generic}");
    assert!(
        generic.contains("prolific,5f3a9c0d1e2b4a0012345678,6,6.7,0.67,all items done\n"),
        "{generic}"
    );
    let turker = generic
        .lines()
        .find(|l| l.contains(",A1TURKWORKER,"))
        .unwrap();
    assert!(
        turker.ends_with(','),
        "not complete: an empty completion column\n{generic}"
    );
    let (status, _) = file(&app, &researcher, &batch_id, "paypal.csv").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = file(&app, &researcher, "not-a-batch", "generic.csv").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Marked paid by eight requests at once: paid once, at one time.
    let form = [
        ("campaign_id", id.as_str()),
        ("batch_id", batch_id.as_str()),
    ];
    let mark = futures::future::join_all(
        (0..8).map(|_| app.call(&researcher, "research/mark_batch_paid", &form)),
    )
    .await;
    for r in mark {
        assert!(r.status().is_success());
    }
    let paid_at = || async {
        sqlx::query_scalar::<_, Option<String>>("select paid_at::text from payment_batch")
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    let first_paid = paid_at().await.expect("marked paid");
    // Marked again later: the first time stands.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    json(
        app.call(&researcher, "research/mark_batch_paid", &form)
            .await,
    )
    .await;
    assert_eq!(paid_at().await.unwrap(), first_paid);
    let v = payments(&app, &researcher, &id).await;
    assert_eq!(v["outstanding_with_top_up_cents"], 0);
    assert!(v["batches"][0]["paid_at"].is_string());
    let pa = v["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["platform"] == "prolific")
        .unwrap()
        .clone();
    assert_eq!(pa["paid_cents"], 67);
    // A paid batch cannot be discarded.
    let discard = app
        .call(
            &researcher,
            "research/discard_payment_batch",
            &[("campaign_id", &id), ("batch_id", &batch_id)],
        )
        .await;
    assert_eq!(discard.status(), StatusCode::CONFLICT);

    // More work is owed again, and only the new part goes in the next batch.
    judge_n(&app, &b, &id, 2, true).await;
    let v = payments(&app, &researcher, &id).await;
    assert_eq!(
        v["outstanding_cents"], 3,
        "5 judgments: 7.5 → 8 cents, 5 in a batch"
    );
    let next = json(make(v["next_batch_id"].as_str().unwrap().to_owned()).await).await;
    assert_eq!(next["total_cents"], 3);
    assert_eq!(next["workers"], 1);
    // Discarded, it is owed again.
    json(
        app.call(
            &researcher,
            "research/discard_payment_batch",
            &[
                ("campaign_id", &id),
                ("batch_id", next["batch_id"].as_str().unwrap()),
            ],
        )
        .await,
    )
    .await;
    assert_eq!(
        payments(&app, &researcher, &id).await["outstanding_cents"],
        3
    );

    // Annotators see none of it.
    let (annotator, _) = app.annotator().await;
    let resp = app
        .call(&annotator, "research/payments", &[("campaign_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    let (status, _) = file(&app, &annotator, &batch_id, "generic.csv").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = file(&app, &client(), &batch_id, "generic.csv").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    app.stop().await;
}

async fn title(pool: &PgPool) -> String {
    sqlx::query_scalar("select title from campaign limit 1")
        .fetch_one(pool)
        .await
        .unwrap()
}

fn header(resp: &reqwest::Response, name: &str) -> String {
    resp.headers()
        .get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

#[sqlx::test(migrations = "../migrations")]
async fn mturk_may_frame_the_study_and_task_pages_and_nothing_else(pool: PgPool) {
    // Behind HTTPS, as MTurk requires of an external question.
    let config = server::config::Config {
        secure_cookies: true,
        ..server::config::Config::for_tests(String::new())
    };
    let app = crate::helpers::spawn_app_with_config(pool.clone(), config).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    let slug = link(&app, &admin, &id, "mturk").await;

    let mturk = "https://www.mturk.com https://workersandbox.mturk.com";
    for path in [
        format!("/s/{slug}?{MTURK}"),
        format!("/judge/{id}"),
        format!("/study/{id}/done"),
    ] {
        let resp = app.get(&client(), &path).await;
        let csp = header(&resp, "content-security-policy");
        assert!(
            csp.contains(&format!("frame-ancestors {mturk}")),
            "{path}: {csp}"
        );
        assert!(
            csp.contains(&format!("form-action 'self' {mturk}")),
            "{path}: {csp}"
        );
        assert_eq!(header(&resp, "x-frame-options"), "", "{path}");
    }
    for path in ["/", "/login", &format!("/admin/campaigns/{id}")] {
        let resp = app.get(&client(), path).await;
        let csp = header(&resp, "content-security-policy");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("form-action 'self';"), "{path}: {csp}");
        assert_eq!(header(&resp, "x-frame-options"), "DENY", "{path}");
    }
    // The session cookie a worker gets inside MTurk's frame is kept there (a cross-site frame).
    let worker = client();
    let resp = app
        .call(&worker, "study/open", &[("slug", &slug), ("query", MTURK)])
        .await;
    let cookie = header(&resp, "set-cookie");
    for attribute in ["SameSite=None", "Secure", "Partitioned", "HttpOnly"] {
        assert!(cookie.contains(attribute), "{attribute}: {cookie}");
    }
    assert!(!cookie.contains("SameSite=Lax"), "{cookie}");
    // The cookie that removes theirs when they are signed out (declining the consent) has the
    // same attributes, or the browser would not apply it inside the frame.
    json(
        app.call(
            &admin,
            "admin/save_study_info",
            &[
                ("campaign_id", id.as_str()),
                ("summary", "Judge pairs of sentences."),
                ("minutes", "10"),
                ("pay", ""),
                ("consent_text", "I agree to take part."),
                ("completion_code", ""),
            ],
        )
        .await,
    )
    .await;
    let resp = app
        .call(
            &worker,
            "study/decide",
            &[("slug", &slug), ("version", "1"), ("agree", "false")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let removal = header(&resp, "set-cookie");
    assert!(
        removal.contains("Max-Age=0") && removal.contains("SameSite=None; Partitioned"),
        "{removal}"
    );
    // A password session (a researcher logging in) is not framed: its cookie stays Lax.
    let (_, name) = app.user_with_role("researcher").await;
    let resp = app.login(&client(), &name, crate::helpers::PASSWORD).await;
    let cookie = header(&resp, "set-cookie");
    assert!(
        cookie.contains("SameSite=Lax")
            && cookie.contains("Secure")
            && !cookie.contains("Partitioned"),
        "{cookie}"
    );
    // A judging call does not load the session (`api::judging_call` checks the server's copy
    // of it): its response is marked from that copy, so a study worker blocked mid-study is
    // signed out with a cookie the frame applies too.
    let turker = arrive(&app, &slug, &MTURK.replace("A1TURKWORKER", "A2TURKWORKER")).await;
    let decide = [("slug", slug.as_str()), ("version", "1"), ("agree", "true")];
    let resp = app.call(&turker, "study/decide", &decide).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let resp = app
        .call(&turker, "judge/next", &[("campaign_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    sqlx::query(
        "update app_user set status = 'blocked' where app_user_id = (select app_user_id
         from platform_account where platform = 'mturk' and external_id = 'A2TURKWORKER')",
    )
    .execute(&pool)
    .await
    .unwrap();
    let resp = app
        .call(&turker, "judge/next", &[("campaign_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    let removal = header(&resp, "set-cookie");
    assert!(
        removal.contains("Max-Age=0") && removal.contains("SameSite=None; Partitioned"),
        "{removal}"
    );
    app.stop().await;

    // Told that no site may frame it, nothing is framed and the cookie stays SameSite=Lax.
    let config = server::config::Config {
        secure_cookies: true,
        frame_ancestors: server::config::frame_ancestors(Some("none")).unwrap(),
        ..server::config::Config::for_tests(String::new())
    };
    let app = crate::helpers::spawn_app_with_config(pool, config).await;
    let resp = app.get(&client(), &format!("/s/{slug}?{MTURK}")).await;
    assert!(header(&resp, "content-security-policy").contains("frame-ancestors 'none'"));
    assert_eq!(header(&resp, "x-frame-options"), "DENY");
    let cookie = header(&resp, "set-cookie");
    assert!(
        cookie.contains("SameSite=Lax") && !cookie.contains("Partitioned"),
        "{cookie}"
    );
    assert!(server::config::frame_ancestors(Some("javascript:alert(1)")).is_err());
    assert_eq!(
        server::config::frame_ancestors(Some("https://a.example, http://localhost:8080/")).unwrap(),
        vec!["https://a.example", "http://localhost:8080"]
    );
    app.stop().await;
}

/// The completion returned on MTurk, as `study/complete` describes it.
fn mturk_return(done: &Value) -> Value {
    done["Done"]["return_to"].clone()
}

#[sqlx::test(migrations = "../migrations")]
async fn an_mturk_worker_back_with_a_new_assignment_submits_and_is_paid_on_it(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = judging(&app, &admin).await;
    terms(&app, &admin, &id, "3", "", "", "").await;
    let turk = link(&app, &admin, &id, "mturk").await;
    let with_assignment = |a: &str| MTURK.replace("3ASSIGNXYZ", a);

    let first = arrive(&app, &turk, MTURK).await;
    judge_n(&app, &first, &id, 1, true).await;
    // They return the HIT and accept it again: MTurk gives a new assignment id.
    let again = arrive(&app, &turk, &with_assignment("3ASSIGNNEW")).await;
    judge_n(&app, &again, &id, 2, true).await;
    let done = complete(&app, &again, &id).await;
    assert_eq!(done["Done"]["first"], true);
    assert_eq!(
        mturk_return(&done),
        serde_json::json!({"Mturk": {
            "submit_url": "https://www.mturk.com/mturk/externalSubmit",
            "assignment_id": "3ASSIGNNEW"
        }}),
        "the assignment they hold now, not the returned one"
    );
    assert_eq!(
        count(&pool, "select count(*) from study_arrival where detail->'Mturk'->>'assignment_id' = '3ASSIGNXYZ' and latest_detail->'Mturk'->>'assignment_id' = '3ASSIGNNEW'").await,
        1,
        "the first arrival's ids stay beside the latest"
    );

    // The bonus is sent against the assignment that was submitted.
    let (researcher, _) = app.user_with_role("researcher").await;
    let v = payments(&app, &researcher, &id).await;
    let batch = bonus_batch(&app, &researcher, &id, &v).await;
    let batch_id = batch["batch_id"].as_str().unwrap().to_owned();
    let (_, mturk_file) = file(&app, &researcher, &batch_id, "mturk.csv").await;
    assert!(
        mturk_file.contains("\nA1TURKWORKER,3ASSIGNNEW,0.05,"),
        "{mturk_file}"
    );

    // Completed, they accept the HIT of a later batch: it is not submitted (MTurk would pay
    // its reward again), they are asked to return it, and no pair is given.
    let later = arrive(&app, &turk, &with_assignment("3ASSIGNLATER")).await;
    let entry = json(
        app.call(
            &later,
            "study/open",
            &[("slug", &turk), ("query", &with_assignment("3ASSIGNLATER"))],
        )
        .await,
    )
    .await;
    assert_eq!(entry["Worker"]["completed"], true, "{entry}");
    let done = complete(&app, &later, &id).await;
    assert_eq!(done["Done"]["first"], false);
    assert_eq!(
        mturk_return(&done),
        serde_json::json!({"MturkAlreadySubmitted": {"assignment_id": "3ASSIGNNEW"}})
    );
    let refused = app
        .call(&later, "judge/next", &[("campaign_id", &id)])
        .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    // The bonus file still names the submitted assignment.
    let (_, mturk_file) = file(&app, &researcher, &batch_id, "mturk.csv").await;
    assert!(
        mturk_file.contains("A1TURKWORKER,3ASSIGNNEW,"),
        "{mturk_file}"
    );
    // Back in the HIT they finished with, the button submits that one.
    let back = arrive(&app, &turk, &with_assignment("3ASSIGNNEW")).await;
    let done = complete(&app, &back, &id).await;
    assert_eq!(mturk_return(&done)["Mturk"]["assignment_id"], "3ASSIGNNEW");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_study_closed_under_its_workers_completes_those_who_worked_and_pays_a_decliner(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let id = judging(&app, &admin).await;
    terms(&app, &admin, &id, "10", "CLOSED42", "", "").await;
    let prolific = link(&app, &admin, &id, "prolific").await;
    let as_pid = |pid: &str| PROLIFIC.replace("5f3a9c0d1e2b4a0012345678", pid);

    let worked = arrive(&app, &prolific, &as_pid("worked")).await;
    judge_n(&app, &worked, &id, 2, true).await;
    let idle = arrive(&app, &prolific, &as_pid("idle")).await;
    let decliner = arrive(&app, &prolific, &as_pid("decliner")).await;
    judge_n(&app, &decliner, &id, 1, true).await;

    // A new version asks for consent; the decliner, who already judged, declines it: they are
    // signed out, and their arrival and their work stay, to be paid.
    terms(
        &app,
        &admin,
        &id,
        "10",
        "CLOSED42",
        "",
        "I agree to take part.",
    )
    .await;
    let declined = json(
        app.call(
            &decliner,
            "study/decide",
            &[("slug", &prolific), ("version", "2"), ("agree", "false")],
        )
        .await,
    )
    .await;
    assert_eq!(declined, "Declined");
    assert!(app.whoami(&decliner).await.is_none(), "signed out");
    assert_eq!(
        count(&pool, "select count(*) from study_arrival a join platform_account p using (app_user_id) where p.external_id = 'decliner'").await,
        1
    );

    // Closed while they are short of ten: the one who worked completes, with the study's code.
    let resp = app
        .call(
            &admin,
            "admin/set_campaign_status",
            &[("campaign_id", id.as_str()), ("status", "closed")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let entry = json(
        app.call(
            &worked,
            "study/open",
            &[("slug", &prolific), ("query", &as_pid("worked"))],
        )
        .await,
    )
    .await;
    assert_eq!(
        entry["Worker"]["task_href"],
        format!("/study/{id}/done"),
        "the link sends them to finish: {entry}"
    );
    let done = complete(&app, &worked, &id).await;
    assert!(
        done["Done"]["reason"].as_str().unwrap().contains("closed"),
        "{done}"
    );
    assert_eq!(done["Done"]["code"], "CLOSED42");
    assert!(done["Done"]["return_to"]["Prolific"].is_object(), "{done}");
    assert_eq!(
        count(
            &pool,
            "select count(*) from study_completion where reason = 'closed'"
        )
        .await,
        1
    );
    // Nothing done, nothing to complete; a newcomer to a closed study gets no account.
    let not_yet = complete(&app, &idle, &id).await;
    assert!(
        not_yet["NotYet"]["message"]
            .as_str()
            .unwrap()
            .contains("closed"),
        "{not_yet}"
    );
    let accounts = count(&pool, "select count(*) from platform_account").await;
    let late = client();
    let refused = json(
        app.call(
            &late,
            "study/open",
            &[("slug", &prolific), ("query", &as_pid("late"))],
        )
        .await,
    )
    .await;
    assert_eq!(refused["Refused"]["reason"], "NotOpen", "{refused}");
    assert_eq!(
        count(&pool, "select count(*) from platform_account").await,
        accounts
    );

    // The payments page owes both who judged, the decliner too, and the file pays them.
    let v = payments(&app, &researcher, &id).await;
    let rows = v["workers"].as_array().unwrap();
    let row = |ext: &str| {
        rows.iter()
            .find(|r| r["external_id"] == ext)
            .unwrap()
            .clone()
    };
    assert_eq!(row("worked")["completed"], true);
    assert_eq!(row("worked")["bonus_cents"], 3);
    assert_eq!(row("decliner")["completed"], false);
    assert_eq!(row("decliner")["bonus_cents"], 2);
    assert_eq!(row("idle")["bonus_cents"], 0);
    let batch = bonus_batch(&app, &researcher, &id, &v).await;
    let (_, prolific_file) = file(
        &app,
        &researcher,
        batch["batch_id"].as_str().unwrap(),
        "prolific.txt",
    )
    .await;
    assert_eq!(prolific_file, "decliner,0.02\nworked,0.03\n");
    app.stop().await;
}

/// Expires `assignment`'s lease and sweeps it, as the server does once a lease has run out.
async fn run_out(pool: &PgPool, id: &str, assignment: &str) {
    sqlx::query(
        "update judge_assignment set lease_expires_at = now() - interval '1 second'
         where assignment_id = $1::uuid",
    )
    .bind(assignment)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query("select judge_expire_leases($1::uuid)")
        .bind(id)
        .execute(pool)
        .await
        .unwrap();
}

/// An open judging study of `pairs` pairs, one judgment a pair, complete after `items`, with a
/// Prolific link: the app, the campaign id and the link's slug.
async fn one_judgment_a_pair(pool: PgPool, pairs: usize, items: &str) -> (TestApp, String, String) {
    let app = spawn_app(pool).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = crate::judge::campaign(
        &app,
        &admin,
        crate::judge::Setup {
            judgments_per_pair: 1,
            ..crate::judge::Setup::pairs(&crate::judge::pairs_csv(pairs))
        },
    )
    .await;
    terms(&app, &admin, &id, items, "C1234ABC", "", "").await;
    let slug = link(&app, &admin, &id, "prolific").await;
    (app, id, slug)
}

/// The number of items a study asks for holds under answers made in parallel, and the answer
/// that makes the last one leases no further pair.
#[sqlx::test(migrations = "../migrations")]
async fn answers_in_parallel_cannot_pass_the_items_a_study_asks_for(pool: PgPool) {
    let (app, id, slug) = one_judgment_a_pair(pool.clone(), 12, "3").await;

    // One item to go, and three leases that ran out (each answer would take its slot again).
    let worker = arrive(&app, &slug, PROLIFIC).await;
    judge_n(&app, &worker, &id, 2, true).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let task = next(&app, &worker, &id).await;
        let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
        run_out(&pool, &id, &a).await;
        held.push(a);
    }
    let answers = held.iter().map(|a| answer(&app, &worker, &id, a, true));
    let statuses: Vec<StatusCode> = futures::future::join_all(answers)
        .await
        .iter()
        .map(|r| r.status())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| s.is_success()).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == StatusCode::CONFLICT)
            .count(),
        2,
        "{statuses:?}"
    );
    assert_eq!(
        count(&pool, "select count(*) from judge_judgment").await,
        3,
        "the items asked for, no more"
    );
    assert_eq!(
        count(&pool, "select judgments::int8 from judge_worker").await,
        3
    );
    assert_eq!(
        count(
            &pool,
            "select count(*) from judge_assignment where status = 'leased'"
        )
        .await,
        0,
        "no pair held for a worker who is done"
    );
    let done = complete(&app, &worker, &id).await;
    assert_eq!(done["Done"]["items"], 3, "{done}");

    // In turn: the last answer brings no pair and leaves no lease behind.
    let other = arrive(
        &app,
        &slug,
        "PROLIFIC_PID=5f3a9c0d1e2b4a0087654321&STUDY_ID=st1&SESSION_ID=se2",
    )
    .await;
    judge_n(&app, &other, &id, 2, true).await;
    let task = next(&app, &other, &id).await;
    let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
    let last = json(answer(&app, &other, &id, &a, false).await).await;
    assert!(last["next"].get("Judge").is_none(), "{last}");
    assert_eq!(
        count(
            &pool,
            "select count(*) from judge_assignment where status = 'leased'"
        )
        .await,
        0
    );
    app.stop().await;
}

/// Pairs held by other workers' leases are not "nothing left": a worker is asked to wait for
/// them, does not complete the study for that reason, and gets them when the leases run out.
#[sqlx::test(migrations = "../migrations")]
async fn pairs_others_hold_are_waited_for_not_counted_as_nothing_left(pool: PgPool) {
    let (app, id, slug) = one_judgment_a_pair(pool.clone(), 5, "5").await;
    let worker = arrive(&app, &slug, PROLIFIC).await;
    judge_n(&app, &worker, &id, 1, true).await;
    // The pair the answer brought them is left to run out (swept back: one of four left).
    let held = next(&app, &worker, &id).await;
    run_out(&pool, &id, held["Judge"]["assignment_id"].as_str().unwrap()).await;
    // Four other ids on the same link hold the four pairs left.
    let mut holders = Vec::new();
    for i in 0..4 {
        let query =
            format!("PROLIFIC_PID=5f3a9c0d1e2b4a00000000{i:02}&STUDY_ID=st1&SESSION_ID=x{i}");
        let c = arrive(&app, &slug, &query).await;
        let task = next(&app, &c, &id).await;
        holders.push(task["Judge"]["assignment_id"].as_str().unwrap().to_owned());
    }
    let task = next(&app, &worker, &id).await;
    assert_eq!(task["Waiting"]["judged"], 1, "{task}");
    let early = complete(&app, &worker, &id).await;
    assert!(
        early["NotYet"]["message"]
            .as_str()
            .unwrap()
            .contains("1 of the 5"),
        "{early}"
    );
    assert_eq!(
        count(&pool, "select count(*) from study_completion").await,
        0
    );
    // The holders leave: their pairs come to the worker (all but the one they held before).
    for held in &holders {
        run_out(&pool, &id, held).await;
    }
    let task = next(&app, &worker, &id).await;
    assert!(task.get("Judge").is_some(), "{task}");
    app.stop().await;
}
