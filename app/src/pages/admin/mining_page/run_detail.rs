use super::*;

/// A finished run's candidates: a sample to read, and deploying a selection to a campaign.
#[component]
pub(super) fn RunDetail(run_id: String, campaigns: Vec<(String, String)>) -> impl IntoView {
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
