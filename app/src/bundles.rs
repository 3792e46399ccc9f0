//! The WebAssembly bundles. The full one holds every page. Each annotator bundle (the
//! `bundle-*` features, built by `scripts/build.sh` beside the full one) holds only the pages of
//! one step of a participant's visit, so a phone's first visit loads only what its page needs:
//! the judging page, the writing page, and the entry pages (home, logging in, registering, a
//! study link and a study's completion page). The server sends each page with the scripts of
//! the bundle that routes it ([`for_page`]); every other page, and every page of a site built
//! without that bundle, gets the full bundle. A link to a page another bundle holds loads that
//! page from the server (the annotator bundles' fallback route), with its own bundle.
use leptos::prelude::*;

/// An annotator bundle: the pages it routes, as in its `PageRoutes` table in `app.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bundle {
    /// `/judge/{id}`.
    Judge,
    /// `/apt/{id}`.
    Apt,
    /// `/`, `/login`, `/register`, `/s/{slug}`, `/study/{id}/done`.
    Entry,
}

impl Bundle {
    /// Every annotator bundle.
    pub const ALL: [Bundle; 3] = [Bundle::Judge, Bundle::Apt, Bundle::Entry];

    /// Its name: the feature `bundle-{name}` and the stem file `pkg/output-name-{name}`.
    pub fn name(self) -> &'static str {
        match self {
            Bundle::Judge => "judge",
            Bundle::Apt => "apt",
            Bundle::Entry => "entry",
        }
    }

    /// The annotator bundle that routes `path`, if one does. Anything else (a trailing slash
    /// included) is the full bundle's, which routes every page.
    pub fn for_path(path: &str) -> Option<Bundle> {
        let rest = path.strip_prefix('/')?;
        let segments: Vec<&str> = rest.split('/').collect();
        match segments.as_slice() {
            ["judge", id] if !id.is_empty() => Some(Bundle::Judge),
            ["apt", id] if !id.is_empty() => Some(Bundle::Apt),
            [""] | ["login"] | ["register"] => Some(Bundle::Entry),
            ["s", id] | ["study", id, "done"] if !id.is_empty() => Some(Bundle::Entry),
            _ => None,
        }
    }
}

/// The hashed stems of the annotator bundles a site was built with (`pkg/output-name-{name}`).
#[derive(Debug, Clone, Default)]
pub struct AnnotatorBundles {
    stems: [Option<std::sync::Arc<str>>; 3],
}

impl AnnotatorBundles {
    /// From each bundle's stem, `None` for a bundle the site does not have.
    pub fn new(mut stem: impl FnMut(Bundle) -> Option<String>) -> Self {
        Self {
            stems: Bundle::ALL.map(|b| stem(b).map(Into::into)),
        }
    }

    /// The stem of `bundle`'s files, when the site has them.
    pub fn stem(&self, bundle: Bundle) -> Option<std::sync::Arc<str>> {
        let i = Bundle::ALL.iter().position(|b| *b == bundle)?;
        self.stems[i].clone()
    }
}

/// The options whose output name the page's hydration scripts load: the bundle that routes the
/// page when the site has it, else the full bundle's.
#[cfg(feature = "ssr")]
pub fn for_page(options: &LeptosOptions) -> LeptosOptions {
    let bundles = use_context::<crate::state::AppState>().map(|s| s.annotator_bundles);
    let path = use_context::<http::request::Parts>().map(|p| p.uri.path().to_owned());
    let mut chosen = options.clone();
    let stem = bundles
        .zip(path)
        .and_then(|(bundles, path)| bundles.stem(Bundle::for_path(&path)?));
    if let Some(stem) = stem {
        chosen.output_name = stem;
    }
    chosen
}

/// A page this bundle does not route. Reached by a link (after hydration), it is loaded from
/// the server (a navigation to the router's new address), which sends it with the bundle that
/// routes it. Met while hydrating, it is what the server drew for an address no page has: "not
/// found" (the server sends a bundle only with its own pages, so a reload can never loop).
#[component]
pub fn OtherBundlePage() -> impl IntoView {
    #[cfg(feature = "hydrate")]
    let navigated = js_sys::Reflect::get(&js_sys::global(), &"__paracrowd_hydrated".into())
        .is_ok_and(|v| v.is_truthy());
    #[cfg(not(feature = "hydrate"))]
    let navigated = false;
    if navigated {
        // The page is no longer this bundle's: say so first (tests wait for the flag).
        #[cfg(feature = "hydrate")]
        {
            let _ = js_sys::Reflect::set(
                &js_sys::global(),
                &"__paracrowd_hydrated".into(),
                &false.into(),
            );
            // The router's address is the new one already; the browser's may not be yet.
            let here = leptos_router::hooks::use_location();
            let (search, hash) = (here.search.get_untracked(), here.hash.get_untracked());
            let mut href = here.pathname.get_untracked();
            if !search.is_empty() {
                href = format!("{href}?{search}");
            }
            if !hash.is_empty() {
                href = format!("{href}#{}", hash.trim_start_matches('#'));
            }
            let _ = window().location().assign(&href);
        }
        view! { <p class="muted">"Loading…"</p> }.into_any()
    } else {
        view! { <crate::pages::not_found_page::NotFoundPage /> }.into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::{AnnotatorBundles, Bundle};

    const ID: &str = "7c2a1e52-3f7e-4d55-9a43-51a0b4c0e004";

    #[test]
    fn each_annotator_page_is_routed_by_its_bundle_and_nothing_else_is() {
        let cases = [
            ("/", Bundle::Entry),
            ("/login", Bundle::Entry),
            ("/register", Bundle::Entry),
            ("/s/0123456789abcdef0123456789abcdef", Bundle::Entry),
            (&format!("/study/{ID}/done"), Bundle::Entry),
            (&format!("/judge/{ID}"), Bundle::Judge),
            (&format!("/apt/{ID}"), Bundle::Apt),
        ];
        for (path, bundle) in cases {
            assert_eq!(Bundle::for_path(path), Some(bundle), "{path}");
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
            "/apt/",
            "/login/",
            "/s/",
            "/study/x",
            "/study//done",
            "/study/x/done/",
            "/nowhere",
        ] {
            assert_eq!(Bundle::for_path(path), None, "{path}");
        }
    }

    #[test]
    fn a_site_has_the_stems_it_was_built_with() {
        let bundles =
            AnnotatorBundles::new(|b| (b != Bundle::Apt).then(|| format!("p.{}", b.name())));
        assert_eq!(bundles.stem(Bundle::Judge).as_deref(), Some("p.judge"));
        assert_eq!(bundles.stem(Bundle::Entry).as_deref(), Some("p.entry"));
        assert_eq!(bundles.stem(Bundle::Apt), None);
        assert_eq!(AnnotatorBundles::default().stem(Bundle::Judge), None);
    }
}
