//! Admins: mining candidate pairs. Import a corpus, start an L12 or F2 run with the paper's
//! parameters (editable), watch its progress bar (the page polls while a run is active; a reload
//! shows the same progress), cancel or restart it, compare runs, read a sample of candidates and
//! deploy a selection to a judging campaign.
use std::time::Duration;

use leptos::prelude::*;

use crate::api::mining::{
    import_corpus, mining_candidates, mining_overview, mining_run, CancelMining, CandidateView,
    DeployCandidates, MiningState, RestartMining, RunView, StartMining,
};
use crate::components::browser::read_chosen_file;
use crate::domain::RunId;
use crate::error::{AppError, ErrorMessage, PageError};

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.digits$}"))
}

fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[component]
pub fn AdminMiningPage() -> impl IntoView {
    let start = ServerAction::<StartMining>::new();
    let cancel = ServerAction::<CancelMining>::new();
    let restart = ServerAction::<RestartMining>::new();
    let imported = RwSignal::new(0u32);
    // The last import's result; kept here so it survives the refresh that the import causes.
    let message: RwSignal<Option<Result<String, AppError>>> = RwSignal::new(None);
    let tick = RwSignal::new(0u32);
    let active = RwSignal::new(false);
    // Corpora, campaigns and the forms: refreshed by what the admin does, not by the clock, so
    // nothing typed is lost while a run is polled.
    let overview = Resource::new(move || imported.get(), |_| mining_overview());
    // The runs: also refreshed once a second while one is queued or running.
    let runs = Resource::new(
        move || {
            (
                imported.get(),
                start.version().get(),
                cancel.version().get(),
                restart.version().get(),
                tick.get(),
            )
        },
        |_| mining_overview(),
    );
    Effect::new(move || {
        if let Ok(handle) = set_interval_with_handle(
            move || {
                if active.get_untracked() {
                    tick.update(|t| *t += 1);
                }
            },
            Duration::from_millis(1000),
        ) {
            on_cleanup(move || handle.clear());
        }
    });
    let selected = RwSignal::new(None::<RunId>);
    let compare = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    view! {
        <Transition fallback=|| view! { <section class="card wide"><p class="muted">"Loading…"</p></section> }>
            {move || Suspend::new(async move {
                match overview.await {
                    Ok(o) => view! { <Setup o start imported message /> }.into_any(),
                    Err(error) => view! { <section class="card wide"><PageError error heading="Mining" /></section> }.into_any(),
                }
            })}
        </Transition>
        <section class="card wide">
            <h2>"Runs"</h2>
            {move || cancel.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            {move || restart.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match runs.await {
                        Ok(o) => {
                            active.set(o.runs.iter().any(RunView::is_active));
                            if o.runs.is_empty() {
                                view! { <p class="empty">"No runs yet."</p> }.into_any()
                            } else {
                                view! {
                                    <RunTable runs=o.runs.clone() cancel restart selected />
                                    <Compare runs=o.runs compare />
                                }.into_any()
                            }
                        }
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
        <Transition fallback=|| ()>
            {move || {
                let chosen = selected.get();
                Suspend::new(async move {
                    let campaigns = overview.await.map(|o| o.campaigns).unwrap_or_default();
                    chosen.map(|run_id| view! { <RunDetail run_id campaigns /> })
                })
            }}
        </Transition>
    }
}

mod candidate_table;
use candidate_table::CandidateTable;
mod compare;
use compare::Compare;
mod follow_up_table;
use follow_up_table::FollowUpTable;
mod import_corpus;
use import_corpus::ImportCorpus;
mod new_run;
use new_run::NewRun;
mod run_detail;
use run_detail::RunDetail;
mod run_table;
use run_table::RunTable;
mod setup;
use setup::Setup;
