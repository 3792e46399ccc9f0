//! The HTML shell, the route table and the layout every page shares.
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path, SsrMode,
};

#[cfg(feature = "annotator")]
use crate::bundles::OtherBundlePage;
use crate::components::nav::Nav;
#[cfg(any(not(feature = "annotator"), feature = "bundle-apt"))]
use crate::pages::apt_page::AptPage;
#[cfg(any(not(feature = "annotator"), feature = "bundle-judge"))]
use crate::pages::judge_page::JudgePage;
#[cfg(not(feature = "annotator"))]
use crate::pages::not_found_page::NotFoundPage;
#[cfg(not(feature = "annotator"))]
use crate::pages::{
    admin::campaign_page::AdminCampaignPage, admin::campaigns_page::AdminCampaignsPage,
    admin::mining_page::AdminMiningPage, admin::users_page::AdminUsersPage,
    apt_report_page::AptReportPage, export_page::ExportPage, judge_report_page::JudgeReportPage,
    payments_page::PaymentsPage,
};
#[cfg(any(not(feature = "annotator"), feature = "bundle-entry"))]
use crate::pages::{
    home_page::HomePage, login_page::LoginPage, register_page::RegisterPage,
    study_done_page::StudyDonePage, study_page::StudyPage,
};

/// The document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    set_page_policy();
    // The stylesheet is the site's; the scripts are those of the bundle that routes the page.
    #[cfg(feature = "ssr")]
    let scripts = crate::bundles::for_page(&options);
    #[cfg(not(feature = "ssr"))]
    let scripts = options.clone();
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <AutoReload options=options.clone() />
                <HydrationScripts options=scripts />
                // Named for its content (`paracrowd.<hash>.css`, see the server's `site_assets`):
                // cached for a year, fetched again only when a build changes it.
                <link
                    rel="stylesheet"
                    id="leptos"
                    href=format!("/{}/{}.css", options.site_pkg_dir, options.output_name)
                />
                <MetaTags />
                // Without JavaScript the task controls would look live and do nothing: hide them
                // (each such page says why in a <noscript> notice).
                <noscript>
                    <style>".needs-js { display: none !important; }"</style>
                </noscript>
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// A page's Content-Security-Policy: scripts only from this origin or inline
/// with this response's nonce (leptos puts it on its hydration scripts), WebAssembly allowed
/// (`'wasm-unsafe-eval'`), no plugins, no `<base>`, forms and fetches to this origin only, never
/// framed. Styles may be inline (the server-drawn SVG charts carry style attributes).
///
/// A page a crowd platform shows in its frame ([`framed_path`]) may be framed by
/// `frame_ancestors` (MTurk's two hosts by default, `PARACROWD_FRAME_ANCESTORS`), and its forms
/// may post to MTurk's `externalSubmit` (the completion page's form). Every other page is never
/// framed.
#[cfg(feature = "ssr")]
pub fn page_policy(nonce: &str, framed: bool, frame_ancestors: &[String]) -> String {
    let (ancestors, forms) = if framed {
        let ancestors = if frame_ancestors.is_empty() {
            "'none'".to_owned()
        } else {
            frame_ancestors.join(" ")
        };
        let forms = std::iter::once("'self'")
            .chain(crate::domain::study::platform::MTURK_SUBMIT_HOSTS)
            .collect::<Vec<_>>()
            .join(" ");
        (ancestors, forms)
    } else {
        ("'none'".to_owned(), "'self'".to_owned())
    };
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action {forms}; frame-ancestors {ancestors}"
    )
}

/// The pages a crowd platform may show in its frame (an MTurk external question): a study link,
/// its completion page, and the tasks (read by the server's security headers).
#[cfg(feature = "ssr")]
pub fn framed_path(path: &str) -> bool {
    ["/s/", "/study/", "/judge/", "/apt/"]
        .iter()
        .any(|p| path.starts_with(p))
}

/// Sets [`page_policy`] with the nonce of the page being rendered on its response.
#[cfg(feature = "ssr")]
fn set_page_policy() {
    let (Some(nonce), Some(response)) = (
        leptos::nonce::use_nonce(),
        use_context::<leptos_axum::ResponseOptions>(),
    ) else {
        return;
    };
    let framed = use_context::<http::request::Parts>().is_some_and(|p| framed_path(p.uri.path()));
    let ancestors = use_context::<crate::state::AppState>()
        .map(|s| s.frame_ancestors.clone())
        .unwrap_or_default();
    match http::HeaderValue::from_str(&page_policy(&nonce, framed, &ancestors)) {
        Ok(value) => response.insert_header(http::header::CONTENT_SECURITY_POLICY, value),
        Err(e) => tracing::error!(error.message = %e, "BUG: a page policy is not a header value"),
    }
}

/// The application: session-aware navigation and the routes.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();

    view! {
        <Title text="paracrowd" />
        <Router>
            <Layout />
        </Router>
    }
}

/// Navigation and the routed page; inside `<Router>`, which the auth context needs.
///
/// Routes render with `SsrMode::Async`: the server waits for the page's data and sends complete
/// HTML, so every page works without JavaScript (out-of-order streaming needs inline scripts to
/// put resolved data in place).
#[component]
fn Layout() -> impl IntoView {
    crate::components::auth_context::provide_auth_context();
    view! {
            // The first stop for a keyboard or screen reader: past the navigation to the page.
            // `rel="external"` leaves it to the browser, which moves the focus to <main>; the
            // router would only scroll there.
            <a class="skip-link" href="#main" rel="external">"Skip to content"</a>
            <Nav />
            <main id="main" tabindex="-1">
                <PageRoutes />
            </main>
    }
}

/// Every page (the full bundle, and the server).
#[cfg(not(feature = "annotator"))]
#[component]
fn PageRoutes() -> impl IntoView {
    view! {
                <Routes fallback=|| view! { <NotFoundPage /> }>
                    <Route path=path!("") view=HomePage ssr=SsrMode::Async />
                    <Route path=path!("login") view=LoginPage ssr=SsrMode::Async />
                    <Route path=path!("register") view=RegisterPage ssr=SsrMode::Async />
                    <Route path=path!("admin/users") view=AdminUsersPage ssr=SsrMode::Async />
                    <Route path=path!("admin/campaigns") view=AdminCampaignsPage ssr=SsrMode::Async />
                    <Route path=path!("admin/campaigns/:id") view=AdminCampaignPage ssr=SsrMode::Async />
                    <Route path=path!("admin/mining") view=AdminMiningPage ssr=SsrMode::Async />
                    <Route path=path!("apt/:id") view=AptPage ssr=SsrMode::Async />
                    <Route path=path!("judge/:id") view=JudgePage ssr=SsrMode::Async />
                    <Route path=path!("research/apt/:id") view=AptReportPage ssr=SsrMode::Async />
                    <Route path=path!("research/judge/:id") view=JudgeReportPage ssr=SsrMode::Async />
                    <Route path=path!("research/export/:id") view=ExportPage ssr=SsrMode::Async />
                    <Route path=path!("research/payments/:id") view=PaymentsPage ssr=SsrMode::Async />
                    <Route path=path!("s/:slug") view=StudyPage ssr=SsrMode::Async />
                    <Route path=path!("study/:id/done") view=StudyDonePage ssr=SsrMode::Async />
                </Routes>
    }
}

// The annotator bundles' pages (`crate::bundles::Bundle::for_path`, each route as in the full
// table). A link to any other page is followed by loading it from the server, with the bundle
// that routes it.

/// The judging page's bundle.
#[cfg(feature = "bundle-judge")]
#[component]
fn PageRoutes() -> impl IntoView {
    view! {
                <Routes fallback=|| view! { <OtherBundlePage /> }>
                    <Route path=path!("judge/:id") view=JudgePage ssr=SsrMode::Async />
                </Routes>
    }
}

/// The writing page's bundle.
#[cfg(feature = "bundle-apt")]
#[component]
fn PageRoutes() -> impl IntoView {
    view! {
                <Routes fallback=|| view! { <OtherBundlePage /> }>
                    <Route path=path!("apt/:id") view=AptPage ssr=SsrMode::Async />
                </Routes>
    }
}

/// The entry pages' bundle: where a participant arrives and leaves.
#[cfg(feature = "bundle-entry")]
#[component]
fn PageRoutes() -> impl IntoView {
    view! {
                <Routes fallback=|| view! { <OtherBundlePage /> }>
                    <Route path=path!("") view=HomePage ssr=SsrMode::Async />
                    <Route path=path!("login") view=LoginPage ssr=SsrMode::Async />
                    <Route path=path!("register") view=RegisterPage ssr=SsrMode::Async />
                    <Route path=path!("s/:slug") view=StudyPage ssr=SsrMode::Async />
                    <Route path=path!("study/:id/done") view=StudyDonePage ssr=SsrMode::Async />
                </Routes>
    }
}
