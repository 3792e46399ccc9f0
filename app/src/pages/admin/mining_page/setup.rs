use super::*;

#[component]
pub(super) fn Setup(
    o: MiningState,
    start: ServerAction<StartMining>,
    imported: RwSignal<u32>,
    message: RwSignal<Option<Result<String, AppError>>>,
) -> impl IntoView {
    let corpora = o.corpora.clone();
    view! {
        <section class="card wide">
            <h1>"Mining"</h1>
            <p class="muted small">
                "Candidate pairs from raw text, as MSRP mined them: L12 pairs the sentences of a cluster at a word edit distance of at most 12; F2 pairs the first two sentences of the articles of a cluster that share three long words. Deploy the candidates to a judging campaign."
            </p>
            <h2>"Corpora"</h2>
            {if o.corpora.is_empty() {
                view! { <p class="empty">"No corpus yet. Import one below."</p> }.into_any()
            } else {
                view! {
                    <div class="scroll-x" role="region" aria-label="Corpora" tabindex="0">
                        <table aria-label="Corpora">
                            <thead><tr><th>"Name"</th><th>"Shape"</th><th>"File"</th><th>"Clusters"</th><th>"Documents"</th><th>"Sentences"</th></tr></thead>
                            <tbody>
                                {o.corpora.iter().map(|c| view! {
                                    <tr><td>{c.name.clone()}</td><td>{c.shape.clone()}</td><td>{c.filename.clone()}</td>
                                    <td>{c.clusters}</td><td>{c.documents}</td><td>{c.sentences}</td></tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }.into_any()
            }}
            <ImportCorpus imported message />
        </section>
        <section class="card wide">
            <h2>"Start a run"</h2>
            <NewRun corpora start />
        </section>
    }
}
