//! `paracrowd precompress DIR`: writes `FILE.br` (brotli, quality 11) and `FILE.gz` (gzip, level
//! 9) beside each script, WebAssembly module, stylesheet and SVG in DIR, once at build time, so
//! the server sends the smallest form a browser accepts without compressing per request
//! (`site_assets::pkg_router` serves them). A twin that would not be smaller is not written,
//! and a stale one is removed.
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Extensions worth compressing (images and fonts are compressed already).
const COMPRESSIBLE: &[&str] = &["js", "wasm", "css", "svg", "json", "html", "txt"];

/// What one file became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compressed {
    pub file: PathBuf,
    pub bytes: u64,
    pub brotli: Option<u64>,
    pub gzip: Option<u64>,
}

/// Compresses every compressible file directly in `dir`; returns what each became, by name.
pub fn precompress_dir(dir: &Path) -> anyhow::Result<Vec<Compressed>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file() && is_compressible(path))
        .collect();
    files.sort();
    files.iter().map(|file| precompress_file(file)).collect()
}

fn is_compressible(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| COMPRESSIBLE.contains(&e))
}

fn precompress_file(file: &Path) -> anyhow::Result<Compressed> {
    let data = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let brotli = write_twin(file, "br", &data, brotli_bytes(&data)?)?;
    let gzip = write_twin(file, "gz", &data, gzip_bytes(&data)?)?;
    Ok(Compressed {
        file: file.to_path_buf(),
        bytes: data.len() as u64,
        brotli,
        gzip,
    })
}

/// Writes `FILE.EXT` when `packed` is smaller than the original, else removes any old one.
fn write_twin(file: &Path, ext: &str, data: &[u8], packed: Vec<u8>) -> anyhow::Result<Option<u64>> {
    let mut name = file.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    let twin = PathBuf::from(name);
    if packed.len() >= data.len() {
        match std::fs::remove_file(&twin) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot remove {}", twin.display())),
        }
        return Ok(None);
    }
    std::fs::write(&twin, &packed).with_context(|| format!("cannot write {}", twin.display()))?;
    Ok(Some(packed.len() as u64))
}

pub fn brotli_bytes(data: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 3);
    {
        // Quality 11 (the most), a 4 MiB window: build time is spent once for every download.
        let mut writer = brotli::CompressorWriter::new(&mut out, 64 * 1024, 11, 22);
        writer.write_all(data)?;
        writer.flush()?;
    }
    Ok(out)
}

pub fn gzip_bytes(data: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(data.len() / 3),
        flate2::Compression::best(),
    );
    encoder.write_all(data)?;
    Ok(encoder.finish()?)
}

/// The command: compresses DIR's files and prints a line for each.
pub fn run(dir: &Path) -> anyhow::Result<()> {
    let kb = |n: u64| format!("{:.1} KB", n as f64 / 1000.0);
    for c in precompress_dir(dir)? {
        let name = c.file.file_name().unwrap_or_default().to_string_lossy();
        println!(
            "{name}: {} -> brotli {}, gzip {}",
            kb(c.bytes),
            c.brotli.map_or("(not smaller)".into(), kb),
            c.gzip.map_or("(not smaller)".into(), kb),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn twins_decompress_to_the_original_and_only_text_is_compressed() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..2000)
            .map(|i| format!("function f{i}() {{ return {i}; }}\n"))
            .collect();
        std::fs::write(dir.path().join("a.js"), &text).unwrap();
        std::fs::write(dir.path().join("b.png"), &text).unwrap();
        // Four bytes cannot shrink: no twin, and an old one goes.
        std::fs::write(dir.path().join("c.css"), "a{}\n").unwrap();
        std::fs::write(dir.path().join("c.css.br"), "stale").unwrap();

        let done = precompress_dir(dir.path()).unwrap();

        assert_eq!(done.len(), 2, "{done:?}");
        let js = &done[0];
        assert!(
            js.brotli.unwrap() < js.gzip.unwrap() && js.gzip.unwrap() < js.bytes,
            "{js:?}"
        );
        let mut unbrotli = Vec::new();
        brotli::Decompressor::new(
            &std::fs::read(dir.path().join("a.js.br")).unwrap()[..],
            4096,
        )
        .read_to_end(&mut unbrotli)
        .unwrap();
        assert_eq!(unbrotli, text.as_bytes());
        let mut ungzip = Vec::new();
        flate2::read::GzDecoder::new(&std::fs::read(dir.path().join("a.js.gz")).unwrap()[..])
            .read_to_end(&mut ungzip)
            .unwrap();
        assert_eq!(ungzip, text.as_bytes());
        assert!(!dir.path().join("b.png.br").exists());
        assert!(
            !dir.path().join("c.css.br").exists(),
            "the stale twin is removed"
        );
        assert_eq!(done[1].brotli, None);
    }
}
