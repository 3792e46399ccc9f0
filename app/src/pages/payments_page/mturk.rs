//! The payments page's MTurk section: each MTurk link connected to its HITs (sandbox or
//! production), a test of the connection, the reconciliation table with approval and rejection,
//! the batches' bonuses sent through MTurk, and the calls made with their outcomes.
use leptos::prelude::*;

use super::prolific::{short, tag, CallRow};
use crate::api::mturk::{
    load_mturk, ApproveMturk, ConnectMturk, MturkBatchView, MturkLinkView, MturkView, PayMturk,
    ReconcileMturk, ReconcileView, RejectMturk, TestMturk,
};
use crate::components::time_text::utc_minute;
use crate::domain::money::usd as money;
use crate::domain::study::reconcile::{MAX_MTURK_FEEDBACK, MIN_MTURK_FEEDBACK};
use crate::domain::{CampaignId, PlatformCallId, StudyLinkId};
use crate::error::ErrorMessage;

/// The section, for the campaign `campaign_id`. `pay` is shared with the page (a batch whose
/// bonuses are all sent is marked paid there); `batches_changed` moves when the page makes,
/// marks or discards a batch.
#[component]
pub fn MturkSection(
    campaign_id: CampaignId,
    pay: ServerAction<PayMturk>,
    #[prop(into)] batches_changed: Signal<usize>,
) -> impl IntoView {
    let connect = ServerAction::<ConnectMturk>::new();
    let approve = ServerAction::<ApproveMturk>::new();
    let reject = ServerAction::<RejectMturk>::new();
    // The table is the section's, not its link panel's: it stays on screen when the section
    // reloads after an approval or a rejection, and is read again then.
    let reconcile = ServerAction::<ReconcileMturk>::new();
    let last = RwSignal::new(None::<StudyLinkId>);
    Effect::new(move |_| {
        if let Some(input) = reconcile.input().get() {
            last.set(Some(input.study_link_id));
        }
    });
    Effect::new(move |before: Option<usize>| {
        let now = approve.version().get() + reject.version().get();
        if before.is_some_and(|b| b != now) {
            if let Some(Ok(t)) = reconcile.value().get_untracked() {
                reconcile.dispatch(ReconcileMturk {
                    campaign_id,
                    study_link_id: t.study_link_id,
                });
            }
        }
        now
    });
    let data = Resource::new(
        move || {
            (
                connect.version().get(),
                approve.version().get() + reject.version().get(),
                pay.version().get(),
                batches_changed.get(),
            )
        },
        move |_| load_mturk(campaign_id),
    );
    let notice = |testid: &'static str, r: Option<Result<String, crate::error::AppError>>| {
        r.map(|r| match r {
            Ok(text) => view! { <p class="notice ok" role="status" data-testid=testid>{text}</p> }
                .into_any(),
            Err(error) => view! { <ErrorMessage error /> }.into_any(),
        })
    };
    view! {
        <section class="platform" aria-labelledby="mturk-heading" data-testid="mturk">
            <h2 id="mturk-heading">"Mechanical Turk"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(v) => view! { <Mturk v campaign_id connect approve reject reconcile last pay /> }.into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
            // Outside the section's data, so its reload keeps what happened on screen.
            {move || connect.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            {move || notice("mturk-approved", approve.value().get().map(|r| r.map(|o| o.message)))}
            {move || notice("mturk-rejected", reject.value().get())}
            {move || notice("mturk-paid", pay.value().get())}
        </section>
    }
}

#[component]
fn Mturk(
    v: MturkView,
    campaign_id: CampaignId,
    connect: ServerAction<ConnectMturk>,
    approve: ServerAction<ApproveMturk>,
    reject: ServerAction<RejectMturk>,
    reconcile: ServerAction<ReconcileMturk>,
    last: RwSignal<Option<StudyLinkId>>,
    pay: ServerAction<PayMturk>,
) -> impl IntoView {
    if v.links.is_empty() {
        return view! { <p class="empty">"This campaign has no MTurk study link."</p> }.into_any();
    }
    let links = v
        .links
        .iter()
        .cloned()
        .map(|l| view! { <LinkPanel l campaign_id connect approve reject reconcile last /> })
        .collect_view();
    // Bonuses are paid in production only: in the sandbox nothing paid is real.
    let connected: Vec<(String, String)> = v
        .links
        .iter()
        .filter(|l| !l.hit_ids.is_empty() && l.sandbox == Some(false))
        .map(|l| (l.study_link_id.to_string(), l.label.clone()))
        .collect();
    let sandbox_only = connected.is_empty() && v.links.iter().any(|l| l.sandbox == Some(true));
    let bonuses = (!connected.is_empty() && !v.batches.is_empty()).then(|| {
        let rows = v
            .batches
            .iter()
            .cloned()
            .map(|b| view! { <BonusRow b campaign_id pay links=connected.clone() /> })
            .collect_view();
        view! {
            <h3>"Bonuses through MTurk"</h3>
            <p class="muted small">
                "MTurk pays one bonus per worker, against their assignment, and adds its fee to each. Each bonus is sent at most once: before any is sent, MTurk's list of that assignment's bonuses is read, and a bonus already there (from an attempt without an answer, or from the batch's file) is not sent again; a repeated call carries the same request token, which MTurk does not pay twice within 24 hours."
            </p>
            <div class="scroll-x" role="region" aria-label="Bonuses through MTurk" tabindex="0">
                <table aria-label="Bonuses through MTurk" data-testid="mturk-bonuses">
                    <thead><tr>
                        <th scope="col">"Batch made"</th><th scope="col">"Workers"</th>
                        <th scope="col">"Owed"</th><th scope="col">"On MTurk"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    });
    let calls = (!v.calls.is_empty()).then(|| {
        let rows = v
            .calls
            .iter()
            .cloned()
            .map(|c| view! { <CallRow c testid="mturk-call" /> })
            .collect_view();
        view! {
            <h3>"Calls made to MTurk"</h3>
            <div class="scroll-x" role="region" aria-label="Calls made to MTurk" tabindex="0">
                <table aria-label="Calls made to MTurk" data-testid="mturk-calls">
                    <thead><tr>
                        <th scope="col">"Made"</th><th scope="col">"What"</th><th scope="col">"Outcome"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    });
    let sandbox_note = (sandbox_only && !v.batches.is_empty()).then(|| view! {
        <p class="muted small" data-testid="mturk-sandbox-bonuses">
            "Bonuses are sent through MTurk in production only (the sandbox pays nothing real): connect a link to production to pay a batch from here."
        </p>
    });
    view! {
        <p class="muted">
            "Paracrowd calls MTurk with the AWS credentials of the server (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the machine's role). Connect each MTurk link to its HITs, test the connection, then reconcile, approve and pay from here."
        </p>
        {links}
        {bonuses}
        {sandbox_note}
        {calls}
    }
    .into_any()
}

/// Hidden fields naming the campaign and the link.
fn link_fields(campaign_id: CampaignId, link: StudyLinkId) -> impl IntoView {
    view! {
        <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
        <input type="hidden" name="study_link_id" value=link.to_string() />
    }
}

#[component]
fn LinkPanel(
    l: MturkLinkView,
    campaign_id: CampaignId,
    connect: ServerAction<ConnectMturk>,
    approve: ServerAction<ApproveMturk>,
    reject: ServerAction<RejectMturk>,
    reconcile: ServerAction<ReconcileMturk>,
    last: RwSignal<Option<StudyLinkId>>,
) -> impl IntoView {
    let call_id = l.approve_call_id;
    let test = ServerAction::<TestMturk>::new();
    let link = l.study_link_id;
    let connected = !l.hit_ids.is_empty();
    let value = if connected {
        l.hit_ids.join(", ")
    } else {
        l.seen_hit_ids.join(", ")
    };
    let sandbox = l.sandbox.or(l.seen_sandbox).unwrap_or(false);
    let hint = match (connected, l.seen_hit_ids.is_empty()) {
        (true, _) => None,
        (false, false) => Some(
            "Filled in from the hitId and turkSubmitTo that workers' links carried; check them and save.",
        ),
        (false, true) => Some(
            "Paste the HIT id (or several, separated by commas) from the requester site: Manage → Results.",
        ),
    };
    let where_ = l.sandbox.map(|s| {
        if s {
            "Connected to MTurk's sandbox: nothing paid there is real."
        } else {
            "Connected to MTurk in production: approvals and bonuses pay real money."
        }
    });
    view! {
        <div class="link-panel" data-testid="mturk-link">
            <h3>{format!("Link “{}”", l.label)}</h3>
            <ActionForm action=connect>
                {link_fields(campaign_id, link)}
                <label>
                    "HIT ids"
                    <input type="text" name="hit_ids" value=value required
                        maxlength="6600" autocomplete="off" spellcheck="false"
                        data-testid="mturk-hit-ids" />
                </label>
                <label class="check">
                    <input type="checkbox" name="sandbox" value="true" checked=sandbox
                        data-testid="mturk-sandbox" />
                    " In MTurk's sandbox"
                </label>
                <button type="submit" class="small" data-testid="mturk-connect">
                    {if connected { "Save" } else { "Connect" }}
                </button>
            </ActionForm>
            {hint.map(|h| view! { <p class="muted small">{h}</p> })}
            {where_.map(|w| view! { <p class="small" data-testid="mturk-where">{w}</p> })}
            {connected.then(|| view! {
                <div class="actions">
                    <ActionForm action=test attr:class="inline">
                        {link_fields(campaign_id, link)}
                        <button type="submit" class="small" disabled=move || test.pending().get()
                            data-testid="mturk-test">"Test the connection"</button>
                    </ActionForm>
                    " "
                    <ActionForm action=reconcile attr:class="inline">
                        {link_fields(campaign_id, link)}
                        <button type="submit" class="small" disabled=move || reconcile.pending().get()
                            data-testid="mturk-reconcile">"Reconcile with MTurk"</button>
                    </ActionForm>
                </div>
            })}
            {move || test.value().get().map(|r| match r {
                Ok(text) => view! { <p class="notice ok" role="status" data-testid="mturk-tested">{text}</p> }.into_any(),
                Err(error) => view! { <ErrorMessage error /> }.into_any(),
            })}
            {move || (reconcile.pending().get() && last.get() == Some(link)).then(|| view! {
                <p class="muted" role="status">"Reading the HITs' assignments from MTurk…"</p>
            })}
            {move || reconcile.value().get().and_then(|r| match r {
                Ok(t) if t.study_link_id == link => Some(view! { <Table t campaign_id approve reject call_id /> }.into_any()),
                Ok(_) => None,
                Err(error) => (last.get() == Some(link)).then(|| view! { <ErrorMessage error /> }.into_any()),
            })}
        </div>
    }
}

#[component]
fn Table(
    t: ReconcileView,
    campaign_id: CampaignId,
    approve: ServerAction<ApproveMturk>,
    reject: ServerAction<RejectMturk>,
    call_id: PlatformCallId,
) -> impl IntoView {
    let n = t.approvable;
    let s = if n == 1 { "" } else { "s" };
    let summary = format!(
        "HITs {}: {} rows, {n} approvable{}.",
        t.study_id,
        t.rows.len(),
        if t.attention > 0 {
            format!(", {} to look at first", t.attention)
        } else {
            String::new()
        }
    );
    let link = t.study_link_id;
    let rows = t
        .rows
        .iter()
        .cloned()
        .map(|r| {
            let offered = r.here != "completed";
            let rejecting = r
                .reject_call_id
                .zip(r.submission_id.clone())
                .filter(|_| offered)
                .map(|(call, assignment)| {
                    view! { <RejectForm campaign_id link assignment call reject /> }
                });
            view! {
                <tr data-testid="mturk-row" data-standing=format!("{:?}", r.standing)>
                    <td><code>{r.participant}</code></td>
                    <td>{r.status}</td>
                    <td>{r.here}</td>
                    <td><span class=tag(r.standing)>{short(r.standing)}</span> " " <span class="small">{r.meaning}</span></td>
                    <td>{rejecting}</td>
                </tr>
            }
        })
        .collect_view();
    let approve_form = (n > 0).then(|| {
        view! {
            <details class="confirm">
                <summary data-testid="mturk-approve">{format!("Approve the {n} completed assignment{s}…")}</summary>
                <p class="small">
                    {format!("Approve the {n} submitted assignment{s} whose workers completed here? MTurk then pays their reward; an approval cannot be undone. Nobody who did not complete here is approved.")}
                </p>
                <ActionForm action=approve attr:class="inline">
                    {link_fields(campaign_id, link)}
                    <input type="hidden" name="call_id" value=call_id.to_string() />
                    <button type="submit" class="small" disabled=move || approve.pending().get()
                        data-testid="mturk-approve-confirm">"Approve them on MTurk"</button>
                </ActionForm>
            </details>
        }
    });
    view! {
        <p data-testid="mturk-summary">{summary}</p>
        <div class="scroll-x" role="region" aria-label="MTurk assignments and completions here" tabindex="0">
            <table aria-label="MTurk assignments and completions here" data-testid="mturk-reconcile-table">
                <thead><tr>
                    <th scope="col">"Worker"</th><th scope="col">"On MTurk"</th>
                    <th scope="col">"Here"</th><th scope="col">"Meaning"</th>
                    <th scope="col">"Reject"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {approve_form}
    }
}

/// Rejecting one assignment, with feedback for the worker, behind a second look.
#[component]
fn RejectForm(
    campaign_id: CampaignId,
    link: StudyLinkId,
    assignment: String,
    call: PlatformCallId,
    reject: ServerAction<RejectMturk>,
) -> impl IntoView {
    let field = format!("mturk-reject-{assignment}");
    view! {
        <details class="confirm" data-testid="mturk-reject">
            <summary class="small">"Reject…"</summary>
            <ActionForm action=reject>
                {link_fields(campaign_id, link)}
                <input type="hidden" name="assignment_id" value=assignment.clone() />
                <input type="hidden" name="call_id" value=call.to_string() />
                <label for=field.clone()>
                    {format!("Feedback to the worker (at least {MIN_MTURK_FEEDBACK} characters)")}
                </label>
                <textarea id=field name="message" rows="4" required
                    minlength=MIN_MTURK_FEEDBACK.to_string() maxlength=MAX_MTURK_FEEDBACK.to_string()
                    data-testid="mturk-reject-message"></textarea>
                <p class="small">"A rejection cannot be undone: the worker is not paid and their approval rate drops."</p>
                <button type="submit" class="small danger" disabled=move || reject.pending().get()
                    data-testid="mturk-reject-confirm">{format!("Reject {assignment}")}</button>
            </ActionForm>
        </details>
    }
}

#[component]
fn BonusRow(
    b: MturkBatchView,
    campaign_id: CampaignId,
    pay: ServerAction<PayMturk>,
    links: Vec<(String, String)>,
) -> impl IntoView {
    let state = if b.paid && b.sent == b.workers {
        view! {
            <span data-testid="mturk-bonus-state">{format!("Paid on MTurk: {} bonus{}, {}", b.sent, if b.sent == 1 { "" } else { "es" }, money(b.sent_cents))}</span>
        }
        .into_any()
    } else if b.paid {
        view! { <span data-testid="mturk-bonus-state">"Marked paid"</span> }.into_any()
    } else {
        let pick = if links.len() == 1 {
            view! { <input type="hidden" name="study_link_id" value=links[0].0.clone() /> }
                .into_any()
        } else {
            let options = links
                .iter()
                .map(|(id, label)| view! { <option value=id.clone()>{label.clone()}</option> })
                .collect_view();
            view! { <label>"Link " <select name="study_link_id">{options}</select></label> " " }
                .into_any()
        };
        let left = b.total_cents - b.sent_cents;
        let progress = (b.sent + b.refused + b.unsure > 0).then(|| {
            let mut parts = vec![format!(
                "{} of {} sent ({})",
                b.sent,
                b.workers,
                money(b.sent_cents)
            )];
            if b.refused > 0 {
                parts.push(format!("{} refused, nothing paid", b.refused));
            }
            if b.unsure > 0 {
                parts.push(format!(
                    "{} without an answer or being sent: looked for on MTurk before any new call",
                    b.unsure
                ));
            }
            let detail = (!b.detail.is_empty()).then(|| format!(" Last: {}", b.detail));
            let class = if b.refused + b.unsure > 0 {
                "small warn"
            } else {
                "small"
            };
            view! {
                <p class=class data-testid="mturk-bonus-state">
                    {parts.join("; ")} "." {detail}
                </p>
            }
        });
        let question = format!(
            "Send {} in bonuses to {} worker{} through MTurk ({} already sent)? MTurk takes its fee on top from the account's balance; a bonus cannot be taken back.",
            money(left),
            b.workers - b.sent,
            if b.workers - b.sent == 1 { "" } else { "s" },
            b.sent,
        );
        view! {
            {progress}
            <details class="inline confirm">
                <summary class="small" data-testid="mturk-pay">{format!("Pay {} on MTurk…", money(left))}</summary>
                <p class="small" data-testid="mturk-pay-question">{question}</p>
                <ActionForm action=pay attr:class="inline">
                    <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
                    <input type="hidden" name="batch_id" value=b.batch_id.to_string() />
                    {pick}
                    <button type="submit" class="small" disabled=move || pay.pending().get()
                        data-testid="mturk-pay-confirm">"Send the bonuses"</button>
                </ActionForm>
            </details>
        }
        .into_any()
    };
    view! {
        <tr data-testid="mturk-bonus-row">
            <td><time datetime=b.created_at.clone()>{utc_minute(&b.created_at)}</time></td>
            <td class="num">{b.workers}</td>
            <td class="num">{money(b.total_cents)}</td>
            <td>{state}</td>
        </tr>
    }
}
