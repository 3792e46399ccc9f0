//! The built site's script, WebAssembly and stylesheet: content-hashed
//! names, served precompressed (brotli or gzip, written at build time by `paracrowd precompress`)
//! and cached for a year by browsers, since a new build has new names.
//!
//! `scripts/build.sh` names the bundle `paracrowd.<hash>.{js,wasm,css}` and writes that stem to
//! `pkg/output-name`; the server reads it once at start-up and gives it to leptos as the output
//! name, so the hydration scripts and the stylesheet link point at this build's files. A site
//! built without it (a bare clone, a test) keeps the plain name `paracrowd`.
use std::path::{Path, PathBuf};

use app::bundles::AnnotatorBundles;

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

/// The file in `pkg/` that holds the bundle's hashed stem.
pub const OUTPUT_NAME_FILE: &str = "output-name";
/// The file in `pkg/` that holds an annotator bundle's hashed stem: this, then the bundle's
/// name (`app::bundles::Bundle::name`).
pub const ANNOTATOR_NAME_FILE_PREFIX: &str = "output-name-";
/// The stem of an unhashed build.
pub const PLAIN_NAME: &str = "paracrowd";

/// How browsers may keep a file whose name changes with its content.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Everything else under `/pkg` (an unhashed build, a missing file): ask again each time.
const REVALIDATE: &str = "no-cache";
/// The favicon has no hashed name and hardly ever changes: a browser keeps it for a week
/// instead of asking on every page.
const FAVICON: &str = "public, max-age=604800";

/// The bundle's stem for this site: `paracrowd.<hash>` from `pkg/output-name`, or `paracrowd`.
pub fn output_name(site_root: &Path) -> String {
    hashed_name(site_root, OUTPUT_NAME_FILE).unwrap_or_else(|| PLAIN_NAME.to_owned())
}

/// The annotator bundles' stems (`paracrowd.<hash>` of each one's own files) from
/// `pkg/output-name-{name}`; a bundle the site was built without is left out, and its pages
/// load the full bundle.
pub fn annotator_bundles(site_root: &Path) -> AnnotatorBundles {
    AnnotatorBundles::new(|bundle| {
        hashed_name(
            site_root,
            &format!("{ANNOTATOR_NAME_FILE_PREFIX}{}", bundle.name()),
        )
    })
}

/// The hashed stem written in `pkg/<file>`, if it is one.
fn hashed_name(site_root: &Path, file: &str) -> Option<String> {
    let file = site_root.join("pkg").join(file);
    let text = std::fs::read_to_string(&file).ok()?;
    let name = text.trim();
    if is_hashed_stem(name) {
        Some(name.to_owned())
    } else {
        tracing::error!(file = %file.display(), "not a bundle name; left unused");
        None
    }
}

/// `paracrowd.` followed by 16 to 64 lowercase hex digits.
fn is_hashed_stem(name: &str) -> bool {
    name.strip_prefix("paracrowd.").is_some_and(|hash| {
        (16..=64).contains(&hash.len())
            && hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Whether a file under `/pkg` is named for its content (`paracrowd.<hash>.<ext>`).
fn is_hashed_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !ext.is_empty() && is_hashed_stem(stem))
}

/// `/pkg/*` from `SITE_ROOT/pkg`: the `.br` or `.gz` twin when the browser accepts it, a year's
/// immutable caching for hashed names (`no-cache` for any other), and `Vary: Accept-Encoding`
/// (tower-http's `ServeDir` does not add it).
pub fn pkg_router(site_root: &Path) -> Router {
    let dir: PathBuf = site_root.join("pkg");
    let files = ServeDir::new(dir).precompressed_br().precompressed_gzip();
    Router::new()
        .fallback_service(files)
        .layer(axum::middleware::from_fn(cache_control))
}

/// `/favicon.ico` from `SITE_ROOT`, kept by browsers for a week.
pub fn favicon_router<S: Clone + Send + Sync + 'static>(site_root: &Path) -> Router<S> {
    Router::new()
        .route_service(
            "/favicon.ico",
            ServeFile::new(site_root.join("favicon.ico")),
        )
        .layer(axum::middleware::from_fn(favicon_cache))
}

async fn favicon_cache(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    if resp.status().is_success() {
        resp.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(FAVICON));
    }
    resp
}

async fn cache_control(req: Request, next: Next) -> Response {
    let hashed = is_hashed_file(req.uri().path());
    let mut resp = next.run(req).await;
    let policy = if hashed && resp.status().is_success() {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    let headers = resp.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    // The same URL is sent as brotli, gzip or plain: a shared cache must key on the encoding.
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::bundles::Bundle;

    #[test]
    fn only_a_content_hash_makes_a_name_immutable() {
        assert!(is_hashed_file("/paracrowd.0123456789abcdef.wasm"));
        assert!(is_hashed_file("paracrowd.0123456789abcdef.css"));
        assert!(!is_hashed_file("/paracrowd.wasm"));
        assert!(
            !is_hashed_file("/paracrowd.0123456789ABCDEF.js"),
            "uppercase is not ours"
        );
        assert!(
            !is_hashed_file("/paracrowd.0123.js"),
            "too short to be a hash"
        );
        assert!(!is_hashed_file("/output-name"));
        assert!(!is_hashed_file("/other.0123456789abcdef.js"));
    }

    #[test]
    fn the_output_name_comes_from_the_build_or_is_plain() {
        let site = tempfile::tempdir().unwrap();
        assert_eq!(output_name(site.path()), PLAIN_NAME, "no pkg/ at all");
        std::fs::create_dir_all(site.path().join("pkg")).unwrap();
        let file = site.path().join("pkg").join(OUTPUT_NAME_FILE);
        std::fs::write(&file, "paracrowd.00ff00ff00ff00ff\n").unwrap();
        assert_eq!(output_name(site.path()), "paracrowd.00ff00ff00ff00ff");
        std::fs::write(&file, "../../etc/passwd").unwrap();
        assert_eq!(
            output_name(site.path()),
            PLAIN_NAME,
            "a bad file is not trusted"
        );
        let bundles = annotator_bundles(site.path());
        for bundle in Bundle::ALL {
            assert_eq!(bundles.stem(bundle), None, "no annotator bundle built");
        }
        let judge = site.path().join("pkg").join("output-name-judge");
        std::fs::write(&judge, "paracrowd.11aa11aa11aa11aa\n").unwrap();
        std::fs::write(site.path().join("pkg").join("output-name-apt"), "apt").unwrap();
        let bundles = annotator_bundles(site.path());
        assert_eq!(
            bundles.stem(Bundle::Judge).as_deref(),
            Some("paracrowd.11aa11aa11aa11aa")
        );
        assert_eq!(bundles.stem(Bundle::Apt), None, "a bad file is not trusted");
        assert_eq!(bundles.stem(Bundle::Entry), None);
    }
}
