//! The command line, parsed by clap: `serve` (the default), `create-admin`, `migrate`, the
//! imports, `export`, `score`, `models`, `replay`, `precompress`, and `help` for all of them.
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};

use app::domain::CampaignId;

use crate::admin_bootstrap;
use crate::config::{Config, Role, ENV_HELP};
use crate::embedded_pg::EmbeddedPostgres;
use crate::ml::paper::install::InstallOptions;
use crate::startup;

/// `paracrowd`: every command and its arguments; `paracrowd help` (or `--help`) prints them with
/// the environment settings ([`ENV_HELP`]).
#[derive(Debug, Parser)]
#[command(
    name = "paracrowd",
    about = "paracrowd — crowdsourced paraphrase datasets",
    after_help = ENV_HELP,
    disable_version_flag = true
)]
pub struct Cli {
    /// What to do (default: serve).
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the web server (creates the first admin if none)
    Serve {
        /// Do only pages (web), only mining runs and follow-ups (jobs), or both; overrides
        /// PARACROWD_ROLE
        #[arg(long, value_parser = Role::parse)]
        role: Option<Role>,
    },
    /// Create an admin, or reset one's password: read from stdin, or generated and printed when
    /// stdin is a terminal
    CreateAdmin { username: String },
    /// Run the database migrations and exit
    Migrate,
    /// Import an APT campaign's source sentences (MSRP, CSV/TSV with `text`, JSONL)
    ImportSources {
        #[arg(value_parser = campaign_id)]
        campaign: CampaignId,
        file: PathBuf,
        /// The origin of rows without one (default: `msrp` for MSRP's own files, else `upload`,
        /// as the campaign page's upload)
        origin: Option<String>,
    },
    /// Import sentence pairs into a judging campaign (CSV/TSV/JSONL with sentence1, sentence2,
    /// optional group, label, explanation)
    ImportPairs {
        #[arg(value_parser = campaign_id)]
        campaign: CampaignId,
        file: PathBuf,
        /// Labeled rows become hidden test pairs
        #[arg(long)]
        tests: bool,
    },
    /// Import a corpus to mine
    ImportCorpus {
        name: String,
        file: PathBuf,
        /// documents (clustered documents, split into sentences), grouped (short texts with a
        /// group key) or sentences (one a line)
        #[arg(value_parser = ["documents", "grouped", "sentences"])]
        shape: String,
        /// The column naming each text's cluster
        #[arg(long, value_name = "COL")]
        cluster: Option<String>,
        /// The column with each text's id
        #[arg(long, value_name = "COL")]
        id: Option<String>,
        /// The text column(s), comma-separated
        #[arg(long, value_name = "COL[,COL]")]
        text: Option<String>,
        /// Keep lines that look like headings (dropped by default)
        #[arg(long)]
        keep_headings: bool,
    },
    /// Write a campaign's dataset to OUTPUT (- for stdout) with the download page's options,
    /// e.g. rows=judgments format=jsonl split=train labels=dawid_skene seed=7; progress on stderr
    Export {
        #[arg(value_parser = campaign_id)]
        campaign: CampaignId,
        output: String,
        #[arg(value_name = "KEY=VALUE")]
        options: Vec<String>,
    },
    /// Score sentence pairs (TSV/CSV) with the MI and BLEURT models, where `serve` would score
    /// Checks; writes a TSV (stdout without OUTPUT)
    Score {
        input: PathBuf,
        output: Option<PathBuf>,
    },
    /// Which scorer the Check would use, and why; install the APT paper's models
    Models {
        #[command(subcommand)]
        command: Option<ModelsCommand>,
    },
    /// Replay a past study's labels through the gate and adaptive redundancy, to choose settings
    /// before paying for a study: LABELS is tab-separated with a header and the columns item,
    /// worker, label and optionally gold, one row per judgment in arrival order; prints one
    /// JSON line (docs/replay.md)
    Replay {
        labels: PathBuf,
        /// Every Nth item with a gold label is a hidden test pair (1: every one; 0: none)
        #[arg(long, default_value_t = 5, value_name = "N")]
        test_every: u32,
        /// Judgments every item gets before it can settle
        #[arg(long, default_value_t = 3)]
        min: u32,
        /// Judgments an item gets at most (min = max: fixed redundancy)
        #[arg(long, default_value_t = 6)]
        max: u32,
        /// The posterior of the leading label at which an item settles
        #[arg(long, default_value_t = 0.95)]
        confidence: f64,
        /// How labels are made
        #[arg(long, default_value = "posterior", value_parser = app::domain::judge::replay::Aggregator::NAMES)]
        aggregator: String,
        /// How votes are weighed when an item settles: by each worker's estimated accuracy (as
        /// live), or counted alike (the count-only rule, to compare with)
        #[arg(long, default_value = "accuracy", value_parser = app::domain::judge::replay::Weighting::NAMES)]
        weighting: String,
        /// The gate rule, or off
        #[arg(long, default_value = "confidence", value_parser = ["confidence", "evidence", "paper", "off"])]
        gate: String,
        /// The gate applies from this many judgments on
        #[arg(long, value_name = "N")]
        gate_from: Option<u32>,
        /// The accuracy minimum (MultiPIT: 0.85)
        #[arg(long)]
        min_accuracy: Option<f64>,
        /// The kappa minimum of the paper rule (MultiPIT: 0.2)
        #[arg(long)]
        min_kappa: Option<f64>,
        /// The confidence rule's error level
        #[arg(long)]
        alpha: Option<f64>,
        /// The confidence rule tests the accuracy minimum against the minimum minus this
        #[arg(long, value_name = "D")]
        worse_by: Option<f64>,
    },
    /// Write brotli and gzip copies of DIR's scripts, WebAssembly and stylesheets
    /// (scripts/build.sh runs it on the site)
    Precompress { dir: PathBuf },
}

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Which scorer the Check would use, and why (the default)
    Status,
    /// Download the APT paper's models from the Hugging Face hub (about 1.9 GB), export them to
    /// ONNX, write and check an int8 copy, into ~/.cache/paracrowd/models/paper
    Install {
        #[arg(value_parser = ["paper"])]
        which: String,
        /// Install again over a complete installation
        #[arg(long)]
        force: bool,
        /// The MI judge: a hub repository or a local directory
        #[arg(long, value_name = "REPO|DIR")]
        nli: Option<String>,
        /// BLEURT: a hub repository or a local directory
        #[arg(long, value_name = "REPO|DIR")]
        bleurt: Option<String>,
        /// Give up on a hub request after this long
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<u64>,
    },
}

/// A campaign id as the command line takes it, with a refusal that says where to find one.
fn campaign_id(raw: &str) -> Result<CampaignId, String> {
    raw.parse().map_err(|_| {
        format!(
            "{raw:?} is not a campaign id: the campaign's page shows it in its address \
             (/admin/campaigns/<id>)"
        )
    })
}

impl Cli {
    /// Whether the command only talks about the models (logging is then kept to warnings).
    pub fn is_models(&self) -> bool {
        matches!(self.command, Some(Command::Models { .. }))
    }
}

pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let command = cli.command.unwrap_or(Command::Serve { role: None });
    if let Command::Precompress { dir } = &command {
        return crate::precompress::run(dir);
    }
    if let Command::Replay { .. } = &command {
        return replay(command);
    }
    let config = Config::from_env()?;
    match command {
        Command::Serve { role } => {
            let role = role.unwrap_or(config.role);
            serve(Config { role, ..config }).await
        }
        Command::CreateAdmin { username } => create_admin(config, &username).await,
        Command::Migrate => with_database(&config, |_| async { Ok(()) }).await,
        Command::ImportSources {
            campaign,
            file,
            origin,
        } => import_sources(config, campaign, &file, origin.as_deref().unwrap_or("")).await,
        Command::ImportPairs {
            campaign,
            file,
            tests,
        } => import_pairs(config, campaign, &file, tests).await,
        Command::ImportCorpus {
            name,
            file,
            shape,
            cluster,
            id,
            text,
            keep_headings,
        } => {
            let columns = app::domain::mining::corpus::Columns {
                cluster: cluster.unwrap_or_default(),
                id: id.unwrap_or_default(),
                text: text.unwrap_or_default(),
                ..Default::default()
            };
            import_corpus(config, &name, &file, &shape, columns, keep_headings).await
        }
        Command::Export {
            campaign,
            output,
            options,
        } => export(config, campaign, output, &options).await,
        Command::Score { input, output } => score(input, output).await,
        Command::Models { command } => {
            let ml = crate::ml::MlConfig::from_env()?;
            match command.unwrap_or(ModelsCommand::Status) {
                ModelsCommand::Status => {
                    tokio::task::spawn_blocking(move || crate::models_cmd::status(&ml)).await?
                }
                ModelsCommand::Install {
                    which: _,
                    force,
                    nli,
                    bleurt,
                    timeout,
                } => {
                    let mut options = InstallOptions::paper(ml);
                    options.force = force;
                    options.nli = nli.unwrap_or(options.nli);
                    options.bleurt = bleurt.unwrap_or(options.bleurt);
                    if let Some(seconds) = timeout {
                        options.hub_timeout = Duration::from_secs(seconds);
                    }
                    tokio::task::spawn_blocking(move || crate::models_cmd::install_paper(options))
                        .await?
                }
            }
        }
        Command::Precompress { .. } | Command::Replay { .. } => {
            unreachable!("handled before the configuration is read")
        }
    }
}

/// `paracrowd replay`: reads the labels, replays them under the settings given, prints the
/// summary as one JSON line. Needs neither the database nor the models.
fn replay(command: Command) -> anyhow::Result<()> {
    use app::domain::judge::replay::{self, Aggregator, Options, Weighting};
    use app::domain::judge::settings::{GateRule, JudgeSettings};
    use app::domain::judge::settle::Redundancy;
    let Command::Replay {
        labels,
        test_every,
        min,
        max,
        confidence,
        aggregator,
        weighting,
        gate,
        gate_from,
        min_accuracy,
        min_kappa,
        alpha,
        worse_by,
    } = command
    else {
        unreachable!("called for replay only")
    };
    let defaults = JudgeSettings::default();
    let settings = JudgeSettings {
        test_every,
        gate_rule: GateRule::parse(&gate).unwrap_or(defaults.gate_rule),
        gate_min_judgments: gate_from.unwrap_or(defaults.gate_min_judgments),
        min_test_accuracy: min_accuracy.unwrap_or(defaults.min_test_accuracy),
        min_kappa: min_kappa.unwrap_or(defaults.min_kappa),
        gate_alpha: alpha.unwrap_or(defaults.gate_alpha),
        gate_worse_by: worse_by.unwrap_or(defaults.gate_worse_by),
        ..defaults
    };
    // In a replay `--test-every 1` makes every gold item a test pair (a file whose gold column
    // marks only its check items); a live campaign refuses 1, so that part is checked here.
    if test_every > 100 {
        bail!("--test-every: every Nth gold item is a test pair: N is 1 to 100, or 0 for none.");
    }
    let live = JudgeSettings {
        test_every: 0,
        // With the gate off no rule tests the minimum: its settings are checked as the paper
        // rule's (the confidence rule's worse level is not asked to lie below it).
        gate_rule: if gate == "off" {
            GateRule::Paper
        } else {
            settings.gate_rule
        },
        ..settings
    };
    live.check().map_err(|e| {
        let flag = match e.field {
            "min_test_accuracy" => "min-accuracy",
            "gate_alpha" => "alpha",
            "gate_worse_by" => "worse-by",
            "gate_min_judgments" => "gate-from",
            other => other,
        };
        anyhow::anyhow!("--{}: {}", flag.replace('_', "-"), e.message)
    })?;
    let redundancy = Redundancy {
        min,
        max,
        confidence,
    };
    redundancy.check().map_err(anyhow::Error::msg)?;
    let options = Options {
        settings,
        gate: gate != "off",
        redundancy,
        aggregator: Aggregator::parse(&aggregator).context("an aggregator clap accepted")?,
        weighting: Weighting::parse(&weighting).context("a weighting clap accepted")?,
    };
    let text =
        std::fs::read(&labels).with_context(|| format!("{} cannot be read", labels.display()))?;
    let text = String::from_utf8(text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not UTF-8 text (byte {})",
            labels.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let rows = replay::read_rows(&text).with_context(|| format!("{}", labels.display()))?;
    let summary = replay::replay(&rows, &options);
    println!("{}", serde_json::to_string(&summary)?);
    Ok(())
}

/// `paracrowd score`: where `serve` would score Checks, checked as `serve` checks it.
async fn score(input: PathBuf, output: Option<PathBuf>) -> anyhow::Result<()> {
    let ml = crate::ml::MlConfig::from_env()?;
    match crate::ml::remote::ScorerBackend::from_env()? {
        crate::ml::remote::ScorerBackend::Local => {
            tokio::task::spawn_blocking(move || {
                crate::score_cmd::run(&ml, &input, output.as_deref())
            })
            .await?
        }
        crate::ml::remote::ScorerBackend::Remote(remote) => {
            let max_batch = ml.max_batch;
            let engine = tokio::task::spawn_blocking(move || crate::ml::ScoringEngine::start(&ml))
                .await?
                .context("the scoring models could not be loaded")?;
            for line in engine.resolution().lines() {
                eprintln!("{line}");
            }
            let say = |line: &str| eprintln!("{line}");
            let scorer = crate::ml::remote::startup::scorer_saying(&remote, engine, &say).await?;
            crate::score_cmd::run_with(scorer, max_batch, &input, output.as_deref()).await
        }
    }
}

/// Runs `f` with a migrated pool: on `DATABASE_URL`, or on the embedded cluster, which is
/// stopped afterwards whatever `f` returned if this process owns it (`embedded_pg`).
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
    campaign_id: CampaignId,
    file: &Path,
    origin: &str,
) -> anyhow::Result<()> {
    let (name, content) = read_text_file(file)?;
    let file = file.display();
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
fn read_text_file(file: &Path) -> anyhow::Result<(String, String)> {
    let shown = file.display();
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {shown}"))?;
    let content = String::from_utf8(bytes).with_context(|| format!("{shown} is not UTF-8 text"))?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((name, content))
}

async fn import_pairs(
    config: Config,
    campaign_id: CampaignId,
    file: &Path,
    labels_are_tests: bool,
) -> anyhow::Result<()> {
    let (name, content) = read_text_file(file)?;
    let file = file.display();
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
    file: &Path,
    shape: &str,
    columns: app::domain::mining::corpus::Columns,
    keep_headings: bool,
) -> anyhow::Result<()> {
    let (filename, content) = read_text_file(file)?;
    let file = file.display();
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
    campaign_id: CampaignId,
    output: String,
    options: &[String],
) -> anyhow::Result<()> {
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    let query = crate::export_cmd::parse_options(&options)?;
    with_database(&config, |pool| async move {
        crate::export_cmd::write(&pool, campaign_id, &query, &output, true).await?;
        Ok(())
    })
    .await
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::{Cli, Command, ModelsCommand};

    /// The variables `docs/configuration.md`'s table names, in backquotes in its first column.
    fn documented_variables() -> Vec<String> {
        let doc = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/configuration.md"),
        )
        .expect("docs/configuration.md");
        let mut names = Vec::new();
        for row in doc.lines().filter(|l| l.starts_with("| `")) {
            let first = row.split('|').nth(1).unwrap_or_default();
            for quoted in first.split('`').skip(1).step_by(2) {
                let name = quoted.split('=').next().unwrap_or_default();
                if name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                    names.push(name.to_owned());
                }
            }
        }
        names
    }

    #[test]
    fn help_names_every_setting_of_the_configuration_table() {
        let help = Cli::command().render_long_help().to_string();
        let names = documented_variables();
        assert!(
            names.len() > 40,
            "read {} names from the table",
            names.len()
        );
        let missing: Vec<&String> = names
            .iter()
            .filter(|n| !help.contains(n.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "`paracrowd help` does not name {missing:?}"
        );
    }

    #[test]
    fn the_commands_parse_as_the_docs_write_them() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("paracrowd").chain(args.iter().copied()))
        };
        assert!(parse(&[]).unwrap().command.is_none());
        let id = "0b9f2f53-4f0c-4d8e-9b5a-2f1c3d4e5f60";
        match parse(&["import-pairs", id, "pairs.tsv", "--tests"])
            .unwrap()
            .command
        {
            Some(Command::ImportPairs {
                campaign, tests, ..
            }) => {
                assert_eq!(campaign.to_string(), id);
                assert!(tests);
            }
            other => panic!("{other:?}"),
        }
        match parse(&["models", "install", "paper", "--timeout", "30"])
            .unwrap()
            .command
        {
            Some(Command::Models {
                command: Some(ModelsCommand::Install { timeout, force, .. }),
            }) => assert_eq!((timeout, force), (Some(30), false)),
            other => panic!("{other:?}"),
        }
        match parse(&["serve", "--role", "jobs"]).unwrap().command {
            Some(Command::Serve { role }) => assert_eq!(role, Some(super::Role::Jobs)),
            other => panic!("{other:?}"),
        }
        // Refused with the reason: a campaign that is not an id, a shape that is not one, a role.
        let refused = |args: &[&str]| parse(args).unwrap_err().to_string();
        assert!(
            refused(&["import-pairs", "seven", "p.tsv"]).contains("\"seven\" is not a campaign id")
        );
        assert!(refused(&["import-corpus", "n", "f", "paragraphs"]).contains("documents"));
        assert!(refused(&["serve", "--role", "all"]).contains("web, jobs or both"));
        assert!(refused(&["export", id]).contains("OUTPUT"));
    }
}
