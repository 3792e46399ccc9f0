//! Researchers: Table 2, Figure 2 and earnings of an APT campaign, live (reload to refresh).
use crate::domain::CampaignId;
use crate::pages::{route_id, with_route_id};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::apt_report::{apt_report, AptReportView, ScorerUse};
use crate::domain::apt::stats::Table2;
use crate::error::PageError;

fn pct(part: u64, whole: u64) -> String {
    Table2::percent(part, whole).map_or_else(|| "–".into(), |p| format!("{p:.2}%"))
}

#[component]
pub fn AptReportPage() -> impl IntoView {
    let params = use_params_map();
    let report = Resource::new(
        move || route_id::<CampaignId>(params),
        |id| with_route_id(id, apt_report),
    );
    view! {
        <section class="card wide report">
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match report.await {
                        Ok(r) => view! { <Report r /> }.into_any(),
                        Err(error) => view! { <PageError error heading="APT report" /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn Report(r: AptReportView) -> impl IntoView {
    let t = r.table2;
    let dollars = crate::domain::money::usd;
    view! {
        <h1>{r.title} " — APT report"</h1>
        <p class="muted">"Status: " {r.status.as_str()} " · BLEURT threshold " {r.bleurt_threshold}</p>
        <Scorers scorers=r.scorers />
        <h2>"Table 2"</h2>
        <div class="scroll-x" role="region" aria-label="Table 2" tabindex="0">
            <table class="table2" aria-label="Table 2">
                <thead>
                    <tr>
                        <th>"Total attempts"</th><th>"APT attempts"</th><th>"MI attempts"</th><th>"non-MI attempts"</th>
                        <th>"Unique sentences"</th><th>"APT uniques"</th><th>"MI uniques"</th><th>"non-MI uniques"</th>
                    </tr>
                </thead>
                <tbody>
                    <tr>
                        <td>{t.total_attempts}</td><td>{t.apt_attempts}</td><td>{t.mi_attempts}</td><td>{t.non_mi_attempts}</td>
                        <td>{t.unique_sources}</td><td>{t.apt_uniques}</td><td>{t.mi_uniques}</td><td>{t.non_mi_uniques}</td>
                    </tr>
                    <tr class="muted">
                        <td></td><td>{pct(t.apt_attempts, t.total_attempts)}</td><td>{pct(t.mi_attempts, t.total_attempts)}</td>
                        <td>{pct(t.non_mi_attempts, t.total_attempts)}</td><td></td>
                        <td>{pct(t.apt_uniques, t.unique_sources)}</td><td>{pct(t.mi_uniques, t.unique_sources)}</td>
                        <td>{pct(t.non_mi_uniques, t.unique_sources)}</td>
                    </tr>
                </tbody>
            </table>
        </div>
        <h2>"Figure 2: BLEURT of attempts"</h2>
        <p class="legend">
            <span class="swatch apt"></span>"APT " <span class="swatch mi"></span>"MI, not APT "
            <span class="swatch nonmi"></span>"non-MI"
        </p>
        {match r.figure2_svg {
            Some(svg) => view! { <div class="figure" inner_html=svg></div> }.into_any(),
            None => view! { <p class="empty">"No attempts yet."</p> }.into_any(),
        }}
        <h2>"Export"</h2>
        <p>
            "Attempts in AP_H's layout: "
            <a href=format!("/export/apt/{}", r.campaign_id)>"all"</a> ", "
            <a href=format!("/export/apt/{}?split=train", r.campaign_id)>"train"</a> ", "
            <a href=format!("/export/apt/{}?split=test", r.campaign_id)>"test"</a>
            " (about 3:1, no source sentence in both) · "
            <a href=format!("/research/export/{}", r.campaign_id)>"more export options"</a>
        </p>
        <h2>"Workers"</h2>
        <div class="scroll-x" role="region" aria-label="Workers" tabindex="0">
            <table aria-label="Workers" class="users">
                <thead>
                    <tr><th>"Worker"</th><th>"Checks"</th><th>"Submissions"</th><th>"Earned"</th><th>"Done"</th></tr>
                </thead>
                <tbody>
                    {r.workers
                        .into_iter()
                        .map(|w| view! {
                            <tr>
                                <td>{w.worker}</td><td>{w.attempts}</td><td>{w.submissions}</td>
                                <td>{dollars(w.earned_cents)}</td><td>{if w.is_complete { "yes" } else { "" }}</td>
                            </tr>
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// Which scorer produced the Checks: one line, or a table and a warning when they were mixed.
#[component]
fn Scorers(scorers: Vec<ScorerUse>) -> impl IntoView {
    let all_papers = scorers.iter().all(|s| s.is_papers);
    let warning = (!scorers.is_empty() && !all_papers).then(|| {
        view! {
            <p class="notice warn" data-testid="scorer-warning">
                "Not every Check was scored by the APT paper's models: MI and BLEURT below come (in part) from a stand-in, and differ from what the paper's models would say."
            </p>
        }
    });
    let body = match scorers.as_slice() {
        [] => view! { <p class="muted">"No Checks yet."</p> }.into_any(),
        [one] => view! {
            <p data-testid="scorers">"Every Check was scored by " {one.scorer.clone()} "."</p>
        }
        .into_any(),
        many => {
            let rows = many
                .iter()
                .map(|s| view! { <tr><td>{s.scorer.clone()}</td><td>{s.attempts}</td></tr> })
                .collect_view();
            view! {
                <p class="notice warn">
                    "Mixed scorers: this campaign's Checks were scored by " {many.len()}
                    " different scorers (the models changed during the study). Compare like with like."
                </p>
                <div class="scroll-x" role="region" aria-label="Checks per scorer" tabindex="0">
                    <table aria-label="Checks per scorer" data-testid="scorers">
                        <thead><tr><th>"Scorer"</th><th>"Checks"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }
    };
    view! {
        <h2>"Scorer"</h2>
        {warning}
        {body}
    }
}
