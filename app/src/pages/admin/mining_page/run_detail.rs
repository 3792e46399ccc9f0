use super::*;
use crate::domain::mining::deploy_guard;

/// A finished run's candidates: a sample to read, and deploying a selection to a campaign.
#[component]
pub(super) fn RunDetail(run_id: RunId, campaigns: Vec<(String, String)>) -> impl IntoView {
    let run_id = StoredValue::new(run_id);
    let run = Resource::new(move || run_id.get_value(), mining_run);
    let sample = Resource::new(
        move || run_id.get_value(),
        |id| mining_candidates(id, None, None, Some(20), true, None, None),
    );
    let deploy = ServerAction::<DeployCandidates>::new();
    // A sample by default: "all" of a large run is asked for, and confirmed.
    let how = RwSignal::new(String::from("sample"));
    // The count a large deploy asked to confirm, sent back with the next Deploy.
    let confirm: RwSignal<Option<u64>> = RwSignal::new(None);
    Effect::new(move || {
        if let Some(Ok(s)) = deploy.value().get() {
            confirm.set(s.needs_confirmation);
        }
    });
    view! {
        <section class="card wide">
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    run.await.ok().map(|run| {
                        let group = run.method == crate::domain::MethodKind::Group;
                        let follow_ups = run.follow_ups.clone();
                        view! {
                            <h2>{format!("{} on {}: {} candidates", run.method.as_str().to_uppercase(), run.corpus_name, run.candidates)}</h2>
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
                    let method = run.await.ok().map(|r| r.method);
                    match sample.await {
                        Ok(list) if list.is_empty() => view! { <p class="empty">"This run found no candidates."</p> }.into_any(),
                        Ok(list) => view! { <CandidateTable list method /> }.into_any(),
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
                        <input type="hidden" name="run_id" value=run_id.get_value().to_string() />
                        <div class="fields">
                            <label>"Campaign"
                                <select name="campaign_id">
                                    {campaigns.iter().map(|(id, title)| view! { <option value=id.clone()>{title.clone()}</option> }).collect_view()}
                                </select>
                            </label>
                            <label>"Which"
                                <select prop:value=move || how.get() on:change=move |ev| { how.set(event_target_value(&ev)); confirm.set(None); }>
                                    <option value="sample">"A random sample"</option>
                                    <option value="first">"The first, in corpus order"</option>
                                    <option value="all">"All (in the range below)"</option>
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
                        {move || confirm.get().map(|n| view! { <input type="hidden" name="confirm_count" value=n.to_string() /> })}
                        {move || match confirm.get() {
                            Some(n) => view! {
                                <div class="notice warn" role="alertdialog" aria-label="Confirm the deploy">
                                    <p>{format!("This adds {n} candidates to the campaign (more than {} at once are confirmed first).", deploy_guard::CONFIRM_ABOVE)}</p>
                                    <button type="submit" disabled=move || deploy.pending().get()>{format!("Add all {n}")}</button>
                                </div>
                            }.into_any(),
                            None => view! { <button type="submit" disabled=move || deploy.pending().get()>"Deploy"</button> }.into_any(),
                        }}
                    </ActionForm>
                }.into_any()
            }}
            {move || deploy.value().get().map(|r| match r {
                Ok(s) if s.needs_confirmation.is_some() => ().into_any(),
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
