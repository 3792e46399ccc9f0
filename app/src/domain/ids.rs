//! The ids of the things the app stores, one type each, so a campaign id cannot be passed where a
//! user id is wanted. Each wraps the row's `uuid` key.
//!
//! On the wire (serde) and in URLs an id is the plain UUID text, as before. On the server each is
//! an `sqlx::Type` transparent over `uuid`: the `query!` macros read a column into it with an
//! override (`campaign_id as "campaign_id: CampaignId"`, or `"campaign_id: _"` in `query_as!`)
//! and bind one with `id as CampaignId`.
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Declares an id newtype over `Uuid`: `Display`/`FromStr` as the UUID text, serde transparent,
/// `sqlx(transparent)` under `ssr`.
macro_rules! uuid_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        #[cfg_attr(feature = "ssr", derive(sqlx::Type))]
        #[cfg_attr(feature = "ssr", sqlx(transparent))]
        pub struct $name(pub Uuid);

        impl $name {
            /// The UUID inside.
            pub fn uuid(self) -> Uuid {
                self.0
            }
        }

        impl From<Uuid> for $name {
            fn from(id: Uuid) -> Self {
                Self(id)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;

            /// Parses the UUID text (surrounding blanks ignored).
            fn from_str(raw: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(raw.trim()).map(Self)
            }
        }
    };
}

uuid_id! {
    /// A campaign (`campaign.campaign_id`).
    CampaignId
}

uuid_id! {
    /// An account (`app_user.app_user_id`): annotator, researcher or admin.
    UserId
}

uuid_id! {
    /// A sentence pair to judge (`judge_pair.pair_id`), test pairs included.
    PairId
}

uuid_id! {
    /// One worker's lease on one pair (`judge_assignment.assignment_id`).
    AssignmentId
}

uuid_id! {
    /// A source sentence of an APT campaign (`source_sentence.source_sentence_id`).
    SourceId
}

uuid_id! {
    /// One Check of an APT paraphrase (`apt_attempt.apt_attempt_id`).
    AttemptId
}

uuid_id! {
    /// A corpus of documents to mine (`corpus.corpus_id`).
    CorpusId
}

uuid_id! {
    /// A mining run over a corpus (`mining_run.run_id`).
    RunId
}

uuid_id! {
    /// A recruitment link of a study (`study_link.study_link_id`).
    StudyLinkId
}

uuid_id! {
    /// A batch of bonus payments (`payment_batch.batch_id`). The page makes a new one before the
    /// researcher asks, so a form sent twice makes one batch.
    BatchId
}

uuid_id! {
    /// A call that changes something on a crowd platform (`platform_call.call_id`). The page
    /// makes it before the researcher asks, so a form sent twice makes one call.
    PlatformCallId
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_reads_and_writes_the_plain_uuid_text() {
        let text = "67e55044-10b1-426f-9247-bb680e5fe0c8";
        let id: CampaignId = format!("  {text} ").parse().unwrap();
        assert_eq!(id.to_string(), text);
        assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{text}\""));
        assert_eq!(
            serde_json::from_str::<CampaignId>(&format!("\"{text}\"")).unwrap(),
            id
        );
        assert!("not-an-id".parse::<UserId>().is_err());
        // The session store's MessagePack keeps the UUID's bytes: read back as written.
        #[cfg(feature = "ssr")]
        {
            let packed = rmp_serde::to_vec_named(&id).unwrap();
            assert_eq!(rmp_serde::from_slice::<CampaignId>(&packed).unwrap(), id);
        }
        // Refused as `Uuid` refuses it (a server function's argument that is not an id answers
        // 400 with these words).
        let refused = serde_json::from_str::<UserId>("\"not-an-id\"").unwrap_err();
        assert!(
            refused.to_string().contains("UUID parsing failed"),
            "{refused}"
        );
    }
}
