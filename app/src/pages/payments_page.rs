//! `/research/payments/:id` (researchers and admins): each study worker with their
//! platform id, items, time worked, base pay, bonus, the hourly rate against the study's minimum
//! and what is batched and paid; making a bonus batch of what is owed, its files for Prolific,
//! MTurk's SendBonus or anything else, and marking it paid.
use crate::domain::CampaignId;
use crate::pages::{route_id, with_route_id};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::studies::{
    load_payments, BatchView, DiscardPaymentBatch, MakePaymentBatch, MarkBatchPaid, PaymentsView,
    WorkerPayView,
};
use crate::error::{ErrorMessage, PageError};

use crate::components::time_text::utc_minute;

mod mturk;
mod prolific;
use crate::domain::money::usd as money;

fn hourly(c: Option<f64>) -> String {
    c.map_or_else(|| "—".to_owned(), crate::domain::money::usd_per_hour)
}

/// A worker's hourly rate, or why there is none: under a minute worked says too little.
fn hourly_cell(w: &WorkerPayView) -> String {
    match w.hourly_cents {
        Some(c) => crate::domain::money::usd_per_hour(c),
        None if w.minutes_worked < 1.0 => "— (under a minute)".to_owned(),
        None => "—".to_owned(),
    }
}

/// The completed workers' medians, saying how many workers the rate is over (a rate needs a
/// minute of work).
fn medians_text(workers: &[WorkerPayView], minutes: Option<f64>, rate: Option<f64>) -> String {
    let completed = workers.iter().filter(|w| w.completed).count();
    let rated = workers
        .iter()
        .filter(|w| w.completed && w.hourly_cents.is_some())
        .count();
    match minutes {
        None => "Nobody has completed yet.".to_owned(),
        Some(m) if rated == 0 => format!(
            "Completed workers' median time {m:.1} minutes; no median rate yet: no completed worker has worked a minute."
        ),
        Some(m) if rated < completed => format!(
            "Completed workers' median time {m:.1} minutes, median rate {} over the {rated} of {completed} who worked a minute or more (a rate over less says little).",
            hourly(rate)
        ),
        Some(m) => format!(
            "Completed workers' median time {m:.1} minutes, median rate {}.",
            hourly(rate)
        ),
    }
}

#[component]
pub fn PaymentsPage() -> impl IntoView {
    let params = use_params_map();
    let make = ServerAction::<MakePaymentBatch>::new();
    let paid = ServerAction::<MarkBatchPaid>::new();
    let discard = ServerAction::<DiscardPaymentBatch>::new();
    let bonus = prolific::BonusActions::new();
    let mturk_pay = ServerAction::<crate::api::mturk::PayMturk>::new();
    let data = Resource::new(
        move || {
            (
                route_id::<CampaignId>(params),
                make.version().get(),
                paid.version().get(),
                discard.version().get(),
                bonus.version(),
                mturk_pay.version().get(),
            )
        },
        |(id, ..)| with_route_id(id, load_payments),
    );
    view! {
        <section class="card wide report payments">
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(v) => view! { <Payments v make paid discard /> }.into_any(),
                        Err(error) => view! { <PageError error heading="Payments" /> }.into_any(),
                    }
                })}
            </Transition>
            {move || route_id::<CampaignId>(params).map(|campaign_id| view! {
                <prolific::ProlificSection
                    campaign_id
                    bonus
                    batches_changed=Signal::derive(move || {
                        make.version().get() + paid.version().get() + discard.version().get()
                    })
                />
                <mturk::MturkSection
                    campaign_id
                    pay=mturk_pay
                    batches_changed=Signal::derive(move || {
                        make.version().get() + paid.version().get() + discard.version().get()
                            + bonus.version()
                    })
                />
            })}
        </section>
    }
}

#[component]
fn Payments(
    v: PaymentsView,
    make: ServerAction<MakePaymentBatch>,
    paid: ServerAction<MarkBatchPaid>,
    discard: ServerAction<DiscardPaymentBatch>,
) -> impl IntoView {
    let terms = {
        let mut t = vec![format!("Base pay {}", money(i64::from(v.base_pay_cents)))];
        if v.judgment_pay_mills > 0 {
            t.push(format!(
                "${}.{:03} a judgment",
                v.judgment_pay_mills / 1000,
                v.judgment_pay_mills % 1000
            ));
        }
        t.push(match v.min_hourly_cents {
            Some(m) => format!("minimum {} an hour", money(i64::from(m))),
            None => "no minimum hourly rate set".to_owned(),
        });
        t.join(" · ")
    };
    let completed = v.workers.iter().filter(|w| w.completed).count();
    let medians = medians_text(&v.workers, v.median_minutes, v.median_hourly_cents);
    let cid = v.campaign_id.clone();
    let rows: Vec<_> = v
        .workers
        .iter()
        .cloned()
        .map(|w| view! { <WorkerRow w /> })
        .collect();
    let batches: Vec<_> = v
        .batches
        .iter()
        .cloned()
        .map(|b| view! { <BatchRow b campaign_id=cid.clone() paid discard /> })
        .collect();
    let owed = v.outstanding_cents;
    let owed_top = v.outstanding_with_top_up_cents;
    view! {
        <h1>"Payments — " {v.title.clone()}</h1>
        <p class="muted" data-testid="pay-terms">{terms}</p>
        <p>
            {format!("{} workers, {completed} completed. ", v.workers.len())} {medians}
        </p>
        {if v.workers.is_empty() {
            view! { <p class="empty">"No worker has come through a study link yet."</p> }.into_any()
        } else {
            view! {
                <div class="scroll-x" role="region" aria-label="Workers' pay" tabindex="0">
                    <table aria-label="Workers' pay" data-testid="pay-table">
                        <thead><tr>
                            <th scope="col">"Platform"</th><th scope="col">"Participant"</th>
                            <th scope="col">"Items"</th><th scope="col">"Minutes"</th>
                            <th scope="col">"Completed"</th><th scope="col">"Base"</th>
                            <th scope="col">"Bonus"</th><th scope="col">"Top-up"</th>
                            <th scope="col">"Hourly"</th><th scope="col">"In batches"</th>
                            <th scope="col">"Paid"</th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
                .into_any()
        }}
        <h2>"Make a bonus batch"</h2>
        <p data-testid="outstanding">
            {format!("Owed and in no batch yet: {} in bonuses, {} with top-ups to the minimum rate.", money(owed), money(owed_top))}
        </p>
        <ActionForm action=make>
            <input type="hidden" name="campaign_id" value=v.campaign_id.clone() />
            <input type="hidden" name="batch_id" value=v.next_batch_id.to_string() />
            <label class="check">
                <input type="checkbox" name="top_up" value="true" checked=v.min_hourly_cents.is_some() />
                " Top completed workers up to the minimum hourly rate"
            </label>
            <button type="submit" disabled=move || make.pending().get() data-testid="make-batch">"Make the batch"</button>
        </ActionForm>
        {move || make.value().get().map(|r| match r {
            Ok(b) => view! {
                <p class="notice ok" role="status" data-testid="batch-made">
                    {format!("Batch of {} for {} workers made: download its file below, pay it on the platform, then mark it paid.", money(b.total_cents), b.workers)}
                </p>
            }.into_any(),
            Err(error) => view! { <ErrorMessage error /> }.into_any(),
        })}
        <h2>"Batches"</h2>
        {if batches.is_empty() {
            view! { <p class="empty">"No batches yet."</p> }.into_any()
        } else {
            view! {
                <div class="scroll-x" role="region" aria-label="Bonus batches" tabindex="0">
                    <table aria-label="Bonus batches" data-testid="batches">
                        <thead><tr>
                            <th scope="col">"Made"</th><th scope="col">"Workers"</th><th scope="col">"Total"</th>
                            <th scope="col">"Files"</th><th scope="col">"State"</th>
                        </tr></thead>
                        <tbody>{batches}</tbody>
                    </table>
                </div>
            }
                .into_any()
        }}
        {move || paid.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
        {move || discard.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
    }
}

#[component]
fn WorkerRow(w: WorkerPayView) -> impl IntoView {
    let flag = w.under_minimum.then(|| {
        view! { " " <span class="tag warn" title="Under the study's minimum hourly rate">"under minimum"</span> }
    });
    view! {
        <tr data-testid="pay-row">
            <td>{w.platform.display_name()}</td>
            <td><code>{w.external_id.clone()}</code></td>
            <td class="num">{w.items}</td>
            <td class="num">{format!("{:.1}", w.minutes_worked)}</td>
            <td data-testid="completion">
                {match w.completion {
                    Some(reason) => reason.for_researchers(),
                    None if w.completed => "yes",
                    None => "not yet",
                }}
            </td>
            <td class="num">{money(w.base_cents)}</td>
            <td class="num" data-testid="bonus">{money(w.bonus_cents)}</td>
            <td class="num">{money(w.top_up_cents)}</td>
            <td class="num" data-testid="hourly">{hourly_cell(&w)}{flag}</td>
            <td class="num">{money(w.batched_cents)}</td>
            <td class="num" data-testid="paid">{money(w.paid_cents)}</td>
        </tr>
    }
}

#[component]
fn BatchRow(
    b: BatchView,
    campaign_id: String,
    paid: ServerAction<MarkBatchPaid>,
    discard: ServerAction<DiscardPaymentBatch>,
) -> impl IntoView {
    let file = |name: &str, label: &'static str| {
        view! { <a href=format!("/payments/{}/{name}", b.batch_id) rel="external" download="">{label}</a> }
    };
    let state = match b.paid_at.clone() {
        Some(at) => {
            view! { <span data-testid="batch-paid">{format!("Paid {}", utc_minute(&at))}</span> }
                .into_any()
        }
        None => {
            let (cid, bid) = (campaign_id.clone(), b.batch_id.to_string());
            let (cid2, bid2) = (campaign_id.clone(), b.batch_id.to_string());
            view! {
                <ActionForm action=paid attr:class="inline">
                    <input type="hidden" name="campaign_id" value=cid2 />
                    <input type="hidden" name="batch_id" value=bid2 />
                    <button type="submit" class="small" data-testid="mark-paid">"Mark paid"</button>
                </ActionForm>
                " "
                // Discarding asks first: the batch's amounts become owed again.
                <details class="inline confirm">
                    <summary class="small" data-testid="discard">"Discard…"</summary>
                    <p class="small">
                        {format!("Discard this batch of {}? Its amounts become owed again and go into the next batch. Only do this if you have not paid it on the platform.", money(b.total_cents))}
                    </p>
                    <ActionForm action=discard attr:class="inline">
                        <input type="hidden" name="campaign_id" value=cid />
                        <input type="hidden" name="batch_id" value=bid />
                        <button type="submit" class="small danger" data-testid="discard-confirm">
                            "Discard this batch"
                        </button>
                    </ActionForm>
                </details>
            }
                .into_any()
        }
    };
    view! {
        <tr data-testid="batch-row">
            <td><time datetime=b.created_at.clone()>{utc_minute(&b.created_at)}</time></td>
            <td class="num">{b.workers}</td>
            <td class="num">{money(b.total_cents)}{b.top_up.then_some(" (with top-ups)")}</td>
            <td>
                {file("prolific.txt", "Prolific")} " · " {file("mturk.csv", "MTurk SendBonus")} " · "
                {file("generic.csv", "CSV")}
            </td>
            <td>{state}</td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::study::platform::Platform;

    fn worker(completed: bool, minutes: f64, hourly: Option<f64>) -> WorkerPayView {
        WorkerPayView {
            platform: Platform::Prolific,
            external_id: "w".into(),
            items: 10,
            minutes_worked: minutes,
            completed,
            completion: None,
            base_cents: 0,
            bonus_cents: 0,
            top_up_cents: 0,
            hourly_cents: hourly,
            under_minimum: false,
            batched_cents: 0,
            paid_cents: 0,
        }
    }

    #[test]
    fn the_median_rate_says_how_many_workers_it_is_over() {
        let quick = worker(true, 0.5, None);
        let slow = worker(true, 12.0, Some(900.0));
        assert_eq!(hourly_cell(&quick), "— (under a minute)");
        assert_eq!(hourly_cell(&worker(false, 3.0, None)), "—");
        let five = [
            quick.clone(),
            quick.clone(),
            quick.clone(),
            quick.clone(),
            slow.clone(),
        ];
        let t = medians_text(&five, Some(0.5), Some(900.0));
        assert!(
            t.contains("over the 1 of 5 who worked a minute or more"),
            "{t}"
        );
        let t = medians_text(std::slice::from_ref(&quick), Some(0.5), None);
        assert!(t.contains("no completed worker has worked a minute"), "{t}");
        let t = medians_text(
            &[slow.clone(), worker(false, 0.2, None)],
            Some(12.0),
            Some(900.0),
        );
        assert!(!t.contains(" of "), "{t}");
        assert_eq!(medians_text(&[], None, None), "Nobody has completed yet.");
    }
}
