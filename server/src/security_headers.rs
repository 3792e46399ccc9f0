//! Security headers on every response (issue #21 item 6): no MIME sniffing, no referrer to
//! other sites, no framing by any page (`frame-ancestors 'none'`, and `X-Frame-Options` for old
//! browsers), and HSTS when the app runs behind HTTPS (`PARACROWD_SECURE_COOKIES`). A route that
//! sets one of them itself keeps its own: every HTML page sets its own Content-Security-Policy
//! with the nonce of its hydration scripts (`app::page_policy`); every other response (JSON,
//! files, exports) gets one that allows nothing to run.
use axum::http::{header, HeaderName, HeaderValue};
use axum::response::Response;

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
            HeaderValue::from_static("default-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
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
    let mut resp = next.run(req).await;
    let present = resp.headers_mut();
    for (name, value) in headers(secure) {
        present.entry(name).or_insert(value);
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hsts_only_behind_https() {
        let names =
            |secure| -> Vec<HeaderName> { headers(secure).into_iter().map(|(n, _)| n).collect() };
        assert!(!names(false).contains(&header::STRICT_TRANSPORT_SECURITY));
        assert!(names(true).contains(&header::STRICT_TRANSPORT_SECURITY));
        assert_eq!(names(true).len(), names(false).len() + 1);
    }
}
