//! Researchers: a judging campaign's agreement, live (reload to refresh).
use crate::domain::CampaignId;
use crate::pages::{route_id, with_route_id};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::judge_report::{judge_report, ExcludeWorker, JudgeReportView, JudgeWorkerReport};
use crate::components::gate_standing::GateStandingCell;
use crate::error::{ErrorMessage, PageError};

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".into(), |x| format!("{x:.3}"))
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{:.0}%", x * 100.0))
}

#[component]
pub fn JudgeReportPage() -> impl IntoView {
    let params = use_params_map();
    let exclude = ServerAction::<ExcludeWorker>::new();
    let report = Resource::new(
        move || (route_id::<CampaignId>(params), exclude.version().get()),
        |(id, _)| with_route_id(id, judge_report),
    );
    let campaign_id = move || params.read().get("id").unwrap_or_default();
    view! {
        <section class="card wide report">
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match report.await {
                        Ok(r) => view! { <Report r exclude campaign_id=campaign_id() /> }.into_any(),
                        // The page says what it is even when it cannot be shown.
                        Err(error) => view! {
                            <PageError error heading="Worker quality report" />
                        }
                        .into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// What the last exclusion did, or why it failed.
#[component]
fn ExcludeResult(exclude: ServerAction<ExcludeWorker>) -> impl IntoView {
    move || {
        exclude.value().get().map(|result| match result {
            Ok(s) => view! {
                <p class="notice" role="status" data-testid="excluded">
                    {format!(
                        "Excluded: {} judgments set aside; {} pairs went back in the queue for other workers.",
                        s.judgments, s.pairs
                    )}
                </p>
            }
            .into_any(),
            Err(error) => view! { <ErrorMessage error /> }.into_any(),
        })
    }
}

#[component]
fn Report(
    r: JudgeReportView,
    exclude: ServerAction<ExcludeWorker>,
    campaign_id: String,
) -> impl IntoView {
    let campaign_id = StoredValue::new(campaign_id);
    let a = r.agreement.clone();
    let cmp = a.vote_vs_dawid_skene;
    // Under adaptive redundancy the tables count every pair's first judgments (`report::agreement`).
    let adaptive = a.fleiss_judgments != r.judgments_per_pair;
    let first = a.fleiss_judgments;
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
            {r.complete_pairs} " of " {r.pairs} " pairs have their label (settled, or all "
            {r.judgments_per_pair} " judgments) · statistics over trusted judgments, computed at "
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
                    <tr><th scope="row">{if adaptive { format!("Fleiss' kappa (the first {first} judgments of {} pairs)", a.fleiss_pairs) } else { format!("Fleiss' kappa (complete pairs: {})", a.fleiss_pairs) }}</th><td data-testid="fleiss">{num(a.fleiss)}</td></tr>
                    <tr><th scope="row">"Krippendorff's alpha (nominal, all judged pairs)"</th><td>{num(a.alpha)}</td></tr>
                    <tr><th scope="row">"Gwet's AC1"</th><td>{num(a.ac1)}</td></tr>
                    <tr><th scope="row">"Mean Cohen's kappa vs the majority of the others (MultiPIT: 0.70)"</th><td>{num(a.mean_kappa_vs_majority)}</td></tr>
                    <tr><th scope="row">"Dawid-Skene prior of paraphrase"</th><td>{num(a.ds_prior_paraphrase)}</td></tr>
                    <tr><th scope="row">"Judgments / pairs judged"</th><td>{a.judgments} " / " {a.pairs_judged}</td></tr>
                    <tr><th scope="row">"Republished pairs waiting for replacement judgments"</th><td>{r.pending_republished}</td></tr>
                </tbody>
            </table>
        </div>
        <h2>{if adaptive { format!("Votes among each pair's first {first} judgments") } else { "Votes per complete pair".to_owned() }}</h2>
        {adaptive.then(|| view! {
            <p class="muted small">
                "Pairs settle at " {first} " to " {r.judgments_per_pair} " judgments, so the bars and Fleiss' kappa count the first "
                {first} " of every pair that has them: the pairs that took all " {r.judgments_per_pair}
                " are the ones whose votes split, and counting only those would understate agreement."
            </p>
        })}
        {match r.votes_svg.clone() {
            Some(svg) => view! { <div class="figure" inner_html=svg></div> }.into_any(),
            None => view! {
                <p class="empty" data-testid="no-complete-pairs">
                    "No complete pairs yet: a pair is counted here once it has " {if adaptive { "its first " } else { "all its " }} {first} " judgments."
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
        <h2>"Labels: vote threshold vs the models of the workers"</h2>
        <p class="muted">
            {if adaptive {
                format!("Pairs with at least {first} judgments by the majority of their votes (a tie: unresolved) and the label each model gives them. ")
            } else {
                "Complete pairs by their vote label and the label each model gives them. ".to_owned()
            }}
            "The models weigh every worker by their estimated quality: "
            "Dawid-Skene by a confusion matrix per worker, GLAD by an ability per worker and a difficulty per pair, "
            "MACE by how often a worker knows the answer rather than guesses. Exports can label pairs by any of them."
        </p>
        <div class="scroll-x" role="region" aria-label="Vote labels against the models" tabindex="0">
            <table class="table2" aria-label="Vote labels against the models" data-testid="labels-by-model">
                <thead>
                    <tr>
                        <th><span class="sr-only">"Vote label"</span></th>
                        <th scope="col">"Dawid-Skene: paraphrase"</th><th scope="col">"not"</th>
                        <th scope="col">"GLAD: paraphrase"</th><th scope="col">"not"</th>
                        <th scope="col">"MACE: paraphrase"</th><th scope="col">"not"</th>
                    </tr>
                </thead>
                <tbody>
                    {[(0usize, "Votes: paraphrase"), (1, "Votes: not paraphrase"), (2, "Votes: unresolved")].into_iter().map(|(v, name)| view! {
                        <tr>
                            <th scope="row">{name}</th>
                            <td>{cmp[v][0]}</td><td>{cmp[v][1]}</td>
                            <td>{a.vote_vs_glad[v][0]}</td><td>{a.vote_vs_glad[v][1]}</td>
                            <td>{a.vote_vs_mace[v][0]}</td><td>{a.vote_vs_mace[v][1]}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <h2>"Workers"</h2>
        {
            // Flagged workers still to review: an excluded one keeps its mark, but has nothing
            // left to set aside (a stopped one whose judgments hold slots has).
            let flagged = r
                .workers
                .iter()
                .filter(|w| w.harvest_flag && (w.status == crate::domain::WorkerStatus::Active || w.held_slots > 0))
                .count();
            (flagged > 0).then(|| view! {
                <p class="notice" role="status" data-testid="harvest-flags">
                    {flagged} {if flagged == 1 { " worker answers" } else { " workers answer" }}
                    " the test pairs far better than the ordinary pairs (Fisher's exact test, p below "
                    {crate::domain::judge::harvest::FLAG_BELOW} ", or answers at least "
                    {(1.0 / crate::domain::judge::harvest::HARVEST_ALPHA).round()}
                    " times likelier from someone who has the test answers and guesses the rest than from an honest worker): they may have the test answers from elsewhere. "
                    "Look at them below (marked \"review\"); the gate does not stop anyone for it. "
                    "Excluding one sets their judgments of ordinary pairs aside, sends those pairs back to other workers and stops them."
                </p>
            })
        }
        <AccountGroups groups=r.groups.clone() />
        <ExcludeResult exclude />
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
                        <th scope="col">"Worker"</th><th scope="col">"Status"</th>
                        <th scope="col">"Judgments"</th><th scope="col"><abbr title=crate::components::gate_standing::GATE_TITLE>"Gate"</abbr></th>
                        <th scope="col">"Test accuracy"</th><th scope="col">"Kappa vs majority"</th>
                        <th scope="col"><abbr title="Test answers right against ordinary pairs agreeing with the others' majority; p: how likely so large a gap is for a worker who answers both alike (Fisher's exact test)">"Tests vs ordinary pairs"</abbr></th>
                        <th scope="col">"DS sensitivity"</th><th scope="col">"DS specificity"</th>
                        <th scope="col"><abbr title="GLAD's ability: 0 is guessing, below 0 worse than guessing">"GLAD ability"</abbr></th>
                        <th scope="col"><abbr title="MACE's competence: how often the worker knows the answer rather than guesses">"MACE competence"</abbr></th>
                        <th scope="col">"Median s"</th>
                    </tr>
                </thead>
                <tbody>
                    <For each=rows key=|w| w.worker.clone() let:w>
                        <tr>
                            <td>{w.worker.clone()}</td>
                            <td class=if w.low_test_accuracy { "status blocked" } else { "status" }>
                                {w.status.as_str()}
                                {(!w.groups.is_empty()).then(|| view! {
                                    <span data-testid="group-mark">
                                        {format!(" — in group {}", w.groups.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))}
                                    </span>
                                })}
                                {w.low_test_accuracy.then(|| view! {
                                    <span data-testid="low-test-accuracy" title="Test accuracy at or below the campaign's bar, whatever the gate decided">" — low test accuracy"</span>
                                })}
                            </td>
                            <td title="Every judgment made; in brackets, the trusted judgments of ordinary pairs the statistics use">
                                {w.judgments_made}
                                {(w.judgments_made != w.agreement.judgments as i64).then(|| format!(" ({} counted)", w.agreement.judgments))}
                            </td>
                            <td class="small gate"><GateStandingCell gate=w.gate.clone() /></td>
                            <td>{format!("{} of {}", pct(w.test_accuracy), w.tests_answered)}</td>
                            <td>{num(w.agreement.kappa_vs_majority)}</td>
                            <td class=if w.harvest_flag { "status blocked" } else { "status" }>
                                {format!("{} vs {}", pct(w.test_accuracy), pct((w.ordinary_agreement.1 > 0).then(|| f64::from(w.ordinary_agreement.0) / f64::from(w.ordinary_agreement.1))))}
                                {w.tests_vs_ordinary_p.map(|p| if p < 0.001 { " · p < 0.001".to_owned() } else { format!(" · p {p:.3}") })}
                                {w.harvest_likelihood_ratio.filter(|r| *r >= 1.0).map(|r| view! {
                                    <span title="How much likelier these answers are from someone who has the test answers and guesses the rest than from an honest worker">
                                        {format!(" · {} times likelier harvested", crate::domain::judge::harvest::factor_text(r))}
                                    </span>
                                })}
                                {w.harvest_flag.then(|| view! { <span data-testid="harvest-flag">" — review"</span> })}
                                {((w.harvest_flag || !w.groups.is_empty()) && !w.gate_overridden && (w.status == crate::domain::WorkerStatus::Active || w.held_slots > 0)).then(|| {
                                    let (cid, worker) = (campaign_id.get_value(), w.worker.clone());
                                    let what = if w.status == crate::domain::WorkerStatus::Active {
                                        format!("Exclude {worker}? Their judgments of ordinary pairs are set aside, those pairs go back to other workers, and they are stopped. The status history keeps the reason.")
                                    } else {
                                        let n = w.held_slots;
                                        format!(
                                            "Exclude {worker}? They are stopped, so their judgments no longer count, but {n} of them still {} a pair's place. Excluding sets {} aside and those pairs go back to other workers. The status history keeps the reason.",
                                            if n == 1 { "takes" } else { "take" },
                                            if n == 1 { "it" } else { "them" },
                                        )
                                    };
                                    view! {
                                        // Asks first: the worker's judgments are set aside.
                                        <details class="inline confirm">
                                            <summary class="small" data-testid="exclude">"Exclude…"</summary>
                                            <p class="small">{what}</p>
                                            <ActionForm action=exclude attr:class="inline">
                                                <input type="hidden" name="campaign_id" value=cid />
                                                <input type="hidden" name="worker" value=worker.clone() />
                                                <button type="submit" class="small danger" data-testid="exclude-confirm">
                                                    {format!("Exclude {worker}")}
                                                </button>
                                            </ActionForm>
                                        </details>
                                    }
                                })}
                            </td>
                            <td>{num(w.agreement.sensitivity)}</td>
                            <td>{num(w.agreement.specificity)}</td>
                            <td>{num(w.agreement.glad_ability)}</td>
                            <td>{num(w.agreement.mace_competence)}</td>
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
                                <th scope="col">"Kappa"</th><th scope="col">"Told the worker"</th>
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

/// The accounts a researcher should look at together, with why.
#[component]
fn AccountGroups(groups: Vec<crate::dto::judge_report::AccountGroup>) -> impl IntoView {
    (!groups.is_empty()).then(|| {
        view! {
            <section class="notice groups" aria-labelledby="groups-heading" data-testid="account-groups">
                <h3 id="groups-heading">"Accounts to review together"</h3>
                <p class="small">
                    "Accounts that part from the other workers' majority together far more often than two people answering on their own would "
                    "(errors in common, tested for every two workers; p below "
                    {crate::domain::judge::alike::ALPHA} " over all of them), or that opened the study link from the same network with the same browser. "
                    "Either may be one person with several accounts or a group sharing answers; a household or a lab can share a network and browser too. "
                    "Nobody is stopped for it: excluding a member (\"Exclude…\" in their row) sets their judgments of ordinary pairs aside and sends those pairs back to other workers."
                </p>
                <ul>
                    {groups
                        .into_iter()
                        .map(|g| view! {
                            <li data-testid="account-group">
                                <strong>{format!("Group {}: {}", g.number, g.kind.title())}</strong>
                                " — " {g.members.join(", ")}
                                <ul class="small">
                                    {g.evidence.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}
                                </ul>
                            </li>
                        })
                        .collect_view()}
                </ul>
            </section>
        }
    })
}
