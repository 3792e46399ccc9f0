use super::*;

/// Two runs side by side: parameters and numbers.
#[component]
pub(super) fn Compare(
    runs: Vec<RunView>,
    compare: (RwSignal<String>, RwSignal<String>),
) -> impl IntoView {
    let finished: Vec<RunView> = runs
        .into_iter()
        .filter(|r| r.status == crate::domain::RunStatus::Finished)
        .collect();
    if finished.len() < 2 {
        return ().into_any();
    }
    let (left, right) = compare;
    // The choice survives the table's refreshes; the newest two at first.
    if !finished
        .iter()
        .any(|r| r.run_id.to_string() == left.get_untracked())
    {
        left.set(finished[1].run_id.to_string());
    }
    if !finished
        .iter()
        .any(|r| r.run_id.to_string() == right.get_untracked())
    {
        right.set(finished[0].run_id.to_string());
    }
    let runs = StoredValue::new(finished.clone());
    let label = |r: &RunView| {
        format!(
            "{} on {} ({})",
            r.method.as_str().to_uppercase(),
            r.corpus_name,
            r.created_at.chars().take(19).collect::<String>()
        )
    };
    let options = move || {
        runs.with_value(|rs| {
            rs.iter()
                .map(|r| view! { <option value=r.run_id.to_string()>{label(r)}</option> })
                .collect_view()
        })
    };
    let pick = move |id: String| {
        runs.with_value(|rs| rs.iter().find(|r| r.run_id.to_string() == id).cloned())
    };
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
        <div class="scroll-x" role="region" aria-label="Comparison" tabindex="0">
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
        </div>
    }
    .into_any()
}
