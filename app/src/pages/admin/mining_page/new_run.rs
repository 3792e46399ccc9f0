use super::*;

#[component]
pub(super) fn NewRun(
    corpora: Vec<crate::api::mining::CorpusView>,
    start: ServerAction<StartMining>,
) -> impl IntoView {
    let method = RwSignal::new(String::from("l12"));
    if corpora.is_empty() {
        return view! { <p class="empty">"Import a corpus first."</p> }.into_any();
    }
    view! {
        <ActionForm action=start attr:class="upload">
            <div class="fields">
                <label>"Corpus"
                    <select name="corpus_id">
                        {corpora.iter().map(|c| view! { <option value=c.corpus_id.to_string()>{format!("{} ({} sentences)", c.name, c.sentences)}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Method"
                    <select name="method" prop:value=move || method.get() on:change=move |ev| method.set(event_target_value(&ev))>
                        <option value="l12">"MSRP L12: edit distance within a cluster"</option>
                        <option value="f2">"MSRP F2: first sentences across articles"</option>
                        <option value="group">"MultiPIT: ranked pairs per group, follow-ups by paraphrases found"</option>
                        <option value="embedding">"ParaSCI: sentence embeddings, cosine similarity"</option>
                    </select>
                </label>
            </div>
            {move || match method.get().as_str() {
                "f2" => view! {
                    <div class="fields">
                        <label>"First sentences per article" <input name="first_sentences" type="number" min="1" max="20" value="2" /></label>
                        <label>"Shared long words, at least" <input name="min_shared_long_words" type="number" min="0" max="50" value="3" /></label>
                        <label>"A long word has characters" <input name="long_word_chars" type="number" min="1" max="30" value="4" /></label>
                        <label>"Shorter / longer in words, at least" <input name="min_word_ratio" type="number" step="0.01" min="0" max="1" value="0.5" /></label>
                    </div>
                }.into_any(),
                "group" => view! {
                    <p class="muted small">"Per group, sentences are ranked by the average probability of their words in the group. The first batch pairs each top sentence with sentences sampled from the top of the ranking; deploy it to a judging campaign, and when a group's first batch is fully judged, the paraphrases found there decide how many follow-up pairs of that group are added to the campaign by themselves (MultiPIT §2.3)."</p>
                    <div class="fields">
                        <label>"Top sentences (seeds)" <input name="seeds" type="number" min="1" max="20" value="2" /></label>
                        <label>"Pairs per seed" <input name="per_seed" type="number" min="1" max="100" value="10" /></label>
                        <label>"Sampled from the top" <input name="pool" type="number" min="2" max="1000" value="20" /></label>
                        <label>"Follow-up seeds: the top" <input name="follow_seeds" type="number" min="1" max="100" value="5" /></label>
                        <label>"Follow-up partners: ranks up to" <input name="follow_pool" type="number" min="2" max="1000" value="50" /></label>
                        <label>"Pairs per follow-up block" <input name="block" type="number" min="1" max="100" value="10" /></label>
                        <label>"Follow-up by paraphrases found (min-max:pairs)" <input name="steps" value="4-6:20, 7-9:30, 10-12:40, 13-20:50" /></label>
                        <label>"Random seed" <input name="random_seed" type="number" min="0" value="2022" /></label>
                    </div>
                }.into_any(),
                "embedding" => view! {
                    <p class="muted small">"Sentence embeddings (all-MiniLM-L6-v2, run on the server), cosine similarity pair by pair within a cluster (ParaSCI §4.1). Import a paper as a cluster and its sections as documents. The paper's 0.931 was for BERT embeddings; MiniLM's similarities for the same pairs run lower."</p>
                    <div class="fields">
                        <label>"Cosine similarity, at least" <input name="min_cosine" type="number" step="0.001" min="-1" max="1" value="0.931" /></label>
                        <label>"Length rate |a-b|/min, at most" <input name="max_length_rate" type="number" step="0.1" min="0" max="100" value="1.0" /></label>
                    </div>
                    <label class="check"><input type="checkbox" name="same_document" value="true" />" Also pair sentences of the same document (section)"</label>
                }.into_any(),
                _ => view! {
                    <div class="fields">
                        <label>"Word edit distance, at most" <input name="max_edit_distance" type="number" min="1" max="100" value="12" /></label>
                        <label>"Shorter / longer in words, at least" <input name="min_length_ratio" type="number" step="0.0001" min="0" max="1" value="0.6667" /></label>
                    </div>
                }.into_any(),
            }}
            <button type="submit" disabled=move || start.pending().get()>"Start run"</button>
        </ActionForm>
        {move || start.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
    }
    .into_any()
}
