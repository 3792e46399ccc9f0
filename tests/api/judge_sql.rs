//! An answer's statements run inside the database, in one call (`judge_answer`,
//! `migrations/functions/`), and two pieces of domain arithmetic are written there a second
//! time: how a new vote changes the gate tables of everyone who judged the pair
//! (`domain::judge::gate_table::table_changes`) and where a block's test pair goes
//! (`domain::judge::schedule`). These tests hold the database's copy to the domain's, answer by
//! answer, through the real server.
use std::collections::{BTreeMap, HashMap};

use app::domain::judge::gate_table::{table_changes, Judged, KappaTable, Votes};
use app::domain::judge::schedule;
use app::domain::rng::SplitMix64;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::spawn_app;
use crate::judge::{answer, campaign, next, pairs_csv, tests_csv, Setup};

/// Every worker's gate table as it stands: stored on their row plus the changes recorded for
/// them and not yet folded in.
async fn tables(pool: &PgPool, campaign: Uuid) -> HashMap<Uuid, KappaTable> {
    let rows: Vec<(Uuid, Vec<i64>)> = sqlx::query_as(
        r#"select w.app_user_id,
                  array[w.kappa_pp + coalesce(sum(c.pp), 0), w.kappa_pn + coalesce(sum(c.pn), 0),
                        w.kappa_np + coalesce(sum(c.np), 0), w.kappa_nn + coalesce(sum(c.nn), 0),
                        w.lead2_agreed + coalesce(sum(c.lead2_agreed), 0),
                        w.lead2_disagreed + coalesce(sum(c.lead2_disagreed), 0),
                        w.lead3_agreed + coalesce(sum(c.lead3_agreed), 0),
                        w.lead3_disagreed + coalesce(sum(c.lead3_disagreed), 0)]
           from judge_worker w left join judge_gate_change c using (campaign_id, app_user_id)
           where w.campaign_id = $1 group by w.campaign_id, w.app_user_id"#,
    )
    .bind(campaign)
    .fetch_all(pool)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(u, cells)| {
            let cells: [i64; 8] = cells.try_into().expect("eight cells");
            (u, KappaTable::from_cells(cells))
        })
        .collect()
}

#[sqlx::test(migrations = "../migrations")]
async fn an_answer_changes_every_gate_table_on_its_pair_as_the_domain_rule_says(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    // Few pairs and more workers than judgments a pair, so pairs fill, votes tie and split.
    let id = campaign(&app, &admin, Setup::pairs(&pairs_csv(20))).await;
    let cid: Uuid = id.parse().unwrap();
    let mut workers = Vec::new();
    for _ in 0..9 {
        workers.push(app.annotator().await.0);
    }
    let mut rng = SplitMix64::new(20261207);
    let (mut checked, mut with_untrusted, mut changed_others) = (0, 0, 0);
    for _round in 0..12 {
        for w in &workers {
            let task: Value = next(&app, w, &id).await;
            let Some(a) = task["Judge"]["assignment_id"].as_str() else {
                continue;
            };
            let assignment: Uuid = a.parse().unwrap();
            let (pair, user): (Uuid, Uuid) = sqlx::query_as(
                "select pair_id, app_user_id from judge_assignment where assignment_id = $1",
            )
            .bind(assignment)
            .fetch_one(&pool)
            .await
            .unwrap();
            // Now and then one judgment on the pair stops counting (as when its worker is
            // stopped), its vote taken off the pair, so untrusted judgments are in the mix.
            if rng.next_u64().is_multiple_of(4) {
                sqlx::query(
                    r#"with one as (
                           update judge_judgment set trusted = false
                           where judgment_id = (select judgment_id from judge_judgment
                                                where pair_id = $1 and trusted limit 1)
                           returning is_paraphrase)
                       update judge_pair set n_judgments = n_judgments - 1,
                           n_paraphrase = n_paraphrase - (select is_paraphrase::int from one)
                       where pair_id = $1 and exists (select 1 from one)"#,
                )
                .bind(pair)
                .execute(&pool)
                .await
                .unwrap();
            }
            let on_pair: Vec<(Uuid, bool, bool)> = sqlx::query_as(
                "select app_user_id, is_paraphrase, trusted from judge_judgment where pair_id = $1",
            )
            .bind(pair)
            .fetch_all(&pool)
            .await
            .unwrap();
            let (n, np): (i32, i32) = sqlx::query_as(
                "select n_judgments, n_paraphrase from judge_pair where pair_id = $1",
            )
            .bind(pair)
            .fetch_one(&pool)
            .await
            .unwrap();
            let before_tables = tables(&pool, cid).await;

            let label = rng.next_u64().is_multiple_of(2);
            let resp = answer(&app, w, &id, a, label).await;
            assert_eq!(resp.status(), 200);

            // What the domain says: the pair's trusted votes gain this one; every judgment on
            // the pair (this one new) goes from its old cell to its new one.
            let after = Votes {
                paraphrase: i64::from(np) + i64::from(label),
                not: i64::from(n - np) + i64::from(!label),
            };
            let mut judged: Vec<Judged<Uuid>> = on_pair
                .iter()
                .map(|&(worker, label, trusted)| Judged {
                    worker,
                    label,
                    trusted_before: Some(trusted),
                    trusted_after: trusted,
                })
                .collect();
            judged.push(Judged {
                worker: user,
                label,
                trusted_before: None,
                trusted_after: true,
            });
            let expected: BTreeMap<Uuid, KappaTable> =
                table_changes(after.without(Some(label)), after, &judged);
            let after_tables = tables(&pool, cid).await;
            for (worker, table) in &after_tables {
                let was = before_tables.get(worker).copied().unwrap_or_default();
                let want = expected.get(worker).copied().unwrap_or_default();
                assert_eq!(
                    table.minus(was),
                    want,
                    "worker {worker}'s table after an answer on a pair with {on_pair:?}, \
                     votes {np}/{n} before, answer {label}"
                );
            }
            checked += 1;
            with_untrusted += usize::from(on_pair.iter().any(|j| !j.2));
            changed_others += usize::from(expected.keys().any(|k| *k != user));
        }
    }
    // The cases the rule has to get right all came up.
    assert!(checked >= 90, "{checked} answers checked");
    assert!(
        with_untrusted >= 10,
        "{with_untrusted} with an untrusted judgment"
    );
    assert!(
        changed_others >= 20,
        "{changed_others} changed other workers' tables"
    );
}

#[sqlx::test(migrations = "../migrations")]
async fn every_block_of_served_pairs_holds_one_test_pair_where_its_position_says(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let every: u32 = 5;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: every,
            tests_csv: Some(&tests_csv(30)),
            ..Setup::pairs(&pairs_csv(80))
        },
    )
    .await;
    let (w, _) = app.annotator().await;
    // The block's test position as stored while its pairs are served (written when its first
    // pair is leased), by block.
    let mut positions: BTreeMap<u32, i32> = BTreeMap::new();
    let standing = || async {
        let (served, position): (i32, i32) = sqlx::query_as(
            "select served_count, test_position from judge_worker where campaign_id = $1::uuid",
        )
        .bind(&id)
        .fetch_one(&pool)
        .await
        .unwrap();
        ((served as u32 - 1) / every, position)
    };
    let mut task = next(&app, &w, &id).await;
    let (block, position) = standing().await;
    positions.insert(block, position);
    for _ in 0..60 {
        let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
        let resp = answer(&app, &w, &id, &a, true).await;
        assert_eq!(resp.status(), 200);
        let outcome: Value = resp.json().await.unwrap();
        let (block, position) = standing().await;
        assert_eq!(*positions.entry(block).or_insert(position), position);
        task = outcome["next"].clone();
    }
    // Served in order (each answer leases the next): one test pair in every block, at the place
    // its stored position gives.
    let kinds: Vec<bool> = sqlx::query_scalar(
        "select is_test from judge_assignment where campaign_id = $1::uuid order by served_at, assignment_id",
    )
    .bind(&id)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(kinds.len(), 61);
    for (b, block) in kinds.chunks(every as usize).enumerate() {
        let b = b as u32;
        let position = positions[&b] as u32;
        for (i, &is_test) in block.iter().enumerate() {
            let served = b * every + i as u32;
            assert_eq!(
                is_test,
                schedule::is_test_slot(served, every, position),
                "block {b} (position {position}): {block:?}"
            );
        }
    }
    // The positions are drawn, not fixed.
    let distinct: std::collections::BTreeSet<i32> = positions.values().copied().collect();
    assert!(distinct.len() > 1, "positions {positions:?}");
}

/// Deleting an account or a campaign in SQL takes its assignments, judgments and gate changes
/// with it (the judging rows' keys cascade; `integrity.rs` deletes while workers answer).
#[sqlx::test(migrations = "../migrations")]
async fn a_deleted_account_or_campaign_takes_its_judging_rows_with_it(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(&app, &admin, Setup::pairs(&pairs_csv(6))).await;
    let cid: Uuid = id.parse().unwrap();
    let mut first = None;
    for i in 0..4 {
        let (w, name) = app.annotator().await;
        for _ in 0..4 {
            let task = next(&app, &w, &id).await;
            let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
            assert_eq!(answer(&app, &w, &id, &a, i % 2 == 0).await.status(), 200);
        }
        // One pair leased and not answered.
        next(&app, &w, &id).await;
        first.get_or_insert(name);
    }
    let count = |sql: String| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(&sql)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    let gone: Uuid = sqlx::query_scalar("select app_user_id from app_user where username = $1")
        .bind(first.unwrap())
        .fetch_one(&pool)
        .await
        .unwrap();
    let tables = ["judge_assignment", "judge_judgment", "judge_gate_change"];
    for table in tables {
        let n = count(format!(
            "select count(*) from {table} where app_user_id = '{gone}'"
        ))
        .await;
        assert!(n > 0, "{table} has rows of the worker before");
    }
    sqlx::query("delete from app_user where app_user_id = $1")
        .bind(gone)
        .execute(&pool)
        .await
        .unwrap();
    for table in tables {
        let n = count(format!(
            "select count(*) from {table} where app_user_id = '{gone}'"
        ))
        .await;
        assert_eq!(n, 0, "{table} keeps rows of a deleted account");
        let n = count(format!(
            "select count(*) from {table} where campaign_id = '{cid}'"
        ))
        .await;
        assert!(n > 0, "{table} lost the other workers' rows");
    }
    sqlx::query("delete from campaign where campaign_id = $1")
        .bind(cid)
        .execute(&pool)
        .await
        .unwrap();
    for table in tables {
        let n = count(format!(
            "select count(*) from {table} where campaign_id = '{cid}'"
        ))
        .await;
        assert_eq!(n, 0, "{table} keeps rows of a deleted campaign");
    }
}

/// A campaign's pairs come in bulk and are leased at once: the planner must know them by then,
/// or the lease's first-free-pair scan sorts every open pair at every answer
/// (`db::judge::sample_pairs_for_the_planner`). This PostgreSQL does not sample a table by
/// itself within the test (autovacuum waits a minute, or is off), so only the import can have.
#[sqlx::test(migrations = "../migrations")]
async fn an_import_leaves_its_pairs_sampled_for_the_planner(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let tuples = || async {
        sqlx::query_scalar::<_, f32>("select reltuples from pg_class where relname = 'judge_pair'")
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    // A table never sampled says -1.
    assert!(tuples().await < 0.0);
    campaign(&app, &admin, Setup::pairs(&pairs_csv(1500))).await;
    assert_eq!(tuples().await, 1500.0);
}

/// No SQL function on the judging path runs as a call: each is inlined by the planner into the
/// statement that names it, or is PL/pgSQL, which keeps its plans. A SQL function the planner
/// cannot inline (a FROM clause or a subquery in a scalar function, a parameter passed a
/// subquery and used twice) is parsed and planned again on every call, inside every answer
/// (`docs/benchmarks.md`); nothing else would notice, as the answers stay right.
///
/// The judging requests go to a second server whose connections track every function's calls
/// (`track_functions`); the campaign and the accounts are made through the first, untracked.
#[sqlx::test(migrations = "../migrations")]
async fn the_judging_path_calls_no_sql_function_it_plans_again(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 5,
            tests_csv: Some(&tests_csv(4)),
            ..Setup::pairs(&pairs_csv(40))
        },
    )
    .await;
    // Two annotators and a study-link participant (every call of theirs checks their items
    // against the number the study asks for).
    crate::studies::json(
        app.call(
            &admin,
            "admin/save_study_info",
            &[
                ("campaign_id", &id),
                ("summary", "Judge pairs of sentences."),
                ("minutes", "5"),
                ("pay", "$1.00"),
                ("consent_text", ""),
                ("completion_code", "C1234ABC"),
                ("complete_after", "30"),
            ],
        )
        .await,
    )
    .await;
    let slug = crate::studies::link(&app, &admin, &id, "prolific", "", "").await;
    let participant = crate::helpers::client();
    crate::studies::json(
        app.call(
            &participant,
            "study/open",
            &[
                ("slug", slug.as_str()),
                (
                    "query",
                    "PROLIFIC_PID=5f3a9c0d1e2b4a0012345678&STUDY_ID=s&SESSION_ID=x",
                ),
            ],
        )
        .await,
    )
    .await;
    let workers = [
        app.annotator().await.0,
        app.annotator().await.0,
        participant,
    ];
    let tracked_options = pool
        .connect_options()
        .as_ref()
        .clone()
        .options([("track_functions", "all")]);
    let tracked = sqlx::postgres::PgPoolOptions::new()
        .max_connections(4)
        .connect_with(tracked_options)
        .await
        .unwrap();
    let judging = spawn_app(tracked.clone()).await;
    let mut answered = 0;
    for round in 0..8 {
        for (i, w) in workers.iter().enumerate() {
            let task = next(&judging, w, &id).await;
            let a = task["Judge"]["assignment_id"]
                .as_str()
                .unwrap_or_else(|| panic!("a pair for worker {i} in round {round}: {task}"))
                .to_owned();
            let resp = answer(&judging, w, &id, &a, (round + i) % 2 == 0).await;
            assert_eq!(resp.status(), 200);
            answered += 1;
        }
    }
    judging.stop().await;
    // A backend reports its functions' counts when it ends, at the latest.
    tracked.close().await;
    let calls = || async {
        sqlx::query_as::<_, (String, String, i64)>(
            "select p.proname::text, l.lanname::text, s.calls
             from pg_stat_user_functions s join pg_proc p on p.oid = s.funcid
                  join pg_language l on l.oid = p.prolang
             order by 1",
        )
        .fetch_all(&pool)
        .await
        .unwrap()
    };
    let mut seen = calls().await;
    for _ in 0..100 {
        if seen
            .iter()
            .any(|(name, _, n)| name == "judge_answer" && *n >= answered)
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        seen = calls().await;
    }
    // The count is there: what follows would pass on no counts at all.
    assert!(
        seen.iter()
            .any(|(name, lang, n)| name == "judge_answer" && lang == "plpgsql" && *n >= answered),
        "the answers' calls were counted: {seen:?}"
    );
    assert!(
        seen.iter()
            .any(|(name, _, _)| name == "judge_choose_ordinary"),
        "the leases' calls were counted: {seen:?}"
    );
    let planned_again: Vec<_> = seen.iter().filter(|(_, lang, _)| lang == "sql").collect();
    assert!(
        planned_again.is_empty(),
        "SQL functions called on the judging path, each planned again per call: {planned_again:?}"
    );
}
