//! # pmix-capi
//!
//! `libpmix.so.2`: the standard PMIx C API (client, tool and server sides)
//! over the pmix-rs crates, ABI-compatible with the OpenPMIx 4.2 headers so
//! that existing C programs and Open MPI run unchanged (see
//! `../shared/CAPI.md`). With `shm`, the only crate allowed `unsafe`; every
//! block carries a `// SAFETY:` comment.
//!
//! # Building the drop-in
//! `capi/make-lib.sh [release|debug]` builds the cdylib (SONAME
//! `libpmix.so.2`, set by `build.rs`) and lays it out as
//! `target/<profile>/pmix-lib/libpmix.so.2` plus a `libpmix.so` link, so
//! `LD_LIBRARY_PATH=target/<profile>/pmix-lib` picks it up in place of
//! OpenPMIx.
//!
//! # Layout
//! - [`types`]: `repr(C)` mirrors of the public structs, the callback
//!   typedefs, the constants used, checked against Debian's headers.
//! - `cmem`: libc allocation helpers (rule R1: memory crossing the boundary
//!   is libc `malloc`/`free` only).
//! - `cvalue`: deep copy and release of C values and data arrays in place.
//! - `convert`: C ↔ `pmix-core` (`Value`, `Info`, `Proc`, `App`, `Query`).
//! - `strings`, `util`: the exported utility functions.
//! - `client`: the client API over `pmix-client` (init/finalize, put/get,
//!   fences, events, job-control cleanup, log) and `PMIX_ERR_NOT_SUPPORTED`
//!   answers for the client and tool calls whose feature is not built yet.
//!
//! Exported so far: the utility functions of `pmix.h` (status and code
//! strings, version, value/info/data-array/info-list handling) and the
//! client side, with every client/tool function Open MPI imports. The
//! server entry points come next (C ABI issue).

pub mod types;

#[doc(hidden)]
pub mod layout;

mod attr_table;
mod client;
mod cmem;
mod compare;
mod convert;
mod cvalue;
mod more_server_stubs;
mod more_stubs;
mod print;
mod server;
mod strings;
mod util;

pub use client::*;
pub use more_server_stubs::*;
pub use more_stubs::*;
pub use server::*;
pub use strings::*;
pub use util::*;
