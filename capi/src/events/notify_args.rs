//! The directives of `PMIx_Notify_event` as [`Info`]s without a heap
//! allocation per event on the steady state (issue 18): each thread reuses
//! one vector for them and the keys it saw lately (a [`Key`] is shared,
//! so a known key costs a reference count, not a copy), and an entry equal
//! to the last call's at its place (a custom range's procs) is kept as it
//! was converted. Other values that own memory (strings, byte objects)
//! are still copied.

use std::cell::RefCell;

use pmix_core::{DataType, Info, InfoFlags, Key, Result, Status, Value};

use crate::cmem;
use crate::convert::{key_from_c, value_from_c};
use crate::types::*;

/// Keys a thread keeps.
const KEYS_KEPT: usize = 32;

thread_local! {
    /// The keys this thread's notifications used lately, oldest first.
    static KEYS: RefCell<Vec<Key>> = const { RefCell::new(Vec::new()) };
    /// The vector the last notification of this thread used, emptied.
    static SCRATCH: RefCell<Vec<Info>> = const { RefCell::new(Vec::new()) };
}

/// The key of `k`, shared with an earlier one of this thread when it is
/// the same.
fn key_of(k: &pmix_key_t) -> Result<Key> {
    let bytes = cmem::fixed_bytes(k);
    let known = KEYS
        .try_with(|keys| {
            keys.borrow()
                .iter()
                .find(|key| key.as_str().as_bytes() == bytes)
                .cloned()
        })
        .ok()
        .flatten();
    if let Some(key) = known {
        return Ok(key);
    }
    let key = key_from_c(k)?;
    let _ = KEYS.try_with(|keys| {
        let mut keys = keys.borrow_mut();
        if keys.capacity() == 0 {
            keys.reserve_exact(KEYS_KEPT);
        }
        if keys.len() == KEYS_KEPT {
            keys.remove(0);
        }
        keys.push(key.clone());
    });
    Ok(key)
}

/// Whether `kept` is already what converting C value `v` gives, for the
/// one kind whose conversion allocates and that notifications repeat: a
/// data array of procs (`PMIX_EVENT_CUSTOM_RANGE`, the affected procs).
///
/// # Safety
/// `v` is a valid value.
unsafe fn same_proc_array(kept: &Value, v: &pmix_value_t) -> bool {
    let Value::DataArray(a) = kept else {
        return false;
    };
    // SAFETY: the tag says which union member is valid (caller guarantee).
    if v.type_ != PMIX_DATA_ARRAY || unsafe { v.data.darray }.is_null() {
        return false;
    }
    // SAFETY: a non-NULL data array of a valid value.
    let d = unsafe { &*v.data.darray };
    if d.type_ != PMIX_PROC || a.elem_type() != DataType::PROC || d.size != a.len() {
        return false;
    }
    if d.size == 0 || d.array.is_null() {
        return d.size == 0;
    }
    // SAFETY: `size` procs (caller guarantee).
    let procs = unsafe { std::slice::from_raw_parts(d.array.cast::<pmix_proc_t>(), d.size) };
    procs.iter().zip(a.items()).all(|(c, r)| {
        matches!(r, Value::Proc(p)
            if p.rank.0 == c.rank && p.nspace.as_str().as_bytes() == cmem::fixed_bytes(&c.nspace))
    })
}

/// `f` on the `n` C infos at `info` read as `directives_in` reads them
/// (an entry of a type the data model cannot hold is skipped unless
/// `PMIX_INFO_REQD`). The thread's vector keeps the entries of its last
/// call: an entry equal to the one at its place is not converted again.
///
/// # Safety
/// `info` is NULL or points to `n` valid infos.
///
/// # Errors
/// The first entry that does not convert, or `f`'s error.
pub(super) unsafe fn with_directives<R>(
    info: *const pmix_info_t,
    n: usize,
    f: impl FnOnce(&[Info]) -> Result<R>,
) -> Result<R> {
    if info.is_null() || n == 0 {
        return f(&[]);
    }
    let mut out = SCRATCH
        .try_with(|s| std::mem::take(&mut *s.borrow_mut()))
        .unwrap_or_default();
    let mut len = 0;
    let mut r = Ok(());
    for i in 0..n {
        // SAFETY: `i < n` infos are valid (caller guarantee).
        let ci = unsafe { &*info.add(i) };
        if let Some(kept) = out.get_mut(len) {
            if kept.key.as_str().as_bytes() == cmem::fixed_bytes(&ci.key)
                // SAFETY: the info's value is valid (caller guarantee).
                && unsafe { same_proc_array(&kept.value, &ci.value) }
            {
                kept.flags = InfoFlags(ci.flags);
                len += 1;
                continue;
            }
        }
        let x = key_of(&ci.key).and_then(|key| {
            Ok(Info {
                key,
                // SAFETY: the info's value is valid (caller guarantee).
                value: unsafe { value_from_c(&ci.value) }?,
                flags: InfoFlags(ci.flags),
            })
        });
        match x {
            Ok(x) => {
                if len < out.len() {
                    out[len] = x;
                } else {
                    out.push(x);
                }
                len += 1;
            }
            Err(e) if e.status() == Status::ERR_NOT_SUPPORTED && ci.flags & PMIX_INFO_REQD == 0 => {
            }
            Err(e) => {
                r = Err(e);
                break;
            }
        }
    }
    let result = r.and_then(|()| f(&out[..len]));
    // Kept for the next call of this thread (dropped past what it used).
    out.truncate(len);
    let _ = SCRATCH.try_with(|s| *s.borrow_mut() = out);
    result
}
