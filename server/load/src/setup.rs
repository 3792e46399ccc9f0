//! Prepares a load run through the real API: an admin (created in the database, then logged in
//! over HTTP), a judging campaign of synthetic pairs (no test pairs and a gate that never stops
//! anyone: the workers answer at random), an APT campaign of synthetic sentences with a cap no
//! worker reaches, and one registered account with its own cookie jar per simulated worker.
use std::time::Duration;

use anyhow::{bail, Context};
use futures::{stream, StreamExt, TryStreamExt};
use sqlx::PgPool;

/// What the workers need.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The admin's logged-in client.
    pub admin: reqwest::Client,
    pub judge_campaign: String,
    pub apt_campaign: String,
    pub judges: Vec<reqwest::Client>,
    pub writers: Vec<reqwest::Client>,
}

/// Sizes and settings of the campaigns.
#[derive(Debug, Clone)]
pub struct Plan {
    pub judges: usize,
    pub writers: usize,
    pub pairs: usize,
    pub sources: usize,
    /// Hidden test pairs (with one in every 5 pairs served as a test); 0: none.
    pub test_pairs: usize,
    /// Judging leases (30 s at least; the crash test waits for them to run out).
    pub lease_seconds: u32,
}

const SUBJECTS: [&str; 10] = [
    "The committee",
    "Our neighbour",
    "The city council",
    "A young engineer",
    "The company",
    "The old teacher",
    "Her brother",
    "The hospital",
    "A local farmer",
    "The minister",
];
const VERBS: [&str; 10] = [
    "approved",
    "rejected",
    "discussed",
    "announced",
    "delayed",
    "praised",
    "questioned",
    "funded",
    "described",
    "reviewed",
];
const OBJECTS: [&str; 10] = [
    "the new budget",
    "a bridge project",
    "the school plan",
    "the annual report",
    "a rail line",
    "the water tax",
    "the housing bill",
    "a solar farm",
    "the park design",
    "the election rules",
];
const TIMES: [&str; 10] = [
    "on Tuesday",
    "last week",
    "after a long debate",
    "before the holidays",
    "in March",
    "this morning",
    "without a vote",
    "at the meeting",
    "in a short statement",
    "late at night",
];
const PLACES: [&str; 10] = [
    "in Leeds",
    "in Porto",
    "in Lyon",
    "in Graz",
    "in Turku",
    "in Cork",
    "in Bergen",
    "in Utrecht",
    "in Ghent",
    "in Kraków",
];

/// The `i`-th of 100,000 distinct synthetic sentences.
pub fn sentence(i: usize) -> String {
    let d = |k: u32| (i / 10usize.pow(k)) % 10;
    format!(
        "{} {} {} {} {}.",
        SUBJECTS[d(0)],
        VERBS[d(1)],
        OBJECTS[d(2)],
        PLACES[d(4)],
        TIMES[d(3)]
    )
}

fn client() -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(Duration::from_secs(90))
        .build()?)
}

/// Posts a server function and returns its JSON answer, or the error it gave.
pub(crate) async fn call(
    c: &reqwest::Client,
    base: &str,
    name: &str,
    form: &[(&str, &str)],
) -> anyhow::Result<serde_json::Value> {
    let resp = c
        .post(format!("{base}/api/{name}"))
        .header("accept", "application/json")
        .form(form)
        .send()
        .await
        .with_context(|| format!("{name}: no answer"))?;
    let status = resp.status();
    let body = resp.text().await?;
    if !status.is_success() {
        bail!("{name}: {status} {body}");
    }
    Ok(serde_json::from_str(&body).unwrap_or(serde_json::Value::Null))
}

pub async fn prepare(base: &str, pool: &PgPool, plan: &Plan) -> anyhow::Result<Prepared> {
    if plan.pairs > 100_000 || plan.sources > 100_000 {
        bail!("at most 100,000 pairs and sources");
    }
    let tag = &uuid::Uuid::new_v4().simple().to_string()[..6];
    let admin_name = format!("load_admin_{tag}");
    // Two random UUIDs' hex digits: 64 characters, 244 random bits.
    let password = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    app::service::accounts::create_or_reset_admin(pool, &admin_name, &password)
        .await
        .map_err(|e| anyhow::anyhow!("creating the load tool's admin: {e}"))?;
    let admin = client()?;
    call(
        &admin,
        base,
        "login",
        &[("username", &admin_name), ("password", &password)],
    )
    .await?;

    let lease = plan.lease_seconds.to_string();
    let judge = call(
        &admin,
        base,
        "admin/create_judge_campaign",
        &[
            ("title", &format!("Load test {tag}")),
            ("instructions", "Paraphrase or not?"),
            ("definition", "loose"),
            ("judgments_per_pair", "6"),
            ("test_every", if plan.test_pairs > 0 { "5" } else { "0" }),
            ("min_test_accuracy", "0.85"),
            ("min_kappa", "0.2"),
            ("gate_min_judgments", "100000"),
            ("lease_seconds", &lease),
        ],
    )
    .await?;
    let judge_campaign = judge.as_str().context("a campaign id")?.to_owned();
    let mut csv = String::from("sentence1,sentence2\n");
    for i in 0..plan.pairs {
        csv.push_str(&format!(
            "{},{}\n",
            sentence(i),
            sentence((i * 7919 + 13) % 100_000)
        ));
    }
    call(
        &admin,
        base,
        "admin/import_pairs",
        &[
            ("campaign_id", &judge_campaign),
            ("filename", "pairs.csv"),
            ("content", &csv),
            ("labels_are_tests", "false"),
        ],
    )
    .await?;
    if plan.test_pairs > 0 {
        let mut tests = String::from("sentence1,sentence2,gold_label\n");
        for i in 0..plan.test_pairs {
            tests.push_str(&format!(
                "Test pair {i}: {},Test pair {i}: {},{}\n",
                sentence(i),
                sentence(i + 1),
                i % 2
            ));
        }
        call(
            &admin,
            base,
            "admin/import_pairs",
            &[
                ("campaign_id", &judge_campaign),
                ("filename", "tests.csv"),
                ("content", &tests),
                ("labels_are_tests", "true"),
            ],
        )
        .await?;
    }
    call(
        &admin,
        base,
        "admin/set_campaign_status",
        &[("campaign_id", &judge_campaign), ("status", "open")],
    )
    .await?;

    let apt = call(
        &admin,
        base,
        "admin/create_campaign",
        &[
            ("kind", "apt"),
            ("title", &format!("Load test APT {tag}")),
            ("instructions", "Rewrite it."),
            ("budget_cap_cents", "1000000"),
            ("bleurt_threshold", "0.5"),
        ],
    )
    .await?;
    let apt_campaign = apt.as_str().context("a campaign id")?.to_owned();
    let mut tsv = String::from("text\torigin\n");
    for i in 0..plan.sources {
        let origin = if i % 2 == 0 { "msrp" } else { "ppnmt" };
        tsv.push_str(&format!("{}\t{origin}\n", sentence(i)));
    }
    call(
        &admin,
        base,
        "admin/import_sources",
        &[
            ("campaign_id", &apt_campaign),
            ("filename", "sources.tsv"),
            ("content", &tsv),
            ("default_origin", "upload"),
        ],
    )
    .await?;
    call(
        &admin,
        base,
        "admin/set_campaign_status",
        &[("campaign_id", &apt_campaign), ("status", "open")],
    )
    .await?;

    // Registration hashes a password (argon2): a few at a time.
    let workers: Vec<reqwest::Client> = stream::iter(0..plan.judges + plan.writers)
        .map(|i| {
            let name = format!("load_{tag}_{i}");
            async move {
                let c = client()?;
                let password = "load test password";
                call(
                    &c,
                    base,
                    "register",
                    &[
                        ("username", name.as_str()),
                        ("password", password),
                        ("password_confirmation", password),
                    ],
                )
                .await?;
                anyhow::Ok(c)
            }
        })
        .buffered(4)
        .try_collect()
        .await?;
    let (judges, writers) = workers.split_at(plan.judges);
    Ok(Prepared {
        admin,
        judge_campaign,
        apt_campaign,
        judges: judges.to_vec(),
        writers: writers.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_sentences_are_distinct() {
        let all: std::collections::HashSet<String> = (0..100_000).map(sentence).collect();
        assert_eq!(all.len(), 100_000);
    }
}
