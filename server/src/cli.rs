//! The command line: `serve` (default), `create-admin`, `migrate`, `help`.
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;

use anyhow::{bail, Context};

use app::domain::CampaignId;

use crate::admin_bootstrap;
use crate::config::{Config, ENV_HELP};
use crate::embedded_pg::EmbeddedPostgres;
use crate::startup;

const USAGE: &str = "\
paracrowd — crowdsourced paraphrase datasets

Usage:
  paracrowd [serve]                        start the web server (creates the first admin if none)
  paracrowd serve --role web|jobs|both     the same, doing only pages (web), only mining runs
                                           and follow-ups (jobs), or both; overrides PARACROWD_ROLE
  paracrowd create-admin USERNAME          create an admin, or reset one; reads the password from
                                           stdin, or generates and prints one if stdin is a terminal
  paracrowd migrate                        run the database migrations and exit
  paracrowd import-sources CAMPAIGN FILE [ORIGIN]
                                           import APT source sentences (MSRP, CSV/TSV with `text`,
                                           JSONL); ORIGIN for rows without one (default: upload)
  paracrowd import-pairs CAMPAIGN FILE [--tests]
                                           import sentence pairs into a judging campaign (CSV/TSV/
                                           JSONL with sentence1, sentence2, optional group, label,
                                           explanation); --tests makes labeled rows test pairs
  paracrowd import-corpus NAME FILE SHAPE [--cluster COL] [--id COL] [--text COL[,COL]] [--keep-headings]
                                           import a corpus to mine: SHAPE is documents (clustered
                                           documents, split into sentences), grouped (short texts
                                           with a group key) or sentences (one a line)
  paracrowd export CAMPAIGN OUTPUT [KEY=VALUE ...]
                                           write a campaign's dataset to OUTPUT (- for stdout),
                                           with the download page's options, e.g. rows=judgments
                                           format=jsonl split=train labels=dawid_skene seed=7;
                                           progress on stderr
  paracrowd score INPUT [OUTPUT]           score sentence pairs (TSV/CSV) with the MI and BLEURT
                                           models; writes a TSV (stdout without OUTPUT)
  paracrowd models [status]                which scorer the Check would use, and why
  paracrowd models install paper [--force] [--nli REPO|DIR] [--bleurt REPO|DIR] [--timeout SECONDS]
                                           download the APT paper's models from the Hugging Face
                                           hub (about 1.9 GB), export them to ONNX, write and check
                                           an int8 copy, into ~/.cache/paracrowd/models/paper
  paracrowd precompress DIR                write brotli and gzip copies of DIR's scripts, WebAssembly
                                           and stylesheets (scripts/build.sh runs it on the site)
  paracrowd help                           this text
";

pub async fn run(args: Vec<String>) -> anyhow::Result<()> {
    if let [command, dir] = args.as_slice() {
        if command == "precompress" {
            return crate::precompress::run(std::path::Path::new(dir));
        }
    }
    let config = Config::from_env()?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] | ["serve"] => serve(config).await,
        ["serve", "--role", role] => {
            let role = crate::config::Role::parse(role)?;
            serve(Config { role, ..config }).await
        }
        ["create-admin", username] => create_admin(config, username).await,
        ["migrate"] => with_database(&config, |_| async { Ok(()) }).await,
        ["import-sources", campaign, file, rest @ ..] if rest.len() <= 1 => {
            let origin = rest.first().copied().unwrap_or("").to_owned();
            import_sources(config, campaign, file, &origin).await
        }
        ["import-pairs", campaign, file, rest @ ..] if rest.is_empty() || rest == ["--tests"] => {
            import_pairs(config, campaign, file, !rest.is_empty()).await
        }
        ["import-corpus", name, file, shape, rest @ ..] => {
            import_corpus(config, name, file, shape, rest).await
        }
        ["export", campaign, output, options @ ..] => {
            export(config, campaign, output, options).await
        }
        ["score", input, rest @ ..] if rest.len() <= 1 => {
            let ml = crate::ml::MlConfig::from_env()?;
            let (input, output) = (PathBuf::from(input), rest.first().map(PathBuf::from));
            match crate::ml::remote::ScorerBackend::from_env()? {
                crate::ml::remote::ScorerBackend::Local => {
                    tokio::task::spawn_blocking(move || {
                        crate::score_cmd::run(&ml, &input, output.as_deref())
                    })
                    .await?
                }
                // Where `serve` would score Checks, checked as `serve` checks it.
                crate::ml::remote::ScorerBackend::Remote(remote) => {
                    let max_batch = ml.max_batch;
                    let engine =
                        tokio::task::spawn_blocking(move || crate::ml::ScoringEngine::start(&ml))
                            .await?
                            .context("the scoring models could not be loaded")?;
                    for line in engine.resolution().lines() {
                        eprintln!("{line}");
                    }
                    let say = |line: &str| eprintln!("{line}");
                    let scorer =
                        crate::ml::remote::startup::scorer_saying(&remote, engine, &say).await?;
                    crate::score_cmd::run_with(scorer, max_batch, &input, output.as_deref()).await
                }
            }
        }
        ["models"] | ["models", "status"] => {
            let ml = crate::ml::MlConfig::from_env()?;
            tokio::task::spawn_blocking(move || crate::models_cmd::status(&ml)).await?
        }
        ["models", "install", "paper", options @ ..] => {
            let ml = crate::ml::MlConfig::from_env()?;
            let options: Vec<String> = options.iter().map(|s| s.to_string()).collect();
            tokio::task::spawn_blocking(move || crate::models_cmd::install_paper(ml, &options))
                .await?
        }
        ["help"] | ["--help"] | ["-h"] => {
            println!("{USAGE}\n{ENV_HELP}");
            Ok(())
        }
        _ => bail!("unknown command {:?}\n\n{USAGE}", args.join(" ")),
    }
}

/// Runs `f` with a migrated pool: on `DATABASE_URL`, or on the embedded cluster, which is
/// stopped afterwards whatever `f` returned.
async fn with_database<F, Fut>(config: &Config, f: F) -> anyhow::Result<()>
where
    F: FnOnce(sqlx::PgPool) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let (url, embedded) = database(config).await?;
    let result = async {
        let pool = startup::connect_and_migrate(&url, config.max_db_connections).await?;
        let r = f(pool.clone()).await;
        pool.close().await;
        r
    }
    .await;
    if let Some(pg) = embedded {
        tokio::task::spawn_blocking(move || pg.stop()).await??;
    }
    result
}

/// The database URL, starting the embedded cluster when `DATABASE_URL` is unset.
async fn database(config: &Config) -> anyhow::Result<(String, Option<EmbeddedPostgres>)> {
    check_replica(config)?;
    match &config.database_url {
        Some(url) => Ok((url.clone(), None)),
        None => {
            let dir = config.data_dir.clone();
            let pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(&dir)).await??;
            if let Err(e) = startup::create_database_if_missing(&pg).await {
                let _ = pg.stop();
                return Err(e);
            }
            Ok((pg.database_url(), Some(pg)))
        }
    }
}

/// A replica (`PARACROWD_REPLICA`) never starts a PostgreSQL of its own.
fn check_replica(config: &Config) -> anyhow::Result<()> {
    if config.replica && config.database_url.is_none() {
        bail!(
            "PARACROWD_REPLICA is set, so this server is one of several: it needs DATABASE_URL, \
             the PostgreSQL they share (an embedded PostgreSQL would be this server's alone)"
        );
    }
    Ok(())
}

async fn serve(config: Config) -> anyhow::Result<()> {
    // Before the models load: a misconfigured replica stops at once.
    check_replica(&config)?;
    let addr = config.addr;
    // Models first: a missing library or model stops start-up before anything else runs.
    let ml = crate::ml::MlConfig::from_env()?;
    let backend = crate::ml::remote::ScorerBackend::from_env()?;
    let local_embedder: std::sync::Arc<dyn app::ml::SentenceEmbedder> = std::sync::Arc::new(
        crate::ml::embedder::LazyEmbedder::new(crate::ml::embedder::default_dir(), ml.clone()),
    );
    let engine = tokio::task::spawn_blocking(move || crate::ml::ScoringEngine::start(&ml))
        .await?
        .context("the scoring models could not be loaded")?;
    for line in engine.resolution().lines() {
        println!("{line}");
    }
    let (scorer, embedder): (
        std::sync::Arc<dyn app::ml::PairScorer>,
        std::sync::Arc<dyn app::ml::SentenceEmbedder>,
    ) = match backend {
        crate::ml::remote::ScorerBackend::Local => (std::sync::Arc::new(engine), local_embedder),
        crate::ml::remote::ScorerBackend::Remote(remote) => {
            let scorer = crate::ml::remote::startup::scorer(&remote, engine).await?;
            let embedder = crate::ml::remote::startup::embedder(&remote, local_embedder).await?;
            (scorer, embedder)
        }
    };
    with_database(&config.clone(), |pool| async move {
        // Replicas starting together create one first admin.
        let first = startup::one_at_a_time(&pool, "first-admin", async {
            admin_bootstrap::ensure_first_admin(&pool).await
        })
        .await?;
        if let Some((user, password)) = first {
            println!(
                "\n  First start: created the admin account.\n    username: {user}\n    password: {password}\n  \
                 This password is shown only once. Change it with `paracrowd create-admin {user}`.\n"
            );
        } else {
            println!(
                "Log in with your admin account. Lost its password? Run `paracrowd create-admin NAME` to reset it."
            );
        }
        let router = startup::build_router(&config, pool, scorer, embedder).await?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr} (set PARACROWD_ADDR)"))?;
        let local = listener.local_addr()?;
        println!("paracrowd is running at http://{local}  (Ctrl-C to stop)");
        startup::serve(listener, router, &config, startup::shutdown_signal()).await
    })
    .await
}

async fn create_admin(config: Config, username: &str) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let (password, generated) = if stdin.is_terminal() {
        (admin_bootstrap::generate_password(), true)
    } else {
        let mut line = String::new();
        stdin
            .lock()
            .read_line(&mut line)
            .context("cannot read the password from stdin")?;
        let line = line.trim_end_matches(['\r', '\n']).to_owned();
        if line.is_empty() {
            (admin_bootstrap::generate_password(), true)
        } else {
            (line, false)
        }
    };
    let name = username.to_owned();
    with_database(&config, |pool| {
        let password = password.clone();
        async move { admin_bootstrap::create_or_reset_admin(&pool, &name, &password).await }
    })
    .await?;
    if generated {
        println!("admin {username} is ready; password: {password}");
    } else {
        println!("admin {username} is ready");
    }
    Ok(())
}

async fn import_sources(
    config: Config,
    campaign: &str,
    file: &str,
    origin: &str,
) -> anyhow::Result<()> {
    let campaign_id: CampaignId = campaign.parse().context("CAMPAIGN must be a campaign id")?;
    let (name, content) = read_text_file(file)?;
    let origin = origin.to_owned();
    with_database(&config, |pool| async move {
        match app::db::campaigns::find(&pool, campaign_id)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?
        {
            Some(c) if c.kind == app::domain::CampaignKind::Apt => {}
            Some(_) => bail!("campaign {campaign_id} is not an APT campaign"),
            None => bail!("no campaign {campaign_id}"),
        }
        let summary = app::service::imports::sources(&pool, campaign_id, &name, &content, &origin)
            .await
            .map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        println!(
            "imported {} sentences ({} duplicates in the file, {} already in the campaign)",
            summary.imported, summary.duplicates_in_file, summary.already_in_campaign
        );
        Ok(())
    })
    .await
}

/// A file's name and its text (UTF-8 required).
fn read_text_file(file: &str) -> anyhow::Result<(String, String)> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {file}"))?;
    let content = String::from_utf8(bytes).with_context(|| format!("{file} is not UTF-8 text"))?;
    let name = std::path::Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((name, content))
}

async fn import_pairs(
    config: Config,
    campaign: &str,
    file: &str,
    labels_are_tests: bool,
) -> anyhow::Result<()> {
    let campaign_id: CampaignId = campaign.parse().context("CAMPAIGN must be a campaign id")?;
    let (name, content) = read_text_file(file)?;
    with_database(&config, |pool| async move {
        let err = |e: app::error::AppError| anyhow::anyhow!("{e}");
        match app::db::campaigns::find(&pool, campaign_id).await.map_err(err)? {
            Some(c) if c.kind == app::domain::CampaignKind::Judge => {}
            Some(_) => bail!("campaign {campaign_id} is not a judging campaign"),
            None => bail!("no campaign {campaign_id}"),
        }
        let settings = app::db::judge::settings(&pool, campaign_id)
            .await
            .map_err(err)?
            .context("the campaign has no judging settings")?;
        let summary = app::service::imports::judge_pairs(
            &pool,
            campaign_id,
            &settings,
            &name,
            &content,
            labels_are_tests,
        )
        .await
        .map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        println!(
            "imported {} pairs ({} test pairs in the file, {} duplicates in the file, {} already in the campaign; explanations added or replaced on {} test pairs already in it)",
            summary.imported, summary.tests_in_file, summary.duplicates_in_file, summary.already_in_campaign,
            summary.explanations_updated
        );
        Ok(())
    })
    .await
}

async fn import_corpus(
    config: Config,
    name: &str,
    file: &str,
    shape: &str,
    options: &[&str],
) -> anyhow::Result<()> {
    let mut columns = app::domain::mining::corpus::Columns::default();
    let mut keep_headings = false;
    let mut rest = options.iter();
    while let Some(option) = rest.next() {
        let mut value = || {
            rest.next()
                .copied()
                .context(format!("{option} needs a column name"))
        };
        match *option {
            "--cluster" => columns.cluster = value()?.to_owned(),
            "--id" => columns.id = value()?.to_owned(),
            "--text" => columns.text = value()?.to_owned(),
            "--keep-headings" => keep_headings = true,
            other => bail!("unknown option {other:?}\n\n{USAGE}"),
        }
    }
    let (filename, content) = read_text_file(file)?;
    let (name, shape) = (name.to_owned(), shape.to_owned());
    with_database(&config, |pool| async move {
        let c = app::service::imports::corpus(
            &pool,
            None,
            &name,
            &filename,
            &content,
            &shape,
            &columns,
            !keep_headings,
        )
        .await
        .map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        println!(
            "imported corpus {} ({}): {} clusters, {} documents, {} sentences",
            c.corpus_id, c.name, c.clusters, c.documents, c.sentences
        );
        Ok(())
    })
    .await
}

/// `paracrowd export`: see `export_cmd`.
async fn export(
    config: Config,
    campaign: &str,
    output: &str,
    options: &[&str],
) -> anyhow::Result<()> {
    let campaign_id: CampaignId = campaign.parse().context("CAMPAIGN must be a campaign id")?;
    let query = crate::export_cmd::parse_options(options)?;
    let output = output.to_owned();
    with_database(&config, |pool| async move {
        crate::export_cmd::write(&pool, campaign_id, &query, &output, true).await?;
        Ok(())
    })
    .await
}
