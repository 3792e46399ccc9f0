//! Pure domain code: no database, no HTTP, no Leptos. Compiles to wasm, so the browser can
//! validate with the same rules the server enforces.
pub mod account;
pub mod agreement;
pub mod apt;
pub mod dawid_skene;
pub mod export;
pub mod glad;
pub mod ids;
pub mod invalid;
pub mod judge;
pub mod login_throttle;
pub mod mace;
pub mod mining;
pub mod money;
pub mod mutual_implication;
pub mod percentile;
pub mod rate_limit;
pub mod reward;
pub mod rng;
pub mod status;
pub mod study;
pub mod table_file;
pub mod text;

pub use account::{AccountError, Password, Role, UserStatus, Username};
pub use ids::{
    AssignmentId, AttemptId, BatchId, CampaignId, CorpusId, PairId, PlatformCallId, RunId,
    SourceId, StudyLinkId, UserId,
};
pub use invalid::Invalid;
pub use login_throttle::{FailureCounts, LoginPolicy};
pub use status::{
    AssignmentStatus, CampaignKind, CampaignStatus, MethodKind, RunStatus, WorkerStatus,
};
