use super::*;

#[component]
pub(super) fn RunTable(
    runs: Vec<RunView>,
    cancel: ServerAction<CancelMining>,
    restart: ServerAction<RestartMining>,
    selected: RwSignal<Option<RunId>>,
) -> impl IntoView {
    view! {
        <div class="scroll-x" role="region" aria-label="Runs" tabindex="0">
            <table aria-label="Runs" class="runs">
                <thead><tr>
                    <th>"Started"</th><th>"Corpus"</th><th>"Method"</th><th>"Status"</th><th>"Progress"</th>
                    <th>"Candidates"</th><th>"Mean edit distance"</th><th>"Mean words"</th><th>"Mean chars"</th><th>"Self-BLEU"</th><th><span class="sr-only">"Actions"</span></th>
                </tr></thead>
                <tbody>
                    {runs.into_iter().map(|r| {
                        let pct = if r.total > 0 { 100.0 * r.done as f64 / r.total as f64 } else if r.status == crate::domain::RunStatus::Finished { 100.0 } else { 0.0 };
                        let detail = match (r.rate, r.seconds_left) {
                            _ if r.measuring => format!("{} / {} pairs · measuring the candidates (lengths, Self-BLEU)", r.done, r.total),
                            (Some(rate), Some(left)) => format!("{} / {} pairs · {:.0}/s · {} left", r.done, r.total, rate, duration(left)),
                            (Some(rate), None) => format!("{} / {} pairs · {:.0}/s", r.done, r.total, rate),
                            _ => format!("{} / {} pairs", r.done, r.total),
                        };
                        let stats = r.stats.clone().unwrap_or_default();
                        let id = r.run_id.to_string();
                        let action = if r.is_active() {
                            let id = id.clone();
                            view! { <ActionForm action=cancel attr:class="inline"><input type="hidden" name="run_id" value=id /><button type="submit" class="small">"Cancel"</button></ActionForm> }.into_any()
                        } else if r.status.can_restart() {
                            let id = id.clone();
                            view! { <ActionForm action=restart attr:class="inline"><input type="hidden" name="run_id" value=id /><button type="submit" class="small">"Restart"</button></ActionForm> }.into_any()
                        } else {
                            let id = r.run_id;
                            view! { <button type="button" class="small" on:click=move |_| selected.set(Some(id))>"Candidates"</button> }.into_any()
                        };
                        view! {
                            <tr data-status=r.status.as_str()>
                                <td>{r.created_at.replace('T', " ").chars().take(19).collect::<String>()}</td>
                                <td>{r.corpus_name.clone()}</td>
                                <td title={r.params.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join("\n")}>{r.method.as_str().to_uppercase()}</td>
                                <td data-testid="run-status">{if r.saving.is_some() { "saving candidates" } else if r.measuring { "measuring candidates" } else { r.status.as_str() }}{r.error.clone().map(|e| view! { <br /><span class="muted small">{e}</span> })}</td>
                                <td>
                                    <progress max="100" value=format!("{pct:.1}") aria-label="Run progress">{format!("{pct:.0}%")}</progress>
                                    <span class="small" data-testid="run-progress">{format!(" {pct:.0}%")}</span>
                                    <br /><span class="muted small">{detail}</span>
                                    {r.saving.map(|(saved, total)| {
                                        let pct = if total > 0 { 100.0 * saved as f64 / total as f64 } else { 100.0 };
                                        view! {
                                            <br />
                                            <progress max="100" value=format!("{pct:.1}") aria-label="Saving candidates">{format!("{pct:.0}%")}</progress>
                                            <span class="small" data-testid="run-saving">{format!(" saving candidates: {saved} of {total}")}</span>
                                        }
                                    })}
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
        </div>
    }
}
