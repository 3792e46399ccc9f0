//! `paracrowd-load`: simulated annotators against a running paracrowd server over HTTP, then
//! `pgbench` with single-row inserts on the same PostgreSQL for comparison. Prints latency
//! percentiles per endpoint, judgments/s, errors, and whether every acknowledged judgment,
//! attempt and submission is in the database exactly once (exit status 1 if not).
//! `scripts/bench-load.sh` starts a server and runs this.
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Parser;
use paracrowd_load::{self as load, report::Pgbench, setup::Plan, LoadConfig};

/// The load run's settings. DATABASE_URL is the server's database (campaigns are added to it;
/// verification reads it); PG_BIN_DIR is where psql and pgbench are (else the PATH).
#[derive(Debug, Parser)]
#[command(
    name = "paracrowd-load",
    about = "Simulated annotators against a running paracrowd server, then pgbench on the same PostgreSQL",
    after_help = "Environment:\n  DATABASE_URL  the server's database (campaigns are added to it; verification reads it)\n  PG_BIN_DIR    where psql and pgbench are (else the PATH)"
)]
struct Args {
    /// The server, e.g. http://127.0.0.1:3000
    #[arg(long)]
    url: String,
    /// Judging accounts
    #[arg(long, default_value_t = 200)]
    judges: usize,
    /// Writing (APT) accounts
    #[arg(long, default_value_t = 20)]
    writers: usize,
    /// How long the timed run lasts
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// The mean of each worker's exponentially distributed pause between tasks (0: none);
    /// workers start at random offsets within max(think, 1 s)
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// Open loop: judgments start at this rate on whichever judge is free, and each judgment's
    /// latency counts from its intended start (the --judges accounts are the pool)
    #[arg(long, value_name = "JUDGMENTS_PER_S", value_parser = positive_rate)]
    rate: Option<f64>,
    /// Pairs in the judging campaign
    #[arg(long, default_value_t = 20_000)]
    pairs: usize,
    /// Source sentences in the writing campaign
    #[arg(long, default_value_t = 2_000)]
    sources: usize,
    /// pgbench's run after the load (0: none)
    #[arg(long, default_value_t = 20)]
    pgbench_seconds: u32,
    /// pgbench's clients
    #[arg(long, default_value_t = 16)]
    pgbench_clients: u32,
    /// Simultaneous Checks before the run (none without writers)
    #[arg(long, default_value_t = 500)]
    burst: usize,
    /// Instead of the timed run, each of --judges judges (say 6) makes this many judgments side
    /// by side, and an answer's latency at the worker's 10th judgment is compared with the last
    #[arg(long, value_name = "JUDGMENTS")]
    history: Option<usize>,
    /// Hidden test pairs in the judging campaign, one served in every 5 (0: none; the gate
    /// never decides, so nobody is stopped)
    #[arg(long, default_value_t = 0)]
    test_pairs: usize,
}

fn positive_rate(raw: &str) -> Result<f64, String> {
    match raw.parse::<f64>() {
        Ok(r) if r > 0.0 && r.is_finite() => Ok(r),
        _ => Err("a positive number of judgments per second".into()),
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let url = args.url.trim_end_matches('/').to_owned();
    let database_url = std::env::var("DATABASE_URL").context("DATABASE_URL is not set")?;
    let history = args.history;
    let plan = Plan {
        judges: args.judges,
        writers: args.writers,
        // The history run needs a pair for every judgment of each judge (all judge all).
        pairs: history.map_or(args.pairs, |n| n + 10),
        sources: args.sources,
        test_pairs: args.test_pairs,
        lease_seconds: 900,
    };
    let config = LoadConfig {
        base_url: url.clone(),
        duration: Duration::from_secs(args.seconds),
        think: Duration::from_millis(args.think_ms),
        rate: args.rate,
    };
    let pg_seconds = args.pgbench_seconds;
    let pg_clients = args.pgbench_clients;
    // The burst is of Checks: none without writers (the judging-only runs).
    let burst = if history.is_some() || plan.writers == 0 {
        0
    } else {
        args.burst
    };

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(4)
            .connect(&database_url)
            .await
            .context("cannot connect to DATABASE_URL")?;
        eprintln!(
            "preparing: {} pairs, {} sentences, {} accounts",
            plan.pairs,
            plan.sources,
            plan.judges + plan.writers
        );
        let prepared = load::prepare(&url, &pool, &plan).await?;
        if let Some(n) = history {
            eprintln!("history: {} judges, {n} judgments each", plan.judges);
            let h = load::history::run(&prepared, &url, n).await?;
            print!("{}", load::history::render(&h));
            return anyhow::Ok(());
        }
        // The model queue first: simultaneous Checks past its bound answer "busy" at once.
        let burst_report = if burst > 0 {
            eprintln!("burst: {burst} simultaneous Checks");
            let b = load::burst(&prepared, &url, burst).await?;
            Some(load::report::render_burst(burst, &b))
        } else {
            None
        };
        eprintln!("running for {:?}", config.duration);
        let counted_before = load::server_statement_counts(&url).await;
        let out = load::run(&prepared, &config).await?;
        let counted_after = load::server_statement_counts(&url).await;
        let check = load::verify(&pool, &prepared, &out).await?;
        let pg = if pg_seconds > 0 {
            eprintln!("pgbench: {pg_clients} clients for {pg_seconds} s");
            Some(pgbench(&database_url, pg_clients, pg_seconds)?)
        } else {
            None
        };
        print!(
            "{}{}",
            burst_report.unwrap_or_default(),
            load::render(plan.judges, plan.writers, &out, &check, pg.as_ref())
        );
        if let (Some((j0, s0)), Some((j1, s1))) = (counted_before, counted_after) {
            if j1 > j0 {
                let what = if plan.writers > 0 {
                    " (the writers' statements included)"
                } else {
                    ""
                };
                println!(
                    "SQL statements per judgment: {:.1} ({} statements, {} judgments{what})",
                    (s1 - s0) as f64 / (j1 - j0) as f64,
                    s1 - s0,
                    j1 - j0
                );
            }
        }
        if !check.holds() {
            std::process::exit(1);
        }
        anyhow::Ok(())
    })
}

/// `url` for pgbench, speaking to PostgreSQL as the server does. The server's sqlx is built
/// without TLS, so it talks plain TCP even where PostgreSQL offers TLS (Debian's default config
/// does, with a self-signed certificate); pgbench's libpq would take TLS there (`sslmode=prefer`)
/// and pay for encryption the server never does, which on loopback made the reference ~20%
/// slower and every judgment's share that much larger. A URL that names its `sslmode` keeps it.
fn same_transport_as_the_server(url: &str) -> String {
    if url.contains("sslmode=") {
        url.to_owned()
    } else if url.contains('?') {
        format!("{url}&sslmode=disable")
    } else {
        format!("{url}?sslmode=disable")
    }
}

/// Single-row inserts into a scratch table of the same database, as fast as pgbench can.
fn pgbench(database_url: &str, clients: u32, seconds: u32) -> anyhow::Result<Pgbench> {
    // PostgreSQL's client programs: PG_BIN_DIR (scripts/bench-load.sh sets it), else the PATH.
    let bin = std::env::var_os("PG_BIN_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let dir = tempfile_dir()?;
    let script = dir.join("insert.sql");
    std::fs::write(
        &script,
        "\\set pair random(1, 1000000)\n\\set worker random(1, 200)\n\
         insert into load_pgbench_judgment (pair, worker, is_paraphrase) values (:pair, :worker, :pair % 2 = 0);\n",
    )?;
    let psql = |sql: &str| -> anyhow::Result<()> {
        let out = Command::new(bin.join("psql"))
            .args(["-q", database_url, "-c", sql])
            .output()?;
        if !out.status.success() {
            bail!("psql: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(())
    };
    psql("drop table if exists load_pgbench_judgment; create table load_pgbench_judgment (id bigserial primary key, pair int not null, worker int not null, is_paraphrase boolean not null, created_at timestamptz not null default now())")?;
    let out = Command::new(bin.join("pgbench"))
        .args([
            "-n",
            "-c",
            &clients.to_string(),
            "-j",
            "2",
            "-T",
            &seconds.to_string(),
            "-f",
            script.to_str().context("a UTF-8 path")?,
            &same_transport_as_the_server(database_url),
        ])
        .output()
        .context("cannot run pgbench")?;
    psql("drop table if exists load_pgbench_judgment")?;
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "pgbench failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tps = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("tps = "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("no tps in pgbench's output: {text}"))?;
    Ok(Pgbench {
        clients,
        seconds,
        tps,
    })
}

fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("paracrowd-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::same_transport_as_the_server as plain;

    #[test]
    fn pgbench_speaks_plain_tcp_like_the_server_unless_the_url_says_otherwise() {
        assert_eq!(
            plain("postgres://u@127.0.0.1:5432/db"),
            "postgres://u@127.0.0.1:5432/db?sslmode=disable"
        );
        assert_eq!(
            plain("postgres://u@h/db?application_name=x"),
            "postgres://u@h/db?application_name=x&sslmode=disable"
        );
        assert_eq!(
            plain("postgres://u@h/db?sslmode=require"),
            "postgres://u@h/db?sslmode=require"
        );
    }
}
