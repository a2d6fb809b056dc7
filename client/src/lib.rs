//! # pmix-client
//!
//! The PMIx client and tool API. It will hold `init`/`finalize`,
//! `get`/`put`/`commit`/`fence`, event handler registration and notification,
//! connect, groups, publish/lookup, spawn, query and abort, and the progress
//! thread that drains the client's inbound ring and runs handler chains.
//!
//! Nothing is implemented yet: see the wire-up and events issues.
