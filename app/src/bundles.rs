//! Two WebAssembly bundles. The full one holds every page. The annotator bundle (the `annotator`
//! feature, built by `scripts/build.sh` beside the full one) holds only the pages an annotator
//! opens: the home page, logging in and registering, a study link, the two tasks and a study's
//! completion page, without the researchers' and admins' pages, so a phone's first visit loads
//! less. The server sends the annotator bundle's scripts with exactly those pages
//! ([`for_page`]); every other page, and every page of a site built without it, gets the full
//! bundle. A link from an annotator page to another page loads that page from the server (the
//! annotator bundle's fallback route), so the full bundle comes only with a researcher's page.
use leptos::prelude::*;

/// Whether `path` is one of the annotator bundle's routes: the same table as the annotator
/// bundle's `PageRoutes` in `app.rs`. Anything else (a trailing slash included) gets the full
/// bundle, which routes every page.
pub fn is_annotator_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix('/') else {
        return false;
    };
    let segments: Vec<&str> = rest.split('/').collect();
    match segments.as_slice() {
        [""] | ["login"] | ["register"] => true,
        ["judge" | "apt" | "s", id] => !id.is_empty(),
        ["study", id, "done"] => !id.is_empty(),
        _ => false,
    }
}

/// The options whose output name the page's hydration scripts load: the annotator bundle's on
/// an annotator page when the site has it, else the full bundle's.
pub fn for_page(options: &LeptosOptions) -> LeptosOptions {
    let annotator = use_context::<crate::state::AppState>().and_then(|s| s.annotator_bundle);
    let path = use_context::<http::request::Parts>().map(|p| p.uri.path().to_owned());
    let mut chosen = options.clone();
    if let (Some(stem), Some(path)) = (annotator, path) {
        if is_annotator_path(&path) {
            chosen.output_name = stem;
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::is_annotator_path;

    #[test]
    fn the_annotator_pages_are_its_routes_and_nothing_else() {
        for path in [
            "/",
            "/login",
            "/register",
            "/judge/7c2a1e52-3f7e-4d55-9a43-51a0b4c0e004",
            "/apt/7c2a1e52-3f7e-4d55-9a43-51a0b4c0e004",
            "/s/0123456789abcdef0123456789abcdef",
            "/study/7c2a1e52-3f7e-4d55-9a43-51a0b4c0e004/done",
        ] {
            assert!(is_annotator_path(path), "{path}");
        }
        for path in [
            "",
            "/admin/campaigns",
            "/admin/campaigns/x",
            "/research/judge/x",
            "/research/payments/x",
            "/judge/",
            "/judge/x/",
            "/judge/x/y",
            "/login/",
            "/study/x",
            "/study/x/done/",
            "/nowhere",
        ] {
            assert!(!is_annotator_path(path), "{path}");
        }
    }
}
