//! Hidden test pairs cannot be picked out by workers who compare what they were served, a small
//! test pool is flagged, and an account that collects test answers shows on the admin's page.
use std::collections::HashMap;

use reqwest::Client;
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{spawn_app, TestApp};
use crate::judge::{answer, campaign, next, pairs_csv, tests_csv, truth, Setup};

async fn json(resp: reqwest::Response) -> Value {
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    serde_json::from_str(&body).unwrap()
}

/// The first sentence of what a worker was served (names the pair, as a worker would).
fn shown(task: &Value) -> String {
    task["Judge"]["sentence1"].as_str().unwrap().to_owned()
}

/// How often a feature (a pair both workers saw, or saw at the same place in their lists) holds
/// for test pairs and for ordinary pairs.
#[derive(Default, Debug)]
struct Tally {
    /// Pairs looked at, [ordinary, test].
    n: [usize; 2],
    /// Of which the feature held.
    hits: [usize; 2],
}

impl Tally {
    fn add(&mut self, is_test: bool, hit: bool) {
        self.n[is_test as usize] += 1;
        self.hits[is_test as usize] += hit as usize;
    }

    fn rate(&self, is_test: bool) -> f64 {
        self.hits[is_test as usize] as f64 / self.n[is_test as usize] as f64
    }

    /// How much likelier the feature is on a test pair than on an ordinary one (0: no signal).
    fn signal(&self) -> f64 {
        (self.rate(true) - self.rate(false)).abs()
    }
}

/// Two workers judge side by side, turn about, `n` pairs each; returns what each was shown, in
/// order, with whether it was a test pair (read from the database, as the workers cannot).
async fn side_by_side(
    app: &TestApp,
    pool: &PgPool,
    id: &str,
    workers: [&Client; 2],
    n: usize,
) -> [Vec<(String, bool)>; 2] {
    let mut lists: [Vec<(String, bool)>; 2] = Default::default();
    for _ in 0..n {
        for (w, list) in workers.iter().zip(lists.iter_mut()) {
            let task = next(app, w, id).await;
            let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
            let is_test: bool = sqlx::query_scalar(
                "select is_test from judge_assignment where assignment_id = $1::uuid",
            )
            .bind(&a)
            .fetch_one(pool)
            .await
            .unwrap();
            list.push((shown(&task), is_test));
            json(answer(app, w, id, &a, truth(&task)).await).await;
        }
    }
    lists
}

#[sqlx::test(migrations = "../migrations")]
async fn workers_who_compare_their_pairs_cannot_pick_out_the_test_pairs(pool: PgPool) {
    // One test pair in every 5, 20 test pairs, ordinary pairs in plenty: pairs of workers who
    // start together each take 25 pairs (5 of them tests), one team after another, so the
    // windows move on as they do in a crowd. Served in one order to everyone (as before), every
    // pair two workers share is an ordinary one: P(shared | ordinary) ~ 1 against
    // P(shared | test) ~ 0.25.
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 5,
            tests_csv: Some(&tests_csv(20)),
            ..Setup::pairs(&pairs_csv(400))
        },
    )
    .await;
    const TEAMS: usize = 20;
    const N: usize = 25;
    let mut shared = Tally::default();
    let mut same_place = Tally::default();
    let mut tests_per_worker = Vec::new();
    for _ in 0..TEAMS {
        let (a, _) = app.annotator().await;
        let (b, _) = app.annotator().await;
        let lists = side_by_side(&app, &pool, &id, [&a, &b], N).await;
        for (mine, theirs) in [(&lists[0], &lists[1]), (&lists[1], &lists[0])] {
            let place: HashMap<&str, usize> = theirs
                .iter()
                .enumerate()
                .map(|(i, (s, _))| (s.as_str(), i))
                .collect();
            for (i, (s, is_test)) in mine.iter().enumerate() {
                let theirs_at = place.get(s.as_str());
                shared.add(*is_test, theirs_at.is_some());
                same_place.add(*is_test, theirs_at == Some(&i));
            }
            tests_per_worker.push(mine.iter().filter(|(_, t)| *t).count());
        }
    }
    eprintln!(
        "shared: test {:.3}, ordinary {:.3}; same place: test {:.3}, ordinary {:.3}",
        shared.rate(true),
        shared.rate(false),
        same_place.rate(true),
        same_place.rate(false)
    );
    // The schedule itself is kept: one test pair in every five.
    assert!(
        tests_per_worker.iter().all(|&t| t == N / 5),
        "{tests_per_worker:?}"
    );
    assert_eq!(shared.n, [TEAMS * 2 * (N - N / 5), TEAMS * 2 * N / 5]);
    // No better than chance: whether a pair was shared, or sat at the same place in both lists,
    // is about as likely for a test pair as for an ordinary one. (Standard error of the
    // difference ~0.04 with 200 test and 800 ordinary pairs; the old order gave ~0.5.)
    assert!(
        shared.signal() < 0.15,
        "shared: test {:.2}, ordinary {:.2} ({shared:?})",
        shared.rate(true),
        shared.rate(false)
    );
    assert!(
        same_place.signal() < 0.1,
        "same place: test {:.2}, ordinary {:.2} ({same_place:?})",
        same_place.rate(true),
        same_place.rate(false)
    );
    // Pairs still complete: every ordinary pair served came from the window of the pairs that
    // most need judgments (the first 4 × 10 with a free slot, by `sort_key`), not from all 400:
    // the pairs touched are the full ones and at most a window and a worker's list more (served
    // at random from all 400, ~350 would be).
    let spread: i64 = sqlx::query_scalar(
        "select count(*) from judge_pair where campaign_id = $1::uuid and not is_test and n_judgments > 0",
    )
    .bind(&id)
    .fetch_one(&pool)
    .await
    .unwrap();
    let judged = (TEAMS * 2 * (N - N / 5)) as i64;
    assert!(
        spread <= judged / 6 + 2 * 40 + N as i64,
        "{spread} pairs judged for {judged} judgments"
    );

    // 20 test pairs against a gate that decides after 10,000 judgments: the admin is told.
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    let warning = overview["test_pool_warning"].as_str().unwrap();
    assert!(warning.contains("Only 20 test pairs"), "{warning}");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn an_account_that_misses_test_pairs_to_collect_their_answers_is_flagged(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 2,
            gate_min_judgments: 20,
            tests_csv: Some(&tests_csv(24)),
            ..Setup::pairs(&pairs_csv(20))
        },
    )
    .await;
    let mut names = HashMap::new();
    for honest in [true, false] {
        let (c, name) = app.annotator().await;
        for _ in 0..10 {
            let task = next(&app, &c, &id).await;
            let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
            // The collector answers every pair wrongly, so every test pair's answer is shown.
            let label = truth(&task) == honest;
            json(answer(&app, &c, &id, &a, label).await).await;
        }
        names.insert(honest, name);
    }
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    // 10 test pairs before the gate first decides, 24 in the pool: no warning.
    assert_eq!(overview["test_pool_warning"], Value::Null, "{overview}");
    assert_eq!(overview["gold_revealed"], 5, "{overview}");
    let row = |honest: bool| {
        overview["workers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["username"] == names[&honest].as_str())
            .unwrap()
            .clone()
    };
    let (collector, honest) = (row(false), row(true));
    // Seen: the 5 answered and, if it is one, the test pair the last answer brought.
    for (w, missed, flagged) in [(&collector, 5, true), (&honest, 0, false)] {
        let served: i64 = sqlx::query_scalar(
            "select count(*) from judge_assignment a join app_user u using (app_user_id) where u.username = $1 and a.is_test",
        )
        .bind(w["username"].as_str().unwrap())
        .fetch_one(&pool)
        .await
        .unwrap();
        assert!(served == 5 || served == 6, "{served}");
        assert_eq!(
            (&w["tests_seen"], &w["tests_missed"], &w["harvesting_gold"]),
            (
                &Value::from(served),
                &Value::from(missed),
                &Value::from(flagged)
            ),
            "{w}"
        );
    }
    app.stop().await;
}

/// A plain form's answer (a press before the page's script runs, or without JavaScript) goes
/// back to the judging page; a missed check question goes to the page that explains it. Its
/// feedback is read by the worker who missed it, and only for that answer: not by another
/// worker, not for a check question answered right, not for an ordinary pair.
#[sqlx::test(migrations = "../migrations")]
async fn a_plain_forms_answer_goes_back_to_the_page_and_only_its_worker_reads_the_feedback(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 2,
            tests_csv: Some(&tests_csv(6)),
            ..Setup::pairs(&pairs_csv(10))
        },
    )
    .await;
    let (c, _) = app.annotator().await;
    let (other, _) = app.annotator().await;
    let referer = format!("/judge/{id}");
    let feedback = |client: &Client, assignment: String| {
        let (app, id) = (&app, id.clone());
        let client = client.clone();
        async move {
            json(
                app.call(
                    &client,
                    "judge/feedback",
                    &[("campaign_id", &id), ("assignment_id", &assignment)],
                )
                .await,
            )
            .await
        }
    };
    let (mut missed, mut right_test, mut ordinary) = (None, None, None);
    for _ in 0..8 {
        let task = next(&app, &c, &id).await;
        let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
        let is_test = task["Judge"]["sentence1"]
            .as_str()
            .unwrap()
            .starts_with("Test");
        // The first check question is missed, every other pair answered right.
        let miss = is_test && missed.is_none();
        let label = if miss { !truth(&task) } else { truth(&task) };
        let resp = app
            .post_form(
                &c,
                "judge/answer",
                &referer,
                &[
                    ("campaign_id", id.as_str()),
                    ("assignment_id", a.as_str()),
                    ("is_paraphrase", if label { "true" } else { "false" }),
                ],
            )
            .await;
        assert_eq!(resp.status(), reqwest::StatusCode::FOUND);
        let location = resp.headers()["location"].to_str().unwrap().to_owned();
        if miss {
            assert_eq!(location, format!("/judge/{id}?missed={a}"));
            missed = Some(a);
        } else {
            assert_eq!(location, format!("/judge/{id}"));
            if is_test {
                right_test = Some(a);
            } else {
                ordinary = Some(a);
            }
        }
    }
    let missed = missed.expect("a check question among eight pairs, one in every two");
    let shown = feedback(&c, missed.clone()).await;
    assert!(
        shown["explanation"]
            .as_str()
            .is_some_and(|e| e.starts_with("Because test ")),
        "{shown}"
    );
    assert_eq!(feedback(&other, missed).await, Value::Null);
    assert_eq!(feedback(&c, right_test.unwrap()).await, Value::Null);
    assert_eq!(feedback(&c, ordinary.unwrap()).await, Value::Null);
    // Every answer was stored once: eight judgments.
    let judged: i64 = sqlx::query_scalar("select count(*) from judge_judgment")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(judged, 8);
    app.stop().await;
}
