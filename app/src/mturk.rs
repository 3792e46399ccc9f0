//! Mechanical Turk's requester API through the official SDK (`aws-sdk-mturk`): the calls the
//! payments page makes. Credentials come from the standard AWS chain (the environment's
//! `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE` and `~/.aws`, a role where the server
//! runs on AWS); they are read on the first call, never stored or shown. Each connection says
//! whether its HITs are in the sandbox or in production.
//!
//! Reads are retried by the SDK (its standard mode); a call that changes something is made once,
//! and its outcome reported as it is (the caller records it).
use std::time::Duration;

use aws_sdk_mturk::config::retry::RetryConfig;
use aws_sdk_mturk::config::timeout::TimeoutConfig;
use aws_sdk_mturk::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_mturk::types::AssignmentStatus;

use crate::domain::study::reconcile::{Submission, SubmissionStatus};

/// MTurk's production endpoint (the SDK's default for `us-east-1`).
pub const PRODUCTION: &str = "https://mturk-requester.us-east-1.amazonaws.com";
/// MTurk's sandbox endpoint: HITs and money there are not real.
pub const SANDBOX: &str = "https://mturk-requester-sandbox.us-east-1.amazonaws.com";
/// Assignments asked for per page (MTurk's most).
pub const PAGE_SIZE: i32 = 100;
/// The most pages read for one HIT.
const MAX_PAGES: u32 = 1000;

/// How to reach MTurk.
#[derive(Debug, Clone)]
pub struct Settings {
    /// An address used instead of both of MTurk's (a local fake in tests): `https://`, or
    /// `http://` on this machine only.
    pub endpoint: Option<String>,
    /// How long one call may take.
    pub timeout: Duration,
    /// Fixed credentials instead of the AWS chain (tests only: the chain reads the process's
    /// environment, which tests share).
    pub fixed_credentials: Option<(String, String)>,
}

/// Why a call did not give an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// MTurk answered with an error: the HTTP status, MTurk's code and its message.
    Refused {
        status: u16,
        code: String,
        message: String,
    },
    /// The call was never sent: no credentials, or a request the SDK could not build.
    NotSent(String),
    /// No answer: a timeout or a dropped connection. A call that changes something may or may
    /// not have happened.
    NoAnswer(String),
    /// An answer this client cannot read.
    Unreadable(String),
}

impl CallError {
    /// Whether MTurk may have acted on a call that gave this error: no answer, an answer that
    /// could not be read, a server error (a gateway's error can come after MTurk acted), or a
    /// refusal because the request's token was used already (that call did happen).
    pub fn may_have_happened(&self) -> bool {
        match self {
            CallError::Refused {
                status, message, ..
            } => *status >= 500 || token_used(message),
            CallError::NotSent(_) => false,
            CallError::NoAnswer(_) | CallError::Unreadable(_) => true,
        }
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Refused { code, message, .. } if credentials_refused(code) => {
                write!(
                    f,
                    "MTurk refused the AWS credentials ({code}): {message}. Check the server's AWS credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE, ~/.aws/credentials)."
                )
            }
            CallError::Refused {
                status,
                code,
                message,
            } => write!(f, "MTurk answered {status} {code}: {message}"),
            CallError::NotSent(why) => write!(f, "Nothing was sent to MTurk: {why}"),
            CallError::NoAnswer(why) => write!(f, "MTurk did not answer: {why}"),
            CallError::Unreadable(why) => write!(f, "MTurk's answer could not be read: {why}"),
        }
    }
}

/// Whether MTurk's error code says the credentials were refused (AWS's codes for an unknown
/// key, a wrong secret, an expired session or a key without MTurk's permissions).
fn credentials_refused(code: &str) -> bool {
    [
        "UnrecognizedClient",
        "InvalidClientTokenId",
        "Signature",
        "ExpiredToken",
        "AccessDenied",
    ]
    .iter()
    .any(|c| code.contains(c))
}

/// Whether MTurk's message says a `UniqueRequestToken` was used already: the bonus it names
/// was sent before (from here or from the batch's file).
fn token_used(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("token") && (m.contains("already") || m.contains("duplicate"))
}

/// The SDK's error as one of ours. A credentials failure names where credentials come from.
fn call_error<E>(e: SdkError<E>) -> CallError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    let text = |e: &SdkError<E>| {
        let mut t = DisplayErrorContext(e).to_string();
        t.truncate(600);
        t
    };
    match &e {
        SdkError::ServiceError(ctx) => CallError::Refused {
            status: ctx.raw().status().as_u16(),
            code: ctx.err().code().unwrap_or("").chars().take(100).collect(),
            message: ctx
                .err()
                .message()
                .unwrap_or("")
                .chars()
                .take(600)
                .collect(),
        },
        SdkError::TimeoutError(_) => CallError::NoAnswer("it took too long".into()),
        // Nothing was built to send.
        SdkError::ConstructionFailure(_) => CallError::NotSent(text(&e)),
        SdkError::DispatchFailure(_) => {
            let t = text(&e);
            // Credentials are resolved before anything is sent; any other failure to dispatch
            // (a connection closed before the answer, say) may come after MTurk got the call.
            if t.to_ascii_lowercase().contains("credential") {
                CallError::NotSent(format!(
                    "the server has no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, and restart it): {t}"
                ))
            } else {
                CallError::NoAnswer(t)
            }
        }
        _ => CallError::Unreadable(text(&e)),
    }
}

/// A HIT as MTurk describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The HIT's id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// `Assignable`, `Unassignable`, `Reviewable`, `Reviewing`, `Disposed`.
    pub status: String,
    /// How many assignments it has.
    pub max_assignments: i32,
    /// How many are completed.
    pub completed: i32,
}

/// A bonus MTurk lists as paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaidBonus {
    /// The worker paid.
    pub worker_id: String,
    /// The assignment it was paid against.
    pub assignment_id: String,
    /// The amount, in cents.
    pub amount_cents: i64,
    /// The reason the worker read.
    pub reason: String,
}

/// MTurk's dollars (`"1.05"`, `"2"`, `"0.5"`) in cents; `None` when not an amount.
pub fn cents(dollars: &str) -> Option<i64> {
    let d = dollars.trim();
    let (whole, frac) = d.split_once('.').unwrap_or((d, ""));
    if whole.is_empty()
        || whole.len() > 9
        || frac.len() > 2
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let frac_cents = match frac.len() {
        0 => 0,
        1 => frac.parse::<i64>().ok()? * 10,
        _ => frac.parse::<i64>().ok()?,
    };
    Some(whole.parse::<i64>().ok()? * 100 + frac_cents)
}

/// An assignment's status as the reconciliation table reads it: MTurk's `Submitted` is
/// awaiting review.
pub fn status(s: Option<&AssignmentStatus>) -> SubmissionStatus {
    match s {
        Some(AssignmentStatus::Submitted) => SubmissionStatus::AwaitingReview,
        Some(AssignmentStatus::Approved) => SubmissionStatus::Approved,
        Some(AssignmentStatus::Rejected) => SubmissionStatus::Rejected,
        Some(other) => SubmissionStatus::Other(other.as_str().chars().take(40).collect()),
        None => SubmissionStatus::Other("no status".into()),
    }
}

/// The clients of one environment: one that retries (reads) and one that does not (writes).
#[derive(Debug, Clone)]
struct Pair {
    read: aws_sdk_mturk::Client,
    write: aws_sdk_mturk::Client,
}

/// The client. The AWS configuration is loaded on the first call.
#[derive(Debug)]
pub struct Client {
    settings: Settings,
    config: tokio::sync::OnceCell<aws_config::SdkConfig>,
}

impl Client {
    /// A client for `settings`; nothing is read or sent yet.
    pub fn new(settings: Settings) -> Client {
        Client {
            settings,
            config: tokio::sync::OnceCell::new(),
        }
    }

    async fn sdk_config(&self) -> &aws_config::SdkConfig {
        self.config
            .get_or_init(|| async {
                use aws_smithy_http_client::tls::{self, rustls_provider::CryptoMode};
                let http = aws_smithy_http_client::Builder::new()
                    .tls_provider(tls::Provider::Rustls(CryptoMode::Ring))
                    .build_https();
                let t = self.settings.timeout;
                let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest())
                    // MTurk lives in us-east-1 only.
                    .region(aws_config::Region::new("us-east-1"))
                    .http_client(http)
                    .timeout_config(
                        TimeoutConfig::builder()
                            .operation_attempt_timeout(t)
                            .operation_timeout(t * 3)
                            .connect_timeout(t.min(Duration::from_secs(10)))
                            .build(),
                    );
                if let Some((id, secret)) = &self.settings.fixed_credentials {
                    loader = loader.credentials_provider(aws_sdk_mturk::config::Credentials::new(
                        id, secret, None, None, "fixed",
                    ));
                }
                loader.load().await
            })
            .await
    }

    async fn clients(&self, sandbox: bool) -> Pair {
        let config = self.sdk_config().await;
        let endpoint = match &self.settings.endpoint {
            Some(e) => e.clone(),
            None if sandbox => SANDBOX.to_owned(),
            None => PRODUCTION.to_owned(),
        };
        let build = |retry: RetryConfig| {
            aws_sdk_mturk::Client::from_conf(
                aws_sdk_mturk::config::Builder::from(config)
                    .endpoint_url(endpoint.clone())
                    .retry_config(retry)
                    .build(),
            )
        };
        Pair {
            read: build(RetryConfig::standard().with_max_attempts(3)),
            write: build(RetryConfig::disabled()),
        }
    }

    /// The account's available balance, in dollars as MTurk writes them (one read: half of
    /// what "Test the connection" calls).
    pub async fn balance(&self, sandbox: bool) -> Result<String, CallError> {
        let out = self
            .clients(sandbox)
            .await
            .read
            .get_account_balance()
            .send()
            .await
            .map_err(call_error)?;
        Ok(out.available_balance().unwrap_or("").to_owned())
    }

    /// The HIT `id`.
    pub async fn hit(&self, sandbox: bool, id: &str) -> Result<Hit, CallError> {
        let out = self
            .clients(sandbox)
            .await
            .read
            .get_hit()
            .hit_id(id)
            .send()
            .await
            .map_err(call_error)?;
        let h = out
            .hit()
            .ok_or_else(|| CallError::Unreadable("no HIT in the answer".into()))?;
        Ok(Hit {
            id: h.hit_id().unwrap_or(id).to_owned(),
            title: h.title().unwrap_or("").to_owned(),
            status: h
                .hit_status()
                .map(|s| s.as_str().to_owned())
                .unwrap_or_default(),
            max_assignments: h.max_assignments().unwrap_or(0),
            completed: h.number_of_assignments_completed().unwrap_or(0),
        })
    }

    /// Every submitted, approved or rejected assignment of the HITs `hits`, page by page (MTurk
    /// does not list assignments still being worked on, returned or abandoned). The worker's id
    /// is the submission's participant, the assignment's id its id.
    pub async fn assignments(
        &self,
        sandbox: bool,
        hits: &[String],
    ) -> Result<Vec<Submission>, CallError> {
        let read = self.clients(sandbox).await.read;
        let mut all = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for hit in hits {
            let mut next: Option<String> = None;
            let mut pages = 0;
            loop {
                pages += 1;
                if pages > MAX_PAGES {
                    return Err(CallError::Unreadable(format!(
                        "more than {MAX_PAGES} pages of assignments"
                    )));
                }
                let out = read
                    .list_assignments_for_hit()
                    .hit_id(hit)
                    .max_results(PAGE_SIZE)
                    .set_next_token(next.take())
                    .send()
                    .await
                    .map_err(call_error)?;
                for a in out.assignments() {
                    let (Some(id), Some(worker)) = (a.assignment_id(), a.worker_id()) else {
                        continue;
                    };
                    if seen.insert(id.to_owned()) {
                        all.push(Submission {
                            id: id.to_owned(),
                            participant: worker.to_owned(),
                            status: status(a.assignment_status()),
                        });
                    }
                }
                match out.next_token() {
                    Some(t) if !t.is_empty() && !out.assignments().is_empty() => {
                        next = Some(t.to_owned())
                    }
                    _ => break,
                }
            }
        }
        Ok(all)
    }

    /// Approves the assignment `id` (made once).
    pub async fn approve(&self, sandbox: bool, id: &str) -> Result<(), CallError> {
        self.clients(sandbox)
            .await
            .write
            .approve_assignment()
            .assignment_id(id)
            .send()
            .await
            .map(|_| ())
            .map_err(call_error)
    }

    /// Rejects the assignment `id` with `feedback` for the worker (made once).
    pub async fn reject(&self, sandbox: bool, id: &str, feedback: &str) -> Result<(), CallError> {
        self.clients(sandbox)
            .await
            .write
            .reject_assignment()
            .assignment_id(id)
            .requester_feedback(feedback)
            .send()
            .await
            .map(|_| ())
            .map_err(call_error)
    }

    /// Sends one bonus (made once; `token` is MTurk's `UniqueRequestToken`: the same token
    /// again within 24 hours pays nothing more).
    pub async fn send_bonus(
        &self,
        sandbox: bool,
        worker: &str,
        assignment: &str,
        amount_cents: i64,
        reason: &str,
        token: &str,
    ) -> Result<(), CallError> {
        self.clients(sandbox)
            .await
            .write
            .send_bonus()
            .worker_id(worker)
            .assignment_id(assignment)
            .bonus_amount(crate::domain::money::dollars(amount_cents))
            .reason(reason)
            .unique_request_token(token)
            .send()
            .await
            .map(|_| ())
            .map_err(call_error)
    }

    /// The bonuses MTurk lists as paid for the assignment `assignment`.
    pub async fn bonuses(
        &self,
        sandbox: bool,
        assignment: &str,
    ) -> Result<Vec<PaidBonus>, CallError> {
        let read = self.clients(sandbox).await.read;
        let mut all = Vec::new();
        let mut next: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let out = read
                .list_bonus_payments()
                .assignment_id(assignment)
                .max_results(PAGE_SIZE)
                .set_next_token(next.take())
                .send()
                .await
                .map_err(call_error)?;
            for b in out.bonus_payments() {
                let amount = b.bonus_amount().and_then(cents).ok_or_else(|| {
                    CallError::Unreadable(format!(
                        "a bonus amount of {:?}",
                        b.bonus_amount().unwrap_or("")
                    ))
                })?;
                all.push(PaidBonus {
                    worker_id: b.worker_id().unwrap_or("").to_owned(),
                    assignment_id: b.assignment_id().unwrap_or(assignment).to_owned(),
                    amount_cents: amount,
                    reason: b.reason().unwrap_or("").to_owned(),
                });
            }
            match out.next_token() {
                Some(t) if !t.is_empty() && !out.bonus_payments().is_empty() => {
                    next = Some(t.to_owned())
                }
                _ => return Ok(all),
            }
        }
        Err(CallError::Unreadable(format!(
            "more than {MAX_PAGES} pages of bonuses"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_read_as_mturk_writes_dollars() {
        use crate::domain::money::dollars;
        assert_eq!(cents("1.05"), Some(105));
        assert_eq!(cents("2"), Some(200));
        assert_eq!(cents("0.5"), Some(50));
        assert_eq!(cents(" 10000.00 "), Some(1_000_000));
        for bad in [
            "",
            ".5",
            "1.005",
            "-1.00",
            "1,00",
            "abc",
            "1e3",
            "1234567890",
        ] {
            assert_eq!(cents(bad), None, "{bad}");
        }
        for c in [0, 1, 99, 100, 101, 123_456] {
            assert_eq!(cents(&dollars(c)), Some(c));
        }
    }

    #[test]
    fn statuses_read_as_the_reconciliation_table_reads_them() {
        assert_eq!(
            status(Some(&AssignmentStatus::Submitted)),
            SubmissionStatus::AwaitingReview
        );
        assert_eq!(
            status(Some(&AssignmentStatus::Approved)),
            SubmissionStatus::Approved
        );
        assert_eq!(
            status(Some(&AssignmentStatus::Rejected)),
            SubmissionStatus::Rejected
        );
        assert!(matches!(status(None), SubmissionStatus::Other(_)));
    }

    #[test]
    fn only_errors_after_which_mturk_may_have_acted_count_as_unknown() {
        let refused = |status| CallError::Refused {
            status,
            code: "RequestError".into(),
            message: "no".into(),
        };
        assert!(!refused(400).may_have_happened());
        assert!(refused(503).may_have_happened());
        let used = CallError::Refused {
            status: 400,
            code: "RequestError".into(),
            message: "The request token abc has already been used.".into(),
        };
        assert!(used.may_have_happened());
        assert!(!CallError::NotSent("no credentials".into()).may_have_happened());
        assert!(CallError::NoAnswer("timed out".into()).may_have_happened());
        assert!(CallError::Unreadable("?".into()).may_have_happened());
    }
}
