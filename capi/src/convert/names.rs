//! Names between C and Rust: `pmix_nspace_t`, `pmix_key_t` and
//! `pmix_proc_t` as [`Nspace`], [`Key`] and [`Proc`].

use pmix_core::{Key, Nspace, Proc, Rank, Result};

use crate::cmem::{self, calloc_array};
use crate::types::*;

/// A C `pmix_nspace_t` as a validated [`Nspace`].
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for non-UTF-8 bytes.
pub(crate) fn nspace_from_c(ns: &pmix_nspace_t) -> Result<Nspace> {
    let bytes = cmem::fixed_bytes(ns);
    // The namespace this thread converted last, shared (a process names
    // few namespaces, and an event's custom range names procs of its own
    // job each time: no allocation per call).
    let last = LAST_NSPACE
        .try_with(|l| {
            l.borrow()
                .as_ref()
                .filter(|n| n.as_str().as_bytes() == bytes)
                .cloned()
        })
        .ok()
        .flatten();
    if let Some(n) = last {
        return Ok(n);
    }
    let s = std::str::from_utf8(bytes).map_err(|_| cmem::bad_param("nspace is not UTF-8"))?;
    let n = Nspace::new(s)?;
    let _ = LAST_NSPACE.try_with(|l| *l.borrow_mut() = Some(n.clone()));
    Ok(n)
}

thread_local! {
    /// The namespace [`nspace_from_c`] returned last on this thread.
    static LAST_NSPACE: std::cell::RefCell<Option<Nspace>> = const { std::cell::RefCell::new(None) };
}

/// Writes `ns` into a C `pmix_nspace_t` (NUL-padded).
pub(crate) fn nspace_to_c(ns: &Nspace, out: &mut pmix_nspace_t) {
    cmem::load_nspace(out, ns.as_str().as_bytes());
}

/// A C `pmix_key_t` as a validated [`Key`].
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for non-UTF-8 bytes.
pub(crate) fn key_from_c(key: &pmix_key_t) -> Result<Key> {
    let s = std::str::from_utf8(cmem::fixed_bytes(key))
        .map_err(|_| cmem::bad_param("key is not UTF-8"))?;
    Key::new(s)
}

/// A C `pmix_proc_t` as a [`Proc`].
///
/// # Errors
/// As [`nspace_from_c`].
pub(crate) fn proc_from_c(p: &pmix_proc_t) -> Result<Proc> {
    Ok(Proc::from_parts(nspace_from_c(&p.nspace)?, Rank(p.rank)))
}

/// A [`Proc`] as a C `pmix_proc_t`.
pub(crate) fn proc_to_c(p: &Proc) -> pmix_proc_t {
    let mut out = pmix_proc_t {
        nspace: [0; PMIX_MAX_NSLEN + 1],
        rank: p.rank.0,
    };
    nspace_to_c(&p.nspace, &mut out.nspace);
    out
}

/// `n` C procs as [`Proc`]s; NULL reads as none.
///
/// # Safety
/// `procs` is NULL or points to `n` initialised `pmix_proc_t`.
///
/// # Errors
/// As [`proc_from_c`].
pub(crate) unsafe fn procs_from_c(procs: *const pmix_proc_t, n: usize) -> Result<Vec<Proc>> {
    if procs.is_null() || n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: `n` initialised procs (caller guarantee).
    let slice = unsafe { std::slice::from_raw_parts(procs, n) };
    slice.iter().map(proc_from_c).collect()
}

/// A malloc'd C array of `procs` (NULL when empty), to be freed with `free`.
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub(crate) fn procs_to_c(procs: &[Proc]) -> Result<*mut pmix_proc_t> {
    let out = calloc_array::<pmix_proc_t>(procs.len())?;
    for (i, p) in procs.iter().enumerate() {
        // SAFETY: `i < procs.len()`, inside the fresh allocation.
        unsafe { out.add(i).write(proc_to_c(p)) };
    }
    Ok(out)
}
