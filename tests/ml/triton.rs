//! NVIDIA Triton Inference Server for the remote scorer's tests: PyPI's nvidia-pytriton (the real
//! `tritonserver` binary and its Python backend) serving the stand-ins' ONNX files through
//! `deploy/triton/serve_onnx.py`. `scripts/setup.sh --test` installs it into
//! `~/.cache/paracrowd/py-triton`; without it the tests say so and pass, unless
//! `PARACROWD_REQUIRE_TRITON=1` (`scripts/test.sh`), which makes that a failure.
//!
//! Shared by the `ml` and `api` test binaries (`#[path]`).
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use server::ml::remote::client::InferenceClient;

/// A running Triton; killed (with its `tritonserver` child) when dropped.
pub struct Triton {
    child: Child,
    pub grpc_port: u16,
    pub log: PathBuf,
    _dir: tempfile::TempDir,
}

/// What to serve.
pub struct Serve<'a> {
    pub mi: &'a Path,
    pub bleurt: &'a Path,
    pub embed: Option<&'a Path>,
    /// `PARACROWD_TRITON_TRACE`: the Checks-first gate's events, one per line.
    pub trace: Option<&'a Path>,
    /// Serve on this gRPC port (a restart on the same address); otherwise a free one.
    pub grpc_port: Option<u16>,
}

/// The Python with nvidia-pytriton, or `None` (after saying why `what` cannot run) when it is
/// not installed.
pub fn python(what: &str) -> Option<PathBuf> {
    let python = std::env::var_os("PARACROWD_TRITON_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| server::ml::source::cache_dir().join("py-triton/bin/python"));
    if python.is_file() {
        return Some(python);
    }
    let why = format!(
        "no Triton Python at {} (scripts/setup.sh --test installs it)",
        python.display()
    );
    crate::shared::missing("TRITON", what, &why);
    None
}

impl<'a> Serve<'a> {
    /// The two Check models on a free port; other fields by struct update.
    pub fn checks(mi: &'a Path, bleurt: &'a Path) -> Self {
        Self {
            mi,
            bleurt,
            embed: None,
            trace: None,
            grpc_port: None,
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Triton {
    /// Starts Triton and waits until both Check models are ready (and `embed`, when served).
    pub async fn start(python: &Path, serve: Serve<'_>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("triton.log");
        let grpc_port = serve.grpc_port.unwrap_or_else(free_port);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/triton/serve_onnx.py");
        let mut cmd = Command::new(python);
        cmd.arg(&script)
            .arg("--mi")
            .arg(serve.mi)
            .arg("--bleurt")
            .arg(serve.bleurt)
            .args(["--grpc-port", &grpc_port.to_string()])
            .args(["--http-port", &free_port().to_string()])
            .args(["--metrics-port", &free_port().to_string()])
            .env("PARACROWD_TRITON_LOCAL", "1")
            .stdout(Stdio::from(std::fs::File::create(&log).unwrap()))
            .stderr(Stdio::from(
                std::fs::OpenOptions::new().append(true).open(&log).unwrap(),
            ))
            // Its own process group, so a kill reaches the tritonserver it starts.
            .process_group(0);
        if let Some(embed) = serve.embed {
            cmd.arg("--embed").arg(embed);
        }
        if let Some(trace) = serve.trace {
            cmd.env("PARACROWD_TRITON_TRACE", trace);
        }
        let child = cmd.spawn().expect("start serve_onnx.py");
        let mut triton = Self {
            child,
            grpc_port,
            log,
            _dir: dir,
        };
        let client = InferenceClient::new(&triton.url()).unwrap();
        let mut models = vec!["mi", "bleurt"];
        if serve.embed.is_some() {
            models.push("embed");
        }
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = triton.child.try_wait() {
                panic!(
                    "Triton exited ({status}) before it was ready:\n{}",
                    triton.log_text()
                );
            }
            if client
                .ready(&models, Duration::from_secs(2))
                .await
                .unwrap_or(false)
            {
                eprintln!(
                    "Triton ready on port {grpc_port} in {:.1} s",
                    started.elapsed().as_secs_f64()
                );
                return triton;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "Triton not ready within 120 s:\n{}",
                triton.log_text()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.grpc_port)
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGKILL to the whole process group: no clean shutdown, in-flight calls are cut.
    pub fn kill(&mut self) {
        // SAFETY: kill only sends a signal; the group id is our child's pid.
        unsafe {
            libc::kill(-(self.child.id() as i32), libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

impl Drop for Triton {
    fn drop(&mut self) {
        self.kill();
    }
}
