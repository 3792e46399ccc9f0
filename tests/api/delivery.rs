//! Delivery of the site bundle: content-hashed names that pages point at, the
//! build's brotli or gzip twin sent to a browser that accepts it (and the plain file to one that
//! does not), a year's immutable caching for hashed names only, and pages that are not cached.
use std::io::Read;

use reqwest::{header, StatusCode};
use sqlx::PgPool;

use crate::helpers::{client, spawn_app_with_config};

const STEM: &str = "paracrowd.0123456789abcdef";

/// A site as `scripts/build.sh` leaves it: hashed bundle, `pkg/output-name`, compressed twins.
fn built_site() -> (tempfile::TempDir, Vec<u8>) {
    let site = tempfile::tempdir().unwrap();
    let pkg = site.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    // Not text, and big enough that a served-whole file cannot be mistaken for a twin.
    let wasm: Vec<u8> = (0..200_000u32)
        .flat_map(|i| (i % 251).to_le_bytes())
        .collect();
    std::fs::write(pkg.join(format!("{STEM}.wasm")), &wasm).unwrap();
    std::fs::write(
        pkg.join(format!("{STEM}.js")),
        "export default function init() {}\n".repeat(500),
    )
    .unwrap();
    std::fs::write(
        pkg.join(format!("{STEM}.css")),
        "body { margin: 0 }\n".repeat(500),
    )
    .unwrap();
    std::fs::write(pkg.join("output-name"), format!("{STEM}\n")).unwrap();
    // The favicon, as the build copies it from public/.
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../public/favicon.ico"),
        site.path().join("favicon.ico"),
    )
    .unwrap();
    let done = server::precompress::precompress_dir(&pkg).unwrap();
    assert!(
        done.iter().all(|c| c.brotli.is_some() && c.gzip.is_some()),
        "{done:?}"
    );
    (site, wasm)
}

/// A file as it arrives: status, headers and the body as sent (reqwest is built without its
/// decompression features).
struct Fetched {
    status: StatusCode,
    headers: header::HeaderMap,
    body: Vec<u8>,
}

impl Fetched {
    fn header(&self, name: header::HeaderName) -> String {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    }
}

async fn fetch(url: &str, accept_encoding: Option<&str>) -> Fetched {
    let mut request = client().get(url);
    if let Some(encoding) = accept_encoding {
        request = request.header(header::ACCEPT_ENCODING, encoding);
    }
    let resp = request.send().await.unwrap();
    Fetched {
        status: resp.status(),
        headers: resp.headers().clone(),
        body: resp.bytes().await.unwrap().to_vec(),
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn the_bundle_is_hashed_compressed_and_cached_for_a_year(pool: PgPool) {
    let (site, wasm) = built_site();
    let config = server::config::Config {
        site_root: site.path().to_string_lossy().into_owned(),
        ..server::config::Config::for_tests(String::new())
    };
    let app = spawn_app_with_config(pool, config).await;

    // Pages load this build's files by their hashed names, and are not kept by caches.
    let page = app.get(&client(), "/login").await;
    assert_eq!(
        page.headers()[header::CACHE_CONTROL].to_str().unwrap(),
        "private, no-cache"
    );
    let html = page.text().await.unwrap();
    for file in [".js", ".wasm", ".css"] {
        assert!(
            html.contains(&format!("/pkg/{STEM}{file}")),
            "{file} in {html}"
        );
    }
    assert!(!html.contains("/pkg/paracrowd.js"), "{html}");

    // Pages go compressed to a browser that accepts it; the JSON answers are left plain.
    let br_page = fetch(&app.url("/login"), Some("gzip, deflate, br, zstd")).await;
    assert_eq!(br_page.header(header::CONTENT_ENCODING), "br");
    assert!(br_page
        .header(header::VARY)
        .to_ascii_lowercase()
        .contains("accept-encoding"));
    let mut unpacked = String::new();
    brotli::Decompressor::new(&br_page.body[..], 4096)
        .read_to_string(&mut unpacked)
        .unwrap();
    assert!(unpacked.starts_with("<!DOCTYPE html>"), "{unpacked}");
    assert!(
        unpacked.contains(&format!("/pkg/{STEM}.wasm")),
        "{unpacked}"
    );
    assert!(
        br_page.body.len() * 2 < unpacked.len(),
        "{} bytes for a {}-byte page",
        br_page.body.len(),
        unpacked.len()
    );
    let gz_page = fetch(&app.url("/login"), Some("gzip")).await;
    assert_eq!(gz_page.header(header::CONTENT_ENCODING), "gzip");
    let plain_page = fetch(&app.url("/login"), None).await;
    assert_eq!(plain_page.header(header::CONTENT_ENCODING), "");
    assert!(String::from_utf8(plain_page.body)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    let health = fetch(&app.url("/health"), Some("br")).await;
    assert_eq!(health.status, StatusCode::OK);
    assert_eq!(health.header(header::CONTENT_ENCODING), "", "not a page");

    let url = app.url(&format!("/pkg/{STEM}.wasm"));
    let br = fetch(&url, Some("gzip, deflate, br, zstd")).await;
    assert_eq!(br.status, StatusCode::OK);
    assert_eq!(br.header(header::CONTENT_ENCODING), "br");
    assert_eq!(br.header(header::CONTENT_TYPE), "application/wasm");
    assert_eq!(
        br.header(header::CACHE_CONTROL),
        "public, max-age=31536000, immutable"
    );
    assert!(br
        .header(header::VARY)
        .to_ascii_lowercase()
        .contains("accept-encoding"));
    assert!(
        br.body.len() < wasm.len() / 2,
        "{} of {} bytes",
        br.body.len(),
        wasm.len()
    );
    let mut unpacked = Vec::new();
    brotli::Decompressor::new(&br.body[..], 4096)
        .read_to_end(&mut unpacked)
        .unwrap();
    assert_eq!(unpacked, wasm, "the brotli twin is the file");

    let gz = fetch(&url, Some("gzip")).await;
    assert_eq!(gz.header(header::CONTENT_ENCODING), "gzip");
    let mut unpacked = Vec::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_end(&mut unpacked)
        .unwrap();
    assert_eq!(unpacked, wasm, "the gzip twin is the file");

    let plain = fetch(&url, None).await;
    assert_eq!(plain.header(header::CONTENT_ENCODING), "");
    assert_eq!(
        plain.body, wasm,
        "a browser that accepts no encoding gets the file itself"
    );

    let css = fetch(&app.url(&format!("/pkg/{STEM}.css")), Some("br")).await;
    assert_eq!(css.header(header::CONTENT_TYPE), "text/css");
    assert_eq!(css.header(header::CONTENT_ENCODING), "br");

    // Names without a content hash, or files that are not there, are never kept for a year.
    let missing = fetch(&app.url("/pkg/paracrowd.fedcba9876543210.js"), Some("br")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.header(header::CACHE_CONTROL), "no-cache");
    let name = fetch(&app.url("/pkg/output-name"), None).await;
    assert_eq!(name.header(header::CACHE_CONTROL), "no-cache");

    // The favicon is kept for a week, not asked for again on every page.
    let icon = fetch(&app.url("/favicon.ico"), None).await;
    assert_eq!(icon.status, StatusCode::OK);
    assert_eq!(icon.header(header::CACHE_CONTROL), "public, max-age=604800");
    assert_eq!(icon.header(header::CONTENT_TYPE), "image/x-icon");
    app.stop().await;
}
