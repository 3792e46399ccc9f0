//! A private PostgreSQL cluster under the data directory, used when no `DATABASE_URL` is given.
//!
//! First start: `initdb` (trust auth, UTF8, superuser `paracrowd`). Every start: `pg_ctl start` on
//! 127.0.0.1 and a free port, no Unix socket; `stop` is `pg_ctl -m fast stop`. PostgreSQL refuses
//! to run as root, so as root the binaries run as the `postgres` system user (created by Debian's
//! package), which then owns the cluster directory.
//!
//! **Who starts it.** The process that owns the cluster holds an exclusive lock on
//! `DATA_DIR/postgres.lock` for as long as it lives (the kernel drops it when the process ends,
//! killed or not): it creates and starts the cluster. A process that finds the lock held (a
//! command such as `create-admin` run beside a running server) waits until the cluster is ready
//! and uses it. A process that takes the lock and finds the cluster running (left by a killed
//! server) adopts it.
//!
//! **Who stops it.** Every process that uses the cluster, its owner included, holds a shared
//! lock on `DATA_DIR/postgres.users.lock` from before it looks at the cluster until it stops.
//! Stopping, a process lets go of its own and stops the cluster only if it then gets the lock
//! alone (held through the stop, so no process starts using the cluster meanwhile): the last
//! one to stop stops it. An owner that ends while another process uses the cluster (a long
//! `import-corpus` that started it, and a `serve` started beside it) leaves it to that process.
//! Two processes stopping at once cannot both leave it: each lets go before it tries, so the
//! later try finds the earlier one gone.
//!
//! All functions block; call them from `spawn_blocking` or before the runtime starts serving.
use std::fs;
use std::os::unix::fs::{chown, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{bail, Context};

/// How long a start waits for the cluster another process owns to accept connections: longer
/// than that process's `initdb` and its `pg_ctl start -t 60` together.
const OWNER_WAIT: std::time::Duration = std::time::Duration::from_secs(180);

/// The superuser and database the server uses in the embedded cluster.
const DB_USER: &str = "paracrowd";

/// A running embedded cluster.
#[derive(Debug)]
pub struct EmbeddedPostgres {
    bin_dir: PathBuf,
    cluster_dir: PathBuf,
    port: u16,
    run_as: Option<(u32, u32)>,
    /// The owner's lock, held while this value lives; `None` when another live process owns
    /// the cluster.
    owner_lock: Option<fs::File>,
    /// The owner's lock file (`postgres.lock`).
    owner_lock_path: PathBuf,
    /// The users' lock file (`postgres.users.lock`), and this process's shared lock on it until
    /// [`stop`](Self::stop).
    users_lock_path: PathBuf,
    users_lock: Option<fs::File>,
}

impl EmbeddedPostgres {
    /// Creates (first time) and starts the cluster under `data_dir/postgres`; uses the one
    /// another live process runs there (without owning it), or adopts one a process that ended
    /// left running.
    pub fn start(data_dir: &Path) -> anyhow::Result<Self> {
        let bin_dir = find_bin_dir()?;
        let run_as = if unsafe { libc::geteuid() } == 0 {
            Some(postgres_user().context(
                "running as root, the embedded PostgreSQL must run as the `postgres` system user, \
                 which does not exist (apt-get install postgresql creates it)",
            )?)
        } else {
            None
        };
        fs::create_dir_all(data_dir)
            .with_context(|| format!("cannot create the data directory {}", data_dir.display()))?;
        let data_dir = data_dir
            .canonicalize()
            .with_context(|| format!("cannot resolve {}", data_dir.display()))?;
        let base = data_dir.join("postgres");
        let cluster_dir = base.join("cluster");
        let mut pg = Self {
            bin_dir,
            cluster_dir,
            port: 0,
            run_as,
            owner_lock: None,
            owner_lock_path: data_dir.join("postgres.lock"),
            users_lock_path: data_dir.join("postgres.users.lock"),
            users_lock: None,
        };
        // While another live process holds the lock it owns the cluster, and may be creating or
        // starting it right now: use the cluster once it accepts connections, or take over if
        // that process ends first.
        let lock = pg.owner_lock_path.clone();
        let deadline = std::time::Instant::now() + OWNER_WAIT;
        // Registered as a user before looking: no process stops the cluster under this one from
        // here on. A process stopping it holds the lock alone meanwhile: wait for it.
        loop {
            pg.users_lock = lock_file(&pg.users_lock_path, libc::LOCK_SH | libc::LOCK_NB)?;
            if pg.users_lock.is_some() {
                break;
            }
            if std::time::Instant::now() >= deadline {
                bail!(
                    "another paracrowd process was stopping the PostgreSQL in {} for {} s",
                    pg.cluster_dir.display(),
                    OWNER_WAIT.as_secs()
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        loop {
            pg.owner_lock = try_lock(&lock)?;
            if pg.owner_lock.is_some() {
                break;
            }
            if let Some(port) = pg.ready_port() {
                tracing::info!(port, dir = %pg.cluster_dir.display(), "using the embedded PostgreSQL another paracrowd process runs (it stays running)");
                pg.port = port;
                return Ok(pg);
            }
            if std::time::Instant::now() >= deadline {
                bail!(
                    "another paracrowd process holds {} but its PostgreSQL was not ready within {} s",
                    lock.display(),
                    OWNER_WAIT.as_secs()
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }

        if !pg.cluster_dir.join("PG_VERSION").exists() {
            pg.init(&data_dir, &base)?;
        }
        if let Some(port) = pg.running_port()? {
            tracing::info!(port, dir = %pg.cluster_dir.display(), "adopting the embedded PostgreSQL an ended process left running");
            pg.port = port;
            return Ok(pg);
        }
        pg.port = free_port()?;
        pg.launch()?;
        tracing::info!(port = pg.port, dir = %pg.cluster_dir.display(), "embedded PostgreSQL started");
        Ok(pg)
    }

    /// Starts this cluster again on the same port after [`stop`](Self::stop) (tests use it to
    /// take the database away and bring it back under a running server).
    pub fn start_again(&self) -> anyhow::Result<()> {
        self.launch()
    }

    fn launch(&self) -> anyhow::Result<()> {
        let base = self
            .cluster_dir
            .parent()
            .context("the cluster directory has a parent")?;
        let log = base.join("postgres.log");
        let opts = format!("-p {} -c listen_addresses=127.0.0.1 -k ''", self.port);
        let out = self.pg_ctl(&[
            "start",
            "-w",
            "-t",
            "60",
            "-l",
            &path_str(&log)?,
            "-o",
            &opts,
        ])?;
        if !out.status.success() {
            bail!(
                "PostgreSQL did not start in {}:\n{}\n{}\nlast lines of {}:\n{}",
                self.cluster_dir.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                log.display(),
                tail(&log, 20)
            );
        }
        Ok(())
    }

    fn init(&self, data_dir: &Path, base: &Path) -> anyhow::Result<()> {
        if self.run_as.is_some() {
            // The postgres user must reach the cluster through every parent directory.
            for dir in data_dir.ancestors() {
                let mode = fs::metadata(dir)?.permissions().mode();
                if mode & 0o001 == 0 {
                    bail!(
                        "{} is not traversable by the postgres user (mode {:o}); \
                         set PARACROWD_DATA_DIR to a directory outside it, e.g. /var/lib/paracrowd",
                        dir.display(),
                        mode & 0o777
                    );
                }
            }
        }
        fs::create_dir_all(&self.cluster_dir)?;
        if let Some((uid, gid)) = self.run_as {
            chown(base, Some(uid), Some(gid))?;
            chown(&self.cluster_dir, Some(uid), Some(gid))?;
        }
        fs::set_permissions(&self.cluster_dir, fs::Permissions::from_mode(0o700))?;
        let out = self
            .command("initdb")
            .args([
                "-D",
                &path_str(&self.cluster_dir)?,
                "-A",
                "trust",
                "-E",
                "UTF8",
            ])
            .args(["--locale=C.UTF-8", "-U", DB_USER, "--no-instructions"])
            .output()
            .context("cannot run initdb")?;
        if !out.status.success() {
            bail!(
                "initdb failed for {}:\n{}{}",
                self.cluster_dir.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        tracing::info!(dir = %self.cluster_dir.display(), "embedded PostgreSQL cluster created");
        Ok(())
    }

    /// The port of a server already running on this cluster (a previous process was killed).
    fn running_port(&self) -> anyhow::Result<Option<u16>> {
        let status = self.pg_ctl(&["status"])?;
        if !status.status.success() {
            return Ok(None);
        }
        // postmaster.pid: line 4 is the port.
        let pid_file = fs::read_to_string(self.cluster_dir.join("postmaster.pid"))?;
        Ok(pid_file.lines().nth(3).and_then(|l| l.trim().parse().ok()))
    }

    /// The port of a server on this cluster that accepts connections: `postmaster.pid` names a
    /// live postmaster (not initdb's single-user run, whose pid is negative) whose status line
    /// says `ready` (not starting or stopping).
    fn ready_port(&self) -> Option<u16> {
        let pid_file = fs::read_to_string(self.cluster_dir.join("postmaster.pid")).ok()?;
        let lines: Vec<&str> = pid_file.lines().collect();
        let pid: i64 = lines.first()?.trim().parse().ok()?;
        if pid <= 0 || lines.get(7).map(|l| l.trim()) != Some("ready") {
            return None;
        }
        self.running_port().ok().flatten()
    }

    /// The URL of the server's maintenance database (`postgres`).
    pub fn admin_url(&self) -> String {
        format!("postgres://{DB_USER}@127.0.0.1:{}/postgres", self.port)
    }

    /// The URL of paracrowd's database (created by `startup` if missing).
    pub fn database_url(&self) -> String {
        format!("postgres://{DB_USER}@127.0.0.1:{}/{DB_USER}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether this process owns the cluster (and [`stop`](Self::stop) stops it).
    pub fn is_owner(&self) -> bool {
        self.owner_lock.is_some()
    }

    /// Stops the server (fast shutdown: open transactions roll back, committed data is kept),
    /// unless another live process uses it: then it is left running for them. Either way this
    /// process no longer counts as a user (see the module's documentation).
    pub fn stop(&self) -> anyhow::Result<()> {
        if let Some(mine) = &self.users_lock {
            flock(mine, libc::LOCK_UN, &self.users_lock_path)?;
        }
        // Held alone until the cluster is stopped: no process starts using it meanwhile.
        let Some(_alone) = lock_file(&self.users_lock_path, libc::LOCK_EX | libc::LOCK_NB)? else {
            tracing::info!(dir = %self.cluster_dir.display(), "embedded PostgreSQL left running for the paracrowd processes that use it");
            return Ok(());
        };
        let out = self.pg_ctl(&["stop", "-m", "fast", "-w", "-t", "60"])?;
        if !out.status.success() {
            bail!(
                "pg_ctl stop failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        tracing::info!(dir = %self.cluster_dir.display(), "embedded PostgreSQL stopped");
        Ok(())
    }

    fn pg_ctl(&self, args: &[&str]) -> anyhow::Result<Output> {
        self.command("pg_ctl")
            .args(["-D", &path_str(&self.cluster_dir)?])
            .args(args)
            .output()
            .with_context(|| format!("cannot run {}", self.bin_dir.join("pg_ctl").display()))
    }

    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(self.bin_dir.join(program));
        // The postgres user may not be able to read the caller's working directory.
        cmd.current_dir("/");
        cmd.env_remove("PGDATA").env("LC_ALL", "C.UTF-8");
        if let Some((uid, gid)) = self.run_as {
            cmd.uid(uid).gid(gid);
        }
        cmd
    }
}

/// `PG_BIN_DIR`, else the newest `/usr/lib/postgresql/*/bin`, else `pg_config --bindir`.
pub fn find_bin_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("PG_BIN_DIR") {
        let dir = PathBuf::from(dir);
        if dir.join("pg_ctl").exists() {
            return Ok(dir);
        }
        bail!("PG_BIN_DIR={} has no pg_ctl", dir.display());
    }
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("pg_ctl").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Ok(bin);
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("pg_ctl").exists() {
            return Ok(dir);
        }
    }
    bail!(
        "no PostgreSQL server binaries found (looked in PG_BIN_DIR, /usr/lib/postgresql/*/bin and \
         pg_config): install them with `apt-get install postgresql`, or set DATABASE_URL"
    )
}

fn postgres_user() -> Option<(u32, u32)> {
    let name = std::ffi::CString::new("postgres").ok()?;
    // SAFETY: getpwnam returns a pointer into static storage or null; we copy two integers out
    // immediately, before any other call that could overwrite it.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    if pw.is_null() {
        return None;
    }
    Some(unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

/// Takes the exclusive lock on `path` (created if missing) without waiting: `None` when another
/// process holds it.
fn try_lock(path: &Path) -> anyhow::Result<Option<fs::File>> {
    lock_file(path, libc::LOCK_EX | libc::LOCK_NB)
}

/// Takes the lock `operation` (`flock(2)`'s) on `path` (created if missing), on a descriptor of
/// its own: `None` when a lock without waiting finds it held.
fn lock_file(path: &Path, operation: libc::c_int) -> anyhow::Result<Option<fs::File>> {
    let file = match fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
    {
        Ok(file) => file,
        // Made by another user, or a read-only folder: a lock needs only a descriptor.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?
        }
        Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
    };
    Ok(flock(&file, operation, path)?.then_some(file))
}

/// `flock(2)` with `operation` on `file` (opened from `path`): false when a lock without waiting
/// finds it held.
fn flock(file: &fs::File, operation: libc::c_int, path: &Path) -> anyhow::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor the caller keeps open; no memory is shared with the call.
    if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e).with_context(|| format!("cannot lock {}", path.display()))
    }
}

fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("no free port")?;
    Ok(listener.local_addr()?.port())
}

fn path_str(path: &Path) -> anyhow::Result<String> {
    path.to_str()
        .map(str::to_owned)
        .with_context(|| format!("path is not UTF-8: {}", path.display()))
}

fn tail(path: &Path, lines: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
