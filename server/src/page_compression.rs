//! Pages are sent compressed (brotli or gzip, whichever the browser accepts): a server-rendered
//! page is mostly markup and shrinks to about a third, which a phone on a slow network feels on
//! every page load. Only HTML is compressed here: the site's files under `/pkg` are compressed
//! once at build time (`crate::precompress`), and the server functions' short JSON answers are
//! left as they are, so the answer path spends nothing on it.
//!
//! Compressing a page that echoes text from its address next to a secret would let a page
//! elsewhere guess the secret from sizes (BREACH). No page here does: forms are guarded by
//! their Origin, not by a token in the page; the session cookie is not in any page; the one
//! echo of free text (the writing page's refused draft) shares no page with a completion code.
//! A page that must show both should be left uncompressed.
use axum::http::{header, Extensions, HeaderMap, StatusCode, Version};
use tower_http::compression::{CompressionLayer, CompressionLevel};

/// Which responses the layer compresses ([`is_page`]).
pub type PagePredicate = fn(StatusCode, Version, &HeaderMap, &Extensions) -> bool;

/// The layer: brotli or gzip at a middling level (a page takes well under a millisecond).
pub fn layer() -> CompressionLayer<PagePredicate> {
    CompressionLayer::new()
        .no_deflate()
        .no_zstd()
        .quality(CompressionLevel::Precise(5))
        .compress_when(is_page as PagePredicate)
}

/// An HTML response that is not compressed already.
fn is_page(_: StatusCode, _: Version, headers: &HeaderMap, _: &Extensions) -> bool {
    let html = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.trim_start().to_ascii_lowercase().starts_with("text/html"));
    html && !headers.contains_key(header::CONTENT_ENCODING)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(content_type: &str, encoding: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, content_type.parse().unwrap());
        if let Some(e) = encoding {
            headers.insert(header::CONTENT_ENCODING, e.parse().unwrap());
        }
        headers
    }

    #[test]
    fn only_pages_are_compressed_here() {
        let ok = |h: &HeaderMap| is_page(StatusCode::OK, Version::HTTP_11, h, &Extensions::new());
        assert!(ok(&with("text/html; charset=utf-8", None)));
        assert!(ok(&with("Text/HTML", None)));
        assert!(!ok(&with("text/html", Some("br"))), "already compressed");
        assert!(!ok(&with("application/json", None)));
        assert!(!ok(&with("application/wasm", None)));
        assert!(!ok(&HeaderMap::new()), "no content type");
    }
}
