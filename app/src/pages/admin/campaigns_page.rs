//! Admins: every campaign with its counts, and forms to create a writing (APT) or a judging
//! (MultiPIT) campaign. A created campaign opens on its own page for importing.
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::api::campaigns::{list_campaigns, AdminCampaign, CreateCampaign};
use crate::api::judge_admin::CreateJudgeCampaign;
use crate::domain::judge::confidence::DEFAULT_WORSE_BY;
use crate::domain::judge::settings::DEFAULT_GATE_ALPHA;
use crate::error::{ErrorMessage, PageError};

#[component]
pub fn AdminCampaignsPage() -> impl IntoView {
    let create_apt = ServerAction::<CreateCampaign>::new();
    let create_judge = ServerAction::<CreateJudgeCampaign>::new();
    let campaigns = Resource::new(|| (), |_| list_campaigns());
    let navigate = use_navigate();
    Effect::new(move || {
        let created = create_apt
            .value()
            .get()
            .and_then(Result::ok)
            .or_else(|| create_judge.value().get().and_then(Result::ok));
        if let Some(id) = created {
            navigate(&format!("/admin/campaigns/{id}"), Default::default());
        }
    });
    view! {
        <section class="card wide">
            <h1>"Campaigns"</h1>
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match campaigns.await {
                        Ok(list) if list.is_empty() => {
                            view! { <p class="empty">"No campaigns yet. Create one below."</p> }.into_any()
                        }
                        Ok(list) => view! { <CampaignTable list /> }.into_any(),
                        Err(error) => view! { <PageError error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
        // The creation forms only for those the list was shown to (admins): anyone else sees
        // the refusal above and nothing to fill in.
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                campaigns
                    .await
                    .is_ok()
                    .then(|| {
                        view! {
                <div class="two-columns">
                    <section class="card">
                        <h2>"New writing campaign (APT)"</h2>
                        <ActionForm action=create_apt>
                            <input type="hidden" name="kind" value="apt" />
                            <label>"Title" <input name="title" required maxlength="200" /></label>
                            <label>
                                "Extra instructions (optional)"
                                <textarea name="instructions" rows="3" maxlength="20000"></textarea>
                            </label>
                            <label>
                                "Pay cap per worker, in cents"
                                <input name="budget_cap_cents" type="number" min="1" max="1000000" value="2000" required />
                            </label>
                            <label>
                                "BLEURT threshold (no reward above it)"
                                <input name="bleurt_threshold" type="number" step="0.01" min="-10" max="10" value="0.5" required />
                            </label>
                            <button type="submit">"Create writing campaign"</button>
                        </ActionForm>
                        {move || create_apt.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
                    </section>
                    <section class="card">
                        <h2>"New judging campaign (MultiPIT)"</h2>
                        <ActionForm action=create_judge>
                            <label>"Title" <input name="title" required maxlength="200" /></label>
                            <label>
                                "Paraphrase definition"
                                <select name="definition">
                                    <option value="loose" selected>"Loose (crowd): relevant extra information allowed"</option>
                                    <option value="strict">"Strict (expert): no information that needs fact-checking"</option>
                                </select>
                            </label>
                            <label>
                                "Extra instructions (optional)"
                                <textarea name="instructions" rows="3" maxlength="20000"></textarea>
                            </label>
                            <div class="fields">
                                <label>"Judgments per pair, at most" <input name="judgments_per_pair" type="number" min="1" max="50" value="6" required /></label>
                                <label>"Judgments per pair, at least" <input name="min_judgments_per_pair" type="number" min="1" max="50" value="3" required /></label>
                                <label>"Settle a pair at confidence" <input name="settle_confidence" type="number" step="0.001" min="0.501" max="0.999" value="0.95" required /></label>
                                <label>"Serve each test pair at most (empty: no cap)" <input name="test_exposure_cap" type="number" min="1" max="1000000" /></label>
                                <label>"One test pair in every" <input name="test_every" type="number" min="0" max="100" value="5" required /></label>
                                <label>"Minimum test accuracy" <input name="min_test_accuracy" type="number" step="0.01" min="0" max="1" value="0.85" required /></label>
                                <label>"Minimum kappa" <input name="min_kappa" type="number" step="0.01" min="-1" max="1" value="0.2" required /></label>
                                <label>"Gate applies after (judgments)" <input name="gate_min_judgments" type="number" min="1" value="20" required /></label>
                                <label>"Ignore answers faster than (ms)" <input name="min_display_ms" type="number" min="0" max="5000" value="300" required /></label>
                            </div>
                            <label>
                                "Quality gate"
                                <select name="gate_rule">
                                    <option value="confidence" selected>"MultiPIT's minimum, with confidence (recommended)"</option>
                                    <option value="evidence">"Pooled evidence"</option>
                                    <option value="paper">"MultiPIT's rule as written"</option>
                                </select>
                            </label>
                            <div class="fields">
                                <label>"Error level of the gate" <input name="gate_alpha" type="number" step="0.001" min="0.001" max="0.5" value=DEFAULT_GATE_ALPHA.to_string() required /></label>
                                <label>"Tested against the minimum minus" <input name="gate_worse_by" type="number" step="0.01" min="0.01" max="0.5" value=DEFAULT_WORSE_BY.to_string() required /></label>
                            </div>
                            <p class="muted small">
                                "With confidence: a worker is stopped only once check answers and agreement with the others' majority show, at the error level, that their accuracy is below the minimum; a worker right exactly as often as the minimum is stopped at most that often, however long they work, and one well above it almost never. A majority of the others counts for more the further it leads. The second number tunes the test: it tells the minimum from the minimum minus it (0.1: 85% from 75%, which finds most workers near 75% within 100 judgments and workers at chance within 30); 0.2 is tuned to workers at chance and lets more workers near 75% through. The minimum kappa is tested too, at judgment 50 and every doubling once the gate applies (100, 200, …), with a tenth of the error level: a slow check that stops a worker once their kappa against the others' majority is clearly below it. A lower error level stops fewer workers at the minimum and finds workers below it later. Pooled evidence stops at 66% agreement over 10 answers (made for a gate from judgment 30). MultiPIT's rule as written needs test accuracy and kappa above the minimums, and stops about half of honest workers who are right 80-95% of the time."
                            </p>
                            <p class="muted small">
                                "Judgments are spent where votes split: a pair stops being served once the posterior of its leading label, each vote weighted by its worker's estimated accuracy, reaches the confidence (or no judgment still allowed could change it); never before the least number of judgments. Set both numbers equal for a fixed number per pair, as in MultiPIT."
                            </p>
                            <p class="muted small">
                                "Labels: a settled pair takes its leading label; a pair at its most judgments takes a strict majority either way, a tie unresolved (6 judgments: ≥ 4 paraphrase, ≤ 2 not, 3 unresolved)."
                            </p>
                            <button type="submit">"Create judging campaign"</button>
                        </ActionForm>
                        {move || create_judge.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
                    </section>
                </div>
                        }
                    })
            })}
        </Transition>
    }
}

#[component]
fn CampaignTable(list: Vec<AdminCampaign>) -> impl IntoView {
    view! {
        <div class="scroll-x" role="region" aria-label="Campaigns" tabindex="0">
            <table aria-label="Campaigns" class="users campaigns-table">
                <thead>
                    <tr>
                        <th scope="col">"Title"</th>
                        <th scope="col">"Kind"</th>
                        <th scope="col">"Status"</th>
                        <th scope="col">"Items"</th>
                        <th scope="col">"Work done"</th>
                        <th scope="col">"Created"</th>
                    </tr>
                </thead>
                <tbody>
                    {list
                        .into_iter()
                        .map(|c| {
                            let href = format!("/admin/campaigns/{}", c.campaign_id);
                            let (kind, items, work) = if c.kind == crate::domain::CampaignKind::Apt {
                                ("Writing", "sentences", "checks")
                            } else {
                                ("Judging", "pairs", "judgments")
                            };
                            view! {
                                <tr>
                                    <td><a href=href>{c.title}</a></td>
                                    <td>{kind}</td>
                                    <td class=format!("status {}", c.status)>{c.status.as_str()}</td>
                                    <td>{format!("{} {items}", c.items)}</td>
                                    <td>{format!("{} {work}", c.work)}</td>
                                    <td>{c.created_at.get(..10).unwrap_or_default().to_owned()}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}
