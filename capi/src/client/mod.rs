//! The client side of `pmix.h` over [`pmix_client::Client`], one file per
//! API family: the life cycle (`init`), put/commit/get (`data`), fences
//! (`fence`), connect/disconnect (`connect`), publish/lookup (`pubsub`), peer and node resolution
//! (`resolve`), job control (`job_control`) and logging (`log`). Events,
//! shared with server processes, are [`crate::events`].
//!
//! Rules this module keeps (docs/CAPI.md, "Rules"):
//! - Everything the caller passes is deep-copied before the call returns
//!   (infos, values, procs); everything handed back is libc memory (R1).
//! - A callback is never called inside the API call that was given it
//!   (T3): it runs on the library's callback thread ([`crate::worker`]) or,
//!   for get/fence completions, on the Rust client's per-operation thread.
//! - When an API is given a callback it returns `PMIX_SUCCESS` and reports
//!   every outcome, errors included, through that callback — exactly once.
//!   Callers that wait for the callback unconditionally (Open MPI's ext3x
//!   does for event registration, T1) never hang, and callers that release
//!   their callback data on an error return (ext3x's `Get_nb`,
//!   `Connect_nb`) never see it used afterwards. Without a callback the
//!   call is blocking and returns the status.
//! - Init and finalize are reference counted (T5); the last finalize
//!   returns once the server acknowledged it (R-fin), then removes what
//!   `PMIx_Job_control_nb` registered for cleanup.
//! - The whole API may be called from any thread (T6).
//!
//! Directives (info arrays) of a type the Rust data model cannot hold are
//! skipped unless marked `PMIX_INFO_REQD`. A put of a reserved (`pmix.`)
//! key succeeds without effect, as in OpenPMIx (that data comes from the
//! server; Open MPI puts `pmix.hname`).

mod connect;
mod data;
mod fence;
mod get_cache;
mod group;
mod group_invite;
mod init;
mod iof;
mod job_control;
mod log;
mod pubsub;
mod query;
mod resolve;
mod spawn;
mod tool;

pub use connect::*;
pub use data::*;
pub use fence::*;
pub use group::*;
pub use group_invite::*;
pub use init::*;
pub use iof::*;
pub use job_control::*;
pub use log::*;
pub use pubsub::*;
pub use query::*;
pub use resolve::*;
pub use spawn::*;
pub use tool::*;
