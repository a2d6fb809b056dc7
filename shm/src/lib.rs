//! # pmix-shm
//!
//! The shared segment of pmix-rs. It knows bytes and atomics, not PMIx
//! semantics: creation of the segment (memfd, mode 0600), its versioned
//! layout header and region directory, the one life cycle of every
//! structure in a region ([`region`]), cache-aligned lock-free MPSC rings
//! of variable-length records, futex doorbells, the job-data store, a table
//! of counting barriers, and the Unix-socket helpers that pass the
//! segment's descriptor and check a peer's credentials. Beside them, the
//! process-local primitives the client's event dispatch is built from
//! ([`local`]).
//!
//! Atomics and cells come from [`sync`] only; under `cfg(loom)` they are
//! loom's, and every structure is built in loom objects by the same
//! [`region`] code, so the models in `loom-tests` explore it.
//!
//! | module | one job | may depend on |
//! |--------|---------|---------------|
//! | [`sync`] | the one door for atomics, cells, futex words | — |
//! | [`layout`] | shared numbers: versions, magics, region kinds, record-header codec | — |
//! | [`error`] | the region errors, the conversion into `pmix_core::Error` | `layout` |
//! | [`doorbell`] | futex doorbells | `sync` |
//! | [`wake_group`] | one futex word many ring consumers sleep on, one bit each | `sync` |
//! | [`region`] | the region life cycle: `Region`, `Attach`, `Memory`, header publication | `error`, `sync` |
//! | [`ring`], [`barrier`], [`store`], [`lines`] | one shared structure each | `region`, `error`, `layout`, `sync`, `doorbell`, `wake_group` (ring) |
//! | [`segment`] | the memfd segment: create, open, find, init, attach | `region`, `wake_group` |
//! | [`fdpass`] | `SCM_RIGHTS`, `SO_PEERCRED` | — |
//! | [`local`] | process-local: snapshot cell, handler gate, handoff | `sync` |
//! | [`alloc_count`] | a counting global allocator for allocation-free proofs | — |

#[cfg(not(loom))]
pub mod alloc_count;
pub mod barrier;
pub mod doorbell;
pub mod error;
#[cfg(not(loom))]
pub mod fdpass;
pub mod layout;
pub mod lines;
pub mod local;
pub mod region;
pub mod ring;
#[cfg(not(loom))]
pub mod segment;
pub mod store;
pub mod sync;
pub mod wake_group;

pub use barrier::{Arrival, Barrier, BarrierParams, BarrierTable, PeerCell};
pub use store::{StoreParams, StoreReader, StoreWriter, TableBuilder};
