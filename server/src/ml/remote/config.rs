//! Which scorer a server uses, from the environment.
use std::time::Duration;

use anyhow::{bail, Context};

/// `PARACROWD_SCORER`: `local` (default: ONNX Runtime in this process) or `remote`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScorerBackend {
    Local,
    Remote(RemoteConfig),
}

/// What happens while the inference server is down (`PARACROWD_SCORER_FALLBACK`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// Checks answer "busy" until it is back (default).
    None,
    /// The in-process engine scores them (the models are loaded here too).
    Local,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteConfig {
    /// `PARACROWD_SCORER_URL`, e.g. `http://triton:8001` (Triton's gRPC port).
    pub url: String,
    /// `PARACROWD_SCORER_DEADLINE_MS` (default 2000): a call slower than this is "busy".
    pub deadline: Duration,
    pub fallback: Fallback,
    /// `PARACROWD_SCORER_CONCURRENCY` (default 64): Checks in flight to the server at once;
    /// beyond it callers get "busy" (as the engine's queue does).
    pub concurrency: usize,
    /// How often a down server is probed for readiness (1 s).
    pub probe_every: Duration,
}

impl RemoteConfig {
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            deadline: Duration::from_secs(2),
            fallback: Fallback::None,
            concurrency: 64,
            probe_every: Duration::from_secs(1),
        }
    }
}

impl ScorerBackend {
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_vars(&|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
    }

    pub fn from_vars(var: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        match var("PARACROWD_SCORER").as_deref() {
            None | Some("local") => Ok(Self::Local),
            Some("remote") => {
                let url = var("PARACROWD_SCORER_URL").context(
                    "PARACROWD_SCORER=remote needs PARACROWD_SCORER_URL, the inference server's gRPC address (e.g. http://127.0.0.1:8001)",
                )?;
                if url.starts_with("https://") {
                    bail!(
                        "PARACROWD_SCORER_URL: this build speaks plain gRPC (http://) to the inference \
                         server; put it on a private network, or behind a TLS proxy on this host"
                    );
                }
                if !url.starts_with("http://") {
                    bail!("PARACROWD_SCORER_URL must start with http://, not {url:?}");
                }
                let mut config = RemoteConfig::new(url);
                if let Some(ms) = var("PARACROWD_SCORER_DEADLINE_MS") {
                    let ms: u64 = ms
                        .parse()
                        .ok()
                        .filter(|&ms| ms > 0)
                        .context("PARACROWD_SCORER_DEADLINE_MS must be a whole number of milliseconds above 0")?;
                    config.deadline = Duration::from_millis(ms);
                }
                if let Some(n) = var("PARACROWD_SCORER_CONCURRENCY") {
                    config.concurrency =
                        n.parse().ok().filter(|&n| n > 0).context(
                            "PARACROWD_SCORER_CONCURRENCY must be a whole number above 0",
                        )?;
                }
                config.fallback = match var("PARACROWD_SCORER_FALLBACK").as_deref() {
                    None | Some("none") => Fallback::None,
                    Some("local") => Fallback::Local,
                    Some(other) => {
                        bail!("PARACROWD_SCORER_FALLBACK must be none or local, not {other:?}")
                    }
                };
                Ok(Self::Remote(config))
            }
            Some(other) => bail!("PARACROWD_SCORER must be local or remote, not {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> anyhow::Result<ScorerBackend> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        ScorerBackend::from_vars(&|name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn local_by_default_and_remote_with_its_settings() {
        assert_eq!(parse(&[]).unwrap(), ScorerBackend::Local);
        let ScorerBackend::Remote(r) = parse(&[
            ("PARACROWD_SCORER", "remote"),
            ("PARACROWD_SCORER_URL", "http://triton:8001"),
            ("PARACROWD_SCORER_DEADLINE_MS", "750"),
            ("PARACROWD_SCORER_FALLBACK", "local"),
        ])
        .unwrap() else {
            panic!("remote expected")
        };
        assert_eq!(r.url, "http://triton:8001");
        assert_eq!(r.deadline, Duration::from_millis(750));
        assert_eq!(r.fallback, Fallback::Local);
    }

    #[test]
    fn bad_settings_say_what_is_wrong() {
        let err = |pairs: &[(&str, &str)]| parse(pairs).unwrap_err().to_string();
        assert!(err(&[("PARACROWD_SCORER", "triton")]).contains("local or remote"));
        assert!(err(&[("PARACROWD_SCORER", "remote")]).contains("PARACROWD_SCORER_URL"));
        assert!(err(&[
            ("PARACROWD_SCORER", "remote"),
            ("PARACROWD_SCORER_URL", "triton:8001")
        ])
        .contains("http://"));
        assert!(err(&[
            ("PARACROWD_SCORER", "remote"),
            ("PARACROWD_SCORER_URL", "https://triton:8001")
        ])
        .contains("plain gRPC"));
        assert!(err(&[
            ("PARACROWD_SCORER", "remote"),
            ("PARACROWD_SCORER_URL", "http://t:1"),
            ("PARACROWD_SCORER_DEADLINE_MS", "0")
        ])
        .contains("above 0"));
        assert!(err(&[
            ("PARACROWD_SCORER", "remote"),
            ("PARACROWD_SCORER_URL", "http://t:1"),
            ("PARACROWD_SCORER_FALLBACK", "maybe")
        ])
        .contains("none or local"));
    }
}
