use super::*;

#[component]
pub(super) fn Overview(
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
            {gate_summary(&o)}
            " · labels: ≥ " {o.paraphrase_min_votes} " paraphrase, ≤ " {o.non_paraphrase_max_votes} " not"
            " · answers within " {o.min_display_ms} " ms of a pair appearing are ignored"
        </p>
        {o.gold_warning.clone().map(|w| view! { <p class="notice warn" role="alert" data-testid="gold-warning">{w}</p> })}
        {o.test_pool_warning.clone().map(|w| view! { <p class="notice warn" role="alert" data-testid="test-pool-warning">{w}</p> })}
        <p>
            <strong>{o.complete_pairs}</strong> " of " <strong>{o.pairs}</strong> " pairs complete · "
            {o.judgments} " trusted judgments · " {o.test_pairs} " test pairs ("
            <span data-testid="gold-revealed">{o.gold_revealed}</span> " with the answer shown after a miss) · "
            <span data-testid="pending">{o.pending_republished}</span> " republished pairs pending"
        </p>
        <div class="progressbar" role="progressbar" aria-label="Pairs complete" aria-valuemin="0" aria-valuemax="100" aria-valuenow=format!("{percent:.0}")>
            <div style=format!("width: {percent:.1}%")></div>
        </div>
        {if o.workers.is_empty() {
            view! { <p class="empty">"No worker has started yet."</p> }.into_any()
        } else {
            view! {
                <div class="scroll-x" role="region" aria-label="Workers" tabindex="0">
                    <table class="users" aria-label="Workers">
                        <thead>
                            <tr>
                                <th scope="col">"Worker"</th>
                                <th scope="col">"Judgments"</th>
                                <th scope="col">"Test accuracy"</th>
                                <th scope="col">"Test pairs seen / missed"</th>
                                <th scope="col">"Status"</th>
                                <th scope="col"><abbr title=crate::components::gate_standing::GATE_TITLE>"Gate"</abbr></th>
                                <th scope="col">"Why"</th>
                                <th scope="col"><span class="sr-only">"Actions"</span></th>
                            </tr>
                        </thead>
                        <tbody>
                            {o.workers.into_iter().map(|w| view! { <WorkerRow w campaign_id=campaign_id.clone() set_worker /> }).collect_view()}
                        </tbody>
                    </table>
                </div>
            }
                .into_any()
        }}
    }
}

/// The gate's rule in one phrase, as the overview states it.
fn gate_summary(o: &JudgeCampaignOverview) -> String {
    let after = format!("from judgment {}", o.gate_min_judgments);
    if o.gate_rule == "confidence" {
        format!(
            " · a worker is stopped once the evidence shows accuracy below {:.0}% at error level {} ({after}; confidence rule)",
            o.min_test_accuracy * 100.0,
            o.gate_alpha
        )
    } else {
        format!(
            " · kept while test accuracy > {:.0}% and kappa > {:.2} ({after}, {} rule)",
            o.min_test_accuracy * 100.0,
            o.min_kappa,
            o.gate_rule
        )
    }
}
