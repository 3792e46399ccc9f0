//! A seeded server replays the same schedule for the same requests, whichever way each answer
//! went inside the database: every call that may lease takes the same draws.
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::{spawn_app_seeded, TestApp};
use crate::judge::{answer, campaign, next, pairs_csv, tests_csv, Setup};

/// One worker's answers on a new campaign of `app`: `expire(i)` says whether the lease of the
/// i-th pair runs out before it is answered. Returns whether each pair served was a test pair.
async fn served(app: &TestApp, expire: impl Fn(usize) -> bool, pool: &PgPool) -> Vec<bool> {
    let (admin, _) = app.user_with_role("admin").await;
    let (pairs, tests) = (pairs_csv(60), tests_csv(12));
    let setup = Setup {
        judgments_per_pair: 3,
        test_every: 5,
        tests_csv: Some(&tests),
        ..Setup::pairs(&pairs)
    };
    let id = campaign(app, &admin, setup).await;
    let (worker, _) = app.annotator().await;
    let mut task: Value = next(app, &worker, &id).await;
    let mut kinds = Vec::new();
    for i in 0..30 {
        let a = task["Judge"]["assignment_id"]
            .as_str()
            .expect("a pair")
            .to_owned();
        let assignment: Uuid = a.parse().unwrap();
        let is_test: bool =
            sqlx::query_scalar("select is_test from judge_assignment where assignment_id = $1")
                .bind(assignment)
                .fetch_one(pool)
                .await
                .unwrap();
        kinds.push(is_test);
        if expire(i) {
            sqlx::query(
                r#"update judge_assignment set lease_expires_at = now() - interval '1 second'
                   where assignment_id = $1"#,
            )
            .bind(assignment)
            .execute(pool)
            .await
            .unwrap();
            // The sweep gives the slot back, so the answer takes it again.
            sqlx::query("select judge_expire_leases(campaign_id) from judge_assignment where assignment_id = $1")
                .bind(assignment)
                .execute(pool)
                .await
                .unwrap();
        }
        let resp = answer(app, &worker, &id, &a, i % 3 == 0).await;
        assert_eq!(resp.status(), 200, "answer {i}");
        task = resp.json::<Value>().await.unwrap()["next"].clone();
    }
    kinds
}

#[sqlx::test(migrations = "../migrations")]
async fn a_seeded_server_replays_the_schedule_whichever_way_the_answers_went(pool: PgPool) {
    let seed = 20261126;
    let straight = served(
        &spawn_app_seeded(pool.clone(), seed).await,
        |_| false,
        &pool,
    )
    .await;
    let expiring = served(
        &spawn_app_seeded(pool.clone(), seed).await,
        |i| i % 4 == 1,
        &pool,
    )
    .await;
    assert_eq!(straight.iter().filter(|t| **t).count(), 6, "{straight:?}");
    assert_eq!(straight, expiring);
    // Another seed gives another schedule (the comparison above can fail).
    let other = served(
        &spawn_app_seeded(pool.clone(), seed + 1).await,
        |_| false,
        &pool,
    )
    .await;
    assert_ne!(straight, other);
}
