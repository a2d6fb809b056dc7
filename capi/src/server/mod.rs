//! The server side of `pmix_server.h` over [`pmix_server::Server`], driven
//! by a foreign host through its `pmix_server_module_t` (docs/CAPI.md,
//! "Server side"), one file per API family:
//!
//! - `init`: `PMIx_server_init` wraps the C module in [`host::CHost`], a
//!   Rust [`Host`](pmix_server::Host) whose up-calls call the module's
//!   slots with C copies of their arguments and a C callback that
//!   completes the Rust [`Completion`](pmix_server::Completion) from
//!   whatever thread the host calls back on; `PMIx_server_finalize`;
//! - `register`: namespaces and clients, with the directories of `dirs`
//!   for a host that gives none (fresh ones of the library's, removed at
//!   deregistration and finalize);
//! - `fork`: `PMIx_server_setup_fork`;
//! - `dmodex`: `PMIx_server_dmodex_request`;
//! - `regex`: `PMIx_generate_regex` / `PMIx_generate_ppn`.
//!
//! No library lock is held while the host or a C callback runs: the
//! server handle is cloned out of its slot ([`crate::role`]) before use.
//! The server entry points whose feature is missing are in
//! [`crate::unsupported`]; events of a server process in
//! [`crate::events`].

mod dirs;
mod dmodex;
mod fork;
mod host;
mod init;
mod psets;
mod regex;
mod register;
mod tool_host;

pub use dmodex::*;
pub use fork::*;
pub use init::*;
pub use psets::*;
pub use regex::*;
pub use register::*;
