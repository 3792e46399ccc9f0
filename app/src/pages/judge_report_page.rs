//! Researchers: a judging campaign's agreement, live (reload to refresh).
use crate::domain::CampaignId;
use crate::pages::{route_id, with_route_id};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::judge_report::{judge_report, JudgeReportView, JudgeWorkerReport};
use crate::error::ErrorMessage;

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".into(), |x| format!("{x:.3}"))
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{:.0}%", x * 100.0))
}

#[component]
pub fn JudgeReportPage() -> impl IntoView {
    let params = use_params_map();
    let report = Resource::new(
        move || route_id::<CampaignId>(params),
        |id| with_route_id(id, judge_report),
    );
    view! {
        <section class="card wide report">
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match report.await {
                        Ok(r) => view! { <Report r /> }.into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn Report(r: JudgeReportView) -> impl IntoView {
    let a = r.agreement.clone();
    let cmp = a.vote_vs_dawid_skene;
    let sort = RwSignal::new("judgments");
    let only_stopped = RwSignal::new(false);
    let workers = StoredValue::new(r.workers.clone());
    let rows = move || {
        let mut list: Vec<JudgeWorkerReport> = workers
            .get_value()
            .into_iter()
            .filter(|w| !only_stopped.get() || w.status == crate::domain::WorkerStatus::Stopped)
            .collect();
        let key = |w: &JudgeWorkerReport| -> f64 {
            match sort.get() {
                "kappa" => w.agreement.kappa_vs_majority.unwrap_or(f64::NEG_INFINITY),
                "accuracy" => w.test_accuracy.unwrap_or(f64::NEG_INFINITY),
                "seconds" => w.agreement.median_seconds.unwrap_or(f64::NEG_INFINITY),
                _ => w.judgments_made as f64,
            }
        };
        list.sort_by(|x, y| key(y).total_cmp(&key(x)));
        list
    };
    view! {
        <h1>{r.title.clone()}</h1>
        <p class="muted">
            "Status " {r.status.as_str()} " · definition " {r.definition.clone()} " · "
            {r.complete_pairs} " of " {r.pairs} " pairs have all " {r.judgments_per_pair}
            " judgments · statistics over trusted judgments, computed at "
            <time datetime=r.computed_at.clone()>{r.computed_at.replace('T', " ").chars().take(19).collect::<String>()} " UTC"</time>
            " in " {format!("{:.0} ms", r.compute_ms)}
        </p>
        {r.stale.then(|| view! {
            <p class="notice" role="status" data-testid="stale">
                "New judgments came in since; they are being counted now. Reload in a few seconds for the latest numbers."
            </p>
        })}
        <div class="scroll-x" role="region" aria-label="Agreement" tabindex="0">
            <table class="table2" aria-label="Agreement">
                <tbody>
                    <tr><th scope="row">"Fleiss' kappa (complete pairs: " {a.fleiss_pairs} ")"</th><td data-testid="fleiss">{num(a.fleiss)}</td></tr>
                    <tr><th scope="row">"Krippendorff's alpha (nominal, all judged pairs)"</th><td>{num(a.alpha)}</td></tr>
                    <tr><th scope="row">"Gwet's AC1"</th><td>{num(a.ac1)}</td></tr>
                    <tr><th scope="row">"Mean Cohen's kappa vs the majority of the others (MultiPIT: 0.70)"</th><td>{num(a.mean_kappa_vs_majority)}</td></tr>
                    <tr><th scope="row">"Dawid-Skene prior of paraphrase"</th><td>{num(a.ds_prior_paraphrase)}</td></tr>
                    <tr><th scope="row">"Judgments / pairs judged"</th><td>{a.judgments} " / " {a.pairs_judged}</td></tr>
                    <tr><th scope="row">"Republished pairs waiting for replacement judgments"</th><td>{r.pending_republished}</td></tr>
                </tbody>
            </table>
        </div>
        <h2>"Votes per complete pair"</h2>
        {match r.votes_svg.clone() {
            Some(svg) => view! { <div class="figure" inner_html=svg></div> }.into_any(),
            None => view! {
                <p class="empty" data-testid="no-complete-pairs">
                    "No complete pairs yet: a pair is counted here once it has all its " {r.judgments_per_pair} " judgments."
                </p>
            }.into_any(),
        }}
        <h2>"Agreement over time"</h2>
        {match r.over_time_svg.clone() {
            Some(svg) => view! { <div class="figure" inner_html=svg></div> }.into_any(),
            None => view! {
                <p class="empty" data-testid="no-alpha-yet">"Alpha is not defined yet: it needs a pair judged by two workers, and both answers given somewhere."</p>
            }.into_any(),
        }}
        <h2>"Labels: vote threshold vs Dawid-Skene"</h2>
        <div class="scroll-x" role="region" aria-label="Vote labels against Dawid-Skene" tabindex="0">
            <table class="table2" aria-label="Vote labels against Dawid-Skene">
                <thead><tr><th><span class="sr-only">"Vote label"</span></th><th scope="col">"DS paraphrase"</th><th scope="col">"DS not"</th></tr></thead>
                <tbody>
                    <tr><th scope="row">"Votes: paraphrase"</th><td>{cmp[0][0]}</td><td>{cmp[0][1]}</td></tr>
                    <tr><th scope="row">"Votes: not paraphrase"</th><td>{cmp[1][0]}</td><td>{cmp[1][1]}</td></tr>
                    <tr><th scope="row">"Votes: unresolved"</th><td>{cmp[2][0]}</td><td>{cmp[2][1]}</td></tr>
                </tbody>
            </table>
        </div>
        <h2>"Workers"</h2>
        <p class="controls">
            <label>
                "Sort by "
                <select on:change=move |ev| {
                    let v = event_target_value(&ev);
                    sort.set(match v.as_str() { "kappa" => "kappa", "accuracy" => "accuracy", "seconds" => "seconds", _ => "judgments" });
                }>
                    <option value="judgments">"judgments"</option>
                    <option value="kappa">"kappa vs majority"</option>
                    <option value="accuracy">"test accuracy"</option>
                    <option value="seconds">"median seconds"</option>
                </select>
            </label>
            " "
            <label class="check">
                <input type="checkbox" on:change=move |ev| only_stopped.set(event_target_checked(&ev)) />
                " only stopped workers"
            </label>
        </p>
        <div class="scroll-x" role="region" aria-label="Workers" tabindex="0">
            <table class="table2" aria-label="Workers">
                <thead>
                    <tr>
                        <th scope="col">"Worker"</th><th scope="col">"Status"</th><th scope="col">"Judgments"</th>
                        <th scope="col">"Test accuracy"</th><th scope="col">"Kappa vs majority"</th>
                        <th scope="col">"DS sensitivity"</th><th scope="col">"DS specificity"</th><th scope="col">"Median s"</th>
                    </tr>
                </thead>
                <tbody>
                    <For each=rows key=|w| w.worker.clone() let:w>
                        <tr>
                            <td>{w.worker.clone()}</td>
                            <td class=if w.low_test_accuracy { "status blocked" } else { "status" }>
                                {w.status.as_str()}
                                {w.low_test_accuracy.then(|| view! {
                                    <span data-testid="low-test-accuracy" title="Test accuracy at or below the campaign's bar, whatever the gate decided">" — low test accuracy"</span>
                                })}
                            </td>
                            <td title="Every judgment made; in brackets, the trusted judgments of ordinary pairs the statistics use">
                                {w.judgments_made}
                                {(w.judgments_made != w.agreement.judgments as i64).then(|| format!(" ({} counted)", w.agreement.judgments))}
                            </td>
                            <td>{format!("{} of {}", pct(w.test_accuracy), w.tests_answered)}</td>
                            <td>{num(w.agreement.kappa_vs_majority)}</td>
                            <td>{num(w.agreement.sensitivity)}</td>
                            <td>{num(w.agreement.specificity)}</td>
                            <td>{w.agreement.median_seconds.map_or_else(|| "–".into(), |s| format!("{s:.1}"))}</td>
                        </tr>
                    </For>
                </tbody>
            </table>
        </div>
        <h2>"Status history"</h2>
        {if r.history.is_empty() {
            view! { <p class="empty">"No worker has been stopped or reinstated."</p> }.into_any()
        } else {
            view! {
                <div class="scroll-x" role="region" aria-label="Status history" tabindex="0">
                    <table class="table2" aria-label="Status history">
                        <thead>
                            <tr>
                                <th scope="col">"When (UTC)"</th><th scope="col">"Worker"</th><th scope="col">"Status"</th>
                                <th scope="col">"By"</th><th scope="col">"Judgments"</th><th scope="col">"Test accuracy"</th>
                                <th scope="col">"Kappa"</th><th scope="col">"Why"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {r.history
                                .iter()
                                .map(|e| view! {
                                    <tr>
                                        <td>{e.at.get(..16).unwrap_or_default().replace('T', " ")}</td>
                                        <td>{e.worker.clone()}</td>
                                        <td>{e.status.as_str()}</td>
                                        <td>{if e.by_admin { "admin" } else { "gate" }}</td>
                                        <td>{e.judgments}</td>
                                        <td>{pct(e.test_accuracy)}</td>
                                        <td>{num(e.kappa)}</td>
                                        <td class="reason">{e.reason.clone()}</td>
                                    </tr>
                                })
                                .collect_view()}
                        </tbody>
                    </table>
                </div>
            }
                .into_any()
        }}
    }
}
