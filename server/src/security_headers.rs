//! Security headers on every response: no MIME sniffing, no referrer to
//! other sites, no framing by any page (`frame-ancestors 'none'`, and `X-Frame-Options` for old
//! browsers), and HSTS when the app runs behind HTTPS (`PARACROWD_SECURE_COOKIES`). A route that
//! sets one of them itself keeps its own: every HTML page sets its own Content-Security-Policy
//! with the nonce of its hydration scripts (`app::page_policy`); every other response (JSON,
//! files, exports) gets one that allows nothing to run.
use axum::http::{header, HeaderName, HeaderValue};
use axum::response::Response;

/// The policy of a response that is not one of the app's pages: nothing in it runs or loads.
pub const NOTHING_RUNS: &str = "default-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The headers for an app served over HTTPS (`secure`) or not.
pub fn headers(secure: bool) -> Vec<(HeaderName, HeaderValue)> {
    let mut h = vec![
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(NOTHING_RUNS),
        ),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        // Pages hold one user's data: no shared cache keeps them, and a browser asks again
        // (the hashed site bundle under /pkg sets its own year-long policy first).
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-cache"),
        ),
    ];
    if secure {
        h.push((
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=31536000"),
        ));
    }
    h
}

/// The middleware: adds [`headers`] where the response has not set them.
pub async fn add(
    axum::extract::State(secure): axum::extract::State<bool>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = req.uri().path().to_owned();
    let mut resp = next.run(req).await;
    let present = resp.headers_mut();
    if is_html(present) && !present.contains_key(header::CONTENT_SECURITY_POLICY) {
        // Every page sets its own policy with its scripts' nonce (`app::page_policy`): this
        // one's scripts will not run under the policy below, which allows nothing.
        tracing::error!(
            path,
            status = resp.status().as_u16(),
            "BUG: an HTML page without its own Content-Security-Policy"
        );
    }
    let present = resp.headers_mut();
    // A page a crowd platform may frame says so in its own policy (`app::page_policy`); the old
    // header would forbid it outright.
    let may_be_framed = present
        .get(header::CONTENT_SECURITY_POLICY)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|csp| {
            csp.contains("frame-ancestors") && !csp.contains("frame-ancestors 'none'")
        });
    for (name, value) in headers(secure) {
        if name == header::X_FRAME_OPTIONS && may_be_framed {
            continue;
        }
        present.entry(name).or_insert(value);
    }
    resp
}

fn is_html(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"))
}

/// Marks the response of a study-link worker's session (inside the sessions layer, after the
/// handler has signed them in or read their session): only their cookie must live in a
/// platform's frame. A password session (an admin's, a researcher's, an in-house annotator's)
/// keeps `SameSite=Lax`.
#[derive(Debug, Clone, Copy)]
pub struct StudySession;

/// What [`mark_study_session`] needs: whether framed cookies are on (`startup::framed_cookies`),
/// and the judging calls' session copies.
#[derive(Clone)]
pub struct StudyMarks {
    /// Framed cookies are on.
    pub framed: bool,
    /// The sessions the judging calls read (`app::service::session_cache`).
    pub sessions: std::sync::Arc<app::service::session_cache::SessionCache>,
}

/// See [`StudySession`]; does nothing when framed cookies are off. Static files are skipped:
/// their responses never touch the session. The judging calls do not load the session (their
/// worker-lock statement checks this server's copy of it, `api::judging_call`): their response
/// is marked from that copy, so they send no statement for the session here either.
pub async fn mark_study_session(
    axum::extract::State(marks): axum::extract::State<StudyMarks>,
    session: tower_sessions::Session,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if !marks.framed || req.uri().path().starts_with("/pkg/") {
        return next.run(req).await;
    }
    if req.uri().path().starts_with("/api/judge/") {
        // The id before the handler: a sign-out takes it from the session.
        let id = session.id();
        let mut resp = next.run(req).await;
        let copy = id.and_then(|id| marks.sessions.get(&id.to_string()));
        if copy.is_some_and(|c| c.view.study_worker) {
            resp.extensions_mut().insert(StudySession);
        }
        return resp;
    }
    // Before and after the handler: a worker signed out (a declined consent) gets the cookie
    // that removes theirs with the same attributes, or the browser would not apply it in the
    // frame.
    let was = app::session::is_study_worker(&session)
        .await
        .unwrap_or(false);
    let mut resp = next.run(req).await;
    if was
        || app::session::is_study_worker(&session)
            .await
            .unwrap_or(false)
    {
        resp.extensions_mut().insert(StudySession);
    }
    resp
}

/// Gives a study-link worker's session cookie `SameSite=None; Partitioned` (outside the sessions
/// layer, which wrote it `SameSite=Lax`): in the platform's cross-site frame a browser sends
/// only such a cookie, and one that blocks third-party cookies keeps a partitioned one there,
/// apart from the same site's cookies elsewhere. tower-sessions has no switch for either per
/// session. Only responses [`mark_study_session`] marked are changed, and only behind HTTPS
/// (`SameSite=None` needs `Secure`).
pub async fn frame_study_cookie(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let mut resp = next.run(req).await;
    if resp.extensions().get::<StudySession>().is_none() {
        return resp;
    }
    let prefix = format!("{}=", crate::startup::SESSION_COOKIE);
    let cookies: Vec<HeaderValue> = resp
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .cloned()
        .collect();
    if !cookies
        .iter()
        .any(|c| c.as_bytes().starts_with(prefix.as_bytes()))
    {
        return resp;
    }
    resp.headers_mut().remove(header::SET_COOKIE);
    for c in cookies {
        let value = match c.to_str() {
            // Marked only when cookies are secure (`mark_study_session`): the removal cookie
            // tower-sessions sends on sign-out has no attributes, and gets them here.
            Ok(text) if text.starts_with(&prefix) => {
                HeaderValue::from_str(&framed_cookie(text)).unwrap_or(c)
            }
            _ => c,
        };
        resp.headers_mut().append(header::SET_COOKIE, value);
    }
    resp
}

/// `Secure; SameSite=None; Partitioned` in place of the cookie's own.
fn framed_cookie(text: &str) -> String {
    let mut parts: Vec<&str> = text
        .split("; ")
        .filter(|p| !p.starts_with("SameSite=") && *p != "Partitioned" && *p != "Secure")
        .collect();
    parts.push("Secure");
    parts.push("SameSite=None");
    parts.push("Partitioned");
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_framed_cookie_is_same_site_none_and_partitioned() {
        assert_eq!(
            framed_cookie("paracrowd_session=abc; HttpOnly; SameSite=Lax; Secure; Path=/; Max-Age=604800"),
            "paracrowd_session=abc; HttpOnly; Path=/; Max-Age=604800; Secure; SameSite=None; Partitioned"
        );
        assert_eq!(
            framed_cookie("paracrowd_session=abc; SameSite=None; Secure; Partitioned"),
            "paracrowd_session=abc; Secure; SameSite=None; Partitioned"
        );
        // The removal cookie of a sign-out comes bare.
        assert_eq!(
            framed_cookie("paracrowd_session=; Path=/; Max-Age=0"),
            "paracrowd_session=; Path=/; Max-Age=0; Secure; SameSite=None; Partitioned"
        );
    }

    #[test]
    fn hsts_only_behind_https() {
        let names =
            |secure| -> Vec<HeaderName> { headers(secure).into_iter().map(|(n, _)| n).collect() };
        assert!(!names(false).contains(&header::STRICT_TRANSPORT_SECURITY));
        assert!(names(true).contains(&header::STRICT_TRANSPORT_SECURITY));
        assert_eq!(names(true).len(), names(false).len() + 1);
    }
}
