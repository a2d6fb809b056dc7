//! # pmix-capi
//!
//! `libpmix.so.2`: the standard PMIx C API (client, tool and server sides)
//! over the pmix-rs crates, ABI-compatible with the OpenPMIx 4.2 headers so
//! that existing C programs and Open MPI run unchanged (docs/CAPI.md).
//! With `shm`, the only crate allowed `unsafe`; every block carries a
//! `// SAFETY:` comment.
//!
//! # Building the drop-in
//! `capi/make-lib.sh [release|debug]` builds the cdylib (SONAME
//! `libpmix.so.2`, set by `build.rs`) and lays it out as
//! `target/<profile>/pmix-lib/libpmix.so.2` plus a `libpmix.so` link, so
//! `LD_LIBRARY_PATH=target/<profile>/pmix-lib` picks it up in place of
//! OpenPMIx.
//!
//! # Layout
//! The C ABI (leaves first; each module may use only those above it):
//! - [`types`]: `repr(C)` mirrors of the public structs, the callback
//!   typedefs and the constants used, with their layouts asserted at
//!   compile time; `layout` lists them for the header comparison test;
//!   `attr_table`: the attribute names.
//! - `cmem`: libc allocation helpers (rule R1: memory crossing the boundary
//!   is libc `malloc`/`free` only) and output resetting.
//! - `worker`: the callback thread; `status`: C statuses and how they reach
//!   the caller (returned, or through a callback).
//! - `cdata`: C data in place — the one per-type table (`ElemKind`) and
//!   the copy/release/load/unload built on it.
//! - `convert`: C ↔ `pmix-core` (`Value`, `Info`, `Proc`, `App`, `Query`,
//!   call arguments).
//! - `compare`, `print`, `strings`: value comparison, value/info text,
//!   the names of codes.
//! - `role`: the process's client and server handles and the fallback rule
//!   (which endpoint a call uses).
//!
//! The exported functions, by API family:
//! - `values`, `info_list`, `strings`: the utility functions of `pmix.h`;
//! - `data_buffer`, `topology`: payload moves on data buffers, releasing
//!   cpusets and topologies;
//! - `client`: init/finalize, put/get, fences, publish/lookup, resolve,
//!   job control, log;
//! - `events`: event handlers and notification, in client and server
//!   processes;
//! - `server`: the host side of `pmix_server.h`;
//! - `lifecycle`: the v5 construct/destruct/create/free/load/xfer helpers
//!   of the public structs, `PMIx_Info_*` flag accessors, data arrays;
//! - `argv`: the v5 `PMIx_Argv_*` helpers and `PMIx_Setenv`;
//! - `describe`: `PMIx_Proc_string`, `PMIx_App_string`, `PMIx_Error_code`;
//! - `frameworks`: the `pmix_framework_names` data symbol Open MPI 5 reads;
//! - `unsupported`: every other entry point OpenPMIx 4.2.2 and 5.0 export,
//!   answering `PMIX_ERR_NOT_SUPPORTED`.

pub mod types;

#[doc(hidden)]
pub mod layout;

mod argv;
mod attr_table;
mod cdata;
mod client;
mod cmem;
mod compare;
mod convert;
mod data_buffer;
mod describe;
mod events;
mod frameworks;
mod info_list;
mod lifecycle;
mod print;
mod role;
mod server;
mod status;
mod strings;
mod topology;
mod unsupported;
mod values;
mod worker;

pub use argv::*;
pub use client::*;
pub use data_buffer::*;
pub use describe::*;
pub use events::*;
pub use frameworks::*;
pub use info_list::*;
pub use lifecycle::*;
pub use server::*;
pub use strings::*;
pub use topology::*;
pub use unsupported::*;
pub use values::*;
