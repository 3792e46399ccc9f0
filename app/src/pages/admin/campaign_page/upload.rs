use super::*;

/// The file upload: the browser reads the file and sends its text to the import function.
#[component]
pub(super) fn Upload(
    campaign_id: CampaignId,
    is_apt: bool,
    imported: RwSignal<u32>,
    message: RwSignal<Option<Result<String, AppError>>>,
) -> impl IntoView {
    let origin = RwSignal::new(String::new());
    let as_tests = RwSignal::new(false);
    let cid = StoredValue::new(campaign_id);
    // Reading a file is a browser future (not Send): an unsync action.
    let upload = Action::new_unsync(move |_: &()| async move {
        let (name, content) = match read_chosen_file("import-file").await {
            Ok(file) => file,
            Err(m) => return Err(AppError::validation("file", m)),
        };
        if is_apt {
            import_sources(cid.get_value(), name.clone(), content, origin.get_untracked())
                .await
                .map(|s| {
                    format!(
                        "{name}: imported {} sentences; skipped {} repeated in the file and {} already in the campaign.",
                        s.imported, s.duplicates_in_file, s.already_in_campaign
                    )
                })
        } else {
            import_pairs(cid.get_value(), name.clone(), content, as_tests.get_untracked())
                .await
                .map(|s| {
                    let identical = if s.identical > 0 {
                        format!(" Note: {} pairs have the same text on both sides (kept; they can only be paraphrases).", s.identical)
                    } else {
                        String::new()
                    };
                    let explained = if s.explanations_updated > 0 {
                        format!(" Explanations added or replaced on {} test pairs already in the campaign.", s.explanations_updated)
                    } else {
                        String::new()
                    };
                    format!(
                        "{name}: imported {} pairs ({} test pairs in the file); skipped {} repeated in the file and {} already in the campaign.{explained}{identical}",
                        s.imported, s.tests_in_file, s.duplicates_in_file, s.already_in_campaign
                    )
                })
        }
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
    let help = if is_apt {
        "MSRP files (the pair files: sentence 1 of each pair; or msr_paraphrase_data.txt: every sentence), or CSV/TSV/JSONL with a `text` column and optional `origin` and `id`."
    } else {
        "CSV/TSV/JSONL with `sentence1` and `sentence2` (or `sent_1`/`sent_2`, MSRP's `#1 String`/`#2 String`), optional group (`trend`, `url`, `topic`), `label` and `explanation`."
    };
    view! {
        <noscript>
            <p class="notice warn">
                "Uploading needs JavaScript: the page reads the file in your browser and sends its text. Turn JavaScript on, or the CLI can import the same files: paracrowd import-sources / import-pairs CAMPAIGN FILE (see the README)."
            </p>
        </noscript>
        <form class="upload needs-js" on:submit=move |ev| {
            ev.prevent_default();
            message.set(None);
            upload.dispatch(());
        }>
            <p class="muted small">{help} " A bad line stops the import and nothing is stored."</p>
            <label>"File" <input id="import-file" type="file" accept=".txt,.tsv,.csv,.jsonl,.json" required /></label>
            {if is_apt {
                view! {
                    <label>
                        "Origin for rows without one"
                        <input
                            name="default_origin"
                            placeholder="msrp for MSRP's files, else upload"
                            prop:value=move || origin.get()
                            on:input=move |ev| origin.set(event_target_value(&ev))
                        />
                    </label>
                }
                    .into_any()
            } else {
                view! {
                    <label class="check">
                        <input type="checkbox" prop:checked=move || as_tests.get() on:change=move |ev| as_tests.set(event_target_checked(&ev)) />
                        " Labeled rows are hidden test pairs (gold); their explanation is shown to a worker who misses one"
                    </label>
                }
                    .into_any()
            }}
            <button type="submit" disabled=move || upload.pending().get()>
                {move || if upload.pending().get() { "Importing…" } else { "Import" }}
            </button>
        </form>
        {move || {
            message
                .get()
                .map(|m| match m {
                    Ok(text) => view! { <p class="notice ok" role="status" data-testid="import-result">{text}</p> }.into_any(),
                    Err(error) => view! { <ErrorMessage error /> }.into_any(),
                })
        }}
    }
}
