use super::*;
use crate::domain::{CampaignKind, CampaignStatus};

#[component]
pub(super) fn Campaign(
    c: AdminCampaign,
    set_status: ServerAction<SetCampaignStatus>,
    imported: RwSignal<u32>,
    message: RwSignal<Option<Result<String, AppError>>>,
) -> impl IntoView {
    let is_apt = c.kind == CampaignKind::Apt;
    let id = c.campaign_id.to_string();
    let status_button = |to: &'static str, label: &'static str| {
        let id = id.clone();
        view! {
            <ActionForm action=set_status attr:class="inline">
                <input type="hidden" name="campaign_id" value=id />
                <input type="hidden" name="status" value=to />
                <button type="submit" class="small">{label}</button>
            </ActionForm>
        }
    };
    let buttons = match c.status {
        CampaignStatus::Open => view! { {status_button("closed", "Close")} }.into_any(),
        CampaignStatus::Closed => view! { {status_button("open", "Reopen")} }.into_any(),
        CampaignStatus::Draft => view! { {status_button("open", "Open to workers")} }.into_any(),
    };
    let links = if is_apt {
        view! {
            <a href=format!("/apt/{}", c.campaign_id)>"Worker's page"</a>
            " · "
            <a href=format!("/research/apt/{}", c.campaign_id)>"Researcher's report"</a>
            " · "
            <a href=format!("/research/export/{}", c.campaign_id)>"Export dataset"</a>
        }
        .into_any()
    } else {
        view! {
            <a href=format!("/judge/{}", c.campaign_id)>"Worker's page"</a>
            " · "
            <a href=format!("/research/judge/{}", c.campaign_id)>"Agreement dashboard"</a>
            " · "
            <a href=format!("/research/export/{}", c.campaign_id)>"Export dataset"</a>
        }
        .into_any()
    };
    let (items, work) = if is_apt {
        ("source sentences", "checks")
    } else {
        ("pairs", "judgments")
    };
    view! {
        <section class="card wide">
            <p class="muted"><a href="/admin/campaigns">"← Campaigns"</a></p>
            <h1>{c.title.clone()}</h1>
            // A div, not a p: the status button is a form, which a p cannot hold.
            <div class="status-line">
                <span class="tag">{if is_apt { "Writing (APT)" } else { "Judging (MultiPIT)" }}</span>
                " Status: " <strong data-testid="campaign-status">{c.status.as_str()}</strong> " " {buttons}
            </div>
            {move || set_status.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            <p>
                <strong data-testid="items">{c.items}</strong> " " {items} " · "
                <strong>{c.work}</strong> " " {work} " · " {links}
            </p>
        </section>
        <section class="card wide">
            <h2>{if is_apt { "Import source sentences" } else { "Import sentence pairs" }}</h2>
            <Upload campaign_id=c.campaign_id is_apt imported message />
        </section>
        {(!is_apt).then(|| view! { <JudgeAdmin campaign_id=c.campaign_id imported /> })}
        <StudyAdmin campaign_id=c.campaign_id />
    }
}
