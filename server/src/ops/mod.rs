//! One module per family of client requests the server serves (beyond
//! the data path in `data/`): each takes the request's [`ReplyTo`]
//! (`link.rs`) and the shared [`Inner`] (`inner.rs`), and answers once.
//! `dispatch.rs` routes decoded requests here. New families (connect,
//! group, spawn, query, tool) get a module of their own beside these;
//! collective ones track their episodes in `collective.rs`.
//!
//! [`ReplyTo`]: crate::link::ReplyTo
//! [`Inner`]: crate::inner::Inner

pub(crate) mod connect;
pub(crate) mod event;
pub(crate) mod fence;
pub(crate) mod group;
pub(crate) mod iof;
pub(crate) mod iof_push;
pub(crate) mod lifecycle;
pub(crate) mod log;
pub(crate) mod psets;
pub(crate) mod pubsub;
pub(crate) mod query;
pub(crate) mod refusal;
pub(crate) mod spawn;
