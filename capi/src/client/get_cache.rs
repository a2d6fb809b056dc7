//! The answers of `PMIx_Get` kept per thread, so that a repeated get of the
//! same key costs a few loads and the `pmix_value_t` the caller owns.
//!
//! A get of this process's own job without directives is kept with the
//! [`DataStamp`] the client took before reading it; the next get of the
//! same `(rank, key)` on the same thread hands out a fresh copy while the
//! stamp holds ([`Client::data_stamp_holds`]: the job store and the peer's
//! modex store are at the same generations, nothing was stored with
//! `PMIx_Store_internal`). Anything else (directives, another namespace,
//! the caller's own puts, a key the server answered) is never kept and
//! goes the whole way each time. A new client (`PMIx_Finalize` then
//! `PMIx_Init`) has a new [`role::client_epoch`]: older entries never
//! match it.

use std::cell::RefCell;
use std::ffi::CStr;
use std::os::raw::c_char;

use pmix_client::{Client, DataStamp};
use pmix_core::{Proc, Value};

use crate::cmem;
use crate::convert::value_to_c_boxed;
use crate::role;
use crate::types::*;

/// Entries kept per thread; a full cache replaces its entries in turn.
const CAPACITY: usize = 32;

/// One kept answer.
struct Entry {
    epoch: u64,
    rank: u32,
    key: Box<str>,
    stamp: DataStamp,
    value: Value,
}

/// A thread's kept answers.
#[derive(Default)]
struct Cache {
    entries: Vec<Entry>,
    /// The entry a full cache replaces next.
    next: usize,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// The rank a C proc names in this process's own namespace (a NULL proc is
/// this process), or `None` for another namespace.
///
/// # Safety
/// `proc_` is NULL or a valid proc.
unsafe fn own_job_rank(c: &Client, proc_: *const pmix_proc_t) -> Option<u32> {
    if proc_.is_null() {
        return Some(c.proc().rank.0);
    }
    // SAFETY: non-NULL and valid (caller guarantee).
    let p = unsafe { &*proc_ };
    (cmem::fixed_bytes(&p.nspace) == c.nspace().as_str().as_bytes()).then_some(p.rank)
}

/// A fresh libc copy of the kept answer to a get of `key` at `proc_`
/// without directives, when there is one and it still holds; `None`: go
/// the whole way.
///
/// # Safety
/// `proc_` is NULL or a valid proc; `key` a non-NULL C string.
pub(super) unsafe fn lookup(
    proc_: *const pmix_proc_t,
    key: *const c_char,
) -> Option<*mut pmix_value_t> {
    role::with_client(|c, epoch| {
        // SAFETY: forwarded caller guarantee.
        let rank = unsafe { own_job_rank(c, proc_) }?;
        // SAFETY: a non-NULL C string (caller guarantee).
        let key = unsafe { CStr::from_ptr(key) }.to_bytes();
        CACHE
            .try_with(|cache| {
                let cache = cache.borrow();
                let e = cache
                    .entries
                    .iter()
                    .find(|e| e.rank == rank && e.key.as_bytes() == key && e.epoch == epoch)?;
                if !c.data_stamp_holds(&e.stamp) {
                    return None;
                }
                value_to_c_boxed(&e.value).ok()
            })
            .ok()
            .flatten()
    })
    .flatten()
}

/// Keeps `value`, the answer to a get of `key` at `p` without directives
/// stamped `stamp` by the client of `epoch` (read before that client was).
pub(super) fn keep(epoch: u64, p: &Proc, key: &str, stamp: DataStamp, value: &Value) {
    // A thread being torn down keeps nothing.
    let _ = CACHE.try_with(|cache| {
        let mut cache = cache.borrow_mut();
        let rank = p.rank.0;
        let entry = Entry {
            epoch,
            rank,
            key: key.into(),
            stamp,
            value: value.clone(),
        };
        if let Some(e) = cache
            .entries
            .iter_mut()
            .find(|e| e.rank == rank && &*e.key == key)
        {
            *e = entry;
        } else if cache.entries.len() < CAPACITY {
            cache.entries.push(entry);
        } else {
            let i = cache.next;
            cache.entries[i] = entry;
            cache.next = (i + 1) % CAPACITY;
        }
    });
}
