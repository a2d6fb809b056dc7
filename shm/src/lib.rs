//! # pmix-shm
//!
//! The shared segment of pmix-rs. It knows bytes and atomics, not PMIx
//! semantics: creation of the segment (memfd, mode 0600), its versioned
//! layout header, cache-aligned lock-free MPSC rings of variable-length
//! records, futex doorbells, the broadcast ring behind the event cache, the
//! job-data store, a table of counting barriers, and the Unix-socket helpers
//! that pass the segment's descriptor and check a peer's credentials.
//!
//! Atomics and cells come from [`sync`] only; under `cfg(loom)` they are
//! loom's, and every structure can be built in ordinary heap memory so the
//! models in `loom-tests` can explore it.

pub mod barrier;
pub mod broadcast;
pub mod doorbell;
pub mod error;
#[cfg(not(loom))]
pub mod fdpass;
#[cfg(not(loom))]
pub(crate) mod heap;
pub mod layout;
pub mod local;
#[cfg(not(loom))]
pub mod probe;
pub mod ring;
#[cfg(not(loom))]
pub mod segment;
pub mod store;
pub mod sync;

pub use barrier::{Arrival, Barrier, BarrierParams, BarrierTable, PeerCell};
pub use broadcast::{BroadcastParams, BroadcastReader, BroadcastWriter};
pub use store::{StoreParams, StoreReader, StoreWriter, TableBuilder};
