//! # pmix-shm
//!
//! The shared segment of pmix-rs. It knows bytes and atomics, not PMIx
//! semantics: creation of the segment (memfd, mode 0600), its versioned
//! layout header, cache-aligned lock-free MPSC rings of variable-length
//! records, futex doorbells, the broadcast ring behind the event cache and the
//! job-data store.
//!
//! Atomics and cells come from [`sync`] only; under `cfg(loom)` they are
//! loom's.

pub mod sync;
