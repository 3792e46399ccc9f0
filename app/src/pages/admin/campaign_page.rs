//! Admins: one campaign — open or close it, upload its sentences or pairs from a file, and for a
//! judging campaign its progress, gold balance, test pairs and workers (with the gate's
//! decisions, which the admin can reverse).
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::campaigns::{get_campaign, import_sources, AdminCampaign, SetCampaignStatus};
use crate::api::judge_admin::{
    import_pairs, judge_overview, list_pairs, AdminPair, JudgeCampaignOverview, JudgeWorkerView,
    Republish, SetJudgeWorkerStatus, SetTestPair,
};
use crate::components::browser::read_chosen_file;
use crate::domain::judge::labels::VoteLabel;
use crate::error::{AppError, ErrorMessage};

#[component]
pub fn AdminCampaignPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let set_status = ServerAction::<SetCampaignStatus>::new();
    // Bumped after an import so counts refresh.
    let imported = RwSignal::new(0u32);
    // The last import's result; kept here so it survives the refresh of the sections below.
    let message: RwSignal<Option<Result<String, AppError>>> = RwSignal::new(None);
    let campaign = Resource::new(
        move || (id(), set_status.version().get(), imported.get()),
        |(id, _, _)| get_campaign(id),
    );
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match campaign.await {
                    Ok(c) => view! { <Campaign c set_status imported message /> }.into_any(),
                    Err(error) => view! { <ErrorMessage error /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Campaign(
    c: AdminCampaign,
    set_status: ServerAction<SetCampaignStatus>,
    imported: RwSignal<u32>,
    message: RwSignal<Option<Result<String, AppError>>>,
) -> impl IntoView {
    let is_apt = c.kind == "apt";
    let id = c.campaign_id.clone();
    let status_button = |to: &'static str, label: &'static str| {
        let id = id.clone();
        view! {
            <ActionForm action=set_status attr:class="inline">
                <input type="hidden" name="campaign_id" value=id />
                <input type="hidden" name="status" value=to />
                <button type="submit" class="small">{label}</button>
            </ActionForm>
        }
    };
    let buttons = match c.status.as_str() {
        "open" => view! { {status_button("closed", "Close")} }.into_any(),
        "closed" => view! { {status_button("open", "Reopen")} }.into_any(),
        _ => view! { {status_button("open", "Open to workers")} }.into_any(),
    };
    let links = if is_apt {
        view! {
            <a href=format!("/apt/{}", c.campaign_id)>"Worker's page"</a>
            " · "
            <a href=format!("/research/apt/{}", c.campaign_id)>"Researcher's report"</a>
            " · "
            <a href=format!("/research/export/{}", c.campaign_id)>"Export dataset"</a>
        }
        .into_any()
    } else {
        view! {
            <a href=format!("/judge/{}", c.campaign_id)>"Worker's page"</a>
            " · "
            <a href=format!("/research/judge/{}", c.campaign_id)>"Agreement dashboard"</a>
            " · "
            <a href=format!("/research/export/{}", c.campaign_id)>"Export dataset"</a>
        }
        .into_any()
    };
    let (items, work) = if is_apt {
        ("source sentences", "checks")
    } else {
        ("pairs", "judgments")
    };
    view! {
        <section class="card wide">
            <p class="muted"><a href="/admin/campaigns">"← Campaigns"</a></p>
            <h1>{c.title.clone()}</h1>
            // A div, not a p: the status button is a form, which a p cannot hold.
            <div class="status-line">
                <span class="tag">{if is_apt { "Writing (APT)" } else { "Judging (MultiPIT)" }}</span>
                " Status: " <strong data-testid="campaign-status">{c.status.clone()}</strong> " " {buttons}
            </div>
            {move || set_status.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            <p>
                <strong data-testid="items">{c.items}</strong> " " {items} " · "
                <strong>{c.work}</strong> " " {work} " · " {links}
            </p>
        </section>
        <section class="card wide">
            <h2>{if is_apt { "Import source sentences" } else { "Import sentence pairs" }}</h2>
            <Upload campaign_id=c.campaign_id.clone() is_apt imported message />
        </section>
        {(!is_apt).then(|| view! { <JudgeAdmin campaign_id=c.campaign_id.clone() imported /> })}
    }
}

/// The file upload: the browser reads the file and sends its text to the import function.
#[component]
fn Upload(
    campaign_id: String,
    is_apt: bool,
    imported: RwSignal<u32>,
    message: RwSignal<Option<Result<String, AppError>>>,
) -> impl IntoView {
    let origin = RwSignal::new(String::from("upload"));
    let as_tests = RwSignal::new(false);
    let cid = StoredValue::new(campaign_id);
    // Reading a file is a browser future (not Send): an unsync action.
    let upload = Action::new_unsync(move |_: &()| async move {
        let (name, content) = match read_chosen_file("import-file").await {
            Ok(file) => file,
            Err(m) => return Err(AppError::validation("file", m)),
        };
        if is_apt {
            import_sources(cid.get_value(), name.clone(), content, origin.get_untracked())
                .await
                .map(|s| {
                    format!(
                        "{name}: imported {} sentences; skipped {} repeated in the file and {} already in the campaign.",
                        s.imported, s.duplicates_in_file, s.already_in_campaign
                    )
                })
        } else {
            import_pairs(cid.get_value(), name.clone(), content, as_tests.get_untracked())
                .await
                .map(|s| {
                    format!(
                        "{name}: imported {} pairs ({} test pairs in the file); skipped {} repeated in the file and {} already in the campaign.",
                        s.imported, s.tests_in_file, s.duplicates_in_file, s.already_in_campaign
                    )
                })
        }
    });
    Effect::new(move || {
        if let Some(result) = upload.value().get() {
            let ok = result.is_ok();
            message.set(Some(result));
            if ok {
                imported.update(|n| *n += 1);
            }
        }
    });
    let help = if is_apt {
        "MSRP files (the pair files: sentence 1 of each pair; or msr_paraphrase_data.txt: every sentence), or CSV/TSV/JSONL with a `text` column and optional `origin` and `id`."
    } else {
        "CSV/TSV/JSONL with `sentence1` and `sentence2` (or `sent_1`/`sent_2`, MSRP's `#1 String`/`#2 String`), optional group (`trend`, `url`, `topic`), `label` and `explanation`."
    };
    view! {
        <form class="upload" on:submit=move |ev| {
            ev.prevent_default();
            message.set(None);
            upload.dispatch(());
        }>
            <p class="muted small">{help} " A bad line stops the import and nothing is stored."</p>
            <label>"File" <input id="import-file" type="file" accept=".txt,.tsv,.csv,.jsonl,.json" required /></label>
            {if is_apt {
                view! {
                    <label>
                        "Origin for rows without one"
                        <input
                            name="default_origin"
                            prop:value=move || origin.get()
                            on:input=move |ev| origin.set(event_target_value(&ev))
                        />
                    </label>
                }
                    .into_any()
            } else {
                view! {
                    <label class="check">
                        <input type="checkbox" prop:checked=move || as_tests.get() on:change=move |ev| as_tests.set(event_target_checked(&ev)) />
                        " Labeled rows are hidden test pairs (gold); their explanation is shown to a worker who misses one"
                    </label>
                }
                    .into_any()
            }}
            <button type="submit" disabled=move || upload.pending().get()>
                {move || if upload.pending().get() { "Importing…" } else { "Import" }}
            </button>
        </form>
        {move || {
            message
                .get()
                .map(|m| match m {
                    Ok(text) => view! { <p class="notice ok" role="status" data-testid="import-result">{text}</p> }.into_any(),
                    Err(error) => view! { <ErrorMessage error /> }.into_any(),
                })
        }}
    }
}

#[component]
fn JudgeAdmin(campaign_id: String, imported: RwSignal<u32>) -> impl IntoView {
    let set_worker = ServerAction::<SetJudgeWorkerStatus>::new();
    let set_test = ServerAction::<SetTestPair>::new();
    let republish = ServerAction::<Republish>::new();
    let cid = StoredValue::new(campaign_id);
    let overview = Resource::new(
        move || {
            (
                imported.get(),
                set_worker.version().get(),
                set_test.version().get(),
                republish.version().get(),
            )
        },
        move |_| judge_overview(cid.get_value()),
    );
    let tests_only = RwSignal::new(true);
    let pairs = Resource::new(
        move || (imported.get(), set_test.version().get(), tests_only.get()),
        move |(_, _, t)| list_pairs(cid.get_value(), t, 0),
    );
    view! {
        <section class="card wide">
            <h2>"Progress and workers"</h2>
            {move || set_worker.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match overview.await {
                        Ok(o) => view! { <Overview o campaign_id=cid.get_value() set_worker /> }.into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
        <section class="card wide">
            <h2>"Republish low-agreement work"</h2>
            <p class="muted small">
                "Workers whose Cohen's kappa against the majority of the others is below the threshold are stopped; their judgments become untrusted and their pairs go back in the queue for trusted workers (ParaSCI §5)."
            </p>
            <ActionForm action=republish attr:class="inline">
                <input type="hidden" name="campaign_id" value=cid.get_value() />
                <label class="check">
                    "Kappa below "
                    <input name="min_kappa" type="number" step="0.05" min="-1" max="1" value="0.4" required />
                </label>
                <button type="submit" class="small">"Republish"</button>
            </ActionForm>
            {move || {
                republish
                    .value()
                    .get()
                    .map(|r| match r {
                        Ok(s) => view! {
                            <p class="notice ok" role="status" data-testid="republish-result">
                                {format!(
                                    "Republished {} judgments on {} pairs from {} workers{}.",
                                    s.judgments,
                                    s.pairs,
                                    s.workers.len(),
                                    if s.workers.is_empty() { String::new() } else { format!(" ({})", s.workers.join(", ")) }
                                )}
                            </p>
                        }
                            .into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    })
            }}
        </section>
        <section class="card wide">
            <h2>"Pairs and test pairs"</h2>
            <p>
                <label class="check">
                    <input type="checkbox" prop:checked=move || tests_only.get() on:change=move |ev| tests_only.set(event_target_checked(&ev)) />
                    " Only test pairs"
                </label>
            </p>
            {move || set_test.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match pairs.await {
                        Ok(list) if list.is_empty() => view! { <p class="empty">"No pairs here yet."</p> }.into_any(),
                        Ok(list) => view! { <PairTable list campaign_id=cid.get_value() set_test /> }.into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn Overview(
    o: JudgeCampaignOverview,
    campaign_id: String,
    set_worker: ServerAction<SetJudgeWorkerStatus>,
) -> impl IntoView {
    let percent = if o.pairs > 0 {
        o.complete_pairs as f64 * 100.0 / o.pairs as f64
    } else {
        0.0
    };
    view! {
        <p>
            "Definition: " <strong>{o.definition.clone()}</strong> " · "
            {o.judgments_per_pair} " judgments per pair · one test pair in every " {o.test_every}
            " · kept while test accuracy > " {format!("{:.0}%", o.min_test_accuracy * 100.0)}
            " and kappa > " {format!("{:.2}", o.min_kappa)} " (after " {o.gate_min_judgments} " judgments, " {o.gate_rule.clone()} " rule)"
            " · labels: ≥ " {o.paraphrase_min_votes} " paraphrase, ≤ " {o.non_paraphrase_max_votes} " not"
        </p>
        {o.gold_warning.clone().map(|w| view! { <p class="notice warn" role="alert" data-testid="gold-warning">{w}</p> })}
        <p>
            <strong>{o.complete_pairs}</strong> " of " <strong>{o.pairs}</strong> " pairs complete · "
            {o.judgments} " trusted judgments · " {o.test_pairs} " test pairs · "
            <span data-testid="pending">{o.pending_republished}</span> " republished pairs pending"
        </p>
        <div class="progressbar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow=format!("{percent:.0}")>
            <div style=format!("width: {percent:.1}%")></div>
        </div>
        {if o.workers.is_empty() {
            view! { <p class="empty">"No worker has started yet."</p> }.into_any()
        } else {
            view! {
                <table class="users" aria-label="Workers">
                    <thead>
                        <tr>
                            <th scope="col">"Worker"</th>
                            <th scope="col">"Judgments"</th>
                            <th scope="col">"Test accuracy"</th>
                            <th scope="col">"Status"</th>
                            <th scope="col">"Why"</th>
                            <th scope="col"></th>
                        </tr>
                    </thead>
                    <tbody>
                        {o.workers.into_iter().map(|w| view! { <WorkerRow w campaign_id=campaign_id.clone() set_worker /> }).collect_view()}
                    </tbody>
                </table>
            }
                .into_any()
        }}
    }
}

#[component]
fn WorkerRow(
    w: JudgeWorkerView,
    campaign_id: String,
    set_worker: ServerAction<SetJudgeWorkerStatus>,
) -> impl IntoView {
    let stopped = w.status == "stopped";
    let accuracy = w
        .test_accuracy
        .map(|a| format!("{:.0}% of {}", a * 100.0, w.tests_answered))
        .unwrap_or_else(|| "—".into());
    view! {
        <tr data-username=w.username.clone()>
            <td>{w.username.clone()}</td>
            <td>{w.judgments}</td>
            <td>{accuracy}</td>
            <td class=if stopped { "status blocked" } else { "status" }>
                {w.status.clone()} {w.gate_overridden.then_some(" (gate off)")}
            </td>
            <td class="small">{w.last_reason.clone().unwrap_or_default()}</td>
            <td>
                <ActionForm action=set_worker attr:class="inline">
                    <input type="hidden" name="campaign_id" value=campaign_id />
                    <input type="hidden" name="user_id" value=w.user_id.clone() />
                    <input type="hidden" name="status" value=if stopped { "active" } else { "stopped" } />
                    <button type="submit" class="small">{if stopped { "Reinstate" } else { "Stop" }}</button>
                </ActionForm>
            </td>
        </tr>
    }
}

#[component]
fn PairTable(
    list: Vec<AdminPair>,
    campaign_id: String,
    set_test: ServerAction<SetTestPair>,
) -> impl IntoView {
    view! {
        <table class="users pairs" aria-label="Pairs">
            <thead>
                <tr>
                    <th scope="col">"Sentence 1"</th>
                    <th scope="col">"Sentence 2"</th>
                    <th scope="col">"Paraphrase votes · label"</th>
                    <th scope="col">"Test pair (gold)"</th>
                </tr>
            </thead>
            <tbody>
                {list
                    .into_iter()
                    .map(|p| {
                        let campaign_id = campaign_id.clone();
                        let gold = match (p.is_test, p.gold_label) {
                            (true, Some(true)) => "paraphrase",
                            (true, Some(false)) => "not_paraphrase",
                            _ => "none",
                        };
                        view! {
                            <tr>
                                <td>{p.sentence1}</td>
                                <td>{p.sentence2}</td>
                                <td>
                                    {format!("{} / {}", p.n_paraphrase, p.n_judgments)}
                                    {p.label.map(|l| match l {
                                        VoteLabel::Paraphrase => " · paraphrase",
                                        VoteLabel::NotParaphrase => " · not paraphrase",
                                        VoteLabel::Unresolved => " · unresolved",
                                    })}
                                </td>
                                <td>
                                    <ActionForm action=set_test attr:class="gold">
                                        <input type="hidden" name="campaign_id" value=campaign_id />
                                        <input type="hidden" name="pair_id" value=p.pair_id />
                                        <select name="gold" aria-label="Gold label">
                                            <option value="none" selected=gold == "none">"not a test pair"</option>
                                            <option value="paraphrase" selected=gold == "paraphrase">"paraphrase"</option>
                                            <option value="not_paraphrase" selected=gold == "not_paraphrase">"not paraphrase"</option>
                                        </select>
                                        <input name="explanation" placeholder="Explanation shown on a miss" value=p.gold_explanation.unwrap_or_default() />
                                        <button type="submit" class="small">"Save"</button>
                                    </ActionForm>
                                </td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
}
