//! Admins: one campaign — open or close it, upload its sentences or pairs from a file, and for a
//! judging campaign its progress, gold balance, test pairs and workers (with the gate's
//! decisions, which the admin can reverse).
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::campaigns::{get_campaign, import_sources, AdminCampaign, SetCampaignStatus};
use crate::api::judge_admin::{
    import_pairs, judge_overview, list_pairs, AdminPair, JudgeCampaignOverview, JudgeWorkerView,
    PromoteSettledPairs, Republish, SetJudgeWorkerStatus, SetTestPair,
};
use crate::components::browser::read_chosen_file;
use crate::domain::judge::labels::VoteLabel;
use crate::domain::CampaignId;
use crate::error::{AppError, ErrorMessage, PageError};
use crate::pages::{route_id, with_route_id};

#[component]
pub fn AdminCampaignPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || route_id::<CampaignId>(params);
    let set_status = ServerAction::<SetCampaignStatus>::new();
    // Bumped after an import so counts refresh.
    let imported = RwSignal::new(0u32);
    // The last import's result; kept here so it survives the refresh of the sections below.
    let message: RwSignal<Option<Result<String, AppError>>> = RwSignal::new(None);
    let campaign = Resource::new(
        move || (id(), set_status.version().get(), imported.get()),
        |(id, _, _)| with_route_id(id, get_campaign),
    );
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match campaign.await {
                    Ok(c) => view! { <Campaign c set_status imported message /> }.into_any(),
                    Err(error) => view! { <PageError error heading="Campaign" /> }.into_any(),
                }
            })}
        </Transition>
    }
}

mod campaign;
use campaign::Campaign;
mod judge_admin;
use judge_admin::JudgeAdmin;
mod overview;
use overview::Overview;
mod pair_table;
use pair_table::PairTable;
mod study;
use study::StudyAdmin;
mod upload;
use upload::Upload;
mod worker_row;
use worker_row::WorkerRow;
