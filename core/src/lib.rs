//! # pmix-core
//!
//! The PMIx data model of pmix-rs, pure and self-contained: no I/O, no
//! threads, no `unsafe`.
//!
//! - [`Status`] and [`Error`]: the standard status codes at their numeric
//!   values; every pmix-rs crate returns [`Error`].
//! - [`Proc`], [`Nspace`], [`Rank`], [`Key`]: validated process names.
//! - [`DataType`], [`DataRange`], [`Scope`], [`Persistence`], [`ProcState`],
//!   [`JobState`], [`InfoFlags`]: standard codes.
//! - [`Value`] and [`Info`]: data of every standard type.
//! - [`attrs`]: one constant per attribute the source documents name
//!   (`docs/SOURCES.md`), with its key string and expected type, and a
//!   table to check infos against.
//! - [`codec`]: the versioned binary encoding of values, infos and procs,
//!   and message framing.
//!
//! # Examples
//! ```
//! use pmix_core::{Info, Proc, Value};
//! let me = Proc::new("job-1", 0).unwrap();
//! let card = Info::new("my.card", Value::ByteObject(vec![1, 2, 3])).unwrap();
//! let mut enc = pmix_core::codec::Encoder::new();
//! enc.put_proc(&me);
//! enc.put_info(&card);
//! let bytes = enc.finish();
//! let mut dec = pmix_core::codec::Decoder::new(&bytes);
//! assert_eq!(dec.get_proc().unwrap(), me);
//! assert_eq!(dec.get_info().unwrap(), card);
//! ```
#![forbid(unsafe_code)]

pub mod attrs;
pub mod cluster;
pub mod codec;
pub mod codes;
pub mod envar;
pub mod event;
pub mod info;
pub mod locality;
pub mod proc;
pub mod proto;
pub mod status;
pub mod value;

pub use codes::{DataRange, DataType, InfoFlags, JobState, Persistence, ProcState, Scope};
pub use info::Info;
pub use proc::{Key, Nspace, Proc, Rank, MAX_KEYLEN, MAX_NSLEN};
pub use status::{Error, Result, Status};
pub use value::{App, DataArray, Envar, ProcInfo, Query, Timeval, Value};
