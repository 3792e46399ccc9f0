//! paracrowd's web application: Leptos pages and components, the `#[server]` functions they call,
//! and the pure domain code shared by the server, the browser and the tests.
//!
//! Layers (see `../shared/STYLE.md`), data flowing one way, pages → api → service → db/domain:
//! `domain` is pure and compiles to wasm; `dto` holds the shapes that cross the wire; `api`
//! holds thin server functions (check role -> parse -> call `service`); `service` holds the use
//! cases; `db`, `service`, `auth`,
//! `session` and `state` exist only on the server (`ssr`).
#![recursion_limit = "256"]

// An annotator bundle is a browser build: a server built with one would not route most pages.
#[cfg(all(feature = "ssr", feature = "annotator"))]
compile_error!("the `bundle-*` features are for the hydrate bundles, not the server");
// Each annotator bundle is one route table (`bundles::Bundle`): exactly one of them.
#[cfg(all(
    feature = "annotator",
    not(any(
        feature = "bundle-judge",
        feature = "bundle-apt",
        feature = "bundle-entry"
    ))
))]
compile_error!("`annotator` is set by one of the `bundle-*` features");
#[cfg(any(
    all(feature = "bundle-judge", feature = "bundle-apt"),
    all(feature = "bundle-judge", feature = "bundle-entry"),
    all(feature = "bundle-apt", feature = "bundle-entry")
))]
compile_error!("one `bundle-*` feature per bundle");

pub mod api;
pub mod bundles;
pub mod components;
#[warn(missing_docs)]
pub mod domain;
pub mod dto;
pub mod error;
pub mod pages;

#[cfg(feature = "ssr")]
pub mod auth;
#[cfg(feature = "ssr")]
pub mod client_addr;
#[cfg(feature = "ssr")]
#[warn(missing_docs)]
pub mod db;
#[cfg(feature = "ssr")]
pub mod draws;
#[cfg(feature = "ssr")]
pub mod log_limit;
#[cfg(feature = "ssr")]
pub mod metrics;
#[cfg(feature = "ssr")]
pub mod ml;
#[cfg(feature = "ssr")]
pub mod mturk;
#[cfg(feature = "ssr")]
pub mod prolific;
#[cfg(feature = "ssr")]
pub mod service;
#[cfg(feature = "ssr")]
pub mod session;
#[cfg(feature = "ssr")]
pub mod state;

mod app;
pub use app::{shell, App};

/// Entry point of the wasm bundle: hydrates the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
    // Lets browser tests wait for hydration instead of guessing.
    let _ = js_sys::Reflect::set(
        &js_sys::global(),
        &"__paracrowd_hydrated".into(),
        &true.into(),
    );
}
