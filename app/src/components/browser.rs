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
