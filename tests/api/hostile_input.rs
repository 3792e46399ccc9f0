//! The bad-input corpus: hostile texts, bodies and files sent to every endpoint that takes text
//! or files. Invalid input gets a clear 4xx and changes nothing; odd but legitimate text (emoji,
//! right-to-left, combining marks, markup, SQL metacharacters) is either kept exactly or refused
//! the same way, never mangled, never a 5xx, and markup always renders escaped.
use reqwest::{header, Client, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{client, spawn_app, TestApp};

/// Must be refused, or may be kept (exactly).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Invalid,
    Odd,
}

/// Text inputs: (name, text, class).
fn texts() -> Vec<(&'static str, String, Class)> {
    use Class::*;
    vec![
        ("empty", String::new(), Invalid),
        ("one space", " ".into(), Invalid),
        ("whitespace mix", "\t\r\n  \t".into(), Invalid),
        ("unicode spaces", "\u{a0}\u{2003}\u{3000}".into(), Invalid),
        (
            "zero-width only",
            "\u{200b}\u{200c}\u{200d}\u{feff}".into(),
            Invalid,
        ),
        ("NUL only", "\0".into(), Invalid),
        ("NUL inside", "before\0after".into(), Invalid),
        ("C0 controls", "bell\u{7} escape\u{1b}[31m".into(), Invalid),
        ("DEL and C1", "a\u{7f}b\u{85}c\u{9b}".into(), Invalid),
        ("1 MiB of text", "a".repeat(1 << 20), Invalid),
        ("100,000-letter word", "w".repeat(100_000), Invalid),
        ("100,000 lines", "x\n".repeat(100_000), Invalid),
        (
            "right-to-left override",
            "\u{202e}txet desrever a si siht".into(),
            Odd,
        ),
        ("Arabic", "هذه جملة عربية قصيرة".into(), Odd),
        ("Hebrew and Latin", "שלום world, שלום".into(), Odd),
        (
            "combining marks",
            "Ze\u{301}\u{302}\u{303}\u{304}\u{305}bra cafe\u{301}".into(),
            Odd,
        ),
        (
            "zalgo",
            format!("z{}", "\u{336}\u{334}\u{335}".repeat(40)),
            Odd,
        ),
        ("emoji", "Nice 😀 👍🏽 👨‍👩‍👧 🏳️‍🌈 day".into(), Odd),
        ("astral CJK", "𠀋𡈽𡌛 are rare characters".into(), Odd),
        ("script tag", "<script>alert(1)</script>".into(), Odd),
        ("img onerror", "<img src=x onerror=alert(1)>".into(), Odd),
        ("attribute breakout", "\"><svg onload=alert(1)>".into(), Odd),
        (
            "javascript URL",
            "javascript:alert(document.cookie)".into(),
            Odd,
        ),
        ("template syntax", "{{7*7}} ${7*7} <%= 7*7 %>".into(), Odd),
        ("SQL drop", "'; drop table app_user; --".into(), Odd),
        ("SQL or", "' or '1'='1".into(), Odd),
        (
            "SQL union",
            "/* */ union select password_hash from app_user --".into(),
            Odd,
        ),
        ("backslashes", "C:\\path\\to\\file \\x00 \\n".into(), Odd),
        ("format strings", "100% %s %n %d %x".into(), Odd),
        ("CSV formula", "=cmd|' /C calc'!A0".into(), Odd),
        ("quotes and commas", "he said \"hi\", then left".into(), Odd),
        ("tabs inside", "col1\tcol2\tcol3".into(), Odd),
        ("CRLF inside", "line one\r\nline two".into(), Odd),
        ("header injection", "a\r\nSet-Cookie: x=y".into(), Odd),
        ("unicode line separators", "a\u{2028}b\u{2029}c".into(), Odd),
        ("BOM first", "\u{feff}text after a BOM".into(), Odd),
        ("null word", "null".into(), Odd),
        ("undefined word", "undefined".into(), Odd),
        ("NaN word", "NaN".into(), Odd),
        (
            "JSON text",
            "{\"gold_label\": 1, \"role\": \"admin\"}".into(),
            Odd,
        ),
        ("homoglyphs", "pаypаl with Cyrillic a".into(), Odd),
        ("private use", "\u{e000}\u{f8ff} private".into(), Odd),
        ("escaped surrogate", "\\ud800\\udc00".into(), Odd),
        ("path traversal", "../../../etc/passwd".into(), Odd),
        (
            "compatibility forms",
            "ﬁ ﬀ Å ｆｕｌｌｗｉｄｔｈ".into(),
            Odd,
        ),
        ("many ZWJ emoji", "👩‍💻".repeat(150), Odd),
        ("999 characters", "y".repeat(999), Odd),
        ("2,001 characters", "z".repeat(2001), Odd),
    ]
}

/// Raw urlencoded bodies: (name, body with `{}` where the text field's value goes).
const RAW_VALUES: &[(&str, &str)] = &[
    ("invalid UTF-8", "%FF%FE%FD"),
    ("overlong UTF-8", "%C0%AF"),
    ("lone surrogate", "%ED%A0%80"),
    ("truncated UTF-8", "%E2%82"),
];

/// One endpoint that takes text.
struct Target {
    name: &'static str,
    endpoint: &'static str,
    /// The text field.
    field: &'static str,
    /// The form, with the text at `field`.
    form: Vec<(String, String)>,
    /// A summary of everything this endpoint can change.
    state: &'static str,
    /// How many rows hold the text ($1) as it should be stored.
    stored: &'static str,
    /// Sends the text inside a file of this shape (`csv pairs`, `jsonl sources`) instead of raw.
    file: Option<&'static str>,
    /// Calls need a fresh client (they log in).
    fresh: bool,
}

impl Target {
    fn form_with(&self, value: &str) -> Vec<(String, String)> {
        let value = match self.file {
            None => value.to_owned(),
            Some("csv pairs") => {
                let mut w = csv::Writer::from_writer(Vec::new());
                w.write_record(["sentence1", "sentence2"]).unwrap();
                w.write_record([value, "A plain second sentence."]).unwrap();
                String::from_utf8(w.into_inner().unwrap()).unwrap()
            }
            Some("jsonl sources") => format!("{}\n", serde_json::json!({ "text": value })),
            Some(other) => unreachable!("{other}"),
        };
        self.form
            .iter()
            .map(|(k, v)| {
                if k == self.field {
                    (k.clone(), value.clone())
                } else {
                    (k.clone(), v.clone())
                }
            })
            .collect()
    }
}

async fn scalar(pool: &PgPool, sql: &str) -> String {
    sqlx::query_scalar::<_, Option<String>>(sql)
        .fetch_one(pool)
        .await
        .unwrap()
        .unwrap_or_default()
}

/// A 4xx that says what was wrong: an `AppError` as JSON, or the size limit's sentence.
async fn assert_clear_refusal(resp: reqwest::Response, what: &str) {
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert!(status.is_client_error(), "{what}: {status} {body}");
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        assert!(body.contains("larger than"), "{what}: {body}");
        return;
    }
    let error: Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {body}"));
    let message = error
        .get("Validation")
        .and_then(|v| v["message"].as_str())
        .or_else(|| error.get("Transport").and_then(Value::as_str))
        .or_else(|| error.get("Conflict").and_then(Value::as_str))
        .unwrap_or_else(|| panic!("{what}: not a validation error: {body}"));
    assert!(!message.trim().is_empty(), "{what}: {body}");
    // A refusal of the request speaks of the request, not of the server's answer.
    assert!(!message.contains("results"), "{what}: {body}");
}

/// A running app, its admin, an open APT campaign and an open judging campaign.
async fn study(pool: PgPool) -> (TestApp, Client, String, String) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let apt = crate::apt::campaign(
        &app,
        &admin,
        2000,
        "text\torigin\nalpha beta gamma delta\tmsrp\n",
    )
    .await;
    let judge = crate::judge::campaign(
        &app,
        &admin,
        crate::judge::Setup {
            test_every: 5,
            gate_min_judgments: 30,
            ..crate::judge::Setup::pairs(&crate::judge::pairs_csv(2))
        },
    )
    .await;
    (app, admin, apt, judge)
}

#[sqlx::test(migrations = "../migrations")]
async fn every_hostile_text_gets_a_clear_4xx_or_is_kept_exactly_and_changes_nothing_else(
    pool: PgPool,
) {
    let (app, admin, apt, judge) = study(pool.clone()).await;
    let (worker, _) = app.annotator().await;
    let task: Value = app
        .call(&worker, "apt/next", &[("campaign_id", &apt)])
        .await
        .json()
        .await
        .unwrap();
    let source = task["Write"]["source_id"].as_str().unwrap().to_owned();
    let own = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let targets = vec![
        Target {
            name: "an APT rewrite",
            endpoint: "apt/check",
            field: "text",
            form: own(&[("campaign_id", &apt), ("source_id", &source), ("text", "")]),
            state: "select count(*)::text from apt_attempt",
            stored: "select count(*)::text from apt_attempt where text = $1",
            file: None,
            fresh: false,
        },
        Target {
            name: "a campaign title",
            endpoint: "admin/create_campaign",
            field: "title",
            form: own(&[
                ("kind", "apt"),
                ("title", ""),
                ("instructions", "Rewrite."),
                ("budget_cap_cents", "2000"),
                ("bleurt_threshold", "0.5"),
            ]),
            state: "select count(*)::text from campaign",
            stored: "select count(*)::text from campaign where title = $1",
            file: None,
            fresh: false,
        },
        Target {
            name: "a source sentence in a file",
            endpoint: "admin/import_sources",
            field: "content",
            form: own(&[
                ("campaign_id", &apt),
                ("filename", "sources.jsonl"),
                ("content", ""),
                ("default_origin", "upload"),
            ]),
            state: "select count(*)::text from source_sentence",
            stored: "select count(*)::text from source_sentence where text = $1",
            file: Some("jsonl sources"),
            fresh: false,
        },
        Target {
            name: "a sentence of a pair in a CSV file",
            endpoint: "admin/import_pairs",
            field: "content",
            form: own(&[
                ("campaign_id", &judge),
                ("filename", "pairs.csv"),
                ("content", ""),
                ("labels_are_tests", "false"),
            ]),
            state: "select count(*)::text from judge_pair",
            stored: "select count(*)::text from judge_pair where sentence1 = $1",
            file: Some("csv pairs"),
            fresh: false,
        },
        Target {
            name: "a username",
            endpoint: "register",
            field: "username",
            form: own(&[
                ("username", ""),
                ("password", "a long enough password"),
                ("password_confirmation", "a long enough password"),
            ]),
            state: "select count(*)::text from app_user",
            stored: "select count(*)::text from app_user where username = $1",
            file: None,
            fresh: true,
        },
    ];

    let corpus = texts();
    assert!(corpus.len() + RAW_VALUES.len() >= 50, "{}", corpus.len());
    let mut kept = Vec::new();
    for target in &targets {
        let c = if target.name == "an APT rewrite" {
            &worker
        } else {
            &admin
        };
        for (name, text, class) in &corpus {
            let what = format!("{name} as {}", target.name);
            let before = scalar(&pool, target.state).await;
            let form = target.form_with(text);
            let form: Vec<(&str, &str)> =
                form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let fresh = client();
            let resp = app
                .call(
                    if target.fresh { &fresh } else { c },
                    target.endpoint,
                    &form,
                )
                .await;
            let status = resp.status();
            assert!(!status.is_server_error(), "{what}: {status}");
            // Uploaded files have their control characters made spaces (real corpora carry
            // a few); what is left must still be visible.
            let controls = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r');
            let text = &if target.file.is_some() {
                text.chars()
                    .map(|c| if controls(c) { ' ' } else { c })
                    .collect::<String>()
            } else {
                text.clone()
            };
            let class = &if target.file.is_some()
                && *class == Class::Invalid
                && text.chars().any(|c| !app::domain::text::is_invisible(c))
                && text.len() < 1000
            {
                Class::Odd
            } else {
                *class
            };
            if status.is_success() {
                assert_eq!(*class, Class::Odd, "{what} was accepted");
                if !target.stored.is_empty() {
                    // Kept exactly (trimmed); sentences in files also have their runs of
                    // whitespace made one space.
                    let expected = if target.file.is_some() {
                        text.split_whitespace().collect::<Vec<_>>().join(" ")
                    } else {
                        text.trim().to_owned()
                    };
                    let n: String = sqlx::query_scalar(target.stored)
                        .bind(&expected)
                        .fetch_one(&pool)
                        .await
                        .unwrap();
                    assert_eq!(n, "1", "{what} kept exactly as {expected:?}");
                }
                kept.push((target.name, *name));
            } else {
                assert_clear_refusal(resp, &what).await;
                assert_eq!(
                    scalar(&pool, target.state).await,
                    before,
                    "{what} changed nothing"
                );
            }
        }
        for (name, raw) in RAW_VALUES {
            let what = format!("{name} as {}", target.name);
            let before = scalar(&pool, target.state).await;
            let mut body: Vec<String> = target
                .form
                .iter()
                .filter(|(k, _)| k != target.field)
                .map(|(k, v)| format!("{}={}", k, urlencode(v)))
                .collect();
            body.push(format!("{}={raw}", target.field));
            let fresh = client();
            let resp = raw_post(
                &app,
                if target.fresh { &fresh } else { c },
                target.endpoint,
                body.join("&"),
            )
            .await;
            assert_clear_refusal(resp, &what).await;
            assert_eq!(
                scalar(&pool, target.state).await,
                before,
                "{what} changed nothing"
            );
        }
    }
    // Some of the odd texts were kept: markup must come back escaped wherever it is shown.
    assert!(
        kept.iter()
            .any(|(t, n)| *t == "a campaign title" && *n == "script tag"),
        "{kept:?}"
    );
    let page = app
        .get(&admin, "/admin/campaigns")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    for raw in ["<script>alert(1)", "<img src=x onerror", "<svg onload"] {
        assert!(!page.contains(raw), "{raw} unescaped");
    }
    let tables: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(tables >= 2, "SQL metacharacters are data");
    app.stop().await;
}

fn urlencode(v: &str) -> String {
    v.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

async fn raw_post(
    app: &TestApp,
    c: &Client,
    endpoint: &str,
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    c_post_stream(app, c, endpoint, body.into())
        .await
        .expect("the server answers")
}

/// Files that are broken as a whole: each upload is refused with its line named, nothing stored.
#[sqlx::test(migrations = "../migrations")]
async fn broken_files_are_refused_with_a_clear_message_and_store_nothing(pool: PgPool) {
    let (app, admin, apt, judge) = study(pool.clone()).await;
    let huge_line = format!("sentence1,sentence2\n{},b\n", "q".repeat(60 << 20));
    let pair_files: Vec<(&str, &str, String)> = vec![
        ("wrong columns", "p.csv", "a,b,c\n1,2,3\n".into()),
        ("no header", "p.csv", "First one.,Second one.\n".into()),
        ("ragged rows", "p.csv", "sentence1,sentence2\nOne.,Two.\nThree.\n".into()),
        ("unterminated quote", "p.csv", "sentence1,sentence2\n\"One,Two.\n".into()),
        ("header only", "p.csv", "sentence1,sentence2\n".into()),
        ("empty file", "p.csv", String::new()),
        ("empty sentence", "p.csv", "sentence1,sentence2\n,Two.\n".into()),
        ("a column named twice", "p.csv", "sentence1,sentence2,Sentence1\nOne.,Two.,Three.\n".into()),
        ("JSON lines, one broken", "p.jsonl", "{\"sentence1\":\"One.\",\"sentence2\":\"Two.\"}\n{\"sentence1\":\"Three.\",\n{\"sentence1\":\"Five.\",\"sentence2\":\"Six.\"}\n".into()),
        ("JSON lines, wrong type", "p.jsonl", "{\"sentence1\":{\"text\":\"One.\"},\"sentence2\":\"Two.\"}\n".into()),
        ("JSON lines, not objects", "p.jsonl", "[1,2]\n\"text\"\n".into()),
        ("binary", "p.csv", "\u{89}PNG\r\n\u{1a}\n\0\0\0\rIHDR".into()),
        ("huge line", "p.csv", huge_line),
    ];
    for (name, filename, content) in &pair_files {
        let before = scalar(&pool, "select count(*)::text from judge_pair").await;
        let resp = app
            .call(
                &admin,
                "admin/import_pairs",
                &[
                    ("campaign_id", &judge),
                    ("filename", filename),
                    ("content", content),
                    ("labels_are_tests", "false"),
                ],
            )
            .await;
        assert_clear_refusal(resp, name).await;
        assert_eq!(
            scalar(&pool, "select count(*)::text from judge_pair").await,
            before,
            "{name}"
        );
    }
    let source_files: Vec<(&str, &str, String)> = vec![
        (
            "wrong header",
            "s.tsv",
            "sentence\tcolor\nOne.\tred\n".into(),
        ),
        (
            "JSON lines, one broken",
            "s.jsonl",
            "{\"text\":\"One.\"}\n{\"text\":\n".into(),
        ),
        (
            "origin too long",
            "s.tsv",
            format!("text\torigin\nOne.\t{}\n", "o".repeat(51)),
        ),
    ];
    for (name, filename, content) in &source_files {
        let before = scalar(&pool, "select count(*)::text from source_sentence").await;
        let resp = app
            .call(
                &admin,
                "admin/import_sources",
                &[
                    ("campaign_id", &apt),
                    ("filename", filename),
                    ("content", content),
                    ("default_origin", "upload"),
                ],
            )
            .await;
        assert_clear_refusal(resp, name).await;
        assert_eq!(
            scalar(&pool, "select count(*)::text from source_sentence").await,
            before,
            "{name}"
        );
    }
    app.stop().await;
}

/// Bodies past the limits: declared (413 at once) or streamed without a length (refused when
/// the limit is reached), 100 MB on an ordinary endpoint and on an upload endpoint.
#[sqlx::test(migrations = "../migrations")]
async fn hundred_megabyte_bodies_are_refused_declared_or_streamed(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let (admin, _) = app.user_with_role("admin").await;
    let hundred_mb = 100usize << 20;
    for endpoint in [
        "register",
        "apt/check",
        "admin/import_pairs",
        "admin/import_corpus",
    ] {
        // Declared length.
        let body = format!("content={}", "a".repeat(hundred_mb));
        let resp = raw_post(&app, &admin, endpoint, body).await;
        assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE, "{endpoint}");
        assert!(resp.text().await.unwrap().contains("larger than"));
        // Streamed in chunks, no length.
        let chunks = futures::stream::iter((0..100).map(|i| {
            Ok::<_, std::io::Error>(if i == 0 {
                b"content=".to_vec()
            } else {
                vec![b'a'; 1 << 20]
            })
        }));
        let resp = c_post_stream(&app, &admin, endpoint, reqwest::Body::wrap_stream(chunks)).await;
        match resp {
            Ok(resp) => {
                let status = resp.status();
                assert!(status.is_client_error(), "{endpoint} streamed: {status}");
            }
            // The server may close the connection once it has refused the body.
            Err(e) => assert!(e.is_request() || e.is_body(), "{endpoint} streamed: {e}"),
        }
    }
    let users: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(users, 1);
    // The server still answers.
    assert_eq!(app.get(&client(), "/health").await.status(), StatusCode::OK);
    app.stop().await;
}

async fn c_post_stream(
    app: &TestApp,
    c: &Client,
    endpoint: &str,
    body: reqwest::Body,
) -> Result<reqwest::Response, reqwest::Error> {
    c.post(app.url(&format!("/api/{endpoint}")))
        .header(header::ACCEPT, "application/json")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
}

/// A body that is not UTF-8 at all (raw bytes, not percent-escapes) is
/// refused with words about the request, and nothing is stored.
#[sqlx::test(migrations = "../migrations")]
async fn bodies_that_are_not_text_are_refused_with_words_about_the_request(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let c = client();
    let bodies: [Vec<u8>; 3] = [
        b"username=\xff\xfe&password=a+long+enough+password&password_confirmation=a+long+enough+password".to_vec(),
        b"\xc0\xaf".to_vec(),
        vec![0xed, 0xa0, 0x80],
    ];
    for body in bodies {
        let what = format!("{body:?}");
        let resp = raw_post(&app, &c, "register", body).await;
        let status = resp.status();
        let text = resp.text().await.unwrap();
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {text}");
        assert!(text.contains("not a readable form"), "{what}: {text}");
    }
    let users: i64 = sqlx::query_scalar("select count(*) from app_user")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(users, 0);
    app.stop().await;
}
