//! Researchers and admins: download a campaign's dataset (every option of the export, as a
//! plain GET form, so it works without JavaScript and the URL can be shared or scripted) and
//! see its statistics per split before downloading.
use crate::domain::CampaignId;
use crate::pages::{route_id, with_route_id};
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::export::{export_view, ExportPageData};
use crate::components::browser::DownloadProgress;
use crate::domain::export::spec::ExportQuery;
use crate::domain::export::stats::DatasetStats;
use crate::error::PageError;

fn query_from(map: &leptos_router::params::ParamsMap) -> ExportQuery {
    let get = |k: &str| map.get(k).filter(|v| !v.trim().is_empty());
    ExportQuery {
        rows: get("rows"),
        format: get("format"),
        labels: get("labels"),
        unresolved: get("unresolved"),
        untrusted: get("untrusted"),
        split: get("split"),
        split_by: get("split_by"),
        seed: get("seed"),
        train: get("train"),
        dev: get("dev"),
        test: get("test"),
        spreadsheet_safe: get("spreadsheet_safe"),
    }
}

#[component]
pub fn ExportPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let view_data = Resource::new(
        move || (route_id::<CampaignId>(params), query_from(&query.read())),
        |(id, q)| with_route_id(id, |id| export_view(id, q)),
    );
    view! {
        <section class="card wide report">
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let q = query_from(&query.read_untracked());
                    match view_data.await {
                        Ok(v) => view! { <Export v q /> }.into_any(),
                        Err(error) => view! { <PageError error heading="Export" /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// A `<select>` whose current value comes from the query.
fn select(
    name: &'static str,
    label: &'static str,
    current: Option<String>,
    options: &[(&'static str, &'static str)],
) -> impl IntoView {
    let current = current.unwrap_or_else(|| options[0].0.to_owned());
    let options: Vec<_> = options
        .iter()
        .map(|(value, text)| {
            let selected = *value == current;
            view! { <option value=*value selected=selected>{*text}</option> }
        })
        .collect();
    view! {
        <label>{label} <select name=name>{options}</select></label>
    }
}

fn number(
    name: &'static str,
    label: &'static str,
    current: Option<String>,
    placeholder: &'static str,
) -> impl IntoView {
    view! {
        <label>{label}
            <input type="text" inputmode="decimal" size="5" name=name
                value=current.unwrap_or_default() placeholder=placeholder />
        </label>
    }
}

#[component]
fn Export(v: ExportPageData, q: ExportQuery) -> impl IntoView {
    let is_apt = v.kind == crate::domain::CampaignKind::Apt;
    let download = format!("/export/{}/{}", v.kind, v.campaign_id);
    let counts = if is_apt {
        format!(
            "{} attempts (every Check), {} submissions",
            v.attempts, v.submissions
        )
    } else {
        format!(
            "{} pairs, {} judgments ({} trusted)",
            v.pairs, v.judgments, v.trusted_judgments
        )
    };
    // Pairs without a label (a judging campaign's rows of pairs): say how many and why, since by
    // default their rows are left out.
    // (The options as the export reads them: trimmed, as `ExportSpec::parse` does.)
    let by_pairs = q
        .rows
        .as_deref()
        .map(str::trim)
        .is_none_or(|r| r == "pairs");
    // By a model of the workers (Dawid-Skene, GLAD, MACE), not a vote count: its name.
    let by_model = match q.labels.as_deref().map(str::trim) {
        Some("dawid_skene") => Some("Dawid-Skene"),
        Some("glad") => Some("GLAD"),
        Some("mace") => Some("MACE"),
        _ => None,
    };
    let kept = q.unresolved.as_deref().map(str::trim) == Some("keep");
    let unlabelled = v.unlabelled.filter(|u| by_pairs && u.total() > 0).map(|u| {
        let labelled = (v.pairs.max(0) as u64).saturating_sub(u.total());
        let short = if by_model.is_some() {
            "have no trusted judgment"
        } else {
            "have fewer trusted judgments than each pair needs"
        };
        let what = if kept {
            "Their rows are kept with an empty label."
        } else {
            "Their rows are left out; choose \"Unresolved pairs: kept, empty label\" to include them."
        };
        let unresolved = if by_model.is_some() {
            "are unresolved (both labels equally likely)"
        } else {
            "are unresolved (votes between the thresholds, or a posterior short of the campaign's target)"
        };
        format!(
            "{labelled} of {} pairs have a label {}: {} {short} and {} {unresolved}. {what}",
            v.pairs,
            by_model.map_or_else(|| "by vote".to_owned(), |m| format!("by {m}")),
            u.short_of_judgments,
            u.unresolved,
        )
    });
    let rows_choice = if is_apt {
        select(
            "rows",
            "Rows",
            q.rows.clone(),
            &[
                ("attempts", "one per attempt (AP_H)"),
                ("submissions", "submissions only"),
            ],
        )
        .into_any()
    } else {
        select(
            "rows",
            "Rows",
            q.rows.clone(),
            &[
                ("pairs", "one per pair, labelled"),
                ("judgments", "one per judgment (worker pseudonyms)"),
            ],
        )
        .into_any()
    };
    let format_choice = if is_apt {
        select(
            "format",
            "Format",
            q.format.clone(),
            &[("aph", "AP_H TSV"), ("csv", "CSV"), ("jsonl", "JSON lines")],
        )
        .into_any()
    } else {
        select(
            "format",
            "Format",
            q.format.clone(),
            &[
                ("csv", "CSV"),
                ("jsonl", "JSON lines"),
                ("msrp", "MSRP TSV (pairs)"),
            ],
        )
        .into_any()
    };
    let judge_options = (!is_apt).then(|| {
        view! {
            {select("labels", "Labels", q.labels.clone(), &[("vote", "by vote (> 3 of 6 yes, < 3 no)"), ("dawid_skene", "by Dawid-Skene"), ("glad", "by GLAD"), ("mace", "by MACE")])}
            {select("unresolved", "Unresolved pairs", q.unresolved.clone(), &[("drop", "left out"), ("keep", "kept, empty label")])}
            {select("untrusted", "Untrusted judgments", q.untrusted.clone(), &[("drop", "left out"), ("keep", "kept, flagged")])}
        }
    });
    let (train_default, test_default) = if is_apt {
        ("0.75", "0.25")
    } else {
        ("0.8", "0.1")
    };
    let dev_default = if is_apt { "0" } else { "0.1" };
    let progress = RwSignal::new(None::<DownloadProgress>);
    let busy =
        Signal::derive(move || progress.with(|p| p.as_ref().is_some_and(|p| p.finished.is_none())));
    let action = download.clone();
    view! {
        <h1>"Export: " {v.title.clone()}</h1>
        <p class="muted" data-testid="export-counts">{counts}</p>
        {unlabelled.map(|m| view! { <p class="notice" role="note" data-testid="export-unlabelled">{m}</p> })}
        <form method="get" class="export-form" id="export-form" aria-label="Export options">
            <fieldset>
                <legend>"Rows and format"</legend>
                {rows_choice}
                {format_choice}
                {select("spreadsheet_safe", "Cells starting with = + - @", q.spreadsheet_safe.clone(), &[("true", "made safe for spreadsheets (a leading ')"), ("false", "exact text")])}
                {judge_options}
            </fieldset>
            <fieldset>
                <legend>"Split (no group or source sentence in two parts)"</legend>
                {select("split", "Part", q.split.clone(), &[("all", "all parts (a split column)"), ("train", "train"), ("dev", "dev"), ("test", "test")])}
                {select("split_by", "Split by", q.split_by.clone(), &[("group", "group, shuffled by seed"), ("time", "time, oldest to train")])}
                {number("seed", "Seed", q.seed.clone(), "0")}
                {number("train", "Train", q.train.clone(), train_default)}
                {number("dev", "Dev", q.dev.clone(), dev_default)}
                {number("test", "Test", q.test.clone(), test_default)}
            </fieldset>
            <button type="submit" formaction=download.clone() data-testid="download"
                disabled=move || busy.get()
                on:click=move |ev| start_download(ev, action.clone(), progress)>"Download"</button>
            " " <button type="submit" class="secondary" data-testid="show-stats">"Show statistics for these options"</button>
        </form>
        <DownloadStatus progress />
        <p class="muted">
            "Large exports stream as they are read (a million rows take seconds, not minutes); the same file from the command line: "
            <code>{format!("paracrowd export {} OUTPUT rows=… format=…", v.campaign_id)}</code>
            " (shows progress)."
        </p>
        {is_apt.then(|| view! {
            <p class="muted">"APT rows count as pairs of source sentence and candidate; paraphrase = the MI judge found mutual implication; groups are source sentences."</p>
        })}
        <StatsTable parts=v.parts.clone() />
    }
}

fn n(v: u64) -> String {
    v.to_string()
}

fn f(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.digits$}"))
}

#[component]
fn StatsTable(parts: Vec<(String, DatasetStats)>) -> impl IntoView {
    type Cell = fn(&DatasetStats) -> String;
    let rows: [(&str, Cell); 11] = [
        ("Pairs", |s| n(s.pairs)),
        ("Gold (test) pairs", |s| n(s.gold_pairs)),
        ("Labelled pairs", |s| n(s.labelled_pairs)),
        ("Paraphrase pairs (ParaSCI's gold size)", |s| {
            n(s.paraphrase_pairs)
        }),
        ("% paraphrase", |s| f(s.paraphrase_percent, 2)),
        ("Groups (trends / URLs)", |s| n(s.groups)),
        ("Unique sentences", |s| n(s.unique_sentences)),
        ("Mean length, words (per unique sentence)", |s| {
            f(s.mean_words, 2)
        }),
        ("Mean length, characters", |s| f(s.mean_chars, 2)),
        ("Self-BLEU (paraphrase pairs)", |s| f(s.self_bleu, 2)),
        ("% multi-reference", |s| f(s.multi_reference_percent, 2)),
    ];
    let head: Vec<_> = parts
        .iter()
        .map(|(p, _)| view! { <th scope="col">{p.clone()}</th> })
        .collect();
    let body: Vec<_> = rows
        .iter()
        .map(|(name, cell)| {
            let cells: Vec<_> = parts
                .iter()
                .map(|(p, s)| view! { <td data-part=p.clone()>{cell(s)}</td> })
                .collect();
            view! { <tr><th scope="row">{*name}</th>{cells}</tr> }
        })
        .collect();
    view! {
        <h2>"Statistics (ParaSCI Table 2, MultiPIT Table 1)"</h2>
        <div class="scroll-x" role="region" aria-label="Dataset statistics" tabindex="0">
            <table class="table2" aria-label="Dataset statistics" data-testid="export-stats">
                <thead><tr><th><span class="sr-only">"Statistic"</span></th>{head}</tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// With JavaScript, the download runs in the page so it can show progress; without, the form
/// submits to the download URL and the browser saves the file.
fn start_download(
    ev: leptos::ev::MouseEvent,
    action: String,
    progress: RwSignal<Option<DownloadProgress>>,
) {
    #[cfg(feature = "hydrate")]
    {
        ev.prevent_default();
        progress.set(Some(DownloadProgress::default()));
        leptos::task::spawn_local(async move {
            crate::components::browser::download_with_progress("export-form", &action, |p| {
                progress.set(Some(p))
            })
            .await;
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (ev, action, progress);
}

#[component]
fn DownloadStatus(progress: RwSignal<Option<DownloadProgress>>) -> impl IntoView {
    move || {
        progress.get().map(|p| {
            let total = p.total_rows.unwrap_or(0).max(1);
            let (value, text) = match &p.finished {
                None => (
                    p.lines.min(total),
                    format!("Downloading: {} lines received of up to {} rows…", p.lines, p.total_rows.unwrap_or(0)),
                ),
                Some(Ok(name)) => (total, format!("Done: {name} saved ({} lines).", p.lines)),
                Some(Err(message)) => (p.lines.min(total), message.clone()),
            };
            let failed = matches!(p.finished, Some(Err(_)));
            view! {
                <div class="download-status" data-testid="download-status">
                    <progress max=total.to_string() value=value.to_string() aria-label="Download progress"></progress>
                    <p role=if failed { "alert" } else { "status" } class=if failed { "error" } else { "" }>{text}</p>
                </div>
            }
        })
    }
}
