use super::*;

#[component]
pub(super) fn ImportCorpus(
    imported: RwSignal<u32>,
    message: RwSignal<Option<Result<String, AppError>>>,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let shape = RwSignal::new(String::from("documents"));
    let cluster = RwSignal::new(String::new());
    let id_column = RwSignal::new(String::new());
    let text = RwSignal::new(String::new());
    let keep_headings = RwSignal::new(false);
    let upload = Action::new_unsync(move |_: &()| async move {
        let (file, content) = match read_chosen_file("corpus-file").await {
            Ok(f) => f,
            Err(m) => return Err(AppError::validation("file", m)),
        };
        let title = if name.get_untracked().trim().is_empty() {
            file.clone()
        } else {
            name.get_untracked()
        };
        import_corpus(
            title,
            file.clone(),
            content,
            shape.get_untracked(),
            cluster.get_untracked(),
            id_column.get_untracked(),
            text.get_untracked(),
            keep_headings.get_untracked(),
        )
        .await
        .map(|c| {
            format!(
                "{file}: {} clusters, {} documents, {} sentences.",
                c.clusters, c.documents, c.sentences
            )
        })
    });
    Effect::new(move || {
        if let Some(result) = upload.value().get() {
            let ok = result.is_ok();
            message.set(Some(result));
            if ok {
                imported.update(|n| *n += 1);
            }
        }
    });
    let input = |label: &'static str, signal: RwSignal<String>, placeholder: &'static str| {
        view! {
            <label>{label}
                <input placeholder=placeholder prop:value=move || signal.get() on:input=move |ev| signal.set(event_target_value(&ev)) />
            </label>
        }
    };
    view! {
        <h3>"Import a corpus"</h3>
        <noscript>
            <p class="notice warn">
                "Uploading needs JavaScript: the page reads the file in your browser and sends its text. Turn JavaScript on, or the CLI can import the same files: paracrowd import-corpus (see the README)."
            </p>
        </noscript>
        <form class="upload needs-js" on:submit=move |ev| {
            ev.prevent_default();
            message.set(None);
            upload.dispatch(());
        }>
            <p class="muted small">
                "Documents: JSON lines, CSV or TSV with a cluster (or topic), an id (or file) and the text, split into sentences (WikiRef220 works as it is). Grouped: short texts with a group key, e.g. the Twitter URL corpus with group `url` and text `sent_1,sent_2`. Sentences: one a line. A bad line stops the import and nothing is stored."
            </p>
            <label>"File" <input id="corpus-file" type="file" accept=".txt,.tsv,.csv,.jsonl,.json" required /></label>
            <div class="fields">
                {input("Name", name, "the file's name")}
                <label>"Shape"
                    <select prop:value=move || shape.get() on:change=move |ev| shape.set(event_target_value(&ev))>
                        <option value="documents">"Clustered documents"</option>
                        <option value="grouped">"Grouped short texts"</option>
                        <option value="sentences">"Plain sentences"</option>
                    </select>
                </label>
                {input("Cluster column", cluster, "cluster, topic, url…")}
                {input("Id column", id_column, "id, file…")}
                {input("Text column(s)", text, "text, content…")}
            </div>
            <label class="check">
                <input type="checkbox" prop:checked=move || keep_headings.get() on:change=move |ev| keep_headings.set(event_target_checked(&ev)) />
                " Keep headline-like lines (short lines without final punctuation) as sentences"
            </label>
            <button type="submit" disabled=move || upload.pending().get()>
                {move || if upload.pending().get() { "Importing…" } else { "Import corpus" }}
            </button>
        </form>
        {move || message.get().map(|m| match m {
            Ok(text) => view! { <p class="notice ok" role="status" data-testid="corpus-result">{text}</p> }.into_any(),
            Err(error) => view! { <ErrorMessage error /> }.into_any(),
        })}
    }
}
