//! Accounts the dashboard shows together for a researcher to review: workers who answer alike
//! (`domain::judge::alike`) and workers who opened the study link from one network with one
//! browser (`domain::study::visit`). Neither stops anyone; a researcher may exclude a member
//! (`service::quality::exclude_worker`).
use serde::{Deserialize, Serialize};

use crate::db::judge::{self as db, JudgmentRow};
use crate::db::studies;
use crate::domain::account::pseudonym;
use crate::domain::judge::alike::{answer_alike, components, evidence_text, AlikePair};
use crate::domain::{CampaignId, UserId};
use crate::dto::judge_report::{AccountGroup, GroupKind};
use crate::error::AppError;

/// Two workers flagged as answering alike, by id (what the dashboard's statistics keep).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlikeEdge {
    pub a: UserId,
    pub b: UserId,
    pub pair: AlikePair,
}

/// The flagged pairs of `alike`'s workers, named by id (`workers[i]` is worker `i`).
pub fn alike_edges(alike: &[AlikePair], workers: &[UserId]) -> Vec<AlikeEdge> {
    alike
        .iter()
        .filter_map(|p| {
            Some(AlikeEdge {
                a: *workers.get(p.a)?,
                b: *workers.get(p.b)?,
                pair: *p,
            })
        })
        .collect()
}

/// A group with its members by id.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub kind: GroupKind,
    pub members: Vec<UserId>,
    pub evidence: Vec<String>,
    /// The flagged pairs of workers that join it (none for shared visits).
    pub edges: Vec<AlikeEdge>,
}

impl Group {
    /// The flagged pair with `user` of the smallest p-value.
    pub fn strongest_with(&self, user: UserId) -> Option<AlikePair> {
        self.edges
            .iter()
            .filter(|e| e.a == user || e.b == user)
            .map(|e| e.pair)
            .min_by(|x, y| x.p_value.total_cmp(&y.p_value))
    }
}

/// The groups among `workers`: those `edges` join, then those `visits` name (each set of
/// accounts that share a network and a browser), numbered in that order.
pub fn groups(edges: &[AlikeEdge], visits: &[Vec<UserId>], workers: &[UserId]) -> Vec<Group> {
    let index = |u: &UserId| workers.iter().position(|w| w == u);
    let mut out = Vec::new();
    let joined = components(
        workers.len(),
        edges
            .iter()
            .filter_map(|e| Some((index(&e.a)?, index(&e.b)?))),
    );
    for members in joined {
        let ids: Vec<UserId> = members.iter().map(|&i| workers[i]).collect();
        let inside: Vec<AlikeEdge> = edges
            .iter()
            .filter(|e| ids.contains(&e.a) && ids.contains(&e.b))
            .cloned()
            .collect();
        let evidence = inside
            .iter()
            .map(|e| {
                format!(
                    "{} and {}: {}",
                    pseudonym(&e.a),
                    pseudonym(&e.b),
                    evidence_text(
                        e.pair.errors_in_common,
                        e.pair.differences,
                        e.pair.expected_share,
                        e.pair.p_value
                    )
                )
            })
            .collect();
        out.push(Group {
            kind: GroupKind::AnswersAlike,
            members: ids,
            evidence,
            edges: inside,
        });
    }
    let shared = components(
        workers.len(),
        visits.iter().flat_map(|set| {
            let found: Vec<usize> = set.iter().filter_map(index).collect();
            found.windows(2).map(|w| (w[0], w[1])).collect::<Vec<_>>()
        }),
    );
    for members in shared {
        let n = members.len();
        out.push(Group {
            kind: GroupKind::SameNetworkAndBrowser,
            members: members.iter().map(|&i| workers[i]).collect(),
            evidence: vec![if n == 2 {
                "These 2 accounts opened the study link from the same network address with the same browser signature.".to_owned()
            } else {
                format!("Each of these {n} accounts opened the study link from the same network address with the same browser signature as another of them.")
            }],
            edges: Vec::new(),
        });
    }
    out
}

/// The groups as the page shows them: numbered from 1, members by pseudonym.
pub fn views(groups: &[Group]) -> Vec<AccountGroup> {
    groups
        .iter()
        .enumerate()
        .map(|(i, g)| AccountGroup {
            number: i as u32 + 1,
            kind: g.kind,
            members: g.members.iter().map(pseudonym).collect(),
            evidence: g.evidence.clone(),
        })
        .collect()
}

/// The flagged pairs among `workers` in `rows`: every judgment of an ordinary pair, set aside
/// ones included (an excluded account stays beside those it answered alike with, so they can be
/// excluded after it).
pub fn alike_among(rows: &[JudgmentRow], workers: &[UserId]) -> Vec<AlikeEdge> {
    let (judgments, pairs) = super::quality::index_judgments(rows, workers);
    let alike = answer_alike(&judgments, pairs, workers.len());
    alike_edges(&alike.flagged, workers)
}

/// The groups as they stand now (what an exclusion checks, not the dashboard's stored
/// statistics).
pub async fn current(
    conn: &mut sqlx::PgConnection,
    campaign_id: CampaignId,
    workers: &[UserId],
) -> Result<Vec<Group>, AppError> {
    let rows: Vec<JudgmentRow> = db::ordinary_judgments(&mut *conn, campaign_id)
        .await?
        .into_iter()
        .map(|(_, row)| row)
        .collect();
    let ids = workers.to_vec();
    let edges = tokio::task::spawn_blocking(move || alike_among(&rows, &ids))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "the check for accounts that answer alike panicked");
            AppError::Internal
        })?;
    let visits = studies::shared_visits(&mut *conn, campaign_id).await?;
    Ok(groups(&edges, &visits, workers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u128) -> UserId {
        UserId::from(uuid::Uuid::from_u128(n << 100))
    }

    fn edge(a: u128, b: u128) -> AlikeEdge {
        AlikeEdge {
            a: id(a),
            b: id(b),
            pair: AlikePair {
                a: 0,
                b: 1,
                shared: 12,
                errors_in_common: 7,
                differences: 0,
                expected_share: 0.25,
                p_value: 6e-5,
                flagged: true,
            },
        }
    }

    #[test]
    fn answer_groups_come_first_then_shared_visits_among_the_workers() {
        let workers: Vec<UserId> = (1..=6).map(id).collect();
        // A visit set names one account that is not a worker of the campaign: left out.
        let visits = vec![vec![id(5), id(6), id(99)], vec![id(99), id(1)]];
        let g = groups(&[edge(1, 2), edge(2, 3)], &visits, &workers);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].kind, GroupKind::AnswersAlike);
        assert_eq!(g[0].members, vec![id(1), id(2), id(3)]);
        assert_eq!(g[0].evidence.len(), 2);
        assert_eq!(g[0].strongest_with(id(3)).unwrap().p_value, 6e-5);
        assert!(g[1].strongest_with(id(5)).is_none());
        assert!(g[0].evidence[0].starts_with(&format!(
            "{} and {}: both parted",
            pseudonym(&id(1)),
            pseudonym(&id(2))
        )));
        assert_eq!(g[1].kind, GroupKind::SameNetworkAndBrowser);
        assert_eq!(g[1].members, vec![id(5), id(6)]);
        let v = views(&g);
        assert_eq!((v[0].number, v[1].number), (1, 2));
        assert_eq!(v[1].members, vec![pseudonym(&id(5)), pseudonym(&id(6))]);
    }
}
