use super::*;

/// "6 judgments per pair", or "3 to 6 judgments per pair, settled at 95%".
fn redundancy_text(o: &JudgeCampaignOverview) -> String {
    if o.min_judgments_per_pair == 0 || o.min_judgments_per_pair >= o.judgments_per_pair {
        format!("{} judgments per pair", o.judgments_per_pair)
    } else {
        format!(
            "{} to {} judgments per pair, settled at {}%",
            o.min_judgments_per_pair,
            o.judgments_per_pair,
            (o.settle_confidence * 1000.0).round() / 10.0
        )
    }
}

/// What settling pairs early saved against the maximum for every pair, in judgments and (when
/// the study pays per judgment) in money; `None` before any has.
fn savings_text(o: &JudgeCampaignOverview) -> Option<String> {
    (o.settled_pairs > 0).then(|| {
        let spent = o.judgments as f64;
        let fixed = spent + o.judgments_saved as f64;
        let money = if o.judgment_pay_mills > 0 {
            format!(
                ", {} of judgment pay at {} each",
                crate::domain::money::usd_mills(
                    o.judgments_saved * i64::from(o.judgment_pay_mills)
                ),
                crate::domain::money::usd_mills(i64::from(o.judgment_pay_mills))
            )
        } else {
            String::new()
        };
        format!(
            "{} settled early: {} judgments saved against {} for every pair ({:.0}%){money}",
            o.settled_pairs,
            o.judgments_saved,
            o.judgments_per_pair,
            if fixed > 0.0 {
                o.judgments_saved as f64 * 100.0 / fixed
            } else {
                0.0
            },
        )
    })
}

/// The test pairs' exposure: how many reached the cap (a warning once half have: workers then
/// get fewer check questions) and how many were promoted.
fn exposure_text(o: &JudgeCampaignOverview) -> Option<(bool, String)> {
    let cap = o.test_exposure_cap?;
    let promoted = if o.promoted_test_pairs > 0 {
        format!(
            " {} of them promoted from settled pairs.",
            o.promoted_test_pairs
        )
    } else {
        String::new()
    };
    let warn = o.test_pairs > 0 && o.tests_at_cap * 2 >= o.test_pairs;
    let advice = if warn {
        " Workers now get fewer check questions: promote settled pairs or add test pairs."
    } else {
        ""
    };
    Some((
        warn,
        format!(
            "{} of {} test pairs served {} times, their cap.{}{}",
            o.tests_at_cap, o.test_pairs, cap, promoted, advice
        ),
    ))
}

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
            {redundancy_text(&o)} " · one test pair in every " {o.test_every}
            {gate_summary(&o)}
            " · labels: ≥ " {o.paraphrase_min_votes} " paraphrase, ≤ " {o.non_paraphrase_max_votes} " not"
            " · answers within " {o.min_display_ms} " ms of a pair appearing are ignored"
        </p>
        {o.gold_warning.clone().map(|w| view! { <p class="notice warn" role="alert" data-testid="gold-warning">{w}</p> })}
        {exposure_text(&o).map(|(warn, t)| view! {
            <p class=if warn { "notice warn" } else { "muted" } data-testid="test-exposure">{t}</p>
        })}
        {o.test_pool_warning.clone().map(|w| view! { <p class="notice warn" role="alert" data-testid="test-pool-warning">{w}</p> })}
        <p>
            <strong>{o.complete_pairs}</strong> " of " <strong>{o.pairs}</strong> " pairs complete · "
            {savings_text(&o).map(|t| view! { <span data-testid="judgments-saved">{t}</span> " · " })}
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
                                <th scope="col">"Told the worker"</th>
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
        let looks: Vec<String> =
            crate::domain::judge::confidence::kappa_looks_from(o.gate_min_judgments)
                .take(3)
                .map(|n| n.to_string())
                .collect();
        format!(
            " · a worker is stopped once the evidence shows accuracy below {:.0}% at error level {} (the test tells it from {:.0}%; {after}; confidence rule), or kappa below {:.2} at judgment {}, …",
            o.min_test_accuracy * 100.0,
            o.gate_alpha,
            (o.min_test_accuracy - o.gate_worse_by).max(0.0) * 100.0,
            o.min_kappa,
            looks.join(", ")
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
