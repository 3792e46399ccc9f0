//! The judging rows reference the rows they belong to with keys the database enforces: whatever
//! deletes a campaign, a pair or an account, while workers answer or not, leaves no row behind
//! that names it, and loses nothing it did not delete.
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::{spawn_app, TestApp};
use crate::judge::{answer, campaign, next, pairs_csv, tests_csv, Setup};

/// Rows of the judging tables that name a row that is not there, by table (`judge_orphans`,
/// which the load tool's verification reads too).
pub(crate) async fn orphans(pool: &PgPool) -> Vec<(String, i64)> {
    sqlx::query_as("select table_name, orphans from judge_orphans()")
        .fetch_all(pool)
        .await
        .unwrap()
}

fn assert_no_orphans(found: &[(String, i64)]) {
    assert!(
        found.iter().all(|(_, n)| *n == 0),
        "orphaned rows: {found:?}"
    );
}

/// A worker answering until nothing is left or a call is refused; returns the assignments whose
/// answers were stored (first answers) and the statuses of the refusals.
async fn answer_on(app: Arc<TestApp>, c: reqwest::Client, id: String) -> (Vec<Uuid>, Vec<u16>) {
    let (mut stored, mut refused) = (Vec::new(), Vec::new());
    let mut task: Value = next(&app, &c, &id).await;
    for _ in 0..200 {
        let Some(a) = task["Judge"]["assignment_id"].as_str().map(str::to_owned) else {
            break;
        };
        let label = task["Judge"]["sentence2"].as_str().unwrap().contains("[P]");
        let resp = answer(&app, &c, &id, &a, label).await;
        let status = resp.status().as_u16();
        if status != 200 {
            refused.push(status);
            break;
        }
        let outcome: Value = resp.json().await.unwrap();
        assert_eq!(outcome["was_already_answered"], false, "{outcome}");
        stored.push(a.parse().unwrap());
        task = outcome["next"].clone();
    }
    (stored, refused)
}

#[sqlx::test(migrations = "../migrations")]
async fn an_account_and_a_campaign_deleted_while_20_workers_answer_leave_nothing_behind(
    pool: PgPool,
) {
    let app = Arc::new(spawn_app(pool.clone()).await);
    let (admin, _) = app.user_with_role("admin").await;
    let setup = |pairs: &'static str, tests: &'static str| Setup {
        judgments_per_pair: 3,
        test_every: 5,
        tests_csv: Some(tests),
        ..Setup::pairs(pairs)
    };
    let pairs: &'static str = Box::leak(pairs_csv(150).into_boxed_str());
    let tests: &'static str = Box::leak(tests_csv(10).into_boxed_str());
    let kept = campaign(&app, &admin, setup(pairs, tests)).await;
    let gone = campaign(&app, &admin, setup(pairs, tests)).await;
    let mut workers = Vec::new();
    for i in 0..20 {
        let (c, name) = app.annotator().await;
        let id = if i < 12 { kept.clone() } else { gone.clone() };
        workers.push((c, name, id));
    }
    let deleted_user: Uuid = app.user_id(&workers[0].1).await.parse().unwrap();
    let tasks: Vec<_> = workers
        .iter()
        .map(|(c, _, id)| tokio::spawn(answer_on(app.clone(), c.clone(), id.clone())))
        .collect();
    // Once both campaigns have judgments, and the worker to be deleted has some, delete while
    // the others answer.
    let ready = || async {
        let (all, theirs): (i64, i64) = sqlx::query_as(
            r#"select count(*), count(*) filter (where app_user_id = $1) from judge_judgment"#,
        )
        .bind(deleted_user)
        .fetch_one(&pool)
        .await
        .unwrap();
        all >= 60 && theirs >= 3
    };
    crate::helpers::wait_until("judgments to delete under", Duration::from_secs(60), ready).await;
    let gone_id: Uuid = gone.parse().unwrap();
    // A delete may be the one of two waiting transactions PostgreSQL rolls back: done again.
    for delete in [
        ("delete from app_user where app_user_id = $1", deleted_user),
        ("delete from campaign where campaign_id = $1", gone_id),
    ] {
        let mut tries = 0;
        while let Err(e) = sqlx::query(delete.0).bind(delete.1).execute(&pool).await {
            tries += 1;
            assert!(tries < 5, "{}: {e}", delete.0);
        }
    }
    let mut results = Vec::new();
    for t in tasks {
        results.push(t.await.unwrap());
    }
    assert_no_orphans(&orphans(&pool).await);

    // Nothing of the deleted account or campaign is left.
    let left: i64 = sqlx::query_scalar(
        r#"select (select count(*) from judge_worker where app_user_id = $1 or campaign_id = $2)
                + (select count(*) from judge_assignment where app_user_id = $1 or campaign_id = $2)
                + (select count(*) from judge_judgment where app_user_id = $1 or campaign_id = $2)
                + (select count(*) from judge_gate_change where app_user_id = $1 or campaign_id = $2)
                + (select count(*) from judge_pair where campaign_id = $2)"#,
    )
    .bind(deleted_user)
    .bind(gone_id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(left, 0);

    // Every answer the others were told was stored is there, and nothing else of theirs.
    for (i, ((_, name, id), (stored, refused))) in workers.iter().zip(&results).enumerate() {
        if i == 0 || *id == gone {
            // Refused once their account or campaign went: as signed out, or as not found.
            assert!(
                refused.iter().all(|s| [401, 403, 404, 409].contains(s)),
                "{refused:?}"
            );
            continue;
        }
        assert!(refused.is_empty(), "{name}: {refused:?}");
        let user: Uuid = app.user_id(name).await.parse().unwrap();
        let mut there: Vec<Uuid> = sqlx::query_scalar(
            "select assignment_id from judge_judgment where app_user_id = $1 order by 1",
        )
        .bind(user)
        .fetch_all(&pool)
        .await
        .unwrap();
        let mut told = stored.clone();
        told.sort();
        there.sort();
        assert_eq!(there, told, "{name}'s judgments");
        assert!(!told.is_empty());
    }
    // The kept campaign's workers' judgment counts add up to the judgments stored. (Their
    // pairs' vote counts and gate cells still include the deleted account's votes: a delete
    // takes rows, it does not recount what others' rows say about them.)
    let (judgments, counted): (i64, i64) = sqlx::query_as(
        r#"select (select count(*) from judge_judgment where campaign_id = $1),
                  (select coalesce(sum(judgments), 0) from judge_worker where campaign_id = $1)"#,
    )
    .bind(kept.parse::<Uuid>().unwrap())
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(judgments, counted);
}

/// A campaign with `workers` annotators who have each answered `answers` pairs.
async fn judged_campaign(app: &TestApp, workers: usize, answers: usize) -> Uuid {
    let (admin, _) = app.user_with_role("admin").await;
    let pairs = pairs_csv(40);
    let tests = tests_csv(4);
    let setup = Setup {
        judgments_per_pair: 3,
        test_every: 4,
        tests_csv: Some(&tests),
        ..Setup::pairs(&pairs)
    };
    let id = campaign(app, &admin, setup).await;
    for _ in 0..workers {
        let (c, _) = app.annotator().await;
        let mut task = next(app, &c, &id).await;
        for _ in 0..answers {
            let Some(a) = task["Judge"]["assignment_id"].as_str().map(str::to_owned) else {
                break;
            };
            let resp = answer(app, &c, &id, &a, true).await;
            assert_eq!(resp.status(), 200);
            task = resp.json::<Value>().await.unwrap()["next"].clone();
        }
    }
    id.parse().unwrap()
}

async fn count(pool: &PgPool, table: &str) -> i64 {
    sqlx::query_scalar(&format!("select count(*) from {table}"))
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrations = "../migrations")]
async fn truncating_the_campaigns_empties_every_judging_table(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    judged_campaign(&app, 4, 8).await;
    let tables = [
        "judge_pair",
        "judge_worker",
        "judge_assignment",
        "judge_judgment",
        "judge_gate_change",
    ];
    for t in &tables[..4] {
        assert!(count(&pool, t).await > 0, "{t}");
    }
    sqlx::query("truncate campaign cascade")
        .execute(&pool)
        .await
        .unwrap();
    for t in tables {
        assert_eq!(count(&pool, t).await, 0, "{t}");
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn a_pair_deleted_on_its_own_takes_its_assignments_and_judgments_and_nothing_else(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let cid = judged_campaign(&app, 4, 8).await;
    let pair: Uuid = sqlx::query_scalar(
        r#"select pair_id from judge_judgment where campaign_id = $1
           group by pair_id order by count(*) desc limit 1"#,
    )
    .bind(cid)
    .fetch_one(&pool)
    .await
    .unwrap();
    let before = (
        count(&pool, "judge_assignment").await,
        count(&pool, "judge_judgment").await,
    );
    let (assignments, judgments): (i64, i64) = sqlx::query_as(
        r#"select (select count(*) from judge_assignment where pair_id = $1),
                  (select count(*) from judge_judgment where pair_id = $1)"#,
    )
    .bind(pair)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(judgments >= 2, "{judgments}");
    sqlx::query("delete from judge_pair where pair_id = $1")
        .bind(pair)
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(
        (
            count(&pool, "judge_assignment").await,
            count(&pool, "judge_judgment").await
        ),
        (before.0 - assignments, before.1 - judgments)
    );
    assert_no_orphans(&orphans(&pool).await);
    // A wrong id from a writer is refused, not stored.
    let refused = sqlx::query(
        r#"insert into judge_assignment (campaign_id, pair_id, app_user_id, is_test,
               lease_expires_at, status)
           select campaign_id, $1, app_user_id, false, now(), 'expired' from judge_worker
           limit 1"#,
    )
    .bind(pair)
    .execute(&pool)
    .await
    .unwrap_err();
    assert!(refused.to_string().contains("foreign key"), "{refused}");
}

#[sqlx::test(migrations = "../migrations")]
async fn an_answer_that_meets_a_delete_beside_it_is_made_again_and_stored(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    // One pair, so both workers judge it, and the second answer changes the first worker's
    // gate table (their only other vote is the second's).
    let pairs = pairs_csv(1);
    let id = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 3,
            ..Setup::pairs(&pairs)
        },
    )
    .await;
    let (first, first_name) = app.annotator().await;
    let task = next(&app, &first, &id).await;
    let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
    assert_eq!(answer(&app, &first, &id, &a, true).await.status(), 200);
    let (second, _) = app.annotator().await;
    let task = next(&app, &second, &id).await;
    let b = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();

    // The first worker's account is deleted in a transaction that stays open while the
    // second answers: the answer's record of a change for them waits for it, then finds them
    // gone, and the answer is made again without them.
    let first_id: Uuid = app.user_id(&first_name).await.parse().unwrap();
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("delete from app_user where app_user_id = $1")
        .bind(first_id)
        .execute(&mut *tx)
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let held = Duration::from_millis(700);
    let answered = {
        let app = &app;
        let commit_later = async {
            tokio::time::sleep(held).await;
            tx.commit().await.unwrap();
        };
        let (resp, ()) = tokio::join!(answer(app, &second, &id, &b, false), commit_later);
        resp
    };
    assert_eq!(answered.status(), 200);
    assert!(
        started.elapsed() >= held,
        "the answer did not wait for the delete"
    );
    let stored: i64 =
        sqlx::query_scalar("select count(*) from judge_judgment where assignment_id = $1")
            .bind(b.parse::<Uuid>().unwrap())
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(stored, 1);
    assert_no_orphans(&orphans(&pool).await);
}
