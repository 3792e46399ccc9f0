//! A judging campaign's settings row (definition, judgments per pair, gate, thresholds, lease).
use sqlx::{PgConnection, PgExecutor};

use crate::domain::judge::labels::Thresholds;
use crate::domain::judge::settings::GateRule;
use crate::domain::judge::settings::{Definition, JudgeSettings};
use crate::domain::{CampaignId, CampaignStatus};
use crate::error::AppError;

#[derive(Debug, Clone)]
struct SettingsRow {
    definition: Definition,
    judgments_per_pair: i32,
    min_judgments_per_pair: i32,
    settle_confidence: f64,
    test_exposure_cap: Option<i32>,
    test_every: i32,
    min_test_accuracy: f64,
    min_kappa: f64,
    gate_min_judgments: i32,
    gate_rule: GateRule,
    gate_alpha: f64,
    gate_worse_by: f64,
    paraphrase_min_votes: i32,
    non_paraphrase_max_votes: i32,
    lease_seconds: i32,
    min_display_ms: i32,
}

impl From<SettingsRow> for JudgeSettings {
    fn from(r: SettingsRow) -> Self {
        JudgeSettings {
            definition: r.definition,
            judgments_per_pair: r.judgments_per_pair as u32,
            min_judgments_per_pair: r.min_judgments_per_pair as u32,
            settle_confidence: r.settle_confidence,
            test_exposure_cap: r.test_exposure_cap.map(|c| c.max(1) as u32),
            test_every: r.test_every as u32,
            min_test_accuracy: r.min_test_accuracy,
            min_kappa: r.min_kappa,
            gate_min_judgments: r.gate_min_judgments as u32,
            gate_rule: r.gate_rule,
            gate_alpha: r.gate_alpha,
            gate_worse_by: r.gate_worse_by,
            thresholds: Thresholds {
                paraphrase_min: r.paraphrase_min_votes as u32,
                not_max: r.non_paraphrase_max_votes as u32,
            },
            lease_seconds: r.lease_seconds as u32,
            min_display_ms: r.min_display_ms as u32,
        }
    }
}

/// Stores a new judging campaign's settings.
pub async fn insert_settings(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    s: &JudgeSettings,
) -> Result<(), AppError> {
    sqlx::query!(
        r#"insert into judge_settings (campaign_id, definition, judgments_per_pair, test_every,
               min_test_accuracy, min_kappa, gate_min_judgments, paraphrase_min_votes,
               non_paraphrase_max_votes, lease_seconds, gate_rule, min_display_ms, gate_alpha,
               min_judgments_per_pair, settle_confidence, test_exposure_cap, gate_worse_by)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                   $17)"#,
        campaign_id as CampaignId,
        s.definition as Definition,
        s.judgments_per_pair as i32,
        s.test_every as i32,
        s.min_test_accuracy,
        s.min_kappa,
        s.gate_min_judgments as i32,
        s.thresholds.paraphrase_min as i32,
        s.thresholds.not_max as i32,
        s.lease_seconds as i32,
        s.gate_rule as GateRule,
        s.min_display_ms as i32,
        s.gate_alpha,
        s.min_judgments_per_pair as i32,
        s.settle_confidence,
        s.test_exposure_cap.map(|c| c as i32),
        s.gate_worse_by
    )
    .execute(db)
    .await?;
    Ok(())
}

/// A judging campaign's settings; `None` for a campaign that is not a judging campaign.
pub async fn settings(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Option<JudgeSettings>, AppError> {
    Ok(judge_campaign(db, campaign_id).await?.map(|c| c.settings))
}

/// What a judging request needs of its campaign, as of `version` (bumped by the database on any
/// change to the campaign or its settings).
#[derive(Debug, Clone)]
pub struct JudgeCampaign {
    /// The campaign's id.
    pub campaign_id: CampaignId,
    /// The campaign's version when this was read.
    pub version: i64,
    /// Draft, open or closed, when this was read (requests check the current status).
    pub status: CampaignStatus,
    /// The title workers see.
    pub title: String,
    /// What workers read before they start.
    pub instructions: String,
    /// The judging settings.
    pub settings: JudgeSettings,
}

/// A judging campaign with its settings, in one statement; `None` when there is no such judging
/// campaign (an APT campaign included).
pub async fn judge_campaign(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Option<JudgeCampaign>, AppError> {
    let row = sqlx::query!(
        r#"select c.campaign_id as "campaign_id: CampaignId", c.version,
                  c.status as "status: CampaignStatus", c.title, c.instructions,
                  s.definition as "definition: Definition", s.judgments_per_pair, s.test_every,
                  s.min_test_accuracy, s.min_kappa, s.gate_min_judgments,
                  s.gate_rule as "gate_rule: GateRule", s.paraphrase_min_votes,
                  s.non_paraphrase_max_votes, s.lease_seconds, s.min_display_ms, s.gate_alpha,
                  s.min_judgments_per_pair, s.settle_confidence, s.test_exposure_cap,
                  s.gate_worse_by
           from campaign c join judge_settings s using (campaign_id)
           where c.campaign_id = $1 and c.kind = 'judge'"#,
        campaign_id as CampaignId
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| JudgeCampaign {
        campaign_id: r.campaign_id,
        version: r.version,
        status: r.status,
        title: r.title,
        instructions: r.instructions,
        settings: SettingsRow {
            definition: r.definition,
            judgments_per_pair: r.judgments_per_pair,
            min_judgments_per_pair: r.min_judgments_per_pair,
            settle_confidence: r.settle_confidence,
            test_exposure_cap: r.test_exposure_cap,
            test_every: r.test_every,
            min_test_accuracy: r.min_test_accuracy,
            min_kappa: r.min_kappa,
            gate_min_judgments: r.gate_min_judgments,
            gate_rule: r.gate_rule,
            gate_alpha: r.gate_alpha,
            gate_worse_by: r.gate_worse_by,
            paraphrase_min_votes: r.paraphrase_min_votes,
            non_paraphrase_max_votes: r.non_paraphrase_max_votes,
            lease_seconds: r.lease_seconds,
            min_display_ms: r.min_display_ms,
        }
        .into(),
    }))
}

/// Locks a campaign's judging settings row until the transaction ends (serialises
/// republishing with itself).
pub async fn lock_settings(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
) -> Result<(), AppError> {
    sqlx::query!(
        "select 1 as locked from judge_settings where campaign_id = $1 for update",
        campaign_id as CampaignId
    )
    .fetch_optional(&mut *conn)
    .await?;
    Ok(())
}
