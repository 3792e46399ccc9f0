//! Keeps the quality gate's running counts in step with the votes
//! (`domain::judge::gate_table`): every write that changes a pair's trusted votes calls one of
//! these in its transaction, after it has taken the pair's row lock. It settles the pairs
//! again as well (adaptive redundancy: `db::resettle`).
use std::collections::{BTreeMap, HashMap};

use sqlx::PgConnection;

use crate::db::judge as db;
use crate::domain::judge::gate_table::{table_changes, Judged, KappaTable, Votes};
use crate::domain::{CampaignId, PairId, UserId};
use crate::error::AppError;

/// After a status change or a republish flipped the trust of `flips`: records how every
/// table with a judgment on those pairs changes.
pub async fn after_flips(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    flips: &[db::TrustFlip],
) -> Result<(), AppError> {
    if flips.is_empty() {
        return Ok(());
    }
    // Per pair, its votes before and after; per flipped judgment, its trust before.
    let mut pairs: HashMap<PairId, (Votes, Votes)> = HashMap::new();
    let mut flipped: HashMap<(PairId, UserId), bool> = HashMap::new();
    for f in flips {
        let after = Votes {
            paraphrase: i64::from(f.n_paraphrase),
            not: i64::from(f.n_judgments - f.n_paraphrase),
        };
        let before = Votes {
            paraphrase: after.paraphrase - i64::from(f.moved_paraphrase),
            not: after.not - i64::from(f.moved - f.moved_paraphrase),
        };
        pairs.insert(f.pair_id, (before, after));
        flipped.insert((f.pair_id, f.app_user_id), !f.trusted);
    }
    let ids: Vec<PairId> = pairs.keys().copied().collect();
    let mut by_pair: HashMap<PairId, Vec<Judged<UserId>>> = HashMap::new();
    for j in db::judgments_on_pairs(conn, &ids).await? {
        let before = flipped
            .get(&(j.pair_id, j.app_user_id))
            .copied()
            .unwrap_or(j.trusted);
        by_pair.entry(j.pair_id).or_default().push(Judged {
            worker: j.app_user_id,
            label: j.is_paraphrase,
            trusted_before: Some(before),
            trusted_after: j.trusted,
        });
    }
    let mut total: BTreeMap<UserId, KappaTable> = BTreeMap::new();
    for (pair, judged) in &by_pair {
        let (before, after) = pairs[pair];
        for (worker, change) in table_changes(before, after, judged) {
            let e = total.entry(worker).or_default();
            *e = e.plus(change);
        }
    }
    let changes: Vec<(UserId, KappaTable)> =
        total.into_iter().filter(|(_, t)| !t.is_zero()).collect();
    db::record_table_changes(conn, campaign_id, &changes).await?;
    // The pairs' labels may settle, or open again, on the votes that count now.
    db::resettle(conn, &ids).await
}
