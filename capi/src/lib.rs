//! # pmix-capi
//!
//! `libpmix.so.2`: the standard PMIx C API (client, tool and server sides)
//! over the pmix-rs crates, ABI-compatible with OpenPMIx 4.2 headers so that
//! existing C programs and Open MPI run unchanged. With `shm`, the only crate
//! allowed `unsafe`; every block carries a `// SAFETY:` comment.
//!
//! Nothing is exported yet: see the C ABI issue.
