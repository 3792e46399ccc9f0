//! The MultiPIT judging task over HTTP: concurrent workers never push a pair past its count nor
//! see a pair twice, test pairs look like any other pair, the gate stops bad workers and keeps
//! honest ones, leases expire, answers are idempotent, imports are all or nothing.
use std::collections::{BTreeSet, HashMap};

use reqwest::{Client, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{
    client, error_of, shared_data, spawn_app, spawn_app_seeded, TestApp, PASSWORD,
};

/// The researcher's dashboard of campaign `id`, as `client` gets it.
pub(crate) async fn judge_report(app: &TestApp, client: &Client, id: &str) -> Value {
    json(
        app.call(client, "research/judge_report", &[("campaign_id", id)])
            .await,
    )
    .await
}

/// The researcher's dashboard page of campaign `id`, as `client` gets it.
pub(crate) async fn dashboard_page(app: &TestApp, client: &Client, id: &str) -> String {
    app.get(client, &format!("/research/judge/{id}"))
        .await
        .text()
        .await
        .unwrap()
}

/// How many elements of `html` carry the test id `testid`.
pub(crate) fn testids(html: &str, testid: &str) -> usize {
    html.matches(&format!(r#"data-testid="{testid}""#)).count()
}

async fn json(resp: reqwest::Response) -> Value {
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    serde_json::from_str(&body).unwrap()
}

pub(crate) struct Setup<'a> {
    pub(crate) judgments_per_pair: u32,
    pub(crate) test_every: u32,
    pub(crate) gate_min_judgments: u32,
    /// `None`: the default rule.
    pub(crate) gate_rule: Option<&'a str>,
    pub(crate) pairs_csv: &'a str,
    pub(crate) tests_csv: Option<&'a str>,
    /// Judgments every pair gets before it can settle; `None`: all of them (fixed redundancy,
    /// which the tests of slots and counts assume).
    pub(crate) min_judgments_per_pair: Option<u32>,
    /// Each test pair served at most this often; `None`: no cap.
    pub(crate) test_exposure_cap: Option<u32>,
}

impl<'a> Setup<'a> {
    /// `pairs_csv` with 6 judgments a pair (every pair all 6), no test pairs and a gate that
    /// waits for 10,000 judgments (so it never stops anyone); other settings by struct update.
    pub(crate) fn pairs(pairs_csv: &'a str) -> Self {
        Self {
            judgments_per_pair: 6,
            test_every: 0,
            gate_min_judgments: 10_000,
            gate_rule: None,
            pairs_csv,
            tests_csv: None,
            min_judgments_per_pair: None,
            test_exposure_cap: None,
        }
    }
}

/// An open judging campaign created and filled through the API.
pub(crate) async fn campaign(app: &TestApp, admin: &Client, s: Setup<'_>) -> String {
    let resp = app
        .call(
            admin,
            "admin/create_judge_campaign",
            &[
                ("title", "Judging test"),
                ("instructions", "Read both sentences."),
                ("definition", "loose"),
                ("judgments_per_pair", &s.judgments_per_pair.to_string()),
                ("test_every", &s.test_every.to_string()),
                ("min_test_accuracy", "0.85"),
                ("min_kappa", "0.2"),
                ("gate_min_judgments", &s.gate_min_judgments.to_string()),
                ("gate_rule", s.gate_rule.unwrap_or("")),
                (
                    "min_judgments_per_pair",
                    &s.min_judgments_per_pair
                        .unwrap_or(s.judgments_per_pair)
                        .to_string(),
                ),
                (
                    "test_exposure_cap",
                    &s.test_exposure_cap
                        .map(|c| c.to_string())
                        .unwrap_or_default(),
                ),
            ],
        )
        .await;
    let id = json(resp).await.as_str().unwrap().to_owned();
    let import = |content: &str, tests: bool| {
        let id = id.clone();
        let content = content.to_owned();
        async move {
            json(
                app.call(
                    admin,
                    "admin/import_pairs",
                    &[
                        ("campaign_id", &id),
                        ("filename", "pairs.csv"),
                        ("content", &content),
                        ("labels_are_tests", if tests { "true" } else { "false" }),
                    ],
                )
                .await,
            )
            .await
        }
    };
    import(s.pairs_csv, false).await;
    if let Some(tests) = s.tests_csv {
        import(tests, true).await;
    }
    let resp = app
        .call(
            admin,
            "admin/set_campaign_status",
            &[("campaign_id", &id), ("status", "open")],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    id
}

/// `n` ordinary pairs whose true label is written into sentence 2 ("[P]" or "[N]"), so a
/// simulated honest worker can answer from what it is shown.
pub(crate) fn pairs_csv(n: usize) -> String {
    let mut s = String::from("sentence1,sentence2\n");
    for i in 0..n {
        let tag = if i % 2 == 0 { "P" } else { "N" };
        s.push_str(&format!(
            "Pair {i} first sentence.,Pair {i} second sentence [{tag}].\n"
        ));
    }
    s
}

/// `n` test pairs, half paraphrases, with explanations.
pub(crate) fn tests_csv(n: usize) -> String {
    let mut s = String::from("sentence1,sentence2,gold_label,explanation\n");
    for i in 0..n {
        let (tag, label) = if i % 2 == 0 { ("P", 1) } else { ("N", 0) };
        s.push_str(&format!(
            "Test {i} first sentence.,Test {i} second sentence [{tag}].,{label},Because test {i} is {tag}.\n"
        ));
    }
    s
}

pub(crate) fn truth(task: &Value) -> bool {
    task["Judge"]["sentence2"].as_str().unwrap().contains("[P]")
}

/// Every worker's gate counts as kept on their row (plus the changes not yet folded in) equal
/// the same counts taken from their whole history, the way the gate read them before it kept running counts:
/// judgments, test answers, and the (label, majority of the others' trusted votes) table with
/// its agreements and disagreements with majorities 2 and 3 or more votes ahead.
pub(crate) async fn assert_gate_counts_match_history(pool: &PgPool, campaign: &str) {
    type Counts = (
        String,
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
    );
    let id: uuid::Uuid = campaign.parse().unwrap();
    let kept: Vec<Counts> = sqlx::query_as(
        r#"select w.app_user_id::text, w.judgments::int8, w.tests_answered::int8,
                  w.tests_correct::int8,
                  w.kappa_pp + coalesce(sum(c.pp), 0), w.kappa_pn + coalesce(sum(c.pn), 0),
                  w.kappa_np + coalesce(sum(c.np), 0), w.kappa_nn + coalesce(sum(c.nn), 0),
                  w.lead2_agreed + coalesce(sum(c.lead2_agreed), 0),
                  w.lead2_disagreed + coalesce(sum(c.lead2_disagreed), 0),
                  w.lead3_agreed + coalesce(sum(c.lead3_agreed), 0),
                  w.lead3_disagreed + coalesce(sum(c.lead3_disagreed), 0)
           from judge_worker w left join judge_gate_change c using (campaign_id, app_user_id)
           where w.campaign_id = $1 group by w.campaign_id, w.app_user_id order by 1"#,
    )
    .bind(id)
    .fetch_all(pool)
    .await
    .unwrap();
    let full: Vec<Counts> = sqlx::query_as(
        r#"select w.app_user_id::text,
                  (select count(*) from judge_judgment j where j.campaign_id = w.campaign_id
                     and j.app_user_id = w.app_user_id),
                  (select count(*) from judge_judgment j where j.campaign_id = w.campaign_id
                     and j.app_user_id = w.app_user_id and j.is_test),
                  (select count(*) from judge_judgment j where j.campaign_id = w.campaign_id
                     and j.app_user_id = w.app_user_id and j.is_test and j.is_correct),
                  count(*) filter (where c.label and c.m > 0), count(*) filter (where c.label and c.m < 0),
                  count(*) filter (where not c.label and c.m > 0),
                  count(*) filter (where not c.label and c.m < 0),
                  count(*) filter (where c.lead >= 2), count(*) filter (where c.lead <= -2),
                  count(*) filter (where c.lead >= 3), count(*) filter (where c.lead <= -3)
           from judge_worker w left join (
               select d.*, sign(d.diff) as m, d.diff * (2 * d.label::int - 1) as lead
               from (select j.app_user_id, j.is_paraphrase as label,
                            (p.n_paraphrase - (j.trusted and j.is_paraphrase)::int)
                            - (p.n_judgments - p.n_paraphrase
                               - (j.trusted and not j.is_paraphrase)::int) as diff
                     from judge_judgment j join judge_pair p using (pair_id)
                     where j.campaign_id = $1 and not j.is_test) d) c using (app_user_id)
           where w.campaign_id = $1 group by w.campaign_id, w.app_user_id order by 1"#,
    )
    .bind(id)
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(!kept.is_empty());
    assert_eq!(
        kept, full,
        "the gate's running counts drifted from the history"
    );
}

/// The migration that added the gate tables' counts by lead filled them from the judgments
/// already stored. Run again here, on counts set back to what that migration found (0 on every
/// worker's row, and none in the changes not yet folded in), it gives the counts the history
/// gives.
pub(crate) async fn assert_lead_backfill_matches_history(pool: &PgPool, campaign: &str) {
    let id: uuid::Uuid = campaign.parse().unwrap();
    for table in ["judge_worker", "judge_gate_change"] {
        sqlx::query(&format!(
            "update {table} set lead2_agreed = 0, lead2_disagreed = 0, lead3_agreed = 0,
                                lead3_disagreed = 0 where campaign_id = $1"
        ))
        .bind(id)
        .execute(pool)
        .await
        .unwrap();
    }
    let migration = include_str!("../../migrations/20261226000047_gate_majority_lead.sql");
    let backfill = &migration[migration.find("update judge_worker w").unwrap()..];
    sqlx::raw_sql(backfill).execute(pool).await.unwrap();
    assert_gate_counts_match_history(pool, campaign).await;
    // The history had wide leads to count.
    let wide: i64 = sqlx::query_scalar(
        "select coalesce(sum(lead2_agreed + lead3_disagreed), 0)::int8 from judge_worker
         where campaign_id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(wide > 0, "{wide}");
}

/// The single number a counting query returns.
async fn count(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

pub(crate) async fn next(app: &TestApp, c: &Client, id: &str) -> Value {
    json(app.call(c, "judge/next", &[("campaign_id", id)]).await).await
}

pub(crate) async fn answer(
    app: &TestApp,
    c: &Client,
    id: &str,
    assignment: &str,
    p: bool,
) -> reqwest::Response {
    app.call(
        c,
        "judge/answer",
        &[
            ("campaign_id", id),
            ("assignment_id", assignment),
            ("is_paraphrase", if p { "true" } else { "false" }),
        ],
    )
    .await
}

/// Judges until nothing is left, the worker is stopped, or `limit` answers; `choose` picks the
/// answer from the task. Returns the assignment ids seen and the last task.
pub(crate) async fn work(
    app: &TestApp,
    c: &Client,
    id: &str,
    limit: usize,
    mut choose: impl FnMut(&Value) -> bool,
) -> (Vec<String>, Value) {
    let mut seen = Vec::new();
    // The pair the last answer brought: `judge/next` must give the same (its lease renewed).
    // ("Nothing left" may change: a pair can come free, or a test slot come up, in between.)
    let mut carried: Option<Value> = None;
    // Asked again while the pairs left are held by others (as the page's "Look again" does).
    let mut waits = 0;
    loop {
        let task = next(app, c, id).await;
        if task.get("Waiting").is_some() && waits < 2_000 {
            waits += 1;
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        }
        if let Some(carried) = carried.take().filter(|t| t.get("Judge").is_some()) {
            assert_eq!(
                carried, task,
                "the answer's next pair is the one the worker holds"
            );
        }
        if task.get("Judge").is_none() || seen.len() >= limit {
            return (seen, task);
        }
        let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
        let outcome = json(answer(app, c, id, &a, choose(&task)).await).await;
        seen.push(a);
        if outcome["stopped"].is_string() {
            assert!(outcome["next"].get("Stopped").is_some(), "{outcome}");
            return (seen, next(app, c, id).await);
        }
        carried = Some(outcome["next"].clone());
    }
}

/// Twenty honest workers judge a campaign of 40 pairs and 6 test pairs (one in every five) at
/// once, each until nothing is left, with `min` judgments before a pair can settle (`None`:
/// every pair gets all 6). Checks what must hold whatever the redundancy: nobody is served a
/// pair twice, every ordinary pair has between `min` (or 6) and 6 judgments from as many
/// workers and as its counter says, its slots open and taken adding up to 6 once nobody holds a
/// lease, and every pair's label is its truth. Returns the app, the workers and the campaign.
async fn twenty_at_once(pool: &PgPool, min: Option<u32>) -> (TestApp, Vec<Client>, String) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 5,
            tests_csv: Some(&tests_csv(6)),
            min_judgments_per_pair: min,
            ..Setup::pairs(&pairs_csv(40))
        },
    )
    .await;
    let mut workers = Vec::new();
    for _ in 0..20 {
        workers.push(app.annotator().await.0);
    }
    let runs = workers
        .iter()
        .map(|c| work(&app, c, &id, usize::MAX, truth));
    let results = futures::future::join_all(runs).await;
    for (seen, last) in &results {
        assert!(last.get("NothingLeft").is_some(), "{last}");
        let unique: BTreeSet<&String> = seen.iter().collect();
        assert_eq!(unique.len(), seen.len());
    }
    // At least the minimum, at most the maximum (a lease out when its pair settled is still
    // answered), each from a different worker, as many as the pair's counter says.
    let rows: Vec<(i64, i64, i32)> = sqlx::query_as(
        r#"select count(j.judgment_id), count(distinct j.app_user_id), p.n_judgments
           from judge_pair p left join judge_judgment j using (pair_id)
           where not p.is_test group by p.pair_id, p.n_judgments"#,
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), 40);
    let least = i64::from(min.unwrap_or(6));
    for (n, distinct, counter) in rows {
        assert_eq!((n, distinct), (i64::from(counter), n));
        assert!((least..=6).contains(&n), "{n} judgments");
    }
    // Admins see each pair's label: its truth (honest workers agree).
    let admin_pairs = json(
        app.call(
            &admin,
            "admin/list_pairs",
            &[("campaign_id", &id), ("tests_only", "false"), ("page", "0")],
        )
        .await,
    )
    .await;
    for p in admin_pairs
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["is_test"] == false)
    {
        let expected = if p["sentence2"].as_str().unwrap().contains("[P]") {
            "Paraphrase"
        } else {
            "NotParaphrase"
        };
        assert_eq!(p["label"], expected, "{p}");
    }
    // No worker was given the same pair twice (served, not only judged).
    let repeats: i64 = count(pool, "select count(*) from (select 1 from judge_assignment group by app_user_id, pair_id having count(*) > 1) r").await;
    assert_eq!(repeats, 0);
    let unbalanced: i64 = count(
        pool,
        "select count(*) from judge_pair where not is_test and open_slots + judge_pair_taken(pair_id) <> 6",
    )
    .await;
    assert_eq!(unbalanced, 0);
    (app, workers, id)
}

#[sqlx::test(migrations = "../migrations")]
async fn twenty_concurrent_workers_never_overfill_a_pair_nor_see_one_twice(pool: PgPool) {
    // Every pair gets exactly 6 judgments, from 6 different workers.
    let (app, workers, id) = twenty_at_once(&pool, None).await;
    // The researcher's dashboard: honest, unanimous workers agree perfectly.
    let (researcher, _) = app.user_with_role("researcher").await;
    let report = judge_report(&app, &researcher, &id).await;
    let a = &report["agreement"];
    assert_eq!(a["fleiss_pairs"], 40);
    assert_eq!(a["fleiss"], 1.0);
    assert_eq!(a["alpha"], 1.0);
    assert_eq!(a["mean_kappa_vs_majority"], 1.0);
    assert_eq!(
        a["vote_distribution"],
        serde_json::json!([20, 0, 0, 0, 0, 0, 20])
    );
    assert_eq!(
        a["vote_vs_dawid_skene"],
        serde_json::json!([[20, 0], [0, 20], [0, 0]])
    );
    // So do GLAD and MACE, and they trust every one of these workers.
    assert_eq!(
        a["vote_vs_glad"],
        serde_json::json!([[20, 0], [0, 20], [0, 0]])
    );
    assert_eq!(
        a["vote_vs_mace"],
        serde_json::json!([[20, 0], [0, 20], [0, 0]])
    );
    for w in report["workers"].as_array().unwrap() {
        assert!(w["glad_ability"].as_f64().unwrap() > 1.0, "{w}");
        assert!(w["mace_competence"].as_f64().unwrap() > 0.9, "{w}");
        assert_eq!(w["harvest_flag"], false, "{w}");
    }
    assert_eq!(report["workers"].as_array().unwrap().len(), 20);
    assert!(report["votes_svg"].as_str().unwrap().starts_with("<svg"));
    let html = dashboard_page(&app, &researcher, &id).await;
    assert!(html.contains("Fleiss"), "{html}");
    let resp = app
        .call(
            &workers[0],
            "research/judge_report",
            &[("campaign_id", &id)],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    // Test pairs came one in each block of five served pairs.
    let per_worker: Vec<(i64, i64)> = sqlx::query_as(
        r#"select count(*), count(*) filter (where is_test) from judge_assignment group by app_user_id"#,
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    for (served, tests) in per_worker {
        let blocks = served / 5;
        assert!(
            tests >= blocks.min(6) && tests <= (served + 4) / 5,
            "{served} served, {tests} tests"
        );
    }
    assert_gate_counts_match_history(&pool, &id).await;
    app.stop().await;
}

/// The same guarantees under adaptive redundancy, the default for new campaigns: twenty workers
/// at once while pairs settle at three agreeing votes with leases still out. No pair goes beyond
/// its maximum or to a worker twice, the counters match the judgments, and every pair has its
/// label.
#[sqlx::test(migrations = "../migrations")]
async fn twenty_concurrent_workers_under_adaptive_redundancy_never_overfill_a_pair_nor_see_one_twice(
    pool: PgPool,
) {
    let (app, _, id) = twenty_at_once(&pool, Some(3)).await;
    assert_gate_counts_match_history(&pool, &id).await;
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn no_worker_is_told_nothing_is_left_while_a_pair_they_have_not_seen_has_a_free_slot(
    pool: PgPool,
) {
    // Without test pairs every lease wants the same pair first (the one that most needs
    // judgments): 20 workers at once find it held by another request again and again. Each
    // must get the next free pair, not "nothing left".
    for test_pairs in [0, 6] {
        let app = spawn_app(pool.clone()).await;
        let (admin, _) = app.user_with_role("admin").await;
        let tests = tests_csv(test_pairs);
        let id = campaign(
            &app,
            &admin,
            Setup {
                test_every: if test_pairs > 0 { 5 } else { 0 },
                tests_csv: (test_pairs > 0).then_some(tests.as_str()),
                ..Setup::pairs(&pairs_csv(30))
            },
        )
        .await;
        let mut workers = Vec::new();
        for _ in 0..20 {
            workers.push(app.annotator().await.0);
        }
        let runs = workers.iter().map(|c| async {
            let (seen, last) = work(&app, c, &id, usize::MAX, truth).await;
            assert!(last.get("NothingLeft").is_some(), "{last}");
            // Slots are only taken here (no lease runs out, nobody is stopped), so a free slot
            // now was free when the worker was told that nothing was left.
            let free: i64 = sqlx::query_scalar(
                r#"select count(*) from judge_pair p
                   where p.campaign_id = $1::uuid and not p.is_test and p.open_slots > 0
                     and not exists (select 1 from judge_assignment a
                                     where a.pair_id = p.pair_id and a.app_user_id =
                                       (select app_user_id from judge_assignment
                                        where assignment_id = $2::uuid))"#,
            )
            .bind(&id)
            .bind(
                seen.first()
                    .expect("told nothing is left before a first pair"),
            )
            .fetch_one(&pool)
            .await
            .unwrap();
            assert_eq!(free, 0, "told nothing is left after {} pairs", seen.len());
        });
        futures::future::join_all(runs).await;
        assert_eq!(
            count(&pool, &format!("select count(*) from judge_pair where campaign_id = '{id}' and not is_test and open_slots > 0")).await,
            0
        );
        app.stop().await;
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn a_test_pair_looks_exactly_like_any_other_pair(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 2,
            tests_csv: Some(&tests_csv(4)),
            ..Setup::pairs(&pairs_csv(4))
        },
    )
    .await;
    let (worker, _) = app.annotator().await;
    let mut bodies: HashMap<bool, String> = HashMap::new();
    for _ in 0..4 {
        let resp = app
            .call(&worker, "judge/next", &[("campaign_id", &id)])
            .await;
        let body = resp.text().await.unwrap();
        let task: Value = serde_json::from_str(&body).unwrap();
        let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
        let is_test: bool = sqlx::query_scalar(
            "select is_test from judge_assignment where assignment_id = $1::uuid",
        )
        .bind(&a)
        .fetch_one(&pool)
        .await
        .unwrap();
        bodies.insert(is_test, body.clone());
        // Nothing in the payload gives a test pair away.
        assert!(!body.contains("Because test"), "{body}");
        assert!(!body.to_lowercase().contains("gold"), "{body}");
        assert!(!body.contains("is_test"), "{body}");
        json(answer(&app, &worker, &id, &a, truth(&task)).await).await;
    }
    let shape = |body: &str| {
        let v: Value = serde_json::from_str(body).unwrap();
        let judge = v["Judge"].as_object().unwrap().clone();
        let keys: Vec<(String, &'static str)> = judge
            .iter()
            .map(|(k, v)| {
                let kind = match v {
                    Value::String(s) if uuid::Uuid::parse_str(s).is_ok() => "uuid",
                    Value::String(_) => "string",
                    Value::Number(_) => "number",
                    Value::Object(_) => "object",
                    _ => "other",
                };
                (k.clone(), kind)
            })
            .collect();
        (keys, judge["guide"].clone())
    };
    assert_eq!(
        shape(&bodies[&true]),
        shape(&bodies[&false]),
        "test: {}\nordinary: {}",
        bodies[&true],
        bodies[&false]
    );
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_gate_stops_always_paraphrase_and_random_workers_and_keeps_an_honest_one(pool: PgPool) {
    // Seeded, with the pairs' order fixed: which check questions the bad workers draw decides
    // whether the test accuracy or kappa stops them, and a run should not depend on the draw.
    let app = spawn_app_seeded(pool.clone(), 20261129).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 5,
            gate_min_judgments: 15,
            gate_rule: Some("paper"),
            tests_csv: Some(&tests_csv(20)),
            ..Setup::pairs(&pairs_csv(60))
        },
    )
    .await;
    sqlx::query("update judge_pair set sort_key = hashtext(sentence1 || sentence2)")
        .execute(&pool)
        .await
        .unwrap();
    // Four honest workers judge 40 pairs each first, so the others have a majority to meet.
    for _ in 0..4 {
        let (c, _) = app.annotator().await;
        let (_, last) = work(&app, &c, &id, 40, truth).await;
        assert!(
            last.get("Judge").is_some(),
            "honest workers are kept: {last}"
        );
    }
    let (always, always_name) = app.annotator().await;
    let (random, random_name) = app.annotator().await;
    let (honest, honest_name) = app.annotator().await;
    let (_, last) = work(&app, &always, &id, 40, |_| true).await;
    assert!(last.get("Stopped").is_some(), "{last}");
    let message = last["Stopped"]["message"].as_str().unwrap();
    assert!(message.contains("quality bar"), "{message}");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let (_, last) = work(&app, &random, &id, 40, |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state & 1 == 1
    })
    .await;
    assert!(last.get("Stopped").is_some(), "{last}");
    let (seen, last) = work(&app, &honest, &id, 40, truth).await;
    assert_eq!(seen.len(), 40);
    assert!(last.get("Judge").is_some(), "{last}");

    // The change is stored with its numbers, and the stopped workers' judgments are untrusted.
    let status = |name: &str| {
        let pool = pool.clone();
        let name = name.to_owned();
        async move {
            sqlx::query_as::<_, (String, i64, i64)>(
                r#"select w.status,
                          (select count(*) from judge_worker_event e where e.app_user_id = w.app_user_id
                             and e.status = 'stopped' and e.judgments >= 15 and e.changed_by is null),
                          (select count(*) from judge_judgment j where j.app_user_id = w.app_user_id and j.trusted)
                   from judge_worker w join app_user u using (app_user_id) where u.username = $1"#,
            )
            .bind(name)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    assert_eq!(status(&always_name).await, ("stopped".into(), 1, 0));
    assert_eq!(status(&random_name).await, ("stopped".into(), 1, 0));
    assert_eq!(status(&honest_name).await, ("active".into(), 0, 40));
    // The answer that stopped a worker leased their next pair in the same statement as it
    // counted (`db::judge::WorkerUpdate`); that pair went back as though never leased. The
    // stopped hold no pair, each serving counted is an assignment (on the worker and on the
    // test pairs), and every ordinary slot is a judgment, a live lease or open.
    let (held, miscounted, slots, test_servings): (i64, i64, i64, i64) = sqlx::query_as(
        r#"select
             (select count(*) from judge_assignment a join app_user u using (app_user_id)
              where u.username = any($1) and a.status = 'leased'),
             (select count(*) from judge_worker w where w.campaign_id = $2::uuid
                and w.served_count <> (select count(*) from judge_assignment a
                                       where a.campaign_id = w.campaign_id
                                         and a.app_user_id = w.app_user_id)),
             (select count(*) from judge_pair p where p.campaign_id = $2::uuid and not p.is_test
                and p.open_slots <> 6
                  - (select count(*) from judge_judgment j
                     where j.pair_id = p.pair_id and not j.republished)
                  - (select count(*) from judge_assignment a
                     where a.pair_id = p.pair_id and a.status = 'leased')),
             (select coalesce(sum(test_served), 0)::int8 from judge_pair
              where campaign_id = $2::uuid and is_test)
               - (select count(*) from judge_assignment where campaign_id = $2::uuid and is_test)"#,
    )
    .bind(vec![always_name.clone(), random_name.clone()])
    .bind(&id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((held, miscounted, slots, test_servings), (0, 0, 0, 0));
    // Pair counters hold only trusted votes.
    let drift: i64 = sqlx::query_scalar(
        r#"select count(*) from judge_pair p
           where p.n_judgments <>
                   (select count(*) from judge_judgment j where j.pair_id = p.pair_id and j.trusted)
              or p.n_paraphrase <>
                   (select count(*) from judge_judgment j
                    where j.pair_id = p.pair_id and j.trusted and j.is_paraphrase)"#,
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(drift, 0);
    // The researcher's dashboard counts a stopped worker's judgments as the history does, not
    // as the trusted ones (none), and flags low test accuracy.
    let (researcher, _) = app.user_with_role("researcher").await;
    let report = judge_report(&app, &researcher, &id).await;
    let rows = report["workers"].as_array().unwrap();
    let stops: Vec<&serde_json::Value> = report["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["status"] == "stopped")
        .collect();
    assert_eq!(stops.len(), 2, "{report}");
    for e in stops {
        let row = rows.iter().find(|w| w["worker"] == e["worker"]).unwrap();
        assert_eq!(row["status"], "stopped");
        assert_eq!(row["judgments"], 0, "no trusted judgment is left: {row}");
        assert_eq!(row["judgments_made"], e["judgments"], "{row} {e}");
    }
    let flagged = |status: &str| {
        rows.iter()
            .filter(|w| w["status"] == status && w["low_test_accuracy"] == true)
            .count()
    };
    assert_eq!(
        flagged("active"),
        0,
        "honest workers answer every check: {report}"
    );
    assert!(flagged("stopped") >= 1, "{report}");
    // The flag is the bar over at least two check questions, whatever the status (the worker
    // who always says "paraphrase" may have drawn only paraphrase checks and been stopped by
    // kappa).
    for w in rows {
        let low = w["tests_answered"].as_i64().unwrap() >= 2
            && w["test_accuracy"].as_f64().is_some_and(|a| a <= 0.85);
        assert_eq!(w["low_test_accuracy"], low, "{w}");
    }
    // Gold rows of the pairs export count every answer their pair got, the stopped workers'
    // too (their trusted counters lost them: the rows said 0).
    let csv_text = app
        .get(
            &researcher,
            &format!("/export/judge/{id}?spreadsheet_safe=false"),
        )
        .await
        .text()
        .await
        .unwrap();
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let (mut gold_answers, mut gold_yes) = (0i64, 0i64);
    for r in reader.records() {
        let r = r.unwrap();
        if &r[8] == "1" {
            gold_answers += r[4].parse::<i64>().unwrap();
            gold_yes += r[3].parse::<i64>().unwrap();
        }
    }
    let (answers, yes): (i64, i64) = sqlx::query_as(
        "select count(*), count(*) filter (where is_paraphrase) from judge_judgment where is_test",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let untrusted: i64 = count(
        &pool,
        "select count(*) from judge_judgment where is_test and not trusted",
    )
    .await;
    assert!(untrusted > 0, "the stopped workers answered test pairs");
    assert_eq!((gold_answers, gold_yes), (answers, yes));

    // The admin sees it and reverses it; the worker goes on with trusted judgments.
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    let row = overview["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["username"] == always_name.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["status"], "stopped");
    assert!(row["last_reason"].as_str().unwrap().len() > 10);
    let resp = app
        .call(
            &admin,
            "admin/set_judge_worker_status",
            &[
                ("campaign_id", &id),
                ("user_id", row["user_id"].as_str().unwrap()),
                ("status", "active"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let (st, _, trusted) = status(&always_name).await;
    assert_eq!(st, "active");
    assert!(trusted > 0);
    assert!(next(&app, &always, &id).await.get("Judge").is_some());
    // Annotators cannot do that.
    let resp = app
        .call(
            &random,
            "admin/set_judge_worker_status",
            &[
                ("campaign_id", &id),
                ("user_id", &app.user_id(&random_name).await),
                ("status", "active"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    assert_gate_counts_match_history(&pool, &id).await;
    app.stop().await;
}

/// The gate is said before the first pair, a worker missing check questions
/// is warned before the gate applies, and a stopped worker's home page no longer lists the
/// campaign (other workers' still does).
#[sqlx::test(migrations = "../migrations")]
async fn the_gate_is_said_up_front_warns_before_it_stops_and_then_leaves_the_home_page(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 5,
            gate_min_judgments: 15,
            gate_rule: Some("paper"),
            tests_csv: Some(&tests_csv(20)),
            ..Setup::pairs(&pairs_csv(60))
        },
    )
    .await;
    let listed = |v: Value| {
        v.as_array()
            .unwrap()
            .iter()
            .any(|c| c["campaign_id"].as_str() == Some(id.as_str()))
    };
    let (careless, _) = app.annotator().await;
    let (honest, _) = app.annotator().await;
    let first = next(&app, &careless, &id).await;
    let rule = first["Judge"]["guide"]["quality_rule"].as_str().unwrap();
    assert!(
        rule.contains("one pair in every 5 is a check question"),
        "{rule}"
    );
    assert!(
        rule.contains("more than 85% of your check answers"),
        "{rule}"
    );
    assert!(rule.contains("from your 15th judgment on"), "{rule}");
    // The double-press guard's minimum reaches the page (the campaign's default).
    assert_eq!(first["Judge"]["guide"]["min_display_ms"], 300);

    // Right on ordinary pairs, wrong on every check: warned at each missed check from the second
    // on, before judgment 15, and stopped once the gate applies.
    let mut warnings = Vec::new();
    let mut tests_missed = 0;
    let mut stopped = false;
    for _ in 0..30 {
        let task = next(&app, &careless, &id).await;
        let Some(judge) = task.get("Judge") else {
            break;
        };
        let is_test = judge["sentence1"].as_str().unwrap().starts_with("Test");
        let a = judge["assignment_id"].as_str().unwrap().to_owned();
        let answer_given = if is_test { !truth(&task) } else { truth(&task) };
        let outcome = json(answer(&app, &careless, &id, &a, answer_given).await).await;
        tests_missed += usize::from(is_test);
        if outcome["stopped"].is_string() {
            stopped = true;
            assert!(
                outcome["warning"].is_null(),
                "a stop is said by the stop: {outcome}"
            );
            break;
        }
        // Only a missed check, which its feedback reveals anyway, brings the warning: one
        // after an ordinary pair would tell which pairs were checks.
        if let Some(w) = outcome["warning"].as_str() {
            assert!(
                is_test && tests_missed >= 2,
                "warned after {tests_missed} missed (this one a check: {is_test}): {w}"
            );
            warnings.push((outcome["judged"].as_i64().unwrap(), w.to_owned()));
        } else {
            assert!(
                !is_test || tests_missed < 2,
                "{tests_missed} checks missed and no warning: {outcome}"
            );
        }
    }
    assert!(stopped, "the careless worker is stopped");
    let (at, first_warning) = warnings.first().expect("a warning before the stop");
    assert!(
        *at < 15,
        "the warning comes before the gate applies (at {at})"
    );
    assert!(
        first_warning.contains("0 of 2 check questions"),
        "{first_warning}"
    );
    assert!(
        first_warning.contains("from their 15th judgment on"),
        "{first_warning}"
    );

    // The stopped worker's home page no longer lists the campaign; the stop page says their
    // work counts; another worker still sees it.
    let mine = json(app.call(&careless, "list_my_campaigns", &[]).await).await;
    assert!(!listed(mine), "a stopped worker's list");
    let task = next(&app, &careless, &id).await;
    let message = task["Stopped"]["message"].as_str().unwrap();
    assert!(message.contains("count as work done"), "{message}");
    let theirs = json(app.call(&honest, "list_my_campaigns", &[]).await).await;
    assert!(listed(theirs), "another worker's list");
}

/// The quality targets through the real server, under the pooled-evidence rule it was made for:
/// honest workers of 80-95% accuracy, always-"paraphrase" workers and workers right exactly half
/// the time judge one campaign side by side (one answer each per round; a fifth of the crowd is
/// bad) through the HTTP API and the gate the server runs (6 judgments per pair, a test pair in
/// every 5, the gate from judgment 30). Mistakes are spread evenly rather than drawn, and the
/// server's draws (where each block's test pair goes, which test pair comes) are seeded, so the
/// outcome does not depend on luck; `domain/judge/simulation.rs` measures the rates with
/// coin-flip workers. (Unseeded, about one run in thirty stopped one of the 16 honest workers,
/// near the simulated ~1% per honest worker.)
#[sqlx::test(migrations = "../migrations")]
async fn honest_workers_are_kept_and_bad_ones_stopped_within_30_judgments(pool: PgPool) {
    crowd_through_the_gate(pool, Some("evidence"), 30, [5, 10, 15, 20]).await;
}

/// The same crowd under the default rule (MultiPIT's minimum decided with confidence, from
/// judgment 20), with honest workers as the paper's threshold defines them: right 90-97% of
/// the time. The bad ones are stopped by judgment 30, none of the honest ones.
#[sqlx::test(migrations = "../migrations")]
async fn the_default_confidence_gate_keeps_honest_workers_and_stops_bad_ones(pool: PgPool) {
    crowd_through_the_gate(pool, None, 20, [3, 5, 8, 10]).await;
}

/// 16 honest workers (four at each error rate in `honest_errors`, per 100), 2
/// always-"paraphrase" and 2 right on every other answer, through campaign settings `rule` and
/// `gate_from`; asserts every bad worker is stopped within 30 judgments and no honest one within
/// 36.
async fn crowd_through_the_gate(
    pool: PgPool,
    rule: Option<&str>,
    gate_from: u32,
    honest_errors: [u32; 4],
) {
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Kind {
        /// Wrong this many times in 100, evenly spread.
        Honest(u32),
        AlwaysParaphrase,
        /// Right on every other answer.
        Half,
    }
    struct Worker {
        client: Client,
        name: String,
        kind: Kind,
        answered: u32,
        stopped_at: Option<u32>,
    }
    let app = spawn_app_seeded(pool.clone(), 20261124).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 5,
            gate_min_judgments: gate_from,
            gate_rule: rule,
            tests_csv: Some(&tests_csv(40)),
            ..Setup::pairs(&pairs_csv(160))
        },
    )
    .await;
    // The pairs' order (drawn at import) is fixed too, so a run serves the same pairs every time.
    sqlx::query("update judge_pair set sort_key = hashtext(sentence1 || sentence2)")
        .execute(&pool)
        .await
        .unwrap();
    // A crowd of 20: 16 honest, 2 always-"paraphrase" and 2 right half the time. The honest
    // ones start a few rounds earlier, as regulars do.
    let mut kinds: Vec<Kind> = honest_errors
        .repeat(4)
        .into_iter()
        .map(Kind::Honest)
        .collect();
    kinds.extend([Kind::AlwaysParaphrase; 2]);
    kinds.extend([Kind::Half; 2]);
    let mut workers = Vec::new();
    for kind in kinds {
        let (client, name) = app.annotator().await;
        workers.push(Worker {
            client,
            name,
            kind,
            answered: 0,
            stopped_at: None,
        });
    }
    for round in 0..42 {
        let head_start = 6;
        for w in workers.iter_mut().filter(|w| w.stopped_at.is_none()) {
            let honest = matches!(w.kind, Kind::Honest(_));
            if (honest && round >= 36) || (!honest && round < head_start) {
                continue;
            }
            let task = next(&app, &w.client, &id).await;
            let a = task["Judge"]["assignment_id"]
                .as_str()
                .unwrap_or_else(|| panic!("{} got no pair: {task}", w.name))
                .to_owned();
            let right = truth(&task);
            let i = w.answered;
            let choice = match w.kind {
                Kind::Honest(e) => {
                    let wrong = (i + 1) * e / 100 > i * e / 100;
                    right != wrong
                }
                Kind::AlwaysParaphrase => true,
                Kind::Half => {
                    if i % 2 == 0 {
                        right
                    } else {
                        !right
                    }
                }
            };
            let outcome = json(answer(&app, &w.client, &id, &a, choice).await).await;
            w.answered += 1;
            if outcome["stopped"].is_string() {
                w.stopped_at = Some(w.answered);
                assert!(next(&app, &w.client, &id).await.get("Stopped").is_some());
            }
        }
    }
    let reasons: Vec<(String, String)> = sqlx::query_as(
        "select u.username, e.reason from judge_worker_event e join app_user u using (app_user_id)",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    for w in &workers {
        match w.kind {
            Kind::Honest(_) => assert_eq!(
                (w.stopped_at, w.answered),
                (None, 36),
                "honest {:?} was stopped: {:?}",
                w.kind,
                reasons.iter().find(|(n, _)| *n == w.name)
            ),
            _ => assert!(
                w.stopped_at.is_some_and(|n| n <= 30),
                "{:?} not stopped within 30: {:?}",
                w.kind,
                w.stopped_at
            ),
        }
    }
    // Each stop is on record with its reason, and the stopped workers' votes no longer count.
    let recorded = count(
        &pool,
        "select count(*) from judge_worker_event where status = 'stopped' and changed_by is null and length(reason) > 10",
    )
    .await;
    assert_eq!(recorded, 4);
    let worker_drift = count(
        &pool,
        r#"select count(*) from judge_worker w where (w.judgments, w.tests_answered, w.tests_correct) <>
               (select count(*)::int, (count(*) filter (where is_test))::int, (count(*) filter (where is_correct))::int
                from judge_judgment j where j.campaign_id = w.campaign_id and j.app_user_id = w.app_user_id)"#,
    )
    .await;
    assert_eq!(
        worker_drift, 0,
        "the workers' counters match their judgments"
    );
    let drift = count(
        &pool,
        r#"select count(*) from judge_pair p where p.n_judgments <>
               (select count(*) from judge_judgment j where j.pair_id = p.pair_id and j.trusted)"#,
    )
    .await;
    assert_eq!(drift, 0);
    assert_gate_counts_match_history(&pool, &id).await;
    assert_lead_backfill_matches_history(&pool, &id).await;
    app.stop().await;
}

/// The dashboard's statistics are computed once and served from the cache while nothing they
/// count changes; new judgments make the next load stale (and say so) while they are counted in
/// the background, and a later load has them.
#[sqlx::test(migrations = "../migrations")]
async fn the_dashboard_caches_its_statistics_and_catches_up_with_new_judgments(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(&app, &admin, Setup::pairs(&pairs_csv(4))).await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let report = || async { judge_report(&app, &researcher, &id).await };
    let (first, _) = app.annotator().await;
    work(&app, &first, &id, 4, truth).await;
    let cold = report().await;
    assert_eq!(cold["agreement"]["judgments"], 4);
    assert_eq!(cold["stale"], false);
    // No pair is complete and none judged twice: no chart of zeros, but words.
    assert_eq!(cold["votes_svg"], serde_json::Value::Null, "{cold}");
    assert_eq!(cold["over_time_svg"], serde_json::Value::Null, "{cold}");
    let warm = report().await;
    assert_eq!(
        (&warm["computed_at"], &warm["compute_ms"], &warm["stale"]),
        (
            &cold["computed_at"],
            &cold["compute_ms"],
            &serde_json::json!(false)
        ),
        "an unchanged campaign is served from the cache"
    );

    let (second, _) = app.annotator().await;
    work(&app, &second, &id, 2, truth).await;
    let stale = report().await;
    assert_eq!(stale["stale"], true);
    assert_eq!(stale["agreement"]["judgments"], 4);
    assert_eq!(stale["workers"].as_array().unwrap().len(), 2);
    let mut fresh = stale;
    for _ in 0..100 {
        fresh = report().await;
        if fresh["stale"] == false {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(fresh["stale"], false, "{fresh}");
    assert_eq!(fresh["agreement"]["judgments"], 6);
    let html = dashboard_page(&app, &researcher, &id).await;
    assert!(html.contains("computed at"), "{html}");
    assert!(html.contains("No complete pairs yet"), "{html}");
    assert!(!html.contains("class=\"chart votes\""), "{html}");
    app.stop().await;
}

/// Test pairs uploaded without explanations get them in bulk by uploading
/// the same file again with an `explanation` column; a row whose gold label disagrees with the
/// stored one changes nothing, and the same upload twice changes nothing the second time.
#[sqlx::test(migrations = "../migrations")]
async fn uploading_test_pairs_again_adds_their_explanations(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let bare: String = tests_csv(6)
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_owned() + "\n")
        .collect();
    assert!(
        bare.starts_with("sentence1,sentence2,gold_label\n"),
        "{bare}"
    );
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 2,
            tests_csv: Some(&bare),
            ..Setup::pairs(&pairs_csv(6))
        },
    )
    .await;
    let explained = || {
        count(
            &pool,
            "select count(*) from judge_pair where is_test and gold_explanation is not null",
        )
    };
    assert_eq!(explained().await, 0);
    // Test 5's row claims the other label: its explanation is not taken.
    let again = tests_csv(6).replace(
        "Test 5 second sentence [N].,0,",
        "Test 5 second sentence [N].,1,",
    );
    let upload = |content: String| {
        let (app, admin, id) = (&app, &admin, &id);
        async move {
            json(
                app.call(
                    admin,
                    "admin/import_pairs",
                    &[
                        ("campaign_id", id.as_str()),
                        ("filename", "gold.csv"),
                        ("content", content.as_str()),
                        ("labels_are_tests", "true"),
                    ],
                )
                .await,
            )
            .await
        }
    };
    let summary = upload(again.clone()).await;
    assert_eq!(
        (&summary["imported"], &summary["explanations_updated"]),
        (&serde_json::json!(0), &serde_json::json!(5)),
        "{summary}"
    );
    assert_eq!(explained().await, 5);
    let stored: Option<String> = sqlx::query_scalar(
        "select gold_explanation from judge_pair where sentence1 = 'Test 2 first sentence.'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(stored.as_deref(), Some("Because test 2 is P."));
    let summary = upload(again.clone()).await;
    assert_eq!(summary["explanations_updated"], 0, "{summary}");
    // Changed explanations replace the stored ones; an ordinary pair with a test pair's
    // sentences is not touched.
    let ordinary = "sentence1,sentence2\nTest 9 first sentence.,Test 9 second sentence [N].\n";
    json(
        app.call(
            &admin,
            "admin/import_pairs",
            &[
                ("campaign_id", id.as_str()),
                ("filename", "p.csv"),
                ("content", ordinary),
                ("labels_are_tests", "false"),
            ],
        )
        .await,
    )
    .await;
    let reworded = again.replace("Because test", "Since test")
        + "Test 9 first sentence.,Test 9 second sentence [N].,0,Since test 9 is N.\n";
    let summary = upload(reworded).await;
    assert_eq!(summary["explanations_updated"], 5, "{summary}");
    let stored: Option<String> = sqlx::query_scalar(
        "select gold_explanation from judge_pair where sentence1 = 'Test 2 first sentence.'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(stored.as_deref(), Some("Since test 2 is P."));
    let (is_test, expl): (bool, Option<String>) = sqlx::query_as(
        "select is_test, gold_explanation from judge_pair where sentence1 = 'Test 9 first sentence.'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((is_test, expl), (false, None));
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_missed_test_pair_shows_the_answer_and_its_explanation(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 2,
            tests_csv: Some(&tests_csv(6)),
            ..Setup::pairs(&pairs_csv(6))
        },
    )
    .await;
    let (worker, _) = app.annotator().await;
    let mut missed = 0;
    for _ in 0..6 {
        let task = next(&app, &worker, &id).await;
        let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
        let wrong = !truth(&task);
        let outcome = json(answer(&app, &worker, &id, &a, wrong).await).await;
        let is_test = task["Judge"]["sentence1"]
            .as_str()
            .unwrap()
            .starts_with("Test");
        if is_test {
            missed += 1;
            assert_eq!(outcome["feedback"]["is_paraphrase"], Value::Bool(!wrong));
            let why = outcome["feedback"]["explanation"].as_str().unwrap();
            assert!(why.starts_with("Because test"), "{why}");
            // Pressing again answers the same, and stores nothing new.
            let again = json(answer(&app, &worker, &id, &a, wrong).await).await;
            assert_eq!(again["was_already_answered"], true);
            assert_eq!(again["feedback"], outcome["feedback"]);
        } else {
            assert!(outcome["feedback"].is_null(), "{outcome}");
        }
    }
    assert_eq!(missed, 3, "one test pair in every two");
    let n: i64 = count(&pool, "select count(*) from judge_judgment").await;
    assert_eq!(n, 6);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn leases_renew_on_reload_and_expire_when_abandoned(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 1,
            ..Setup::pairs("sentence1,sentence2\nOnly one.,Just one.\n")
        },
    )
    .await;
    let (a, _) = app.annotator().await;
    let (b, _) = app.annotator().await;
    let first = next(&app, &a, &id).await;
    let again = next(&app, &a, &id).await;
    assert_eq!(first, again, "a reload gives the same pair back");
    // A holds the only pair: B is asked to wait for it, not told that nothing is left.
    assert!(next(&app, &b, &id).await.get("Waiting").is_some());

    // A abandons the pair: once the lease has run out, B gets it.
    sqlx::query("update judge_assignment set lease_expires_at = now() - interval '1 second'")
        .execute(&pool)
        .await
        .unwrap();
    let task_b = next(&app, &b, &id).await;
    let ab = task_b["Judge"]["assignment_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // A's late answer finds the slot taken; B's is stored.
    let aa = first["Judge"]["assignment_id"].as_str().unwrap();
    let resp = answer(&app, &a, &id, aa, true).await;
    assert_eq!(resp.status(), StatusCode::CONFLICT);
    json(answer(&app, &b, &id, &ab, true).await).await;
    let n: i64 = count(&pool, "select count(*) from judge_judgment").await;
    assert_eq!(n, 1);
    // Someone else's assignment is not found.
    let resp = answer(&app, &a, &id, &ab, false).await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

/// Every live lease of the campaign `id` runs out and is swept, as any server's next lease would
/// sweep it; returns how many were swept.
async fn run_out_leases(pool: &PgPool, id: &str) -> i64 {
    sqlx::query(
        "update judge_assignment set lease_expires_at = now() - interval '1 second'
         where campaign_id = $1::uuid and status = 'leased'",
    )
    .bind(id)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query_scalar("select judge_expire_leases($1::uuid)")
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// An answer to a lease that ran out, sent after another tab leased the next pair, brings that
/// pair back (its lease renewed) rather than a third.
#[sqlx::test(migrations = "../migrations")]
async fn a_late_answer_from_one_tab_brings_the_pair_another_tab_holds(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 1,
            ..Setup::pairs(&pairs_csv(4))
        },
    )
    .await;
    let (w, _) = app.annotator().await;
    let first = next(&app, &w, &id).await;
    let first_id = first["Judge"]["assignment_id"].as_str().unwrap().to_owned();
    // The lease runs out and is swept (as any server's next lease would).
    assert_eq!(run_out_leases(&pool, &id).await, 1);
    // The second tab gets a new pair; the first tab answers its old one late.
    let second = next(&app, &w, &id).await;
    let second_id = second["Judge"]["assignment_id"].as_str().unwrap();
    assert_ne!(second_id, first_id);
    let outcome = json(answer(&app, &w, &id, &first_id, truth(&first)).await).await;
    assert_eq!(
        outcome["next"]["Judge"]["assignment_id"], second_id,
        "the pair the other tab holds comes next: {outcome}"
    );
    assert_eq!(outcome["next"]["Judge"]["judged"], 1);
    assert_eq!(
        count(
            &pool,
            "select count(*) from judge_assignment where status = 'leased'"
        )
        .await,
        1
    );
    assert_eq!(next(&app, &w, &id).await, outcome["next"]);
    app.stop().await;
}

/// An answer to a lease that ran out takes its pair's slot again and counts its judgment; when
/// others took the last slot meanwhile, the worker is told so and nothing is stored.
#[sqlx::test(migrations = "../migrations")]
async fn a_late_answer_takes_its_slot_again_or_is_told_the_pair_went_to_another_worker(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 1,
            ..Setup::pairs(&pairs_csv(2))
        },
    )
    .await;
    let slots = |pair: String| {
        let pool = pool.clone();
        async move {
            sqlx::query_as::<_, (i32, i32)>(
                "select open_slots, n_judgments from judge_pair where pair_id = $1::uuid",
            )
            .bind(pair)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    let pair_of = |assignment: String| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, String>(
                "select pair_id::text from judge_assignment where assignment_id = $1::uuid",
            )
            .bind(assignment)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    let (a, _) = app.annotator().await;
    let (b, _) = app.annotator().await;
    // a's lease runs out and its slot goes back; a answers late and takes it again.
    let first = next(&app, &a, &id).await;
    let first_id = first["Judge"]["assignment_id"].as_str().unwrap().to_owned();
    let first_pair = pair_of(first_id.clone()).await;
    assert_eq!(run_out_leases(&pool, &id).await, 1);
    assert_eq!(slots(first_pair.clone()).await, (1, 0));
    let resp = answer(&app, &a, &id, &first_id, truth(&first)).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(slots(first_pair).await, (0, 1));
    // a's next lease runs out and b takes the pair's only slot: a's late answer is refused,
    // plainly, and leaves the pair as b holds it.
    let outcome = json(resp).await;
    let second_id = outcome["next"]["Judge"]["assignment_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let second_pair = pair_of(second_id.clone()).await;
    assert_eq!(run_out_leases(&pool, &id).await, 1);
    let taken = next(&app, &b, &id).await;
    assert_eq!(
        pair_of(taken["Judge"]["assignment_id"].as_str().unwrap().to_owned()).await,
        second_pair
    );
    assert_eq!(slots(second_pair.clone()).await, (0, 0));
    let resp = answer(&app, &a, &id, &second_id, true).await;
    assert_eq!(resp.status(), StatusCode::CONFLICT);
    assert!(
        resp.text()
            .await
            .unwrap()
            .contains("went to another worker"),
        "the worker is told what happened"
    );
    assert_eq!(slots(second_pair).await, (0, 0));
    assert_eq!(
        count(&pool, "select count(*) from judge_judgment").await,
        1,
        "only the first late answer is stored"
    );
    app.stop().await;
}

/// The judging calls take the caller from the session without reloading the account (a
/// statement fewer per judgment); the worker-lock statement reads the account's status instead.
/// A worker blocked mid-study is refused at their next call, nothing is stored, and their
/// session ends as any other call would end it.
#[sqlx::test(migrations = "../migrations")]
async fn a_worker_blocked_mid_study_is_refused_at_their_next_call_and_their_session_ends(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 1,
            ..Setup::pairs(&pairs_csv(4))
        },
    )
    .await;
    let (w, name) = app.annotator().await;
    let user = app.user_id(&name).await;
    let block = |blocked: &'static str| {
        let (admin, user) = (&admin, &user);
        let app = &app;
        async move {
            let resp = app
                .call(
                    admin,
                    "admin/set_user_blocked",
                    &[("user_id", user), ("blocked", blocked)],
                )
                .await;
            assert_eq!(resp.status(), StatusCode::OK);
        }
    };
    let task = next(&app, &w, &id).await;
    let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();

    block("true").await;
    let resp = answer(&app, &w, &id, &a, truth(&task)).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(count(&pool, "select count(*) from judge_judgment").await, 0);
    block("false").await;
    // The refusal ended the session: unblocking does not bring it back.
    let resp = app.call(&w, "judge/next", &[("campaign_id", &id)]).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(app.whoami(&w).await, None);

    // A new login works on; a block refuses `judge/next` as well.
    let w = client();
    assert_eq!(
        app.login(&w, &name, PASSWORD).await.status(),
        StatusCode::OK
    );
    assert_eq!(next(&app, &w, &id).await, task, "the lease was kept");
    block("true").await;
    let resp = app.call(&w, "judge/next", &[("campaign_id", &id)]).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(count(&pool, "select count(*) from judge_judgment").await, 0);
    app.stop().await;
}

/// Two servers on one database, each with its own copy of the campaign's settings
/// (`service::judge_campaign_cache`): a change made anywhere — through one server, or in SQL —
/// reaches the next request on both.
#[sqlx::test(migrations = "../migrations")]
async fn a_change_to_a_campaign_reaches_the_next_request_on_every_server(pool: PgPool) {
    let one = spawn_app(pool.clone()).await;
    let two = spawn_app(pool.clone()).await;
    let (admin, _) = one.user_with_role("admin").await;
    let pairs = pairs_csv(20);
    let id = campaign(
        &one,
        &admin,
        Setup {
            judgments_per_pair: 1,
            ..Setup::pairs(&pairs)
        },
    )
    .await;
    let (a, _) = one.annotator().await;
    let (b, _) = two.annotator().await;
    let guide = |task: &Value| {
        let g = &task["Judge"]["guide"];
        (
            g["title"].as_str().unwrap().to_owned(),
            g["definition"].as_str().unwrap().to_owned(),
        )
    };
    let task_a = next(&one, &a, &id).await;
    let task_b = next(&two, &b, &id).await;
    let before = ("Judging test".to_owned(), "loose".to_owned());
    assert_eq!(guide(&task_a), before);
    assert_eq!(guide(&task_b), before);

    // Edits made behind both servers' backs.
    sqlx::query("update campaign set title = 'Renamed study' where campaign_id = $1::uuid")
        .bind(&id)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("update judge_settings set definition = 'strict' where campaign_id = $1::uuid")
        .bind(&id)
        .execute(&pool)
        .await
        .unwrap();
    let after = ("Renamed study".to_owned(), "strict".to_owned());
    let a1 = task_a["Judge"]["assignment_id"].as_str().unwrap();
    let outcome = json(answer(&one, &a, &id, a1, true).await).await;
    assert_eq!(guide(&outcome["next"]), after, "server one: {outcome}");
    assert_eq!(guide(&next(&two, &b, &id).await), after, "server two");

    // Closed through server one: server two refuses the next answer at once.
    let set_status = |status: &'static str| {
        let (admin, id) = (&admin, &id);
        let one = &one;
        async move {
            let resp = one
                .call(
                    admin,
                    "admin/set_campaign_status",
                    &[("campaign_id", id), ("status", status)],
                )
                .await;
            assert_eq!(resp.status(), StatusCode::OK);
        }
    };
    set_status("closed").await;
    let b1 = task_b["Judge"]["assignment_id"].as_str().unwrap();
    let resp = answer(&two, &b, &id, b1, false).await;
    assert_eq!(resp.status(), StatusCode::CONFLICT);
    let resp = two.call(&b, "judge/next", &[("campaign_id", &id)]).await;
    assert_eq!(resp.status(), StatusCode::CONFLICT);
    // Reopened through server one: server two serves again, and the answer is stored once.
    set_status("open").await;
    json(answer(&two, &b, &id, b1, false).await).await;
    assert_eq!(count(&pool, "select count(*) from judge_judgment").await, 2);
    one.stop().await;
    two.stop().await;
}

/// Each server keeps the judging calls' sessions (`service::session_cache`) and checks its copy
/// against the stored record in the call's own first statement: a session changed, expired or
/// ended anywhere (through the other server, or in SQL) reaches the next judging call on every
/// server, and a refused call stores nothing.
#[sqlx::test(migrations = "../migrations")]
async fn a_session_changed_or_ended_anywhere_reaches_the_next_judging_call_on_every_server(
    pool: PgPool,
) {
    let one = spawn_app(pool.clone()).await;
    let two = spawn_app(pool.clone()).await;
    let (admin, _) = one.user_with_role("admin").await;
    let pairs = pairs_csv(20);
    let id = campaign(
        &one,
        &admin,
        Setup {
            judgments_per_pair: 1,
            ..Setup::pairs(&pairs)
        },
    )
    .await;
    // A worker's session: the one whose stored record names their id.
    let session_of = |user: String| {
        let pool = &pool;
        async move {
            sqlx::query_scalar::<_, String>(
                "select id from tower_sessions.session
                 where position(convert_to($1, 'UTF8') in data) > 0",
            )
            .bind(user)
            .fetch_one(pool)
            .await
            .unwrap()
        }
    };
    let (a, name_a) = one.annotator().await;
    let (b, name_b) = one.annotator().await;
    let (user_a, user_b) = (one.user_id(&name_a).await, one.user_id(&name_b).await);
    let (session_a, session_b) = (
        session_of(user_a.clone()).await,
        session_of(user_b.clone()).await,
    );
    let count_of = |what: &'static str, user: &str| {
        let sql = format!("select count(*) from {what} where app_user_id = '{user}'");
        let pool = &pool;
        async move { count(pool, &sql).await }
    };
    let assignment = |task: &Value| task["Judge"]["assignment_id"].as_str().unwrap().to_owned();

    // Both servers read a's session, and b's.
    let task_a = next(&one, &a, &id).await;
    assert_eq!(
        next(&two, &a, &id).await,
        task_a,
        "the same lease on both servers"
    );
    let task_b = next(&two, &b, &id).await;
    assert_eq!(next(&one, &b, &id).await, task_b);

    // a's stored record replaced by b's behind both servers' backs: their copies of a's session
    // no longer match it, so a's cookie now stands for b, on both.
    sqlx::query(
        "update tower_sessions.session
         set data = (select data from tower_sessions.session where id = $2) where id = $1",
    )
    .bind(&session_a)
    .bind(&session_b)
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(next(&one, &a, &id).await, task_b, "b's lease, not a's");
    let outcome = json(answer(&two, &a, &id, &assignment(&task_b), truth(&task_b)).await).await;
    assert_eq!(outcome["judged"], 1, "{outcome}");
    assert_eq!(count_of("judge_judgment", &user_b).await, 1);
    assert_eq!(count_of("judge_judgment", &user_a).await, 0);
    // a's pair is not b's: answering it with a's cookie finds no such assignment of b's.
    let resp = answer(&one, &a, &id, &assignment(&task_a), truth(&task_a)).await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert_eq!(count_of("judge_judgment", &user_a).await, 0);

    // b's session expired (in SQL): refused on both servers, which hold it, and nothing stored.
    let task_b2 = outcome["next"].clone();
    sqlx::query(
        "update tower_sessions.session set expiry_date = now() - interval '1 second' where id = $1",
    )
    .bind(&session_b)
    .execute(&pool)
    .await
    .unwrap();
    let resp = answer(&one, &b, &id, &assignment(&task_b2), truth(&task_b2)).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    let resp = two.call(&b, "judge/next", &[("campaign_id", &id)]).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(count_of("judge_judgment", &user_b).await, 1);

    // A third worker's session ended while server one holds it (a logout through server two
    // deletes the record, as here; the cookie is what a second tab still sends): server one
    // refuses their next answer, and a new login works on.
    let (c, name_c) = one.annotator().await;
    let user_c = one.user_id(&name_c).await;
    let session_c = session_of(user_c.clone()).await;
    let task_c = next(&one, &c, &id).await;
    sqlx::query("delete from tower_sessions.session where id = $1")
        .bind(&session_c)
        .execute(&pool)
        .await
        .unwrap();
    let resp = answer(&one, &c, &id, &assignment(&task_c), truth(&task_c)).await;
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(count_of("judge_judgment", &user_c).await, 0);
    let c = client();
    assert_eq!(
        one.login(&c, &name_c, PASSWORD).await.status(),
        StatusCode::OK
    );
    json(answer(&one, &c, &id, &assignment(&task_c), truth(&task_c)).await).await;
    assert_eq!(count_of("judge_judgment", &user_c).await, 1);
    one.stop().await;
    two.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn pair_files_import_all_or_nothing_and_gold_balance_is_watched(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 5,
            gate_min_judgments: 30,
            ..Setup::pairs("sentence1,sentence2\na,b\n")
        },
    )
    .await;
    let import = |name: &str, content: String, tests: bool| {
        let (id, name) = (id.clone(), name.to_owned());
        let admin = &admin;
        let app = &app;
        async move {
            app.call(
                admin,
                "admin/import_pairs",
                &[
                    ("campaign_id", &id),
                    ("filename", &name),
                    ("content", &content),
                    ("labels_are_tests", if tests { "true" } else { "false" }),
                ],
            )
            .await
        }
    };
    // A bad line: a message naming it, nothing imported.
    let resp = import(
        "bad.csv",
        "sentence1,sentence2,label\nx,y,1\nz,w,perhaps\n".into(),
        true,
    )
    .await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let msg = error_of(resp).await["Validation"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(msg.starts_with("line 3:"), "{msg}");
    assert_eq!(count(&pool, "select count(*) from judge_pair").await, 1);

    // The real corpora: MultiPIT expert (CSV) and Twitter URL votes (TSV, URL groups).
    if let Some(multipit) = shared_data(
        "multipit_expert/test.csv",
        "api::judge::pair_files_import_all_or_nothing (MultiPIT expert)",
    ) {
        let s = json(import("test.csv", multipit.clone(), false).await).await;
        let rows = csv::Reader::from_reader(multipit.as_bytes())
            .records()
            .count() as u64;
        assert_eq!(
            s["imported"].as_u64().unwrap() + s["duplicates_in_file"].as_u64().unwrap(),
            rows,
            "{s}"
        );
        // The expert set has pairs with the same text twice: kept, and counted.
        let same: i64 = count(
            &pool,
            "select count(*) from judge_pair where sentence1 = sentence2",
        )
        .await;
        assert!(same > 0);
        assert_eq!(s["identical"].as_i64().unwrap(), same, "{s}");
    }
    if let Some(votes) = shared_data(
        "twitter_url/test_votes.tsv",
        "api::judge::pair_files_import_all_or_nothing (Twitter URL votes)",
    ) {
        let s = json(import("test_votes.tsv", votes, false).await).await;
        assert!(s["imported"].as_u64().unwrap() > 1000, "{s}");
        let groups: i64 = count(
            &pool,
            "select count(distinct group_key) from judge_pair where group_key like 'https://%'",
        )
        .await;
        assert!(groups > 10, "{groups} URL groups");
    }

    // An all-paraphrase gold set is flagged.
    let gold = "sentence1,sentence2,label,explanation\ng1,h1,1,same\ng2,h2,1,same\ng3,h3,1,same\n";
    let s = json(import("gold.csv", gold.into(), true).await).await;
    assert_eq!(s["tests_in_file"], 3);
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert!(
        overview["gold_warning"].as_str().unwrap().contains("100%"),
        "{overview}"
    );
    let gold = "sentence1,sentence2,label\nn1,m1,0\nn2,m2,0\n";
    json(import("gold2.csv", gold.into(), true).await).await;
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert!(overview["gold_warning"].is_null(), "{overview}");
    assert_eq!(overview["test_pairs"], 5);

    // Annotators can neither import nor read gold labels.
    let (worker, _) = app.annotator().await;
    for (name, form) in [
        (
            "admin/import_pairs",
            vec![
                ("campaign_id", id.as_str()),
                ("filename", "x.csv"),
                ("content", "sentence1,sentence2\nq,r\n"),
                ("labels_are_tests", "false"),
            ],
        ),
        (
            "admin/list_pairs",
            vec![
                ("campaign_id", id.as_str()),
                ("tests_only", "true"),
                ("page", "0"),
            ],
        ),
        ("admin/judge_overview", vec![("campaign_id", id.as_str())]),
    ] {
        let resp = app.call(&worker, name, &form).await;
        assert_eq!(resp.status(), StatusCode::FORBIDDEN, "{name}");
    }
    // Admins can, and can mark a pair as a test pair.
    let pairs = json(
        app.call(
            &admin,
            "admin/list_pairs",
            &[("campaign_id", &id), ("tests_only", "false"), ("page", "0")],
        )
        .await,
    )
    .await;
    let pair = pairs
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["is_test"] == false)
        .unwrap();
    let resp = app
        .call(
            &admin,
            "admin/set_test_pair",
            &[
                ("campaign_id", &id),
                ("pair_id", pair["pair_id"].as_str().unwrap()),
                ("gold", "not_paraphrase"),
                ("explanation", "Different events."),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let tests = json(
        app.call(
            &admin,
            "admin/list_pairs",
            &[("campaign_id", &id), ("tests_only", "true"), ("page", "0")],
        )
        .await,
    )
    .await;
    assert_eq!(tests.as_array().unwrap().len(), 6);
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn bad_settings_are_refused_with_the_field_named(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let base = [
        ("title", "t"),
        ("instructions", ""),
        ("definition", "strict"),
        ("judgments_per_pair", "6"),
        ("test_every", "5"),
        ("min_test_accuracy", "0.85"),
        ("min_kappa", "0.2"),
        ("gate_min_judgments", "30"),
    ];
    for (field, value) in [
        ("definition", "vague"),
        ("test_every", "1"),
        ("min_test_accuracy", "2"),
        ("judgments_per_pair", "0"),
        ("gate_rule", "lenient"),
        ("min_display_ms", "6000"),
        ("gate_worse_by", "0.7"),
    ] {
        let mut form: Vec<(&str, &str)> = base
            .iter()
            .map(|&(k, v)| (k, if k == field { value } else { v }))
            .collect();
        if !base.iter().any(|(k, _)| *k == field) {
            form.push((field, value));
        }
        let resp = app.call(&admin, "admin/create_judge_campaign", &form).await;
        assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY, "{field}");
        assert_eq!(error_of(resp).await["Validation"]["field"], field);
    }
    // Thresholds that leave no room: paraphrase needs 3, not-paraphrase allows 3.
    let mut form = base.to_vec();
    form.push(("paraphrase_min_votes", "3"));
    form.push(("non_paraphrase_max_votes", "3"));
    let resp = app.call(&admin, "admin/create_judge_campaign", &form).await;
    assert_eq!(error_of(resp).await["Validation"]["field"], "thresholds");
    // A minimum below the worse level leaves the confidence rule no worse accuracy to test.
    let form: Vec<(&str, &str)> = base
        .iter()
        .map(|&(k, v)| (k, if k == "min_test_accuracy" { "0.1" } else { v }))
        .collect();
    let resp = app.call(&admin, "admin/create_judge_campaign", &form).await;
    assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_of(resp).await["Validation"]["field"], "gate_worse_by");
    let n: i64 = count(&pool, "select count(*) from campaign").await;
    assert_eq!(n, 0);
    // The worse level is stored and shown; left out, it is the default.
    for (given, stored) in [(Some("0.2"), 0.2), (None, 0.1)] {
        let mut form = base.to_vec();
        form.extend(given.map(|g| ("gate_worse_by", g)));
        let id = json(app.call(&admin, "admin/create_judge_campaign", &form).await)
            .await
            .as_str()
            .unwrap()
            .to_owned();
        let overview = json(
            app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
                .await,
        )
        .await;
        assert_eq!(overview["gate_worse_by"], stored);
    }
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn republishing_sets_aside_low_kappa_work_and_trusted_workers_replace_it(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 4,
            ..Setup::pairs(&pairs_csv(30))
        },
    )
    .await;
    for _ in 0..3 {
        let (c, _) = app.annotator().await;
        work(&app, &c, &id, usize::MAX, truth).await;
    }
    let (contrarian, name) = app.annotator().await;
    let (seen, _) = work(&app, &contrarian, &id, usize::MAX, |t| !truth(t)).await;
    assert_eq!(seen.len(), 30);

    let summary = json(
        app.call(
            &admin,
            "admin/republish",
            &[("campaign_id", &id), ("min_kappa", "0.4")],
        )
        .await,
    )
    .await;
    assert_eq!(summary["workers"], serde_json::json!([name]));
    assert_eq!(
        (summary["judgments"].as_i64(), summary["pairs"].as_i64()),
        (Some(30), Some(30))
    );
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(overview["pending_republished"], 30);
    assert_gate_counts_match_history(&pool, &id).await;
    // The contrarian is stopped; a new honest worker gets exactly those 30 pairs back.
    assert!(next(&app, &contrarian, &id).await.get("Stopped").is_some());
    let (fresh, _) = app.annotator().await;
    let (seen, last) = work(&app, &fresh, &id, usize::MAX, truth).await;
    assert_eq!(seen.len(), 30);
    assert!(last.get("NothingLeft").is_some());
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(overview["pending_republished"], 0);
    assert_eq!(overview["complete_pairs"], 30);
    // Reinstating the contrarian does not bring the replaced judgments back.
    let resp = app
        .call(
            &admin,
            "admin/set_judge_worker_status",
            &[
                ("campaign_id", &id),
                ("user_id", &app.user_id(&name).await),
                ("status", "active"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let (trusted, over): (i64, i64) = sqlx::query_as(
        r#"select (select count(*) from judge_judgment where trusted and republished),
                  (select count(*) from judge_pair where n_judgments > 4 or open_slots < 0)"#,
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((trusted, over), (0, 0));
    // The dashboard shows the history.
    let (researcher, _) = app.user_with_role("researcher").await;
    let report = judge_report(&app, &researcher, &id).await;
    let history = report["history"].as_array().unwrap();
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(history[0]["status"], "active");
    assert!(history[1]["reason"]
        .as_str()
        .unwrap()
        .starts_with("Republished"));
    assert_gate_counts_match_history(&pool, &id).await;
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_evidence_gate_keeps_a_worker_with_one_missed_test(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let form = [
        ("title", "Evidence gate"),
        ("instructions", ""),
        ("definition", "loose"),
        ("judgments_per_pair", "6"),
        ("test_every", "2"),
        ("min_test_accuracy", "0.85"),
        ("min_kappa", "0.2"),
        ("gate_min_judgments", "4"),
        ("gate_rule", "evidence"),
    ];
    let id = json(app.call(&admin, "admin/create_judge_campaign", &form).await)
        .await
        .as_str()
        .unwrap()
        .to_owned();
    for (name, content, tests) in [
        ("p.csv", pairs_csv(20), "false"),
        ("g.csv", tests_csv(10), "true"),
    ] {
        json(
            app.call(
                &admin,
                "admin/import_pairs",
                &[
                    ("campaign_id", &id),
                    ("filename", name),
                    ("content", &content),
                    ("labels_are_tests", tests),
                ],
            )
            .await,
        )
        .await;
    }
    app.call(
        &admin,
        "admin/set_campaign_status",
        &[("campaign_id", &id), ("status", "open")],
    )
    .await;
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(overview["gate_rule"], "evidence");
    // Misses the first test pair, then answers everything right: 1 miss in 5 tests is 80%,
    // which the paper's rule would stop at; the pooled evidence keeps the worker.
    let (worker, _) = app.annotator().await;
    let mut missed = false;
    let (seen, last) = work(&app, &worker, &id, 12, |t| {
        let is_test = t["Judge"]["sentence1"]
            .as_str()
            .unwrap()
            .starts_with("Test");
        if is_test && !missed {
            missed = true;
            !truth(t)
        } else {
            truth(t)
        }
    })
    .await;
    assert!(missed);
    assert_eq!(seen.len(), 12);
    assert!(last.get("Judge").is_some(), "{last}");
    // Kept, and the dashboard still flags the accuracy under the campaign's bar: the rule that kept the worker is not the researcher's only view.
    let (researcher, _) = app.user_with_role("researcher").await;
    let report = judge_report(&app, &researcher, &id).await;
    let row = &report["workers"][0];
    assert_eq!(row["status"], "active", "{report}");
    assert_eq!(row["judgments_made"], 12, "{row}");
    let accuracy = row["test_accuracy"].as_f64().unwrap();
    assert!(accuracy < 0.85, "{row}");
    assert_eq!(row["low_test_accuracy"], true, "{row}");
    let html = dashboard_page(&app, &researcher, &id).await;
    assert!(html.contains("low test accuracy"), "{html}");
    assert_gate_counts_match_history(&pool, &id).await;
    app.stop().await;
}

/// 60 pairs in 20 groups of 3, the truth written into sentence 2 as in `pairs_csv`; the
/// sentences carry a comma, quotes and a tab so the formats' quoting is exercised.
pub(crate) fn grouped_pairs_csv() -> String {
    let mut s = String::from("sentence1,sentence2,group\n");
    for i in 0..60 {
        let tag = if i % 3 == 0 { "N" } else { "P" };
        s.push_str(&format!(
            "\"Pair {i}, first \"\"sentence\"\"\tone.\",Pair {i} second sentence [{tag}].,g{}\n",
            i / 3
        ));
    }
    s
}

#[sqlx::test(migrations = "../migrations")]
async fn a_judged_campaign_exports_as_csv_jsonl_and_msrp_with_leakage_free_splits(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 3,
            ..Setup::pairs(&grouped_pairs_csv())
        },
    )
    .await;
    // Three honest workers judge every pair, so each pair's label is its truth.
    for _ in 0..3 {
        let (c, _) = app.annotator().await;
        work(&app, &c, &id, usize::MAX, truth).await;
    }
    let (researcher, _) = app.user_with_role("researcher").await;
    let get = |c: &Client, q: &str| {
        let url = app.url(&format!("/export/judge/{id}{q}"));
        let c = c.clone();
        async move { c.get(url).send().await.unwrap() }
    };

    // CSV: a header, 60 rows, labels equal to the truth, quoting intact.
    let resp = get(&researcher, "?format=csv").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    let text = resp.text().await.unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "id",
            "sentence1",
            "sentence2",
            "n_paraphrase",
            "n_judgments",
            "label",
            "posterior",
            "group",
            "gold",
            "split"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 60);
    for r in &rows {
        let expected = if r[2].contains("[P]") { "1" } else { "0" };
        assert_eq!(&r[5], expected, "{r:?}");
        assert_eq!(&r[4], "3");
        // The import folds whitespace (the tab); commas and quotes come back as written.
        assert!(r[1].contains(", first \"sentence\" one."), "{r:?}");
    }

    // JSON lines: the same rows.
    let text = get(&researcher, "?format=jsonl")
        .await
        .text()
        .await
        .unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 60);
    assert!(lines.iter().all(|l| l["label"] == 0 || l["label"] == 1));

    // MSRP's TSV: five columns, no quoting, tabs inside sentences become spaces.
    let text = get(&researcher, "?format=msrp").await.text().await.unwrap();
    let mut tsv = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .from_reader(text.as_bytes());
    assert_eq!(tsv.headers().unwrap().len(), 5);
    let tsv_rows: Vec<csv::StringRecord> = tsv.records().map(|r| r.unwrap()).collect();
    assert_eq!(tsv_rows.len(), 60);
    assert!(tsv_rows
        .iter()
        .all(|r| r.len() == 5 && !r[3].contains('\t')));

    // Splits: 80/10/10 of the rows by group, no group in two parts, the same for the same seed.
    let mut by_part: HashMap<String, Vec<String>> = HashMap::new();
    for part in ["train", "dev", "test"] {
        let text = get(&researcher, &format!("?split={part}&seed=7"))
            .await
            .text()
            .await
            .unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let groups: Vec<String> = r.records().map(|x| x.unwrap()[7].to_owned()).collect();
        by_part.insert(part.into(), groups);
    }
    assert_eq!(
        by_part["train"].len() + by_part["dev"].len() + by_part["test"].len(),
        60
    );
    assert_eq!((by_part["dev"].len(), by_part["test"].len()), (6, 6));
    for (a, b) in [("train", "dev"), ("train", "test"), ("dev", "test")] {
        let sa: BTreeSet<&String> = by_part[a].iter().collect();
        assert!(
            by_part[b].iter().all(|g| !sa.contains(g)),
            "{a} and {b} share a group"
        );
    }
    let again = get(&researcher, "?split=test&seed=7")
        .await
        .text()
        .await
        .unwrap();
    let mut r = csv::Reader::from_reader(again.as_bytes());
    let groups: Vec<String> = r.records().map(|x| x.unwrap()[7].to_owned()).collect();
    assert_eq!(groups, by_part["test"], "reproducible from the seed");

    // Bad options are named; annotators and strangers are refused.
    let resp = get(&researcher, "?format=xml").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(resp.text().await.unwrap().contains("format"));
    assert_eq!(
        get(&researcher, "?train=0.9").await.status(),
        StatusCode::BAD_REQUEST
    );
    let (annotator, _) = app.annotator().await;
    assert_eq!(get(&annotator, "").await.status(), StatusCode::FORBIDDEN);
    assert_eq!(get(&client(), "").await.status(), StatusCode::UNAUTHORIZED);
    app.stop().await;
}

/// A worker who has the test pairs' answers from elsewhere (here: from their text) and answers
/// the ordinary pairs without reading them passes every test pair; the dashboard flags them for
/// review, with the numbers, and not the honest workers.
#[sqlx::test(migrations = "../migrations")]
async fn a_worker_with_the_test_answers_is_flagged_for_review(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 5,
            tests_csv: Some(&tests_csv(20)),
            ..Setup::pairs(&pairs_csv(40))
        },
    )
    .await;
    let mut workers = Vec::new();
    let mut names = Vec::new();
    for _ in 0..4 {
        let (c, name) = app.annotator().await;
        workers.push(c);
        names.push(name);
    }
    // Honest workers 0-2 answer every pair as it is; worker 3 answers the test pairs right and
    // says "paraphrase" to every ordinary pair.
    for (i, w) in workers.iter().enumerate() {
        let mut task = next(&app, w, &id).await;
        while task.get("Judge").is_some() {
            let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
            let is_test = task["Judge"]["sentence1"]
                .as_str()
                .unwrap()
                .starts_with("Test ");
            let label = if i == 3 && !is_test {
                true
            } else {
                truth(&task)
            };
            let outcome = json(answer(&app, w, &id, &a, label).await).await;
            task = outcome["next"].clone();
        }
    }
    let (researcher, _) = app.user_with_role("researcher").await;
    let report = judge_report(&app, &researcher, &id).await;
    let flagged: Vec<&Value> = report["workers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["harvest_flag"] == true)
        .collect();
    assert_eq!(flagged.len(), 1, "{report}");
    let harvester = flagged[0];
    assert_eq!(harvester["test_accuracy"], 1.0, "{harvester}");
    let (agree, of) = (
        harvester["ordinary_agreement"][0].as_u64().unwrap(),
        harvester["ordinary_agreement"][1].as_u64().unwrap(),
    );
    assert_eq!(of, 40, "{harvester}");
    assert_eq!(agree, 20, "{harvester}");
    assert!(harvester["tests_vs_ordinary_p"].as_f64().unwrap() < 0.01);
    assert!(
        harvester["harvest_likelihood_ratio"].as_f64().unwrap() > 100.0,
        "{harvester}"
    );
    // Nobody else's answers look harvested.
    for w in report["workers"].as_array().unwrap() {
        if w["harvest_flag"] == false {
            assert!(
                w["harvest_likelihood_ratio"]
                    .as_f64()
                    .is_none_or(|r| r < 1.0),
                "{w}"
            );
        }
    }
    // The page says so, and marks the worker.
    let html = dashboard_page(&app, &researcher, &id).await;
    assert!(html.contains(r#"data-testid="harvest-flags""#), "{html}");
    assert_eq!(testids(&html, "harvest-flag"), 1);
    assert_eq!(testids(&html, "exclude-confirm"), 1);

    // The researcher excludes them in one action: their 40 judgments of ordinary pairs are set
    // aside, those 40 pairs go back in the queue, and they are stopped, with the reason.
    let pseudonym = harvester["worker"].as_str().unwrap().to_owned();
    let exclude = |c: &Client, worker: &str| {
        let (id, worker) = (id.clone(), worker.to_owned());
        let c = c.clone();
        let app = &app;
        async move {
            app.call(
                &c,
                "research/exclude_worker",
                &[("campaign_id", id.as_str()), ("worker", worker.as_str())],
            )
            .await
        }
    };
    assert_eq!(
        exclude(&workers[0], &pseudonym).await.status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        exclude(&researcher, "W00000000").await.status(),
        StatusCode::NOT_FOUND
    );
    // Only a flagged worker can be excluded this way.
    let honest = report["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["harvest_flag"] == false)
        .unwrap()["worker"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        exclude(&researcher, &honest).await.status(),
        StatusCode::CONFLICT
    );
    let open_before: i64 = count(
        &pool,
        "select sum(open_slots)::int8 from judge_pair where not is_test",
    )
    .await;
    let done = json(exclude(&researcher, &pseudonym).await).await;
    assert_eq!(
        (done["judgments"].as_i64(), done["pairs"].as_i64()),
        (Some(40), Some(40)),
        "{done}"
    );
    let open_after: i64 = count(
        &pool,
        "select sum(open_slots)::int8 from judge_pair where not is_test",
    )
    .await;
    assert_eq!(open_after - open_before, 40);
    // The statistics are counted again in the background: read them once they are.
    let mut report = judge_report(&app, &researcher, &id).await;
    for _ in 0..100 {
        if report["stale"] == false {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        report = judge_report(&app, &researcher, &id).await;
    }
    let row = report["workers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["worker"] == pseudonym.as_str())
        .unwrap();
    assert_eq!(row["status"], "stopped", "{row}");
    assert_eq!(
        row["judgments"], 0,
        "their judgments no longer count: {row}"
    );
    let history = report["history"].as_array().unwrap();
    assert!(
        history.iter().any(|e| e["worker"] == pseudonym.as_str()
            && e["reason"]
                .as_str()
                .unwrap()
                .starts_with("Excluded after a researcher's review")),
        "{history:?}"
    );
    // Again: nothing more to set aside.
    let again = json(exclude(&researcher, &pseudonym).await).await;
    assert_eq!(
        (again["judgments"].as_i64(), again["pairs"].as_i64()),
        (Some(0), Some(0))
    );
    // An excluded worker has no exclude button.
    let html = dashboard_page(&app, &researcher, &id).await;
    assert_eq!(testids(&html, "exclude-confirm"), 0);
    // An admin's reinstatement stands: the researcher cannot exclude that worker again.
    let harvester_id: uuid::Uuid =
        sqlx::query_scalar("select app_user_id from app_user where username = $1")
            .bind(&names[3])
            .fetch_one(&pool)
            .await
            .unwrap();
    let reinstated = app
        .call(
            &admin,
            "admin/set_judge_worker_status",
            &[
                ("campaign_id", id.as_str()),
                ("user_id", harvester_id.to_string().as_str()),
                ("status", "active"),
            ],
        )
        .await;
    assert_eq!(reinstated.status(), StatusCode::OK);
    assert_eq!(
        exclude(&researcher, &pseudonym).await.status(),
        StatusCode::CONFLICT
    );
    // ... and the page offers no button the server would refuse: the worker is still flagged.
    let html = dashboard_page(&app, &researcher, &id).await;
    assert_eq!(testids(&html, "harvest-flag"), 1);
    assert_eq!(testids(&html, "exclude-confirm"), 0);
}

/// Adaptive redundancy through the answer path: unanimous pairs settle at the minimum and stop
/// being served, a split pair takes judgments up to its maximum, the labels, posteriors and
/// savings reach the dashboard and the export, and stopping a worker whose votes settled pairs
/// opens them again for others.
#[sqlx::test(migrations = "../migrations")]
async fn pairs_settle_at_three_agreeing_votes_and_a_split_pair_takes_up_to_six(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        &app,
        &admin,
        Setup {
            min_judgments_per_pair: Some(3),
            ..Setup::pairs(&pairs_csv(10))
        },
    )
    .await;
    // One worker after another, each judging everything left: every worker answers the truth
    // but on "Pair 0" (a paraphrase), which splits them.
    let split = [true, false, true, false, true, true];
    let mut names = Vec::new();
    let mut served = Vec::new();
    for (k, &on_split) in split.iter().enumerate() {
        let (c, name) = app.annotator().await;
        let (seen, last) = work(&app, &c, &id, usize::MAX, |t| {
            if t["Judge"]["sentence1"] == "Pair 0 first sentence." {
                on_split
            } else {
                truth(t)
            }
        })
        .await;
        assert!(last.get("NothingLeft").is_some(), "worker {k}: {last}");
        served.push(seen.len());
        names.push(name);
    }
    // The first three judge every pair; the nine unanimous pairs settle at their third vote, so
    // the last three get only the split pair, which takes all six.
    assert_eq!(served, [10, 10, 10, 1, 1, 1]);
    let rows: Vec<(String, i32, Option<bool>, Option<f64>)> = sqlx::query_as(
        "select sentence2, n_judgments, settled_label, posterior from judge_pair order by sentence1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut split_posterior = f64::NAN;
    for (sentence2, n, settled, posterior) in &rows {
        let posterior = posterior.unwrap();
        if sentence2.starts_with("Pair 0 ") {
            // At its maximum, 4 to 2 for its truth, but from workers whose estimates leave the
            // posterior short of the target: no label (unresolved), with its posterior.
            assert_eq!((*n, *settled), (6, None));
            assert!(posterior > 0.5 && posterior < 0.95, "{posterior}");
            split_posterior = posterior;
        } else {
            let truth = sentence2.contains("[P]");
            assert_eq!((*n, *settled), (3, Some(truth)), "{sentence2}");
            let lead = if truth { posterior } else { 1.0 - posterior };
            assert!(lead >= 0.95, "{sentence2}: {posterior}");
        }
    }
    assert_gate_counts_match_history(&pool, &id).await;

    // The dashboard: every pair has its label, and 27 judgments were saved against 6 a pair.
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(
        (
            &overview["complete_pairs"],
            &overview["settled_pairs"],
            &overview["judgments_saved"],
            &overview["min_judgments_per_pair"],
        ),
        (
            &Value::from(10),
            &Value::from(9),
            &Value::from(27),
            &Value::from(3)
        ),
        "{overview}"
    );
    let page = app
        .get(&admin, &format!("/admin/campaigns/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("9 settled early: 27 judgments saved against 6 for every pair (45%)"),
        "{page}"
    );
    assert!(page.contains("3 to 6 judgments per pair, settled at 95%"));
    // Once the study pays per judgment ($0.015), the saving is in money too.
    crate::study_pay::terms(&app, &admin, &id, "", "", "", "").await;
    let page = app
        .get(&admin, &format!("/admin/campaigns/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("27 judgments saved against 6 for every pair (45%), $0.405 of judgment pay at $0.015 each"),
        "{page}"
    );

    // The export: every settled pair labelled as its truth, with its posterior and its
    // judgments; the unresolved split pair is left out, or kept with no label and its posterior.
    let (researcher, _) = app.user_with_role("researcher").await;
    let export = |query: &'static str| {
        let (app, researcher, id) = (&app, &researcher, &id);
        async move {
            let text = app
                .get(researcher, &format!("/export/judge/{id}{query}"))
                .await
                .text()
                .await
                .unwrap();
            let mut reader = csv::Reader::from_reader(text.as_bytes());
            let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
            assert_eq!(&header[4..7], ["n_judgments", "label", "posterior"]);
            reader
                .records()
                .map(|r| r.unwrap())
                .collect::<Vec<csv::StringRecord>>()
        }
    };
    let records = export("").await;
    assert_eq!(records.len(), 9);
    for r in &records {
        let truth = if r[2].contains("[P]") { "1" } else { "0" };
        assert_eq!(&r[5], truth, "{r:?}");
        assert_eq!(&r[4], "3", "{r:?}");
        let posterior: f64 = r[6].parse().unwrap();
        assert!(posterior >= 0.95, "{r:?}");
    }
    let records = export("?unresolved=keep").await;
    assert_eq!(records.len(), 10);
    let split = records
        .iter()
        .find(|r| r[1].starts_with("Pair 0 "))
        .expect("kept");
    assert_eq!((&split[4], &split[5]), ("6", ""), "{split:?}");
    let exported: f64 = split[6].parse().unwrap();
    assert!((exported - split_posterior).abs() <= 5e-5, "{split:?}");

    // A newcomer finds nothing left ...
    let (late, _) = app.annotator().await;
    assert!(next(&app, &late, &id).await.get("NothingLeft").is_some());
    // ... until the first worker is stopped: the pairs their votes settled have two trusted
    // votes, below the minimum, and are served again.
    let resp = app
        .call(
            &admin,
            "admin/set_judge_worker_status",
            &[
                ("campaign_id", &id),
                ("user_id", &app.user_id(&names[0]).await),
                ("status", "stopped"),
            ],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let open: i64 = count(
        &pool,
        "select count(*) from judge_pair where settled_label is null",
    )
    .await;
    assert_eq!(open, 10);
    let (seen, last) = work(&app, &late, &id, usize::MAX, truth).await;
    assert_eq!(seen.len(), 9, "{last}");
    let settled: i64 = count(
        &pool,
        "select count(*) from judge_pair where settled_label is not null and n_judgments = 3",
    )
    .await;
    assert_eq!(settled, 9);
    assert_gate_counts_match_history(&pool, &id).await;

    // The split pair lost the stopped worker's vote, but the vote keeps its slot: with every
    // slot taken the pair gets no more judgments, so it is complete with the five votes that
    // still count (3 to 2, short of the target): unresolved, exported with its posterior.
    let (n, taken, posterior): (i32, i32, f64) = sqlx::query_as(
        "select n_judgments, judge_pair_taken(pair_id), posterior from judge_pair
         where sentence1 = 'Pair 0 first sentence.'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((n, taken), (5, 6));
    assert!(posterior > 0.5 && posterior < 0.95, "{posterior}");
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    // The settled pairs' saving counts the stopped worker's judgment as spent: each holds a
    // slot, so nine pairs save two judgments each, not three.
    assert_eq!(
        (&overview["complete_pairs"], &overview["judgments_saved"]),
        (&Value::from(10), &Value::from(18)),
        "{overview}"
    );
    let admin_pairs = json(
        app.call(
            &admin,
            "admin/list_pairs",
            &[("campaign_id", &id), ("tests_only", "false"), ("page", "0")],
        )
        .await,
    )
    .await;
    let listed = admin_pairs
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["sentence1"] == "Pair 0 first sentence.")
        .unwrap();
    assert_eq!(
        (&listed["label"], &listed["taken"], &listed["n_judgments"]),
        (&Value::from("Unresolved"), &Value::from(6), &Value::from(5)),
        "{listed}"
    );
    let records = export("").await;
    assert_eq!(records.len(), 9, "the unresolved pair is left out");
    assert!(records.iter().all(|r| !r[1].starts_with("Pair 0 ")));
    let records = export("?unresolved=keep").await;
    let split = records
        .iter()
        .find(|r| r[1].starts_with("Pair 0 "))
        .expect("kept");
    assert_eq!((&split[4], &split[5]), ("5", ""), "{split:?}");
    let exported: f64 = split[6].parse().unwrap();
    assert!(
        (exported - posterior).abs() <= 5e-5,
        "{split:?}: {posterior}"
    );

    // Before a stopped worker's vote kept its slot, such a pair waited for a judgment that
    // could not come, or kept a label settled below its maximum. The migration that settled
    // those pairs again, run on that state, gives it the label it has now.
    let stuck = "update judge_pair set settled_label = true, posterior = 0.96
                 where sentence1 = 'Pair 0 first sentence.'";
    sqlx::query(stuck).execute(&pool).await.unwrap();
    sqlx::raw_sql(include_str!(
        "../../migrations/20261225000046_label_full_pairs.sql"
    ))
    .execute(&pool)
    .await
    .unwrap();
    let (label, again): (Option<bool>, f64) = sqlx::query_as(
        "select settled_label, posterior from judge_pair
         where sentence1 = 'Pair 0 first sentence.'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(label, None);
    assert!((again - posterior).abs() <= 1e-12, "{again}: {posterior}");
    app.stop().await;
}

/// Gold that cannot be harvested: no test pair is served past the campaign's cap, the dashboard
/// says when they reach it, and settled pairs promote to test pairs with the crowd's label as
/// their gold, marked as promoted.
#[sqlx::test(migrations = "../migrations")]
async fn test_pairs_stop_at_their_exposure_cap_and_settled_pairs_promote(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let tests = tests_csv(2);
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 2,
            tests_csv: Some(&tests),
            min_judgments_per_pair: Some(3),
            test_exposure_cap: Some(2),
            ..Setup::pairs(&pairs_csv(20))
        },
    )
    .await;
    // The first worker misses "Pair 5", which then settles on a split vote.
    for k in 0..4 {
        let (c, _) = app.annotator().await;
        let (_, last) = work(&app, &c, &id, usize::MAX, |t| {
            let missed = k == 0 && t["Judge"]["sentence1"] == "Pair 5 first sentence.";
            truth(t) != missed
        })
        .await;
        assert!(last.get("NothingLeft").is_some(), "{last}");
    }
    // Four workers, one test slot in every two: the two test pairs are served twice each, and
    // never again.
    let served: Vec<(i32, i64)> = sqlx::query_as(
        r#"select p.test_served, count(a.assignment_id) from judge_pair p
           left join judge_assignment a using (pair_id)
           where p.is_test group by p.pair_id, p.test_served"#,
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(served, [(2, 2), (2, 2)]);
    let overview = json(
        app.call(&admin, "admin/judge_overview", &[("campaign_id", &id)])
            .await,
    )
    .await;
    assert_eq!(overview["tests_at_cap"], 2, "{overview}");
    let page = app
        .get(&admin, &format!("/admin/campaigns/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("2 of 2 test pairs served 2 times, their cap."),
        "{page}"
    );
    assert!(page.contains("promote settled pairs or add test pairs"));

    // Annotators cannot promote; admins promote every settled pair here (unanimous, accurate
    // workers), each a test pair whose gold is its truth.
    let (annotator, _) = app.annotator().await;
    let resp = app
        .call(
            &annotator,
            "admin/promote_settled_pairs",
            &[("campaign_id", &id)],
        )
        .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    let settled: i64 = count(
        &pool,
        "select count(*) from judge_pair where settled_label is not null",
    )
    .await;
    assert!(settled >= 15, "{settled}");
    let promoted = json(
        app.call(
            &admin,
            "admin/promote_settled_pairs",
            &[("campaign_id", &id)],
        )
        .await,
    )
    .await;
    let promoted = promoted.as_i64().unwrap();
    assert!(
        promoted > 0 && promoted <= settled,
        "{promoted} of {settled}"
    );
    type Promoted = (String, bool, Option<bool>, Option<String>);
    let rows: Vec<Promoted> = sqlx::query_as(
        r#"select sentence2, is_test, gold_label, gold_explanation
           from judge_pair where gold_promoted"#,
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(rows.len() as i64, promoted);
    // The split pair settled too, but is not promoted: its votes were not unanimous.
    let (split_settled, split_promoted): (Option<bool>, bool) = sqlx::query_as(
        "select settled_label, gold_promoted from judge_pair
         where sentence1 = 'Pair 5 first sentence.'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(split_settled.is_some() && !split_promoted);
    for (sentence2, is_test, gold, explanation) in &rows {
        assert!(is_test);
        assert_eq!(*gold, Some(sentence2.contains("[P]")), "{sentence2}");
        assert_eq!(*explanation, None);
    }
    let listed = json(
        app.call(
            &admin,
            "admin/list_pairs",
            &[("campaign_id", &id), ("tests_only", "true"), ("page", "0")],
        )
        .await,
    )
    .await;
    let flagged = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["gold_promoted"] == true)
        .count();
    assert_eq!(flagged as i64, promoted);
    // Promoting again finds nothing new.
    let again = json(
        app.call(
            &admin,
            "admin/promote_settled_pairs",
            &[("campaign_id", &id)],
        )
        .await,
    )
    .await;
    assert_eq!(again, 0);
    app.stop().await;
}

/// A pair promoted to a test pair keeps its ordinary judgments, and every test answer on it is a
/// vote too: the majority those judgments are measured against moves with each answer, and with
/// each change of trust of its test answers (a worker stopped, reinstated), and the gate's
/// running counts follow.
#[sqlx::test(migrations = "../migrations")]
async fn test_answers_on_promoted_pairs_keep_the_gate_counts(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let tests = tests_csv(2);
    let id = campaign(
        &app,
        &admin,
        Setup {
            test_every: 2,
            tests_csv: Some(&tests),
            min_judgments_per_pair: Some(3),
            ..Setup::pairs(&pairs_csv(6))
        },
    )
    .await;
    for _ in 0..4 {
        let (c, _) = app.annotator().await;
        work(&app, &c, &id, usize::MAX, truth).await;
    }
    let promoted = json(
        app.call(
            &admin,
            "admin/promote_settled_pairs",
            &[("campaign_id", &id)],
        )
        .await,
    )
    .await;
    assert!(promoted.as_i64().unwrap() > 0, "{promoted}");
    // New pairs to judge, and two workers who miss every promoted pair served to them as a
    // test: each of those pairs' ordinary judgments then has its majority cut by two votes.
    let mut extra = String::from("sentence1,sentence2\n");
    for i in 0..16 {
        let tag = if i % 2 == 0 { "P" } else { "N" };
        extra.push_str(&format!(
            "Extra {i} first sentence.,Extra {i} second sentence [{tag}].\n"
        ));
    }
    json(
        app.call(
            &admin,
            "admin/import_pairs",
            &[
                ("campaign_id", id.as_str()),
                ("filename", "extra.csv"),
                ("content", extra.as_str()),
                ("labels_are_tests", "false"),
            ],
        )
        .await,
    )
    .await;
    let mut missing = Vec::new();
    for _ in 0..2 {
        let (c, name) = app.annotator().await;
        work(&app, &c, &id, usize::MAX, |t| {
            let promoted = t["Judge"]["sentence1"]
                .as_str()
                .unwrap()
                .starts_with("Pair ");
            truth(t) != promoted
        })
        .await;
        missing.push(name);
    }
    let split: i64 = count(
        &pool,
        "select count(*) from judge_pair p
         where p.gold_promoted
           and (select count(*) from judge_judgment j
                where j.pair_id = p.pair_id and j.is_test and not j.is_correct) = 2
           and exists (select 1 from judge_judgment j where j.pair_id = p.pair_id and not j.is_test)",
    )
    .await;
    assert!(split > 0, "no promoted pair was missed by both workers");
    assert_gate_counts_match_history(&pool, &id).await;
    // Stopping one of them takes their test answers out of the votes; reinstating puts them back.
    let user = app.user_id(&missing[0]).await;
    for status in ["stopped", "active"] {
        let resp = app
            .call(
                &admin,
                "admin/set_judge_worker_status",
                &[
                    ("campaign_id", id.as_str()),
                    ("user_id", user.as_str()),
                    ("status", status),
                ],
            )
            .await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_gate_counts_match_history(&pool, &id).await;
    }
    app.stop().await;
}

/// Two accounts that give one answer between them (one person, or a shared answer sheet) are
/// shown as a group with the evidence; the honest workers beside them are not; both can be
/// excluded, one after the other.
#[sqlx::test(migrations = "../migrations")]
async fn two_accounts_that_answer_alike_are_shown_as_a_group(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(&app, &admin, Setup::pairs(&pairs_csv(40))).await;
    let mut workers = Vec::new();
    for _ in 0..6 {
        workers.push(app.annotator().await.0);
    }
    // Workers 0-3 answer every pair as it is; 4 and 5 share one guess per pair, wrong on half.
    for (i, w) in workers.iter().enumerate() {
        let mut task = next(&app, w, &id).await;
        while task.get("Judge").is_some() {
            let a = task["Judge"]["assignment_id"].as_str().unwrap().to_owned();
            let n: usize = task["Judge"]["sentence1"]
                .as_str()
                .unwrap()
                .split(' ')
                .nth(1)
                .unwrap()
                .parse()
                .unwrap();
            let label = if i >= 4 { n % 4 < 2 } else { truth(&task) };
            let outcome = json(answer(&app, w, &id, &a, label).await).await;
            task = outcome["next"].clone();
        }
    }
    let (researcher, _) = app.user_with_role("researcher").await;
    let report = judge_report(&app, &researcher, &id).await;
    let groups = report["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{report}");
    assert_eq!(groups[0]["kind"], "AnswersAlike");
    let members: Vec<String> = groups[0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect();
    let evidence = groups[0]["evidence"][0].as_str().unwrap();
    assert!(
        evidence.contains("both parted from the other workers' majority on 20 of the 20 shared pairs where either did"),
        "{evidence}"
    );
    // The two guessers are the group.
    for w in report["workers"].as_array().unwrap() {
        let guesser = members.contains(&w["worker"].as_str().unwrap().to_owned());
        assert_eq!(w["groups"] == serde_json::json!([1]), guesser, "{w}");
    }
    let guessers: Vec<&Value> = report["workers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["groups"] == serde_json::json!([1]))
        .collect();
    assert_eq!(guessers.len(), 2);
    assert!(guessers
        .iter()
        .all(|w| w["kappa_vs_majority"].as_f64().unwrap() < 0.2));
    let html = dashboard_page(&app, &researcher, &id).await;
    assert!(html.contains("Group 1: answer alike"), "{html}");
    assert_eq!(testids(&html, "exclude-confirm"), 2);

    // Excluding one leaves the other in the group (set-aside judgments still count for it). The
    // other is stopped by an admin first: their judgments stop counting but keep their slots, and
    // excluding them still sets those judgments aside and gives the slots back.
    let ids: Vec<uuid::Uuid> =
        sqlx::query_scalar("select app_user_id from judge_worker where campaign_id = $1::uuid")
            .bind(&id)
            .fetch_all(&pool)
            .await
            .unwrap();
    let second = ids
        .into_iter()
        .find(|u| app::domain::account::pseudonym(&u.to_string().parse().unwrap()) == members[1])
        .unwrap();
    for (k, m) in members.iter().enumerate() {
        if k == 1 {
            let resp = app
                .call(
                    &admin,
                    "admin/set_judge_worker_status",
                    &[
                        ("campaign_id", id.as_str()),
                        ("user_id", second.to_string().as_str()),
                        ("status", "stopped"),
                    ],
                )
                .await;
            assert_eq!(resp.status(), StatusCode::OK);
            // The excluded member has no Exclude button any more; the stopped one, whose
            // judgments still hold their slots, has one.
            let html = dashboard_page(&app, &researcher, &id).await;
            assert_eq!(testids(&html, "exclude-confirm"), 1);
            assert!(html.contains(&format!("Exclude {m}")), "{html}");
        }
        let done = json(
            app.call(
                &researcher,
                "research/exclude_worker",
                &[("campaign_id", id.as_str()), ("worker", m.as_str())],
            )
            .await,
        )
        .await;
        assert_eq!(done["judgments"], 40, "{done}");
    }
    let html = dashboard_page(&app, &researcher, &id).await;
    assert_eq!(testids(&html, "exclude-confirm"), 0);
    // Doing it again sets nothing aside and adds nothing to the history.
    let again = json(
        app.call(
            &researcher,
            "research/exclude_worker",
            &[
                ("campaign_id", id.as_str()),
                ("worker", members[1].as_str()),
            ],
        )
        .await,
    )
    .await;
    assert_eq!(again["judgments"], 0, "{again}");
    // Every slot the two held is open again: 40 pairs, each short of two judgments.
    let open: i64 = count(
        &pool,
        "select coalesce(sum(open_slots), 0)::int8 from judge_pair where not is_test",
    )
    .await;
    assert_eq!(open, 80);
    let history = judge_report(&app, &researcher, &id).await["history"].clone();
    assert_eq!(
        history
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["reason"]
                .as_str()
                .unwrap()
                .contains("Excluded after a researcher's review: this account and another answered alike: both parted from the other workers' majority on 20 of the 20 shared pairs"))
            .count(),
        2,
        "one entry for each, the one stopped before included: {history}"
    );
}
