//! The payments page's Prolific section: each Prolific link connected to its study, a test of
//! the connection, the reconciliation table and the approval of the completed submissions, and
//! the calls made to Prolific with their outcomes.
use leptos::prelude::*;

use crate::api::prolific::{
    load_prolific, ApproveProlific, BonusBatchView, BonusState, CallView, ConnectProlific,
    PayProlificBonus, ProlificLinkView, ProlificView, ReconcileProlific, ReconcileView,
    RejectProlific, ResolveProlificBonus, SetUpProlificBonus, TestProlific,
};
use crate::components::time_text::utc_minute;
use crate::domain::money::usd as money;
use crate::domain::study::reconcile::Standing;
use crate::domain::study::reconcile::{MIN_REJECTION_MESSAGE, REJECTION_CATEGORIES};
use crate::domain::{CampaignId, PlatformCallId, StudyLinkId};
use crate::error::ErrorMessage;

/// The section, for the campaign `campaign_id`. `bonus` is shared with the page (a bonus paid
/// here marks its batch paid there); `batches_changed` moves when the page makes, marks or
/// discards a batch.
#[component]
pub fn ProlificSection(
    campaign_id: CampaignId,
    bonus: BonusActions,
    #[prop(into)] batches_changed: Signal<usize>,
) -> impl IntoView {
    let connect = ServerAction::<ConnectProlific>::new();
    let approve = ServerAction::<ApproveProlific>::new();
    let reject = ServerAction::<RejectProlific>::new();
    // The table is the section's, not its link panel's: it stays on screen when the section
    // reloads after an approval or a rejection, and is read again then.
    let reconcile = ServerAction::<ReconcileProlific>::new();
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
                reconcile.dispatch(ReconcileProlific {
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
                bonus.set_up.version().get(),
                bonus.pay.version().get(),
                bonus.resolve.version().get(),
                batches_changed.get(),
            )
        },
        move |_| load_prolific(campaign_id),
    );
    view! {
        <section class="platform" aria-labelledby="prolific-heading" data-testid="prolific">
            <h2 id="prolific-heading">"Prolific"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match data.await {
                        Ok(v) => view! { <Prolific v campaign_id connect approve reject reconcile last bonus /> }.into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
            // Outside the section's data: its reload after a connection or an approval keeps
            // what happened on screen.
            {move || connect.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            {move || approve.value().get().map(|r| match r {
                Ok(o) => view! { <p class="notice ok" role="status" data-testid="prolific-approved">{o.message}</p> }.into_any(),
                Err(error) => view! { <ErrorMessage error /> }.into_any(),
            })}
            {move || reject.value().get().map(|r| match r {
                Ok(text) => view! { <p class="notice ok" role="status" data-testid="prolific-rejected">{text}</p> }.into_any(),
                Err(error) => view! { <ErrorMessage error /> }.into_any(),
            })}
            {move || bonus.pay.value().get().map(|r| match r {
                Ok(text) => view! { <p class="notice ok" role="status" data-testid="prolific-bonus-paid">{text}</p> }.into_any(),
                Err(error) => view! { <ErrorMessage error /> }.into_any(),
            })}
            {move || bonus.set_up.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            {move || bonus.resolve.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
        </section>
    }
}

/// The bonus batches' three actions.
#[derive(Clone, Copy)]
pub struct BonusActions {
    pub set_up: ServerAction<SetUpProlificBonus>,
    pub pay: ServerAction<PayProlificBonus>,
    pub resolve: ServerAction<ResolveProlificBonus>,
}

impl Default for BonusActions {
    fn default() -> Self {
        Self::new()
    }
}

impl BonusActions {
    /// New actions, owned by the caller's reactive owner.
    pub fn new() -> Self {
        BonusActions {
            set_up: ServerAction::new(),
            pay: ServerAction::new(),
            resolve: ServerAction::new(),
        }
    }

    /// Moves when a bonus was paid or settled (the batch may be marked paid).
    pub fn version(&self) -> usize {
        self.pay.version().get() + self.resolve.version().get()
    }
}

#[component]
fn Prolific(
    v: ProlificView,
    campaign_id: CampaignId,
    connect: ServerAction<ConnectProlific>,
    approve: ServerAction<ApproveProlific>,
    reject: ServerAction<RejectProlific>,
    reconcile: ServerAction<ReconcileProlific>,
    last: RwSignal<Option<StudyLinkId>>,
    bonus: BonusActions,
) -> impl IntoView {
    let token = if v.token_configured {
        view! {
            <p class="muted" data-testid="prolific-token">
                "This server has a Prolific API token. Connect each Prolific link to its study, test the connection, then reconcile and approve from here."
            </p>
        }
        .into_any()
    } else {
        view! {
            <p class="notice" data-testid="prolific-token">
                "This server has no Prolific API token, so it cannot read or approve submissions. Set PARACROWD_PROLIFIC_TOKEN (or PARACROWD_PROLIFIC_TOKEN_FILE) where the server runs and restart it; until then, use the files of the batches above."
            </p>
        }
        .into_any()
    };
    let links = if v.links.is_empty() {
        view! { <p class="empty">"This campaign has no Prolific study link."</p> }.into_any()
    } else {
        v.links
            .iter()
            .cloned()
            .map(|l| {
                view! {
                    <LinkPanel l campaign_id connect approve reject reconcile last />
                }
            })
            .collect_view()
            .into_any()
    };
    let calls = (!v.calls.is_empty()).then(|| {
        let rows = v
            .calls
            .iter()
            .cloned()
            .map(|c| view! { <CallRow c testid="prolific-call" /> })
            .collect_view();
        view! {
            <h3>"Calls made to Prolific"</h3>
            <div class="scroll-x" role="region" aria-label="Calls made to Prolific" tabindex="0">
                <table aria-label="Calls made to Prolific" data-testid="prolific-calls">
                    <thead><tr>
                        <th scope="col">"Made"</th><th scope="col">"What"</th><th scope="col">"Outcome"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    });
    let connected: Vec<(String, String)> = v
        .links
        .iter()
        .filter(|l| l.study_id.is_some())
        .map(|l| (l.study_link_id.to_string(), l.label.clone()))
        .collect();
    let bonuses = (v.token_configured && !connected.is_empty() && !v.batches.is_empty()).then(|| {
        let rows = v
            .batches
            .iter()
            .cloned()
            .map(|b| view! { <BonusRow b campaign_id bonus links=connected.clone() /> })
            .collect_view();
        view! {
            <h3>"Bonuses through Prolific"</h3>
            <p class="muted small">
                "Set a batch up on Prolific to see what Prolific will take (bonuses and fees), then pay it from here. A payment is sent at most once: if Prolific does not answer, it is not sent again until you say what Prolific shows."
            </p>
            <div class="scroll-x" role="region" aria-label="Bonuses through Prolific" tabindex="0">
                <table aria-label="Bonuses through Prolific" data-testid="prolific-bonuses">
                    <thead><tr>
                        <th scope="col">"Batch made"</th><th scope="col">"Workers"</th>
                        <th scope="col">"Owed"</th><th scope="col">"On Prolific"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    });
    view! {
        {token}
        {links}
        {bonuses}
        {calls}
    }
}

#[component]
fn BonusRow(
    b: BonusBatchView,
    campaign_id: CampaignId,
    bonus: BonusActions,
    links: Vec<(String, String)>,
) -> impl IntoView {
    let cid = campaign_id.to_string();
    let bid = b.batch_id.to_string();
    let hidden = move || {
        view! {
            <input type="hidden" name="campaign_id" value=cid.clone() />
            <input type="hidden" name="batch_id" value=bid.clone() />
        }
    };
    let state = match (b.bonus.clone(), b.paid) {
        (Some(p), _) if p.state == BonusState::Paid => view! {
            <span data-testid="prolific-bonus-state">{format!("Paid on Prolific: {} ({} bonuses, {} fees and VAT)", money(i64::from(p.total_cents)), money(i64::from(p.amount_cents)), money(i64::from(p.total_cents - p.amount_cents)))}</span>
        }.into_any(),
        (_, true) => view! { <span data-testid="prolific-bonus-state">"Marked paid"</span> }.into_any(),
        (None, false) => {
            let pick = if links.len() == 1 {
                view! { <input type="hidden" name="study_link_id" value=links[0].0.clone() /> }.into_any()
            } else {
                let options = links
                    .iter()
                    .map(|(id, label)| view! { <option value=id.clone()>{label.clone()}</option> })
                    .collect_view();
                view! {
                    <label>"Link " <select name="study_link_id">{options}</select></label> " "
                }
                .into_any()
            };
            view! {
                <ActionForm action=bonus.set_up attr:class="inline">
                    {hidden()}
                    {pick}
                    <button type="submit" class="small" disabled=move || bonus.set_up.pending().get()
                        data-testid="prolific-bonus-set-up">"Set up on Prolific"</button>
                </ActionForm>
            }
            .into_any()
        }
        (Some(p), false) => match p.state {
            BonusState::Created => {
                let total = money(i64::from(p.total_cents));
                let question = format!(
                    "Pay {total} from the Prolific balance ({} in bonuses, {} in fees and VAT)? Prolific pays each participant their bonus; this cannot be undone.",
                    money(i64::from(p.amount_cents)),
                    money(i64::from(p.total_cents - p.amount_cents))
                );
                let refused = (!p.detail.is_empty()).then(|| view! {
                    <p class="small warn">{format!("The last attempt was refused, nothing was paid: {}", p.detail)}</p>
                });
                view! {
                    {refused}
                    <details class="inline confirm">
                        <summary class="small" data-testid="prolific-bonus-pay">{format!("Pay {total} on Prolific…")}</summary>
                        <p class="small" data-testid="prolific-bonus-question">{question}</p>
                        <ActionForm action=bonus.pay attr:class="inline">
                            {hidden()}
                            <button type="submit" class="small" disabled=move || bonus.pay.pending().get()
                                data-testid="prolific-bonus-pay-confirm">"Pay it"</button>
                        </ActionForm>
                    </details>
                }
                .into_any()
            }
            BonusState::Paying if !p.settle_by_hand => view! {
                <p class="small" data-testid="prolific-bonus-state">"Being paid: Prolific is being asked now. Reload in a moment."</p>
            }
            .into_any(),
            BonusState::Paying | BonusState::Unknown => {
                let why = if p.state == BonusState::Paying {
                    "Its payment started more than 15 minutes ago and never ended (the server stopped while paying): it may have paid. Check the study's bonuses on Prolific and say what you saw.".to_owned()
                } else {
                    format!("No answer from Prolific when paying ({}): it may have paid. It is not sent again until you check the study's bonuses on Prolific and say what you saw.", p.detail)
                };
                let hidden_again = hidden.clone();
                view! {
                    <p class="small warn" data-testid="prolific-bonus-state">{why}</p>
                    <ActionForm action=bonus.resolve attr:class="inline">
                        {hidden()}
                        <input type="hidden" name="paid" value="true" />
                        <button type="submit" class="small" data-testid="prolific-bonus-was-paid">"Prolific shows it paid"</button>
                    </ActionForm>
                    " "
                    <details class="inline confirm">
                        <summary class="small" data-testid="prolific-bonus-not-paid">"Prolific shows it not paid…"</summary>
                        <p class="small">"Only if Prolific's study page shows none of these bonuses paid: the bonus can then be paid again, and paying one that was paid pays it twice."</p>
                        <ActionForm action=bonus.resolve attr:class="inline">
                            {hidden_again()}
                            <button type="submit" class="small danger" data-testid="prolific-bonus-not-paid-confirm">"It was not paid: allow paying again"</button>
                        </ActionForm>
                    </details>
                }
                .into_any()
            }
            BonusState::Paid => view! { <span>"Paid on Prolific"</span> }.into_any(),
        },
    };
    view! {
        <tr data-testid="prolific-bonus-row">
            <td><time datetime=b.created_at.clone()>{utc_minute(&b.created_at)}</time></td>
            <td class="num">{b.workers}</td>
            <td class="num">{money(b.total_cents)}</td>
            <td>{state}</td>
        </tr>
    }
}

/// One recorded call (`testid` names the platform's rows for tests).
#[component]
pub(super) fn CallRow(c: CallView, testid: &'static str) -> impl IntoView {
    view! {
        <tr data-testid=testid>
            <td><time datetime=c.made_at.clone()>{utc_minute(&c.made_at)}</time></td>
            <td>{c.what}</td>
            <td class=if c.done { "" } else { "warn" }>{c.outcome}</td>
        </tr>
    }
}

#[component]
fn LinkPanel(
    l: ProlificLinkView,
    campaign_id: CampaignId,
    connect: ServerAction<ConnectProlific>,
    approve: ServerAction<ApproveProlific>,
    reject: ServerAction<RejectProlific>,
    reconcile: ServerAction<ReconcileProlific>,
    last: RwSignal<Option<StudyLinkId>>,
) -> impl IntoView {
    let call_id = l.approve_call_id;
    let test = ServerAction::<TestProlific>::new();
    let link = l.study_link_id;
    let value = l
        .study_id
        .clone()
        .or_else(|| l.seen_study_ids.first().cloned())
        .unwrap_or_default();
    let field_id = format!("prolific-study-{link}");
    let hint = match (&l.study_id, l.seen_study_ids.first()) {
        (Some(_), _) => None,
        (None, Some(seen)) => Some(format!(
            "Filled in from the STUDY_ID that workers' links carried ({seen}); check it and save."
        )),
        (None, None) => Some(
            "Paste the study's id from its page on Prolific (the address holds it).".to_owned(),
        ),
    };
    let connected = l.study_id.is_some();
    view! {
        <div class="link-panel" data-testid="prolific-link">
            <h3>{format!("Link “{}”", l.label)}</h3>
            <ActionForm action=connect attr:class="inline">
                <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
                <input type="hidden" name="study_link_id" value=link.to_string() />
                <label for=field_id.clone()>"Prolific study id"</label>
                " "
                <input id=field_id type="text" name="study_id" value=value required
                    maxlength="64" pattern="[A-Za-z0-9_\\-]{1,64}" autocomplete="off"
                    spellcheck="false" data-testid="prolific-study-id" />
                " "
                <button type="submit" class="small" data-testid="prolific-connect">
                    {if connected { "Save" } else { "Connect" }}
                </button>
            </ActionForm>
            {hint.map(|h| view! { <p class="muted small">{h}</p> })}
            {connected.then(|| view! {
                <div class="actions">
                    <ActionForm action=test attr:class="inline">
                        <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
                        <input type="hidden" name="study_link_id" value=link.to_string() />
                        <button type="submit" class="small" disabled=move || test.pending().get()
                            data-testid="prolific-test">"Test the connection"</button>
                    </ActionForm>
                    " "
                    <ActionForm action=reconcile attr:class="inline">
                        <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
                        <input type="hidden" name="study_link_id" value=link.to_string() />
                        <button type="submit" class="small" disabled=move || reconcile.pending().get()
                            data-testid="prolific-reconcile">"Reconcile with Prolific"</button>
                    </ActionForm>
                </div>
            })}
            {move || test.value().get().map(|r| match r {
                Ok(text) => view! { <p class="notice ok" role="status" data-testid="prolific-tested">{text}</p> }.into_any(),
                Err(error) => view! { <ErrorMessage error /> }.into_any(),
            })}
            {move || (reconcile.pending().get() && last.get() == Some(link)).then(|| view! {
                <p class="muted" role="status">"Reading the study's submissions from Prolific…"</p>
            })}
            {move || reconcile.value().get().and_then(|r| match r {
                Ok(t) if t.study_link_id == link => Some(view! { <Table t campaign_id approve reject call_id /> }.into_any()),
                Ok(_) => None,
                Err(error) => (last.get() == Some(link)).then(|| view! { <ErrorMessage error /> }.into_any()),
            })}
        </div>
    }
}

/// A row's tag: what needs the researcher is marked.
pub(super) fn tag(s: Standing) -> &'static str {
    match s {
        Standing::NotCompletedHere
        | Standing::UnknownHere
        | Standing::Repeated
        | Standing::OtherAssignment => "tag warn",
        Standing::Approvable => "tag ok",
        _ => "tag",
    }
}

/// A row's standing in two or three words.
pub(super) fn short(s: Standing) -> &'static str {
    match s {
        Standing::NotCompletedHere => "code without the work",
        Standing::UnknownHere => "unknown here",
        Standing::Repeated => "several submissions",
        Standing::OtherAssignment => "another assignment",
        Standing::Approvable => "approvable",
        Standing::NotSubmittedThere => "not submitted there",
        Standing::NoSubmission => "no submission",
        Standing::Working => "working",
        Standing::ReturnedOrTimedOut => "returned / timed out",
        Standing::Approved => "approved",
        Standing::Rejected => "rejected",
        Standing::Other => "other",
    }
}

#[component]
fn Table(
    t: ReconcileView,
    campaign_id: CampaignId,
    approve: ServerAction<ApproveProlific>,
    reject: ServerAction<RejectProlific>,
    call_id: PlatformCallId,
) -> impl IntoView {
    let n = t.approvable;
    let summary = format!(
        "Study {}: {} rows, {n} approvable{}.",
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
            // Rejecting is offered where nothing here says the work was done.
            let offered = r.here != "completed";
            let rejecting = r.reject_call_id.zip(r.submission_id.clone()).filter(|_| offered).map(|(call, sub)| {
                view! { <RejectForm campaign_id link submission=sub call reject /> }
            });
            view! {
                <tr data-testid="reconcile-row" data-standing=format!("{:?}", r.standing)>
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
                <summary data-testid="prolific-approve">{format!("Approve the {n} completed submission{}…", if n == 1 { "" } else { "s" })}</summary>
                <p class="small">
                    {format!("Approve the {n} submission{} awaiting review on Prolific whose workers completed here? Prolific then pays their reward; an approval cannot be undone. Nobody who did not complete here is approved.", if n == 1 { "" } else { "s" })}
                </p>
                <ActionForm action=approve attr:class="inline">
                    <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
                    <input type="hidden" name="study_link_id" value=link.to_string() />
                    <input type="hidden" name="call_id" value=call_id.to_string() />
                    <button type="submit" class="small" disabled=move || approve.pending().get()
                        data-testid="prolific-approve-confirm">"Approve them on Prolific"</button>
                </ActionForm>
            </details>
        }
    });
    view! {
        <p data-testid="reconcile-summary">{summary}</p>
        <div class="scroll-x" role="region" aria-label="Prolific submissions and completions here" tabindex="0">
            <table aria-label="Prolific submissions and completions here" data-testid="reconcile">
                <thead><tr>
                    <th scope="col">"Participant"</th><th scope="col">"On Prolific"</th>
                    <th scope="col">"Here"</th><th scope="col">"Meaning"</th>
                    <th scope="col">"Reject"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {approve_form}
    }
}

/// Rejecting one submission: asked for with Prolific's category and a message for the
/// participant, behind a second look.
#[component]
fn RejectForm(
    campaign_id: CampaignId,
    link: StudyLinkId,
    submission: String,
    call: PlatformCallId,
    reject: ServerAction<RejectProlific>,
) -> impl IntoView {
    let options = REJECTION_CATEGORIES
        .iter()
        .map(|(code, label)| view! { <option value=*code>{*label}</option> })
        .collect_view();
    let field = format!("reject-{submission}");
    view! {
        <details class="confirm" data-testid="prolific-reject">
            <summary class="small">"Reject…"</summary>
            <ActionForm action=reject>
                <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
                <input type="hidden" name="study_link_id" value=link.to_string() />
                <input type="hidden" name="submission_id" value=submission.clone() />
                <input type="hidden" name="call_id" value=call.to_string() />
                <label for=format!("{field}-category")>"Prolific's category"</label>
                <select id=format!("{field}-category") name="category" data-testid="prolific-reject-category">{options}</select>
                <label for=format!("{field}-message")>
                    {format!("Message to the participant (at least {MIN_REJECTION_MESSAGE} characters)")}
                </label>
                <textarea id=format!("{field}-message") name="message" rows="4" required
                    minlength=MIN_REJECTION_MESSAGE.to_string() maxlength="2000"
                    data-testid="prolific-reject-message"></textarea>
                <p class="small">"A rejection cannot be undone, and counts against the participant on Prolific."</p>
                <button type="submit" class="small danger" disabled=move || reject.pending().get()
                    data-testid="prolific-reject-confirm">{format!("Reject {submission}")}</button>
            </ActionForm>
        </details>
    }
}
