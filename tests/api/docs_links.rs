//! The README and `docs/` link to each other by relative paths: every such link must name a file
//! or folder of the repository, so a moved or renamed page fails here.
use std::path::{Path, PathBuf};

fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out
}

/// The targets of the inline links `[text](target)` in `text`.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].trim().to_owned());
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_docs_names_a_file_that_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = markdown_files(&root);
    assert!(files.len() > 10, "{files:?}");
    let (mut checked, mut broken) = (0, Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap();
            checked += 1;
            if !file.parent().unwrap().join(path).exists() {
                broken.push(format!(
                    "{}: {target}",
                    file.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(checked > 20, "only {checked} links found");
    assert!(broken.is_empty(), "broken links: {broken:#?}");
}

#[test]
fn the_link_reader_finds_links() {
    assert_eq!(
        link_targets("see [a](docs/a.md) and [b](https://x.org/b) (not a link)"),
        ["docs/a.md", "https://x.org/b"]
    );
}

/// The book (`docs/`, built by mdBook in the test command) lists every page of `docs/` in its
/// table of contents, so no page is left out of it.
#[test]
fn every_page_of_the_docs_is_in_the_book() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let docs = root.join("docs");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).unwrap();
    let listed = link_targets(&summary);
    let mut missing = Vec::new();
    for file in markdown_files(&root) {
        let Ok(page) = file.strip_prefix(&docs) else {
            continue;
        };
        let page = page.to_string_lossy().replace('\\', "/");
        if page != "SUMMARY.md" && !listed.contains(&page) {
            missing.push(page);
        }
    }
    assert!(listed.len() > 15, "{listed:?}");
    assert!(
        missing.is_empty(),
        "pages not in docs/SUMMARY.md: {missing:?}"
    );
}
