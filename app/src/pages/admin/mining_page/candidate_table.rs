use super::*;

#[component]
pub(super) fn CandidateTable(list: Vec<CandidateView>) -> impl IntoView {
    view! {
        <table aria-label="Candidates">
            <thead><tr><th>"Sentence 1"</th><th>"Sentence 2"</th><th>"Cluster"</th><th>"Edit distance"</th><th>"Shared long words"</th><th>"Length ratio"</th><th>"Score"</th></tr></thead>
            <tbody>
                {list.into_iter().map(|c| view! {
                    <tr><td>{c.sentence1}</td><td>{c.sentence2}</td><td>{c.cluster}</td>
                    <td>{c.edit_distance}</td><td>{c.shared_long_words}</td><td>{format!("{:.2}", c.length_ratio)}</td>
                    <td title="Cosine similarity (embeddings); the seed's rank (groups)">{format!("{:.3}", c.score)}</td></tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
