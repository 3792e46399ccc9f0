//! A small typed client of Prolific's researcher API (`https://api.prolific.com/api/v1`): the
//! calls the payments page makes. Reads are retried on a timeout, a dropped connection, a 429
//! or a 5xx; a call that changes something is made once and its outcome reported as it is
//! (the caller records it). The token is sent only to the configured address and never appears
//! in an error, a log line or `Debug` output.
use std::time::Duration;

use serde::Deserialize;

use crate::domain::study::reconcile::{Submission, SubmissionStatus};

/// An API token, kept out of `Debug` and `Display`.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// The token as read from the environment or its file (surrounding space removed).
    pub fn new(raw: &str) -> Option<Token> {
        let t = raw.trim();
        (!t.is_empty()).then(|| Token(t.to_owned()))
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(hidden)")
    }
}

/// Where and how to reach Prolific.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The API's origin, `https://api.prolific.com` (a local fake in tests).
    pub base_url: String,
    /// The researcher's API token.
    pub token: Token,
    /// How long one request may take.
    pub timeout: Duration,
}

/// Checks the API's address: `https://`, or `http://` only to this machine (a local test
/// server), with no user part; returns it without a trailing `/`.
pub fn base_url(raw: &str) -> Result<String, String> {
    let u = reqwest::Url::parse(raw.trim()).map_err(|e| format!("not an address ({e})"))?;
    let local = matches!(u.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
    if !(u.scheme() == "https" || (u.scheme() == "http" && local)) {
        return Err("must be https:// (http:// only for a server on this machine)".into());
    }
    if !u.username().is_empty() || u.password().is_some() || u.query().is_some() {
        return Err("must be a plain address, with no user, password or query".into());
    }
    Ok(u.as_str().trim_end_matches('/').to_owned())
}

/// Why a call did not give an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// Prolific answered with an error: its status and its message.
    Refused { status: u16, message: String },
    /// No answer: a timeout or a dropped connection. A call that changes something may or may
    /// not have happened.
    NoAnswer(String),
    /// An answer this client cannot read.
    Unreadable(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Refused {
                status: 401,
                message,
            } => write!(
                f,
                "Prolific refused the API token (401): {message}. Check PARACROWD_PROLIFIC_TOKEN."
            ),
            CallError::Refused { status, message } => {
                write!(f, "Prolific answered {status}: {message}")
            }
            CallError::NoAnswer(why) => write!(f, "Prolific did not answer: {why}"),
            CallError::Unreadable(why) => write!(f, "Prolific's answer could not be read: {why}"),
        }
    }
}

/// A study as Prolific describes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Study {
    /// Its id.
    pub id: String,
    /// Its public name.
    #[serde(default)]
    pub name: String,
    /// `UNPUBLISHED`, `ACTIVE`, `PAUSED`, `AWAITING REVIEW`, `COMPLETED`, ...
    #[serde(default)]
    pub status: String,
}

#[derive(Deserialize)]
struct SubmissionJson {
    id: String,
    #[serde(alias = "participant")]
    participant_id: String,
    status: String,
}

#[derive(Deserialize)]
struct Page {
    results: Vec<SubmissionJson>,
    #[serde(default, rename = "_links")]
    links: Option<Links>,
}

#[derive(Deserialize)]
struct Links {
    #[serde(default)]
    next: Option<Link>,
}

#[derive(Deserialize)]
struct Link {
    #[serde(default)]
    href: Option<String>,
}

/// Submissions asked for per page.
pub const PAGE_SIZE: u32 = 200;
/// The most pages read for one study (200,000 submissions).
const MAX_PAGES: u32 = 1000;
/// The most submissions one bulk approval names (Prolific's advice).
pub const APPROVE_AT_ONCE: usize = 1000;
/// Reads are tried this many times in all.
const READ_TRIES: u32 = 3;

/// The client.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    settings: Settings,
}

impl Client {
    /// A client for `settings`.
    pub fn new(settings: Settings) -> Client {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .connect_timeout(settings.timeout.min(Duration::from_secs(10)))
            // Never follow a redirect with the token to another address.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("BUG: the HTTP client builds with constant settings");
        Client { http, settings }
    }

    fn url(&self, path: &str) -> String {
        format!(
            "{}/api/v1/{path}",
            self.settings.base_url.trim_end_matches('/')
        )
    }

    fn auth(&self, r: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match reqwest::header::HeaderValue::from_str(&format!("Token {}", self.settings.token.0)) {
            Ok(mut v) => {
                // Kept out of any trace of the request.
                v.set_sensitive(true);
                r.header(reqwest::header::AUTHORIZATION, v)
            }
            // A token that is not a header value is refused by Prolific as missing.
            Err(_) => r,
        }
    }

    /// The error with the token taken out of its message (an error page that echoes the
    /// request must not bring it onto a page).
    fn scrub(&self, e: CallError) -> CallError {
        let t = &self.settings.token.0;
        let clean = |m: String| m.replace(t.as_str(), "[token]");
        match e {
            CallError::Refused { status, message } => CallError::Refused {
                status,
                message: clean(message),
            },
            CallError::NoAnswer(m) => CallError::NoAnswer(clean(m)),
            CallError::Unreadable(m) => CallError::Unreadable(clean(m)),
        }
    }

    /// A GET, retried where repeating it is safe; the body as JSON.
    async fn read<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T, CallError> {
        let mut last = CallError::NoAnswer("not tried".into());
        for attempt in 0..READ_TRIES {
            if attempt > 0 {
                tokio::time::sleep(Duration::from_millis(200 * 4u64.pow(attempt - 1))).await;
            }
            let sent = self
                .auth(self.http.get(self.url(path)).query(query))
                .send()
                .await;
            match answer(sent).await {
                Ok(body) => {
                    return serde_json::from_slice(&body)
                        .map_err(|e| CallError::Unreadable(e.to_string()))
                }
                Err(e) if retryable(&e) => last = e,
                Err(e) => return Err(self.scrub(e)),
            }
        }
        Err(self.scrub(last))
    }

    /// The study `id` (one read: what "Test the connection" calls).
    pub async fn study(&self, id: &str) -> Result<Study, CallError> {
        self.read(&format!("studies/{id}/"), &[]).await
    }

    /// Every submission of the study `id`, page by page.
    pub async fn submissions(&self, study: &str) -> Result<Vec<Submission>, CallError> {
        let mut all = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for page in 1..=MAX_PAGES {
            let p: Page = self
                .read(
                    "submissions/",
                    &[
                        ("study", study.to_owned()),
                        // A fixed order, so pages do not shift under new submissions.
                        ("ordering", "started_at".to_owned()),
                        ("page", page.to_string()),
                        ("page_size", PAGE_SIZE.to_string()),
                    ],
                )
                .await?;
            let last =
                p.results.is_empty() || p.links.and_then(|l| l.next).and_then(|n| n.href).is_none();
            for s in p.results {
                // A submission seen on two pages (the list moved while it was read) counts once.
                if seen.insert(s.id.clone()) {
                    all.push(Submission {
                        id: s.id,
                        participant: s.participant_id,
                        status: SubmissionStatus::parse(&s.status),
                    });
                }
            }
            if last {
                return Ok(all);
            }
        }
        Err(CallError::Unreadable(format!(
            "more than {MAX_PAGES} pages of submissions"
        )))
    }

    /// Approves the submissions `ids` (Prolific's bulk approve, 1,000 at a time; it approves them in the
    /// background). Made once: the caller records the outcome, and a later read of the
    /// submissions says what happened after no answer.
    pub async fn bulk_approve(&self, ids: &[String]) -> Result<(), CallError> {
        for chunk in ids.chunks(APPROVE_AT_ONCE) {
            let sent = self
                .auth(self.http.post(self.url("submissions/bulk-approve/")))
                .json(&serde_json::json!({ "submission_ids": chunk }))
                .send()
                .await;
            answer(sent).await.map_err(|e| self.scrub(e))?;
        }
        Ok(())
    }
}

impl Client {
    /// Rejects the submission `id` with Prolific's `category` and a `message` for the
    /// participant. Made once (the caller records it); Prolific documents the transition as
    /// idempotent.
    pub async fn reject(&self, id: &str, category: &str, message: &str) -> Result<(), CallError> {
        let sent = self
            .auth(
                self.http
                    .post(self.url(&format!("submissions/{id}/transition/"))),
            )
            .json(&serde_json::json!({
                "action": "REJECT",
                "rejection_category": category,
                "message": message,
            }))
            .send()
            .await;
        answer(sent).await.map(|_| ()).map_err(|e| self.scrub(e))
    }
}

/// A bulk bonus as Prolific made it: its id, and the amounts in cents (pence).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BulkBonus {
    /// Prolific's id of it.
    pub id: String,
    /// The bonuses.
    #[serde(default)]
    pub amount: f64,
    /// Prolific's fees on them.
    #[serde(default)]
    pub fees: f64,
    /// What paying it takes from the balance.
    #[serde(default)]
    pub total_amount: f64,
}

impl Client {
    /// Makes a bulk bonus of the study `study` from `csv` (`participant_id,amount` lines, the
    /// batch's Prolific file). Nothing is paid yet. Made once: a second one made after a lost
    /// answer is never paid, so it costs nothing.
    pub async fn set_up_bonus(&self, study: &str, csv: &str) -> Result<BulkBonus, CallError> {
        let sent = self
            .auth(self.http.post(self.url("submissions/bonus-payments/")))
            .json(&serde_json::json!({ "study_id": study, "csv_bonuses": csv }))
            .send()
            .await;
        let body = answer(sent).await.map_err(|e| self.scrub(e))?;
        serde_json::from_slice(&body).map_err(|e| CallError::Unreadable(e.to_string()))
    }

    /// Pays the bulk bonus `id`. **Not idempotent on Prolific**: the caller makes it at most
    /// once per bonus (`db::prolific::start_paying`), and never again after no answer.
    pub async fn pay_bonus(&self, id: &str) -> Result<(), CallError> {
        let sent = self
            .auth(
                self.http
                    .post(self.url(&format!("bulk-bonus-payments/{id}/pay/"))),
            )
            .send()
            .await;
        answer(sent).await.map(|_| ())
    }
}

fn retryable(e: &CallError) -> bool {
    match e {
        CallError::NoAnswer(_) => true,
        CallError::Refused { status, .. } => *status == 429 || *status >= 500,
        CallError::Unreadable(_) => false,
    }
}

/// The body of a successful answer, or the error it amounts to.
async fn answer(sent: Result<reqwest::Response, reqwest::Error>) -> Result<Vec<u8>, CallError> {
    let resp = sent.map_err(no_answer)?;
    let status = resp.status();
    let body = resp.bytes().await.map_err(no_answer)?.to_vec();
    if status.is_success() {
        Ok(body)
    } else {
        Err(CallError::Refused {
            status: status.as_u16(),
            message: error_message(&body),
        })
    }
}

/// reqwest's error as a researcher can read it, without the address.
fn no_answer(e: reqwest::Error) -> CallError {
    CallError::NoAnswer(if e.is_timeout() {
        "the request timed out".into()
    } else if e.is_connect() {
        "could not connect".into()
    } else {
        e.without_url().to_string().chars().take(200).collect()
    })
}

/// Prolific's message from an error body (`{"error": {"detail": ...}}` or `{"detail": ...}`),
/// short; the body's start when it is not JSON.
pub fn error_message(body: &[u8]) -> String {
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let msg = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.get("error")
                .and_then(|e| e.get("detail").or(Some(e)))
                .or_else(|| v.get("detail"))
                .map(text)
        })
        .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let msg = msg.trim();
    if msg.is_empty() {
        "no message".into()
    } else {
        msg.chars().take(300).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_never_shows_in_debug_output() {
        let s = Settings {
            base_url: "http://x".into(),
            token: Token::new(" secret-token \n").unwrap(),
            timeout: Duration::from_secs(1),
        };
        let shown = format!("{s:?} {:?}", Client::new(s.clone()));
        assert!(!shown.contains("secret-token"), "{shown}");
        assert!(Token::new("  ").is_none());
    }

    #[test]
    fn the_api_address_is_https_or_this_machine() {
        assert_eq!(
            base_url("https://api.prolific.com/").unwrap(),
            "https://api.prolific.com"
        );
        assert_eq!(
            base_url("http://127.0.0.1:4000").unwrap(),
            "http://127.0.0.1:4000"
        );
        assert!(base_url("http://api.prolific.com").is_err());
        assert!(base_url("http://localhost:1@evil.example").is_err());
        assert!(base_url("https://user:pw@api.prolific.com").is_err());
        assert!(base_url("api.prolific.com").is_err());
    }

    #[test]
    fn the_token_is_taken_out_of_any_message() {
        let c = Client::new(Settings {
            base_url: "http://x".into(),
            token: Token::new("tok-123").unwrap(),
            timeout: Duration::from_secs(1),
        });
        let e = c.scrub(CallError::Refused {
            status: 400,
            message: "echo: Token tok-123".into(),
        });
        assert_eq!(e.to_string(), "Prolific answered 400: echo: Token [token]");
    }

    #[test]
    fn prolifics_error_messages_are_read_in_both_shapes() {
        assert_eq!(
            error_message(br#"{"error": {"detail": "Invalid token.", "error_code": 140100}}"#),
            "Invalid token."
        );
        assert_eq!(error_message(br#"{"detail": "Not found."}"#), "Not found.");
        assert_eq!(
            error_message(br#"{"error": {"detail": ["a", "b"]}}"#),
            r#"["a","b"]"#
        );
        assert_eq!(
            error_message(b"<html>Bad gateway</html>"),
            "<html>Bad gateway</html>"
        );
        assert_eq!(error_message(b""), "no message");
        assert_eq!(error_message(&[b'x'; 1000]).len(), 300);
    }

    #[test]
    fn only_reads_that_may_be_repeated_are_retried() {
        assert!(retryable(&CallError::NoAnswer("t".into())));
        for status in [429, 500, 503] {
            assert!(retryable(&CallError::Refused {
                status,
                message: String::new()
            }));
        }
        for status in [400, 401, 403, 404] {
            assert!(!retryable(&CallError::Refused {
                status,
                message: String::new()
            }));
        }
        let refused = CallError::Refused {
            status: 401,
            message: "Invalid token.".into(),
        };
        assert!(refused.to_string().contains("PARACROWD_PROLIFIC_TOKEN"));
    }
}
