//! Cross-site request forgery. SameSite=Lax keeps the session cookie off cross-site POSTs, but
//! not off a page on another port of the same host or a sibling subdomain (same site, other
//! origin). So a state-changing request (any method but GET, HEAD and OPTIONS) is refused
//! unless both hold:
//! - its body is a form (`application/x-www-form-urlencoded`), which is all the app's own
//!   forms and its client send: a `text/plain` or typeless POST, which another page can make
//!   without a CORS preflight, gets 415;
//! - its `Origin` (or, without one, its `Referer`) is the app's own: the scheme, host and port
//!   it was sent to (`Host`; the scheme is `X-Forwarded-Proto`'s when a proxy in front says it,
//!   else `http`, all this server speaks, or `https` too when `PARACROWD_SECURE_COOKIES` says
//!   the app is behind HTTPS, for a proxy that does not send the header; a `Host` without a port
//!   is that scheme's default port), or one of `PARACROWD_ALLOWED_ORIGINS`; anything else, `Origin: null` included, gets
//!   403. Browsers send `Origin` with every POST, so a request with neither header comes from a
//!   program (a script, the load tool), where forgery does not arise, and passes. (A page cannot
//!   make a browser send `X-Forwarded-Proto` across sites without a CORS preflight, which this
//!   server does not answer.)
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The body is not a form.
    NotAForm(String),
    /// The request comes from another origin.
    CrossOrigin(String),
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::NotAForm(got) => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "This address accepts forms (application/x-www-form-urlencoded), not {got}."
                ),
            ),
            Refusal::CrossOrigin(from) => (
                StatusCode::FORBIDDEN,
                format!("Refused: this request was sent from another site ({from})."),
            ),
        }
        .into_response()
    }
}

/// An origin: scheme, host (lower-cased) and port (the scheme's default when none is written).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    https: bool,
    host: String,
    port: u16,
}

fn default_port(https: bool) -> u16 {
    if https {
        443
    } else {
        80
    }
}

/// `scheme://host:port`, or a URL that starts so (a `Referer`).
fn origin_of(text: &str) -> Option<Origin> {
    let uri: Uri = text.trim().parse().ok()?;
    let https = match uri.scheme_str()? {
        "http" => false,
        "https" => true,
        _ => return None,
    };
    let authority = uri.authority()?;
    Some(Origin {
        https,
        host: authority.host().to_ascii_lowercase(),
        port: authority.port_u16().unwrap_or(default_port(https)),
    })
}

/// Whether `origin` is the one the request was sent to: its `Host`, with the scheme a proxy in
/// front names in `X-Forwarded-Proto`; without that header `http`, and `https` as well when
/// `behind_https` (`PARACROWD_SECURE_COOKIES`).
fn is_own(origin: &Origin, headers: &HeaderMap, behind_https: bool) -> bool {
    let Some(authority) = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.trim().parse::<axum::http::uri::Authority>().ok())
    else {
        return false;
    };
    let schemes: &[bool] = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
    {
        Some(p) => {
            if p.trim().eq_ignore_ascii_case("https") {
                &[true]
            } else {
                &[false]
            }
        }
        None if behind_https => &[false, true],
        None => &[false],
    };
    schemes.iter().any(|&https| {
        *origin
            == Origin {
                https,
                host: authority.host().to_ascii_lowercase(),
                port: authority.port_u16().unwrap_or(default_port(https)),
            }
    })
}

/// The rule above, on a request's method and headers; `allowed` are extra origins
/// (`https://study.example.org`) for a proxy that rewrites `Host`.
pub fn check(
    method: &Method,
    headers: &HeaderMap,
    allowed: &[String],
    behind_https: bool,
) -> Result<(), Refusal> {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return Ok(());
    }
    let text = |name: header::HeaderName| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap_or("(unreadable)").to_owned())
    };
    let content_type = text(header::CONTENT_TYPE);
    let essence = content_type
        .as_deref()
        .and_then(|c| c.split(';').next())
        .map(|c| c.trim().to_ascii_lowercase());
    if essence.as_deref() != Some("application/x-www-form-urlencoded") {
        return Err(Refusal::NotAForm(
            content_type.unwrap_or_else(|| "a body without a Content-Type".into()),
        ));
    }
    let Some(from) = text(header::ORIGIN).or_else(|| text(header::REFERER)) else {
        return Ok(());
    };
    let own = origin_of(&from).is_some_and(|o| {
        is_own(&o, headers, behind_https)
            || allowed.iter().any(|a| origin_of(a).as_ref() == Some(&o))
    });
    if own {
        Ok(())
    } else {
        Err(Refusal::CrossOrigin(from))
    }
}

/// What [`guard`] checks against: the extra origins, and whether the app is behind HTTPS.
#[derive(Debug, Clone, Default)]
pub struct Origins {
    pub allowed: Vec<String>,
    pub behind_https: bool,
}

/// The middleware: [`check`] with the configured extra origins.
pub async fn guard(
    axum::extract::State(origins): axum::extract::State<std::sync::Arc<Origins>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    match check(
        req.method(),
        req.headers(),
        &origins.allowed,
        origins.behind_https,
    ) {
        Ok(()) => next.run(req).await,
        Err(refusal) => {
            // At most one line every 10 s: a flood of forged posts must not flood the log.
            static LOGGED: app::log_limit::Limited =
                app::log_limit::Limited::new(std::time::Duration::from_secs(10));
            if let Some(left_out) = LOGGED.due() {
                tracing::warn!(?refusal, path = %req.uri().path(), left_out, "refused a state-changing request");
            }
            refusal.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORM: &str = "application/x-www-form-urlencoded";

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.insert(*name, value.parse().unwrap());
        }
        h
    }

    fn post(pairs: &[(&'static str, &str)]) -> Result<(), Refusal> {
        check(&Method::POST, &headers(pairs), &[], false)
    }

    #[test]
    fn the_apps_own_forms_pass() {
        let host = ("host", "app.example:3000");
        assert_eq!(post(&[("content-type", FORM), host]), Ok(()));
        assert_eq!(
            post(&[
                (
                    "content-type",
                    "application/x-www-form-urlencoded; charset=UTF-8"
                ),
                ("origin", "http://app.example:3000"),
                host
            ]),
            Ok(())
        );
        assert_eq!(
            post(&[
                ("content-type", FORM),
                ("referer", "http://APP.example:3000/admin?x=1"),
                host
            ]),
            Ok(())
        );
        assert_eq!(
            post(&[
                ("content-type", FORM),
                ("origin", "http://app.example"),
                ("host", "app.example")
            ]),
            Ok(())
        );
        // Behind a proxy that serves HTTPS and says so.
        assert_eq!(
            post(&[
                ("content-type", FORM),
                ("origin", "https://app.example"),
                ("host", "app.example"),
                ("x-forwarded-proto", "https")
            ]),
            Ok(())
        );
        assert_eq!(
            check(
                &Method::GET,
                &headers(&[("origin", "http://evil")]),
                &[],
                false
            ),
            Ok(())
        );
    }

    #[test]
    fn other_origins_are_refused() {
        let host = ("host", "app.example:3000");
        for from in [
            ("origin", "http://app.example:4000"),
            ("origin", "http://sub.app.example:3000"),
            ("origin", "http://app.example.evil:3000"),
            ("origin", "null"),
            ("origin", "https://app.example"),
            ("referer", "http://app.example:4000/page"),
        ] {
            let got = post(&[("content-type", FORM), from, host]);
            assert!(matches!(got, Err(Refusal::CrossOrigin(_))), "{from:?}");
        }
        // An Origin from elsewhere is not rescued by a Referer from here.
        let got = post(&[
            ("content-type", FORM),
            ("origin", "http://app.example:4000"),
            ("referer", "http://app.example:3000/"),
            host,
        ]);
        assert!(matches!(got, Err(Refusal::CrossOrigin(_))));
        // A Host without a port is the default port, not any port.
        let got = post(&[
            ("content-type", FORM),
            ("origin", "http://app.example:4000"),
            ("host", "app.example"),
        ]);
        assert!(matches!(got, Err(Refusal::CrossOrigin(_))));
        // Another scheme is another origin: an https page does not post to the plain-HTTP app,
        // nor an http page (a network attacker's) to the app behind HTTPS, with or without a
        // port in Host.
        for (origin, host, proto) in [
            ("https://app.example", "app.example", None),
            ("https://app.example:3000", "app.example:3000", None),
            ("https://app.example:80", "app.example", None),
            ("http://app.example", "app.example", Some("https")),
            ("http://app.example:443", "app.example", Some("https")),
        ] {
            let mut pairs = vec![("content-type", FORM), ("origin", origin), ("host", host)];
            if let Some(p) = proto {
                pairs.push(("x-forwarded-proto", p));
            }
            let got = post(&pairs);
            assert!(
                matches!(got, Err(Refusal::CrossOrigin(_))),
                "{origin} to {host} {proto:?}"
            );
        }
        // No Host to compare with: only the configured origins.
        let got = post(&[
            ("content-type", FORM),
            ("origin", "http://app.example:3000"),
        ]);
        assert!(matches!(got, Err(Refusal::CrossOrigin(_))));
    }

    #[test]
    fn behind_https_without_the_proxys_header_both_schemes_of_the_host_pass() {
        let from = |origin| {
            headers(&[
                ("content-type", FORM),
                ("origin", origin),
                ("host", "app.example"),
            ])
        };
        for origin in ["https://app.example", "http://app.example"] {
            assert_eq!(
                check(&Method::POST, &from(origin), &[], true),
                Ok(()),
                "{origin}"
            );
        }
        assert!(check(&Method::POST, &from("https://app.example:8443"), &[], true).is_err());
        // The proxy's word, when it says it, decides.
        let mut h = from("http://app.example");
        h.insert("x-forwarded-proto", "https".parse().unwrap());
        assert!(check(&Method::POST, &h, &[], true).is_err());
    }

    #[test]
    fn configured_origins_pass_behind_a_proxy_that_rewrites_host() {
        let allowed = vec!["https://study.example.org".to_owned()];
        let h = headers(&[
            ("content-type", FORM),
            ("origin", "https://study.example.org"),
            ("host", "10.0.0.5:3000"),
        ]);
        assert_eq!(check(&Method::POST, &h, &allowed, false), Ok(()));
        assert!(check(&Method::POST, &h, &[], false).is_err());
    }

    #[test]
    fn bodies_that_are_not_forms_are_refused() {
        for content_type in [
            Some("text/plain"),
            Some("text/plain;charset=UTF-8"),
            Some("multipart/form-data; boundary=x"),
            Some("application/json"),
            None,
        ] {
            let mut pairs = vec![("host", "app.example:3000")];
            if let Some(c) = content_type {
                pairs.push(("content-type", c));
            }
            for method in [Method::POST, Method::PUT, Method::DELETE, Method::PATCH] {
                let got = check(&method, &headers(&pairs), &[], false);
                assert!(
                    matches!(got, Err(Refusal::NotAForm(_))),
                    "{method} {content_type:?}"
                );
            }
        }
    }
}
