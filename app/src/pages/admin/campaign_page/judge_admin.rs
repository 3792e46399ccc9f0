use super::*;

#[component]
pub(super) fn JudgeAdmin(campaign_id: CampaignId, imported: RwSignal<u32>) -> impl IntoView {
    let set_worker = ServerAction::<SetJudgeWorkerStatus>::new();
    let set_test = ServerAction::<SetTestPair>::new();
    let republish = ServerAction::<Republish>::new();
    let promote = ServerAction::<PromoteSettledPairs>::new();
    let cid = StoredValue::new(campaign_id);
    let overview = Resource::new(
        move || {
            (
                imported.get(),
                set_worker.version().get(),
                set_test.version().get(),
                republish.version().get(),
                promote.version().get(),
            )
        },
        move |_| judge_overview(cid.get_value()),
    );
    let tests_only = RwSignal::new(true);
    let pairs = Resource::new(
        move || {
            (
                imported.get(),
                set_test.version().get(),
                promote.version().get(),
                tests_only.get(),
            )
        },
        move |(_, _, _, t)| list_pairs(cid.get_value(), t, 0),
    );
    view! {
        <section class="card wide">
            <h2>"Progress and workers"</h2>
            {move || set_worker.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match overview.await {
                        Ok(o) => view! { <Overview o campaign_id=cid.get_value().to_string() set_worker /> }.into_any(),
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
                <input type="hidden" name="campaign_id" value=cid.get_value().to_string() />
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
            <h2>"Grow the test pool"</h2>
            <p class="muted small">
                "A test pair seen by many workers can be shared among them. Promote ordinary pairs whose label settled at 99% or more, every vote from a worker estimated at least 90% accurate, to test pairs: their label becomes the gold one, marked as promoted until you write an explanation below."
            </p>
            <ActionForm action=promote attr:class="inline">
                <input type="hidden" name="campaign_id" value=cid.get_value().to_string() />
                <button type="submit" class="small">"Promote settled pairs"</button>
            </ActionForm>
            {move || {
                promote
                    .value()
                    .get()
                    .map(|r| match r {
                        Ok(n) => view! {
                            <p class="notice ok" role="status" data-testid="promote-result">
                                {format!("Promoted {n} settled pairs to test pairs.")}
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
                        Ok(list) if list.is_empty() && tests_only.get_untracked() => view! {
                            <p class="empty">"No test pairs yet. Untick “Only test pairs” to see every pair."</p>
                        }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="empty">"No pairs here yet."</p> }.into_any(),
                        Ok(list) => view! { <PairTable list campaign_id=cid.get_value().to_string() set_test /> }.into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}
