use super::*;

#[component]
pub(super) fn FollowUpTable(list: Vec<crate::api::mining::FollowUpView>) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"No group's first batch has been fully judged yet."</p> }
            .into_any();
    }
    view! {
        <div class="scroll-x" role="region" aria-label="Follow-ups" tabindex="0">
            <table aria-label="Follow-ups">
                <thead><tr><th>"Group"</th><th>"Paraphrases in the first batch"</th><th>"Follow-up pairs"</th><th>"Added"</th></tr></thead>
                <tbody>
                    {list.into_iter().map(|f| view! {
                        <tr><td>{f.group}</td><td>{f.paraphrases}</td><td>{f.pairs}</td><td>{f.deployed}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
    .into_any()
}
