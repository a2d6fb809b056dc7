//! The one door for atomics and cells (STYLE.md rule 1).
//!
//! Everything in pmix-rs that needs an atomic or an `UnsafeCell` imports it
//! from here. Under `cfg(loom)` the same names are loom's model-checked types,
//! so the lock-free structures can be explored by the models in
//! `loom-tests`.
#![allow(clippy::disallowed_types)]

#[cfg(not(loom))]
pub use std::sync::atomic::{
    fence, AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

#[cfg(loom)]
pub use loom::sync::atomic::{
    fence, AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};
