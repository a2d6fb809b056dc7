//! Process-local synchronisation primitives: lock-free building blocks for
//! threads of one process, never placed in a shared segment (they hold
//! pointers). The client's event dispatch is built from them; they live in
//! this crate because they share its atomics facade ([`sync`](crate::sync))
//! and its loom models.
//!
//! | module | one job |
//! |--------|---------|
//! | [`snapshot`] | an atomically swappable `Arc<T>` whose readers never lock |
//! | [`gate`] | a per-handler gate: calls only while armed, retirement waits out a call in progress |
//! | [`handoff`] | a one-shot handoff: a completion continues inline or is posted back, exactly once |

pub mod gate;
pub mod handoff;
pub mod snapshot;
