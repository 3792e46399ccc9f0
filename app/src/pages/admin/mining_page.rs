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
use crate::error::{AppError, ErrorMessage};

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
    let selected = RwSignal::new(None::<String>);
    let compare = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    view! {
        <Transition fallback=|| view! { <section class="card wide"><p class="muted">"Loading…"</p></section> }>
            {move || Suspend::new(async move {
                match overview.await {
                    Ok(o) => view! { <Setup o start imported message /> }.into_any(),
                    Err(error) => view! { <section class="card wide"><ErrorMessage error /></section> }.into_any(),
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

#[component]
fn Setup(
    o: MiningState,
    start: ServerAction<StartMining>,
    imported: RwSignal<u32>,
    message: RwSignal<Option<Result<String, AppError>>>,
) -> impl IntoView {
    let corpora = o.corpora.clone();
    view! {
        <section class="card wide">
            <h1>"Mining"</h1>
            <p class="muted small">
                "Candidate pairs from raw text, as MSRP mined them: L12 pairs the sentences of a cluster at a word edit distance of at most 12; F2 pairs the first two sentences of the articles of a cluster that share three long words. Deploy the candidates to a judging campaign."
            </p>
            <h2>"Corpora"</h2>
            {if o.corpora.is_empty() {
                view! { <p class="empty">"No corpus yet. Import one below."</p> }.into_any()
            } else {
                view! {
                    <table aria-label="Corpora">
                        <thead><tr><th>"Name"</th><th>"Shape"</th><th>"File"</th><th>"Clusters"</th><th>"Documents"</th><th>"Sentences"</th></tr></thead>
                        <tbody>
                            {o.corpora.iter().map(|c| view! {
                                <tr><td>{c.name.clone()}</td><td>{c.shape.clone()}</td><td>{c.filename.clone()}</td>
                                <td>{c.clusters}</td><td>{c.documents}</td><td>{c.sentences}</td></tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            <ImportCorpus imported message />
        </section>
        <section class="card wide">
            <h2>"Start a run"</h2>
            <NewRun corpora start />
        </section>
    }
}

#[component]
fn ImportCorpus(
    imported: RwSignal<u32>,
    message: RwSignal<Option<Result<String, AppError>>>,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let shape = RwSignal::new(String::from("documents"));
    let cluster = RwSignal::new(String::new());
    let id_column = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let keep_headings = RwSignal::new(false);
    let upload = Action::new_unsync(move |_: &()| async move {
        let (file, content) = match read_chosen_file("corpus-file").await {
            Ok(f) => f,
            Err(m) => return Err(AppError::validation("file", m)),
        };
        let title = if name.get_untracked().trim().is_empty() {
            file.clone()
        } else {
            name.get_untracked()
        };
        import_corpus(
            title,
            file.clone(),
            content,
            shape.get_untracked(),
            cluster.get_untracked(),
            id_column.get_untracked(),
            text.get_untracked(),
            keep_headings.get_untracked(),
        )
        .await
        .map(|c| {
            format!(
                "{file}: {} clusters, {} documents, {} sentences.",
                c.clusters, c.documents, c.sentences
            )
        })
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
    let input = |label: &'static str, signal: RwSignal<String>, placeholder: &'static str| {
        view! {
            <label>{label}
                <input placeholder=placeholder prop:value=move || signal.get() on:input=move |ev| signal.set(event_target_value(&ev)) />
            </label>
        }
    };
    view! {
        <h3>"Import a corpus"</h3>
        <form class="upload" on:submit=move |ev| {
            ev.prevent_default();
            message.set(None);
            upload.dispatch(());
        }>
            <p class="muted small">
                "Documents: JSON lines, CSV or TSV with a cluster (or topic), an id (or file) and the text, split into sentences (WikiRef220 works as it is). Grouped: short texts with a group key, e.g. the Twitter URL corpus with group `url` and text `sent_1,sent_2`. Sentences: one a line. A bad line stops the import and nothing is stored."
            </p>
            <label>"File" <input id="corpus-file" type="file" accept=".txt,.tsv,.csv,.jsonl,.json" required /></label>
            <div class="fields">
                {input("Name", name, "the file's name")}
                <label>"Shape"
                    <select prop:value=move || shape.get() on:change=move |ev| shape.set(event_target_value(&ev))>
                        <option value="documents">"Clustered documents"</option>
                        <option value="grouped">"Grouped short texts"</option>
                        <option value="sentences">"Plain sentences"</option>
                    </select>
                </label>
                {input("Cluster column", cluster, "cluster, topic, url…")}
                {input("Id column", id_column, "id, file…")}
                {input("Text column(s)", text, "text, content…")}
            </div>
            <label class="check">
                <input type="checkbox" prop:checked=move || keep_headings.get() on:change=move |ev| keep_headings.set(event_target_checked(&ev)) />
                " Keep headline-like lines (short lines without final punctuation) as sentences"
            </label>
            <button type="submit" disabled=move || upload.pending().get()>
                {move || if upload.pending().get() { "Importing…" } else { "Import corpus" }}
            </button>
        </form>
        {move || message.get().map(|m| match m {
            Ok(text) => view! { <p class="notice ok" role="status" data-testid="corpus-result">{text}</p> }.into_any(),
            Err(error) => view! { <ErrorMessage error /> }.into_any(),
        })}
    }
}

#[component]
fn NewRun(
    corpora: Vec<crate::api::mining::CorpusView>,
    start: ServerAction<StartMining>,
) -> impl IntoView {
    let method = RwSignal::new(String::from("l12"));
    if corpora.is_empty() {
        return view! { <p class="empty">"Import a corpus first."</p> }.into_any();
    }
    view! {
        <ActionForm action=start attr:class="upload">
            <div class="fields">
                <label>"Corpus"
                    <select name="corpus_id">
                        {corpora.iter().map(|c| view! { <option value=c.corpus_id.clone()>{format!("{} ({} sentences)", c.name, c.sentences)}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Method"
                    <select name="method" prop:value=move || method.get() on:change=move |ev| method.set(event_target_value(&ev))>
                        <option value="l12">"MSRP L12: edit distance within a cluster"</option>
                        <option value="f2">"MSRP F2: first sentences across articles"</option>
                        <option value="group">"MultiPIT: ranked pairs per group, follow-ups by paraphrases found"</option>
                        <option value="embedding">"ParaSCI: sentence embeddings, cosine similarity"</option>
                    </select>
                </label>
            </div>
            {move || match method.get().as_str() {
                "f2" => view! {
                    <div class="fields">
                        <label>"First sentences per article" <input name="first_sentences" type="number" min="1" max="20" value="2" /></label>
                        <label>"Shared long words, at least" <input name="min_shared_long_words" type="number" min="0" max="50" value="3" /></label>
                        <label>"A long word has characters" <input name="long_word_chars" type="number" min="1" max="30" value="4" /></label>
                        <label>"Shorter / longer in words, at least" <input name="min_word_ratio" type="number" step="0.01" min="0" max="1" value="0.5" /></label>
                    </div>
                }.into_any(),
                "group" => view! {
                    <p class="muted small">"Per group, sentences are ranked by the average probability of their words in the group. The first batch pairs each top sentence with sentences sampled from the top of the ranking; deploy it to a judging campaign, and when a group's first batch is fully judged, the paraphrases found there decide how many follow-up pairs of that group are added to the campaign by themselves (MultiPIT §2.3)."</p>
                    <div class="fields">
                        <label>"Top sentences (seeds)" <input name="seeds" type="number" min="1" max="20" value="2" /></label>
                        <label>"Pairs per seed" <input name="per_seed" type="number" min="1" max="100" value="10" /></label>
                        <label>"Sampled from the top" <input name="pool" type="number" min="2" max="1000" value="20" /></label>
                        <label>"Follow-up seeds: the top" <input name="follow_seeds" type="number" min="1" max="100" value="5" /></label>
                        <label>"Follow-up partners: ranks up to" <input name="follow_pool" type="number" min="2" max="1000" value="50" /></label>
                        <label>"Pairs per follow-up block" <input name="block" type="number" min="1" max="100" value="10" /></label>
                        <label>"Follow-up by paraphrases found (min-max:pairs)" <input name="steps" value="4-6:20, 7-9:30, 10-12:40, 13-20:50" /></label>
                        <label>"Random seed" <input name="random_seed" type="number" min="0" value="2022" /></label>
                    </div>
                }.into_any(),
                "embedding" => view! {
                    <p class="muted small">"Sentence embeddings (all-MiniLM-L6-v2, run on the server), cosine similarity pair by pair within a cluster (ParaSCI §4.1). Import a paper as a cluster and its sections as documents. The paper's 0.931 was for BERT embeddings; MiniLM's similarities for the same pairs run lower."</p>
                    <div class="fields">
                        <label>"Cosine similarity, at least" <input name="min_cosine" type="number" step="0.001" min="-1" max="1" value="0.931" /></label>
                        <label>"Length rate |a-b|/min, at most" <input name="max_length_rate" type="number" step="0.1" min="0" max="100" value="1.0" /></label>
                    </div>
                    <label class="check"><input type="checkbox" name="same_document" value="true" />" Also pair sentences of the same document (section)"</label>
                }.into_any(),
                _ => view! {
                    <div class="fields">
                        <label>"Word edit distance, at most" <input name="max_edit_distance" type="number" min="1" max="100" value="12" /></label>
                        <label>"Shorter / longer in words, at least" <input name="min_length_ratio" type="number" step="0.0001" min="0" max="1" value="0.6667" /></label>
                    </div>
                }.into_any(),
            }}
            <button type="submit" disabled=move || start.pending().get()>"Start run"</button>
        </ActionForm>
        {move || start.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
    }
    .into_any()
}

#[component]
fn RunTable(
    runs: Vec<RunView>,
    cancel: ServerAction<CancelMining>,
    restart: ServerAction<RestartMining>,
    selected: RwSignal<Option<String>>,
) -> impl IntoView {
    view! {
        <table aria-label="Runs" class="runs">
            <thead><tr>
                <th>"Started"</th><th>"Corpus"</th><th>"Method"</th><th>"Status"</th><th>"Progress"</th>
                <th>"Candidates"</th><th>"Mean edit distance"</th><th>"Mean words"</th><th>"Mean chars"</th><th>"Self-BLEU"</th><th></th>
            </tr></thead>
            <tbody>
                {runs.into_iter().map(|r| {
                    let pct = if r.total > 0 { 100.0 * r.done as f64 / r.total as f64 } else if r.status == "finished" { 100.0 } else { 0.0 };
                    let detail = match (r.rate, r.seconds_left) {
                        (Some(rate), Some(left)) => format!("{} / {} pairs · {:.0}/s · {} left", r.done, r.total, rate, duration(left)),
                        (Some(rate), None) => format!("{} / {} pairs · {:.0}/s", r.done, r.total, rate),
                        _ => format!("{} / {} pairs", r.done, r.total),
                    };
                    let stats = r.stats.clone().unwrap_or_default();
                    let id = r.run_id.clone();
                    let action = if r.is_active() {
                        let id = id.clone();
                        view! { <ActionForm action=cancel attr:class="inline"><input type="hidden" name="run_id" value=id /><button type="submit" class="small">"Cancel"</button></ActionForm> }.into_any()
                    } else if matches!(r.status.as_str(), "interrupted" | "cancelled" | "failed") {
                        let id = id.clone();
                        view! { <ActionForm action=restart attr:class="inline"><input type="hidden" name="run_id" value=id /><button type="submit" class="small">"Restart"</button></ActionForm> }.into_any()
                    } else {
                        let id = id.clone();
                        view! { <button type="button" class="small" on:click=move |_| selected.set(Some(id.clone()))>"Candidates"</button> }.into_any()
                    };
                    view! {
                        <tr data-status=r.status.clone()>
                            <td>{r.created_at.replace('T', " ").chars().take(19).collect::<String>()}</td>
                            <td>{r.corpus_name.clone()}</td>
                            <td title={r.params.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join("\n")}>{r.method.to_uppercase()}</td>
                            <td data-testid="run-status">{r.status.clone()}{r.error.clone().map(|e| view! { <br /><span class="muted small">{e}</span> })}</td>
                            <td>
                                <progress max="100" value=format!("{pct:.1}") aria-label="Run progress">{format!("{pct:.0}%")}</progress>
                                <span class="small" data-testid="run-progress">{format!(" {pct:.0}%")}</span>
                                <br /><span class="muted small">{detail}</span>
                            </td>
                            <td data-testid="run-candidates">{r.candidates}</td>
                            <td>{num(stats.mean_edit_distance, 2)}</td>
                            <td>{num(stats.mean_words, 1)}</td>
                            <td>{num(stats.mean_chars, 1)}</td>
                            <td>{num(stats.self_bleu, 1)}</td>
                            <td>{action}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// Two runs side by side: parameters and numbers.
#[component]
fn Compare(runs: Vec<RunView>, compare: (RwSignal<String>, RwSignal<String>)) -> impl IntoView {
    let finished: Vec<RunView> = runs
        .into_iter()
        .filter(|r| r.status == "finished")
        .collect();
    if finished.len() < 2 {
        return ().into_any();
    }
    let (left, right) = compare;
    // The choice survives the table's refreshes; the newest two at first.
    if !finished.iter().any(|r| r.run_id == left.get_untracked()) {
        left.set(finished[1].run_id.clone());
    }
    if !finished.iter().any(|r| r.run_id == right.get_untracked()) {
        right.set(finished[0].run_id.clone());
    }
    let runs = StoredValue::new(finished.clone());
    let label = |r: &RunView| {
        format!(
            "{} on {} ({})",
            r.method.to_uppercase(),
            r.corpus_name,
            r.created_at.chars().take(19).collect::<String>()
        )
    };
    let options = move || {
        runs.with_value(|rs| {
            rs.iter()
                .map(|r| view! { <option value=r.run_id.clone()>{label(r)}</option> })
                .collect_view()
        })
    };
    let pick = move |id: String| runs.with_value(|rs| rs.iter().find(|r| r.run_id == id).cloned());
    let row = move |name: &'static str, f: fn(&RunView) -> String| {
        view! { <tr><th scope="row">{name}</th>
        <td>{move || pick(left.get()).map(|r| f(&r))}</td>
        <td>{move || pick(right.get()).map(|r| f(&r))}</td></tr> }
    };
    view! {
        <h3>"Compare two runs"</h3>
        <div class="fields">
            <select aria-label="First run" prop:value=move || left.get() on:change=move |ev| left.set(event_target_value(&ev))>{options()}</select>
            <select aria-label="Second run" prop:value=move || right.get() on:change=move |ev| right.set(event_target_value(&ev))>{options()}</select>
        </div>
        <table class="table2" aria-label="Comparison">
            <tbody>
                {row("Parameters", |r| r.params.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", "))}
                {row("Candidates", |r| r.candidates.to_string())}
                {row("Pairs examined", |r| r.done.to_string())}
                {row("Mining time", |r| r.mining_seconds.map_or("–".into(), |s| format!("{s:.2} s")))}
                {row("Pairs examined per second", |r| num(r.rate, 0))}
                {row("Mean edit distance", |r| num(r.stats.as_ref().and_then(|s| s.mean_edit_distance), 2))}
                {row("Mean length (words)", |r| num(r.stats.as_ref().and_then(|s| s.mean_words), 1))}
                {row("Mean length (characters)", |r| num(r.stats.as_ref().and_then(|s| s.mean_chars), 1))}
                {row("Self-BLEU", |r| num(r.stats.as_ref().and_then(|s| s.self_bleu), 1))}
            </tbody>
        </table>
    }
    .into_any()
}

/// A finished run's candidates: a sample to read, and deploying a selection to a campaign.
#[component]
fn RunDetail(run_id: String, campaigns: Vec<(String, String)>) -> impl IntoView {
    let run_id = StoredValue::new(run_id);
    let run = Resource::new(move || run_id.get_value(), mining_run);
    let sample = Resource::new(
        move || run_id.get_value(),
        |id| mining_candidates(id, None, None, Some(20), true, None, None),
    );
    let deploy = ServerAction::<DeployCandidates>::new();
    let how = RwSignal::new(String::from("all"));
    view! {
        <section class="card wide">
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    run.await.ok().map(|run| {
                        let group = run.method == "group";
                        let follow_ups = run.follow_ups.clone();
                        view! {
                            <h2>{format!("{} on {}: {} candidates", run.method.to_uppercase(), run.corpus_name, run.candidates)}</h2>
                            {group.then(|| view! {
                                <p class="muted small">"Listed and deployed here: each group's first batch. Follow-ups are added to a campaign by themselves when a group's first batch there is fully judged."</p>
                                <FollowUpTable list=follow_ups />
                            })}
                        }
                    })
                })}
            </Transition>
            <h3>"A sample"</h3>
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match sample.await {
                        Ok(list) if list.is_empty() => view! { <p class="empty">"This run found no candidates."</p> }.into_any(),
                        Ok(list) => view! { <CandidateTable list /> }.into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
            <h3>"Deploy to a judging campaign"</h3>
            {if campaigns.is_empty() {
                view! { <p class="empty">"Create a judging campaign first (Manage campaigns)."</p> }.into_any()
            } else {
                view! {
                    <ActionForm action=deploy attr:class="upload">
                        <input type="hidden" name="run_id" value=run_id.get_value() />
                        <div class="fields">
                            <label>"Campaign"
                                <select name="campaign_id">
                                    {campaigns.iter().map(|(id, title)| view! { <option value=id.clone()>{title.clone()}</option> }).collect_view()}
                                </select>
                            </label>
                            <label>"Which"
                                <select prop:value=move || how.get() on:change=move |ev| how.set(event_target_value(&ev))>
                                    <option value="all">"All (in the range below)"</option>
                                    <option value="sample">"A random sample"</option>
                                    <option value="first">"The first, in corpus order"</option>
                                </select>
                            </label>
                            <Show when=move || how.get() != "all">
                                <label>"How many" <input name="limit" type="number" min="1" value="100" required /></label>
                            </Show>
                            <label>"Edit distance from" <input name="min_edit_distance" type="number" min="0" value="0" /></label>
                            <label>"to" <input name="max_edit_distance" type="number" min="0" placeholder="any" /></label>
                            <label>"Score from" <input name="min_score" type="number" step="any" placeholder="any" /></label>
                            <label>"to" <input name="max_score" type="number" step="any" placeholder="any" /></label>
                        </div>
                        <Show when=move || how.get() == "sample"><input type="hidden" name="sample" value="true" /></Show>
                        <button type="submit" disabled=move || deploy.pending().get()>"Deploy"</button>
                    </ActionForm>
                }.into_any()
            }}
            {move || deploy.value().get().map(|r| match r {
                Ok(s) => view! {
                    <p class="notice ok" role="status" data-testid="deploy-result">
                        {format!("Added {} pairs to the campaign; {} were already in it.", s.added, s.already_in_campaign)}
                    </p>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error /> }.into_any(),
            })}
        </section>
    }
}

#[component]
fn FollowUpTable(list: Vec<crate::api::mining::FollowUpView>) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"No group's first batch has been fully judged yet."</p> }
            .into_any();
    }
    view! {
        <table aria-label="Follow-ups">
            <thead><tr><th>"Group"</th><th>"Paraphrases in the first batch"</th><th>"Follow-up pairs"</th><th>"Added"</th></tr></thead>
            <tbody>
                {list.into_iter().map(|f| view! {
                    <tr><td>{f.group}</td><td>{f.paraphrases}</td><td>{f.pairs}</td><td>{f.deployed}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
fn CandidateTable(list: Vec<CandidateView>) -> impl IntoView {
    view! {
        <table aria-label="Candidates">
            <thead><tr><th>"Sentence 1"</th><th>"Sentence 2"</th><th>"Cluster"</th><th>"Edit distance"</th><th>"Shared long words"</th><th>"Length ratio"</th><th>"Score"</th></tr></thead>
            <tbody>
                {list.into_iter().map(|c| view! {
                    <tr><td>{c.sentence1}</td><td>{c.sentence2}</td><td>{c.cluster}</td>
                    <td>{c.edit_distance}</td><td>{c.shared_long_words}</td><td>{format!("{:.2}", c.length_ratio)}</td>
                    <td title="Cosine similarity (embeddings); the seed's rank (groups)">{format!("{:.3}", c.score)}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
