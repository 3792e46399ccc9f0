//! One route per file. The researchers' and admins' pages are left out of the annotator bundles
//! (the `bundle-*` features, see `crate::bundles`).
#[cfg(not(feature = "annotator"))]
pub mod admin;
pub mod apt_page;
#[cfg(not(feature = "annotator"))]
pub mod apt_report_page;
#[cfg(not(feature = "annotator"))]
pub mod export_page;
pub mod home_page;
pub mod judge_page;
#[cfg(not(feature = "annotator"))]
pub mod judge_report_page;
pub mod login_page;
pub mod not_found_page;
#[cfg(not(feature = "annotator"))]
pub mod payments_page;
pub mod register_page;
pub mod study_done_page;
pub mod study_page;

use leptos::prelude::*;
use leptos_router::params::ParamsMap;

use crate::error::AppError;

/// The route's `:id` as the id type the page asks the server with (`domain::ids`); `None` when
/// the address holds no such id.
pub(crate) fn route_id<Id: std::str::FromStr>(params: Memo<ParamsMap>) -> Option<Id> {
    params.read().get("id").and_then(|raw| raw.parse().ok())
}

/// Asks the server with the route's id, or answers "Not found." at once when the address holds
/// none (no call is made for an id that cannot exist).
pub(crate) async fn with_route_id<Id, T, Fut>(
    id: Option<Id>,
    call: impl FnOnce(Id) -> Fut,
) -> Result<T, AppError>
where
    Fut: std::future::Future<Output = Result<T, AppError>>,
{
    match id {
        Some(id) => call(id).await,
        None => Err(AppError::NotFound),
    }
}
