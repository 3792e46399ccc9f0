//! The campaign's study on crowd platforms: the information and consent text workers
//! read first (each save a new version), and the recruitment links to paste into Prolific,
//! Mechanical Turk or anywhere else, each with its limit, deadline and a pause switch.
use super::*;
use crate::api::studies::{
    load_study_setup, CreateStudyLink, SaveStudyInfo, SetStudyLinkPaused, StudyLinkView, StudySetup,
};
use crate::domain::study::platform::Platform;

#[component]
pub(super) fn StudyAdmin(campaign_id: CampaignId) -> impl IntoView {
    let save = ServerAction::<SaveStudyInfo>::new();
    let create = ServerAction::<CreateStudyLink>::new();
    let pause = ServerAction::<SetStudyLinkPaused>::new();
    let cid = StoredValue::new(campaign_id);
    let setup = Resource::new(
        move || {
            (
                save.version().get(),
                create.version().get(),
                pause.version().get(),
            )
        },
        move |_| load_study_setup(cid.get_value()),
    );
    // Links are shown absolute once the page knows its own address (after hydration).
    let origin = RwSignal::new(String::new());
    #[cfg(feature = "hydrate")]
    {
        Effect::new(move || {
            if let Ok(o) = window().location().origin() {
                origin.set(o);
            }
        });
    }
    view! {
        <section class="card wide" id="study">
            <h2>"Study on a crowd platform"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match setup.await {
                        Ok(s) => view! { <Setup s campaign_id=cid.get_value().to_string() save create pause origin /> }.into_any(),
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn Setup(
    s: StudySetup,
    campaign_id: String,
    save: ServerAction<SaveStudyInfo>,
    create: ServerAction<CreateStudyLink>,
    pause: ServerAction<SetStudyLinkPaused>,
    origin: RwSignal<String>,
) -> impl IntoView {
    let saved = move || {
        save.value().get().map(|r| match r {
            Ok(v) => view! { <p class="notice ok" role="status" data-testid="study-info-saved">{format!("Saved as version {v}.")}</p> }.into_any(),
            Err(error) => view! { <ErrorMessage error /> }.into_any(),
        })
    };
    let version = if s.version == 0 {
        "Not written yet: workers see the task's own description.".to_owned()
    } else {
        format!("Version {} is what workers see.", s.version)
    };
    let links = s.links.clone();
    let no_code =
        s.completion_code.is_empty() && s.links.iter().any(|l| l.platform == Platform::Prolific);
    let cid = campaign_id.clone();
    let info_cid = campaign_id.clone();
    // A created link empties the form, so a second press does not make the same link again.
    #[cfg(feature = "hydrate")]
    Effect::watch(
        move || create.version().get(),
        move |_, _, _| {
            if matches!(create.value().get_untracked(), Some(Ok(_))) {
                crate::components::browser::reset_form("form.new-link");
            }
        },
        false,
    );
    view! {
        <h3>"Study information"</h3>
        <p class="muted small">{version} " A new version asks every worker for consent again."</p>
        <ActionForm action=save>
            <input type="hidden" name="campaign_id" value=info_cid />
            <label>"What the task is" <textarea name="summary" rows="3">{s.summary.clone()}</textarea></label>
            <label>"Estimated minutes" <input type="number" name="minutes" min="1" max="1440" value=s.minutes.map(|m| m.to_string()).unwrap_or_default() /></label>
            <label>"Pay (per item, bonus rules)" <input type="text" name="pay" value=s.pay.clone() /></label>
            <label>"Consent text (empty: no consent step)" <textarea name="consent_text" rows="5">{s.consent_text.clone()}</textarea></label>
            <label>"Completion code (Prolific's, or one to show)" <input type="text" name="completion_code" value=s.completion_code.clone() /></label>
            <fieldset>
                <legend>"Completion and pay"</legend>
                <label>"Complete after this many items (empty: at the cap, when stopped, or when none are left)"
                    <input type="number" name="complete_after" min="1" max="100000" value=s.complete_after.map(|n| n.to_string()).unwrap_or_default() />
                </label>
                <label>"Base pay, $ (the fixed reward, paid on approval; counted in the hourly rate)"
                    <input type="text" inputmode="decimal" name="base_pay" placeholder="2.00" value=s.base_pay.clone() />
                </label>
                <label>"Bonus per judgment, $ (judging; writing pays its rewards)"
                    <input type="text" inputmode="decimal" name="judgment_pay" placeholder="0.015" value=s.judgment_pay.clone() />
                </label>
                <label>"Minimum hourly rate, $ (empty: none)"
                    <input type="text" inputmode="decimal" name="min_hourly" placeholder="9.00" value=s.min_hourly.clone() />
                </label>
            </fieldset>
            <button type="submit">"Save study information"</button>
        </ActionForm>
        {saved}
        {no_code.then(|| view! {
            <p class="notice warn" role="note" data-testid="no-prolific-code">
                "A Prolific link needs the study's completion code: without it, finished workers get a code of their own that Prolific will not recognise."
            </p>
        })}
        <p><a href=format!("/research/payments/{campaign_id}") data-testid="payments-link">"Payments: what each worker earned, bonus files"</a></p>
        <h3>"Recruitment links"</h3>
        {if links.is_empty() {
            view! { <p class="empty">"No links yet."</p> }.into_any()
        } else {
            view! {
                <div class="scroll-x" role="region" aria-label="Recruitment links" tabindex="0">
                    <table aria-label="Recruitment links" data-testid="study-links">
                        <thead><tr>
                            <th scope="col">"Platform"</th><th scope="col">"Label"</th><th scope="col">"Link"</th>
                            <th scope="col">"Workers"</th><th scope="col">"Expires"</th><th scope="col">"State"</th>
                            <th scope="col"><span class="sr-only">"Actions"</span></th>
                        </tr></thead>
                        <tbody>
                            {links.into_iter().map(|l| view! { <LinkRow l campaign_id=cid.clone() pause origin /> }).collect_view()}
                        </tbody>
                    </table>
                </div>
            }
                .into_any()
        }}
        {move || pause.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
        <h4>"New link"</h4>
        <ActionForm action=create attr:class="inline-form new-link">
            <input type="hidden" name="campaign_id" value=campaign_id />
            <label>"Platform"
                <select name="platform">
                    {Platform::ALL.into_iter().map(|p| view! { <option value=p.as_str()>{p.display_name()}</option> }).collect_view()}
                </select>
            </label>
            <label>"Label" <input type="text" name="label" maxlength="200" /></label>
            <label>"At most this many workers" <input type="number" name="max_workers" min="1" /></label>
            <label>"Expires after days" <input type="number" name="expires_in_days" min="1" max="3650" /></label>
            <button type="submit" disabled=move || create.pending().get()>"Create link"</button>
        </ActionForm>
        {move || create.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
    }
}

#[component]
fn LinkRow(
    l: StudyLinkView,
    campaign_id: String,
    pause: ServerAction<SetStudyLinkPaused>,
    origin: RwSignal<String>,
) -> impl IntoView {
    let state = if l.paused {
        "paused"
    } else if l.expired {
        "expired"
    } else if l.max_workers.is_some_and(|m| l.workers >= m) {
        "full"
    } else {
        "open"
    };
    let url = l.url.clone();
    let copy_url = l.url.clone();
    let copied: RwSignal<Option<bool>> = RwSignal::new(None);
    let code_id = format!("link-{}", l.study_link_id);
    let fallback_id = code_id.clone();
    let copy = move |_| {
        let full = format!("{}{copy_url}", origin.get_untracked());
        crate::components::browser::copy_text(full, copied, fallback_id.clone());
    };
    let workers = match l.max_workers {
        Some(m) => format!("{} of {m}", l.workers),
        None => l.workers.to_string(),
    };
    view! {
        <tr data-platform=l.platform.as_str()>
            <td>{l.platform.display_name()}</td>
            <td>{l.label.clone()}</td>
            <td class="link-cell">
                <code class="link" id=code_id data-testid="study-link-url">{move || format!("{}{url}", origin.get())}</code>
                " "
                <button type="button" class="small secondary needs-js" on:click=copy>
                    {move || match copied.get() {
                        Some(true) => "Copied",
                        Some(false) => "Selected: copy it",
                        None => "Copy",
                    }}
                </button>
            </td>
            <td data-testid="study-link-workers">{workers}</td>
            <td>{l.expires_at.clone().map(|t| t.chars().take(10).collect::<String>()).unwrap_or_else(|| "never".into())}</td>
            <td data-testid="study-link-state">{state}</td>
            <td>
                <ActionForm action=pause attr:class="inline">
                    <input type="hidden" name="campaign_id" value=campaign_id />
                    <input type="hidden" name="study_link_id" value=l.study_link_id.to_string() />
                    <input type="hidden" name="paused" value=(!l.paused).to_string() />
                    <button type="submit" class="small">{if l.paused { "Resume" } else { "Pause" }}</button>
                </ActionForm>
            </td>
        </tr>
    }
}
