//! Process ids, keys and namespaces: `PMIx_Proc_construct/destruct/
//! create/free/load`, `PMIx_Load_key`/`PMIx_Check_key`/
//! `PMIx_Check_reserved_key`, `PMIx_Load_nspace`/`PMIx_Check_nspace`/
//! `PMIx_Nspace_invalid`, `PMIx_Load_procid`/`PMIx_Xfer_procid`/
//! `PMIx_Check_procid`/`PMIx_Check_rank`/`PMIx_Procid_invalid`, the
//! multicluster namespace helpers, and `PMIx_Proc_info_*`.
//!
//! Keys are compared on at most `PMIX_MAX_KEYLEN` bytes, namespaces on at
//! most `PMIX_MAX_NSLEN`; an empty or NULL namespace matches any (it is
//! the wildcard of `PMIx_Check_nspace`), as `PMIX_RANK_WILDCARD` matches
//! any rank.

use std::os::raw::c_char;
use std::ptr;

use super::lifecycle;
use crate::cmem;
use crate::types::*;

lifecycle! {
    Proc: pmix_proc_t {
        construct PMIx_Proc_construct,
        destruct PMIx_Proc_destruct,
        create PMIx_Proc_create,
        free PMIx_Proc_free,
    }
    ProcInfo: pmix_proc_info_t {
        construct PMIx_Proc_info_construct,
        destruct PMIx_Proc_info_destruct,
        create PMIx_Proc_info_create,
        free PMIx_Proc_info_free,
    }
}

/// The bytes of a C string, at most `max` (`strnlen`); empty for NULL.
///
/// # Safety
/// `s` is NULL or readable up to its NUL or `max` bytes.
unsafe fn bounded<'a>(s: *const c_char, max: usize) -> &'a [u8] {
    if s.is_null() {
        return &[];
    }
    let mut n = 0;
    // SAFETY: readable up to the NUL or `max` bytes (caller guarantee).
    while n < max && unsafe { *s.add(n) } != 0 {
        n += 1;
    }
    // SAFETY: the `n` bytes just read.
    unsafe { std::slice::from_raw_parts(s.cast::<u8>(), n) }
}

/// Writes `src` (truncated to `max` bytes) NUL-padded into the
/// `max + 1`-byte buffer at `dst`.
///
/// # Safety
/// `dst` is writable for `max + 1` bytes; `src` is NULL or a C string not
/// overlapping it.
unsafe fn load_fixed(dst: *mut c_char, src: *const c_char, max: usize) {
    // SAFETY: forwarded caller guarantee.
    let bytes = unsafe { bounded(src, max) };
    // SAFETY: `dst` is writable for `max + 1 > bytes.len()` bytes.
    unsafe {
        ptr::write_bytes(dst, 0, max + 1);
        ptr::copy_nonoverlapping(bytes.as_ptr().cast(), dst, bytes.len());
    }
}

/// `void PMIx_Load_key(pmix_key_t key, const char *src)`: `src` truncated
/// to `PMIX_MAX_KEYLEN`, the rest zeroed (an empty key for NULL `src`).
///
/// # Safety
/// `key` is NULL or a writable `pmix_key_t`; `src` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_key(key: *mut c_char, src: *const c_char) {
    if !key.is_null() {
        // SAFETY: a writable pmix_key_t (caller guarantee).
        unsafe { load_fixed(key, src, PMIX_MAX_KEYLEN) };
    }
}

/// `bool PMIx_Check_key(const char *key, const char *str)`: the two agree
/// on their first `PMIX_MAX_KEYLEN` bytes; `false` when either is NULL.
///
/// # Safety
/// `key`/`str` are NULL or C strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_key(key: *const c_char, s: *const c_char) -> bool {
    // SAFETY: C strings (caller guarantee).
    !key.is_null()
        && !s.is_null()
        && unsafe { bounded(key, PMIX_MAX_KEYLEN) == bounded(s, PMIX_MAX_KEYLEN) }
}

/// `bool PMIx_Check_reserved_key(const char *key)`: the key starts with
/// `pmix` (the prefix the Standard reserves); `false` for NULL.
///
/// # Safety
/// `key` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_reserved_key(key: *const c_char) -> bool {
    // SAFETY: NULL or a C string (caller guarantee).
    let head = unsafe { bounded(key, 4) };
    head == b"pmix"
}

/// `void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str)`: as
/// [`PMIx_Load_key`] with `PMIX_MAX_NSLEN`.
///
/// # Safety
/// `nspace` is NULL or a writable `pmix_nspace_t`; `str` is NULL or a C
/// string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_nspace(nspace: *mut c_char, s: *const c_char) {
    if !nspace.is_null() {
        // SAFETY: a writable pmix_nspace_t (caller guarantee).
        unsafe { load_fixed(nspace, s, PMIX_MAX_NSLEN) };
    }
}

/// `bool PMIx_Nspace_invalid(const char *nspace)`: NULL or empty.
///
/// # Safety
/// `nspace` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Nspace_invalid(nspace: *const c_char) -> bool {
    // SAFETY: NULL or a C string (caller guarantee).
    unsafe { bounded(nspace, 1) }.is_empty()
}

/// `bool PMIx_Check_nspace(const char *ns1, const char *ns2)`: equal on
/// their first `PMIX_MAX_NSLEN` bytes, or either is invalid (an unset
/// namespace matches any).
///
/// # Safety
/// Both are NULL or C strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_nspace(ns1: *const c_char, ns2: *const c_char) -> bool {
    // SAFETY: NULL or C strings (caller guarantee).
    let (a, b) = unsafe { (bounded(ns1, PMIX_MAX_NSLEN), bounded(ns2, PMIX_MAX_NSLEN)) };
    a.is_empty() || b.is_empty() || a == b
}

/// `void PMIx_Load_procid(pmix_proc_t *p, const char *ns, pmix_rank_t
/// rk)`: the namespace (as [`PMIx_Load_nspace`]) and the rank.
///
/// # Safety
/// `p` is NULL or writable; `ns` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Load_procid(p: *mut pmix_proc_t, ns: *const c_char, rk: pmix_rank_t) {
    // SAFETY: NULL or writable (caller guarantee).
    if let Some(p) = unsafe { p.as_mut() } {
        // SAFETY: the proc's namespace buffer; `ns` a C string.
        unsafe { load_fixed(p.nspace.as_mut_ptr(), ns, PMIX_MAX_NSLEN) };
        p.rank = rk;
    }
}

/// `void PMIx_Proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t
/// rank)`: as [`PMIx_Load_procid`].
///
/// # Safety
/// As [`PMIx_Load_procid`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_load(
    p: *mut pmix_proc_t,
    nspace: *const c_char,
    rank: pmix_rank_t,
) {
    // SAFETY: forwarded caller guarantee.
    unsafe { PMIx_Load_procid(p, nspace, rank) }
}

/// `void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src)`: a
/// copy; a NULL `src` zeroes `dst`.
///
/// # Safety
/// `dst` is NULL or writable; `src` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Xfer_procid(dst: *mut pmix_proc_t, src: *const pmix_proc_t) {
    if dst.is_null() {
        return;
    }
    // SAFETY: `dst` writable, `src` NULL or valid (caller guarantee); a
    // plain struct (ptr::copy tolerates dst == src).
    unsafe {
        if src.is_null() {
            ptr::write_bytes(dst, 0, 1);
        } else {
            ptr::copy(src, dst, 1);
        }
    }
}

/// `bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b)`: equal, or either
/// is `PMIX_RANK_WILDCARD`.
#[no_mangle]
pub extern "C" fn PMIx_Check_rank(a: pmix_rank_t, b: pmix_rank_t) -> bool {
    a == b || a == PMIX_RANK_WILDCARD || b == PMIX_RANK_WILDCARD
}

/// `bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b)`:
/// [`PMIx_Check_nspace`] and [`PMIx_Check_rank`] both hold; two NULLs are
/// the same, one NULL is not the other.
///
/// # Safety
/// Both are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Check_procid(a: *const pmix_proc_t, b: *const pmix_proc_t) -> bool {
    // SAFETY: NULL or valid (caller guarantee).
    match unsafe { (a.as_ref(), b.as_ref()) } {
        (None, None) => true,
        (Some(a), Some(b)) => {
            // SAFETY: the procs' namespace buffers are NUL-bounded arrays
            // read at most PMIX_MAX_NSLEN bytes.
            let same_ns = unsafe { PMIx_Check_nspace(a.nspace.as_ptr(), b.nspace.as_ptr()) };
            same_ns && PMIx_Check_rank(a.rank, b.rank)
        }
        _ => false,
    }
}

/// `bool PMIx_Procid_invalid(const pmix_proc_t *p)`: NULL, an invalid
/// namespace or `PMIX_RANK_INVALID`.
///
/// # Safety
/// `p` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Procid_invalid(p: *const pmix_proc_t) -> bool {
    // SAFETY: NULL or valid (caller guarantee).
    match unsafe { p.as_ref() } {
        None => true,
        Some(p) => cmem::fixed_bytes(&p.nspace).is_empty() || p.rank == PMIX_RANK_INVALID,
    }
}

/// `void PMIx_Multicluster_nspace_construct(pmix_nspace_t target,
/// pmix_nspace_t cluster, pmix_nspace_t nspace)`: `target` becomes
/// `cluster:nspace` when that fits in `PMIX_MAX_NSLEN`, else empty.
///
/// # Safety
/// `target` is NULL or a writable `pmix_nspace_t`; `cluster`/`nspace` are
/// NULL or readable `pmix_nspace_t`s, not overlapping `target`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Multicluster_nspace_construct(
    target: *mut c_char,
    cluster: *const c_char,
    nspace: *const c_char,
) {
    if target.is_null() {
        return;
    }
    // SAFETY: NUL-bounded namespace buffers (caller guarantee).
    let (c, n) = unsafe {
        (
            bounded(cluster, PMIX_MAX_NSLEN),
            bounded(nspace, PMIX_MAX_NSLEN),
        )
    };
    let joined: Vec<u8> = if c.len() + n.len() < PMIX_MAX_NSLEN {
        [c, b":", n].concat()
    } else {
        Vec::new()
    };
    // SAFETY: `target` is writable for PMIX_MAX_NSLEN + 1 bytes; `joined`
    // is at most PMIX_MAX_NSLEN bytes long.
    unsafe {
        ptr::write_bytes(target, 0, PMIX_MAX_NSLEN + 1);
        ptr::copy_nonoverlapping(joined.as_ptr().cast(), target, joined.len());
    }
}

/// `void PMIx_Multicluster_nspace_parse(pmix_nspace_t target,
/// pmix_nspace_t cluster, pmix_nspace_t nspace)`: splits `target` at its
/// first `:` into `cluster` and `nspace` (both emptied first; without a
/// `:` all of `target` is the cluster).
///
/// # Safety
/// `target` is NULL or a readable `pmix_nspace_t`; `cluster`/`nspace` are
/// NULL or writable `pmix_nspace_t`s, none overlapping.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Multicluster_nspace_parse(
    target: *const c_char,
    cluster: *mut c_char,
    nspace: *mut c_char,
) {
    if cluster.is_null() || nspace.is_null() {
        return;
    }
    // SAFETY: a NUL-bounded namespace buffer (caller guarantee).
    let t = unsafe { bounded(target, PMIX_MAX_NSLEN) };
    let (c, n) = match t.iter().position(|&b| b == b':') {
        Some(i) => (&t[..i], &t[i + 1..]),
        None => (t, &[][..]),
    };
    // SAFETY: each is writable for PMIX_MAX_NSLEN + 1 bytes and the parts
    // are shorter than PMIX_MAX_NSLEN + 1.
    unsafe {
        ptr::write_bytes(cluster, 0, PMIX_MAX_NSLEN + 1);
        ptr::write_bytes(nspace, 0, PMIX_MAX_NSLEN + 1);
        ptr::copy_nonoverlapping(c.as_ptr().cast(), cluster, c.len());
        ptr::copy_nonoverlapping(n.as_ptr().cast(), nspace, n.len());
    }
}
