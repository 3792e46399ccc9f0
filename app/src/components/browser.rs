//! The few browser APIs the pages use directly: reading a chosen file, and keeping drafts in
//! `localStorage` so typed text survives a reload. On the server these do nothing.

/// Largest file the browser will read for an upload (the server's upload limit is 64 MiB,
/// form-encoding can grow text by up to a third).
pub const MAX_UPLOAD_FILE_BYTES: f64 = 40.0 * 1024.0 * 1024.0;

/// Reads the first file chosen in the `<input type="file">` with this id: its name and text.
#[cfg(feature = "hydrate")]
pub async fn read_chosen_file(input_id: &str) -> Result<(String, String), String> {
    use wasm_bindgen::JsCast;
    let input = leptos::prelude::document()
        .get_element_by_id(input_id)
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
        .ok_or("The file field is missing.")?;
    let file = input
        .files()
        .and_then(|f| f.get(0))
        .ok_or("Choose a file first.")?;
    if file.size() > MAX_UPLOAD_FILE_BYTES {
        return Err(format!(
            "{} is {:.0} MB; files up to {:.0} MB can be uploaded here (use `paracrowd import-…` for larger ones).",
            file.name(),
            file.size() / 1e6,
            MAX_UPLOAD_FILE_BYTES / 1e6
        ));
    }
    let text = wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .map_err(|_| format!("{} could not be read.", file.name()))?;
    let text = text
        .as_string()
        .ok_or_else(|| format!("{} is not text.", file.name()))?;
    Ok((file.name(), text))
}

#[cfg(not(feature = "hydrate"))]
pub async fn read_chosen_file(_input_id: &str) -> Result<(String, String), String> {
    Err("Uploading needs JavaScript.".into())
}

#[cfg(feature = "hydrate")]
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The draft saved under `key`, if any.
pub fn load_draft(key: &str) -> Option<String> {
    #[cfg(feature = "hydrate")]
    {
        storage()?.get_item(key).ok()?
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = key;
        None
    }
}

/// Saves (or, when empty, forgets) the draft under `key`.
pub fn save_draft(key: &str, text: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(s) = storage() {
        let _ = if text.is_empty() {
            s.remove_item(key)
        } else {
            s.set_item(key, text)
        };
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (key, text);
}

/// Takes the query off the address bar, leaving the page as it is: a reload then reads the page
/// afresh instead of the one-time answer the query carried (a plain form's result).
pub fn forget_query() {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        if let (Ok(path), Ok(history)) = (window.location().pathname(), window.history()) {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path));
        }
    }
}

/// How far a download has come: lines received, the rows the server said it reads (from
/// `X-Paracrowd-Rows`), and the end (`Ok(file name)` or an error to show).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DownloadProgress {
    pub lines: u64,
    pub total_rows: Option<u64>,
    pub finished: Option<Result<String, String>>,
}

/// Downloads the URL the form `form_id` would submit to `action` (its fields as the query),
/// reporting progress as chunks arrive, then saves the file under the server's file name.
#[cfg(feature = "hydrate")]
pub async fn download_with_progress(
    form_id: &str,
    action: &str,
    mut report: impl FnMut(DownloadProgress),
) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;

    let mut progress = DownloadProgress::default();
    let fail =
        |mut p: DownloadProgress, message: String, report: &mut dyn FnMut(DownloadProgress)| {
            p.finished = Some(Err(message));
            report(p);
        };
    let Some(window) = web_sys::window() else {
        return;
    };
    let query = leptos::prelude::document()
        .get_element_by_id(form_id)
        .and_then(|e| e.dyn_into::<web_sys::HtmlFormElement>().ok())
        .and_then(|f| web_sys::FormData::new_with_form(&f).ok())
        .and_then(|d| web_sys::UrlSearchParams::new_with_str_sequence_sequence(&d).ok())
        .map(|p| String::from(p.to_string()))
        .unwrap_or_default();
    let url = format!("{action}?{query}");
    let response = match JsFuture::from(window.fetch_with_str(&url)).await {
        Ok(r) => r.unchecked_into::<web_sys::Response>(),
        Err(_) => {
            return fail(
                progress,
                "The server could not be reached; try again.".into(),
                &mut report,
            )
        }
    };
    if !response.ok() {
        let text = match response.text() {
            Ok(p) => JsFuture::from(p).await.ok().and_then(|t| t.as_string()),
            Err(_) => None,
        };
        let message = text.unwrap_or_else(|| format!("The server answered {}.", response.status()));
        return fail(progress, message, &mut report);
    }
    let headers = response.headers();
    progress.total_rows = headers
        .get("x-paracrowd-rows")
        .ok()
        .flatten()
        .and_then(|v| v.parse().ok());
    let file_name = headers
        .get("content-disposition")
        .ok()
        .flatten()
        .and_then(|v| {
            v.split("filename=\"")
                .nth(1)
                .map(|s| s.trim_end_matches('"').to_owned())
        })
        .unwrap_or_else(|| "export.txt".into());
    let content_type = headers
        .get("content-type")
        .ok()
        .flatten()
        .unwrap_or_default();
    report(progress.clone());
    let Some(body) = response.body() else {
        return fail(progress, "The answer had no body.".into(), &mut report);
    };
    let reader = body
        .get_reader()
        .unchecked_into::<web_sys::ReadableStreamDefaultReader>();
    let chunks = js_sys::Array::new();
    loop {
        let step = match JsFuture::from(reader.read()).await {
            Ok(step) => step,
            Err(_) => {
                let message = "The download broke off part-way (the file would be incomplete, so it was not saved); try again.";
                return fail(progress, message.into(), &mut report);
            }
        };
        let done = js_sys::Reflect::get(&step, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            break;
        }
        if let Ok(value) = js_sys::Reflect::get(&step, &"value".into()) {
            let bytes = value.unchecked_into::<js_sys::Uint8Array>();
            progress.lines += bytes.to_vec().iter().filter(|b| **b == b'\n').count() as u64;
            chunks.push(&bytes);
            report(progress.clone());
        }
    }
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(&content_type);
    let saved = web_sys::Blob::new_with_u8_array_sequence_and_options(&chunks, &options)
        .ok()
        .and_then(|blob| web_sys::Url::create_object_url_with_blob(&blob).ok())
        .and_then(|href| {
            let a = leptos::prelude::document()
                .create_element("a")
                .ok()?
                .dyn_into::<web_sys::HtmlAnchorElement>()
                .ok()?;
            a.set_href(&href);
            a.set_download(&file_name);
            a.click();
            // The browser has taken the file once the click is handled.
            let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
                let _ = web_sys::Url::revoke_object_url(&href);
            });
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(
                revoke.unchecked_ref(),
                60_000,
            );
            Some(())
        });
    progress.finished = Some(match saved {
        Some(()) => Ok(file_name),
        None => Err("The file could not be saved by the browser.".into()),
    });
    report(progress);
}

/// Copies `text` to the clipboard and sets `copied` to `Some(true)`; where the browser refuses
/// (a page not served over HTTPS or from localhost has no clipboard), selects the element with
/// id `fallback_id` for the user to copy and sets `Some(false)`.
pub fn copy_text(
    text: String,
    copied: leptos::prelude::RwSignal<Option<bool>>,
    fallback_id: String,
) {
    #[cfg(feature = "hydrate")]
    {
        use leptos::prelude::Set;
        let select = move || {
            let selected = (|| {
                let window = web_sys::window()?;
                let node = window.document()?.get_element_by_id(&fallback_id)?;
                window
                    .get_selection()
                    .ok()??
                    .select_all_children(&node)
                    .ok()
            })();
            copied.set(Some(false).filter(|_| selected.is_some()));
        };
        // `navigator.clipboard` is undefined outside a secure context: asked for first, as a
        // call on it would throw.
        let navigator = web_sys::window().map(|w| w.navigator());
        let has_clipboard = navigator.as_ref().is_some_and(|n| {
            js_sys::Reflect::get(n, &"clipboard".into()).is_ok_and(|c| !c.is_undefined())
        });
        let Some(promise) = navigator
            .filter(|_| has_clipboard)
            .map(|n| n.clipboard().write_text(&text))
        else {
            return select();
        };
        leptos::task::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(_) => copied.set(Some(true)),
                Err(_) => select(),
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (text, copied, fallback_id);
}

/// Empties the form `selector` finds (its fields back to their first values).
pub fn reset_form(selector: &str) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        if let Some(form) = leptos::prelude::document()
            .query_selector(selector)
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlFormElement>().ok())
        {
            form.reset();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = selector;
}
