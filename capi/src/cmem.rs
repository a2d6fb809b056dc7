//! C memory helpers. Rule R1 (docs/CAPI.md, "Rules"): every pointer that
//! crosses the C boundary is allocated with libc `malloc`/`calloc`/`strdup`
//! and released with libc `free`, never with Rust's allocator. Everything
//! here follows it. Also: output arguments reset by an answer ([`Out`]).

use std::ffi::CStr;
use std::os::raw::c_char;
use std::ptr;

use pmix_core::{Error, Result, Status};

use crate::types::{pmix_key_t, pmix_nspace_t, PMIX_MAX_KEYLEN, PMIX_MAX_NSLEN};

/// `PMIX_ERR_NOMEM` as an error.
pub(crate) fn nomem() -> Error {
    Error::with_context(Status::ERR_NOMEM, "libc allocation failed")
}

/// `PMIX_ERR_BAD_PARAM` with a context.
pub(crate) fn bad_param(what: &str) -> Error {
    Error::with_context(Status::ERR_BAD_PARAM, what.to_owned())
}

/// `calloc(n, sizeof(T))`: zeroed, NULL for `n == 0`.
///
/// # Errors
/// `PMIX_ERR_NOMEM` when the allocation fails or the size overflows.
pub(crate) fn calloc_array<T>(n: usize) -> Result<*mut T> {
    if n == 0 || std::mem::size_of::<T>() == 0 {
        return Ok(ptr::null_mut());
    }
    // SAFETY: calloc has no preconditions; it checks `n * size` for overflow
    // itself and returns NULL on failure, which is checked below.
    let p = unsafe { libc::calloc(n, std::mem::size_of::<T>()) }.cast::<T>();
    if p.is_null() {
        Err(nomem())
    } else {
        Ok(p)
    }
}

/// `calloc(1, sizeof(T))`, never NULL on success.
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub(crate) fn calloc_one<T>() -> Result<*mut T> {
    calloc_array::<T>(1)
}

/// `free(p)`; NULL is allowed.
///
/// # Safety
/// `p` is NULL or was returned by libc `malloc`/`calloc`/`realloc`/`strdup`
/// and not freed since.
pub(crate) unsafe fn free<T>(p: *mut T) {
    // SAFETY: the caller guarantees `p` is NULL or a live libc allocation.
    unsafe { libc::free(p.cast()) }
}

/// A malloc'd, NUL-terminated copy of `bytes`, cut at the first NUL (a C
/// string cannot carry one).
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub(crate) fn strdup_bytes(bytes: &[u8]) -> Result<*mut c_char> {
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let p = calloc_array::<c_char>(len + 1)?;
    // SAFETY: `p` has room for `len + 1` bytes and does not overlap `bytes`;
    // the last byte stays zero (calloc).
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), p, len) };
    Ok(p)
}

/// A malloc'd C copy of `s` (see [`strdup_bytes`]).
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub(crate) fn strdup_str(s: &str) -> Result<*mut c_char> {
    strdup_bytes(s.as_bytes())
}

/// `strdup(p)`, NULL for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub(crate) unsafe fn strdup_c(p: *const c_char) -> Result<*mut c_char> {
    if p.is_null() {
        return Ok(ptr::null_mut());
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    let q = unsafe { libc::strdup(p) };
    if q.is_null() {
        Err(nomem())
    } else {
        Ok(q)
    }
}

/// The bytes of a C string (without the NUL); empty for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that outlives the result.
pub(crate) unsafe fn c_bytes<'a>(p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        return &[];
    }
    // SAFETY: the caller guarantees a NUL-terminated string living for 'a.
    unsafe { CStr::from_ptr(p) }.to_bytes()
}

/// A C string as UTF-8 `String`; NULL is `None`.
///
/// # Safety
/// As [`c_bytes`].
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for bytes that are not UTF-8.
pub(crate) unsafe fn c_string(p: *const c_char) -> Result<Option<String>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded caller guarantee.
    let bytes = unsafe { c_bytes(p) };
    std::str::from_utf8(bytes)
        .map(|s| Some(s.to_owned()))
        .map_err(|_| bad_param("a C string is not UTF-8"))
}

/// A C string as `String`, NULL read as empty.
///
/// # Safety
/// As [`c_bytes`].
///
/// # Errors
/// As [`c_string`].
pub(crate) unsafe fn c_string_or_empty(p: *const c_char) -> Result<String> {
    // SAFETY: forwarded caller guarantee.
    Ok(unsafe { c_string(p) }?.unwrap_or_default())
}

/// The bytes of a fixed `char[N]` up to its first NUL (at most `N - 1`).
pub(crate) fn fixed_bytes(buf: &[c_char]) -> &[u8] {
    let max = buf.len().saturating_sub(1);
    let len = buf[..max].iter().position(|&c| c == 0).unwrap_or(max);
    // SAFETY: `c_char` and `u8` have the same size and alignment, and the
    // slice `buf[..len]` is initialised memory borrowed for the same lifetime.
    unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), len) }
}

/// Fills a fixed `char[N]`: zeroed, then at most `N - 1` bytes of `src` (cut
/// at a NUL), as `PMIX_LOAD_KEY`/`PMIX_LOAD_NSPACE` do.
pub(crate) fn load_fixed(dst: &mut [c_char], src: &[u8]) {
    dst.fill(0);
    let max = dst.len().saturating_sub(1);
    let len = src
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(src.len())
        .min(max);
    for (d, s) in dst.iter_mut().zip(&src[..len]) {
        *d = *s as c_char;
    }
}

/// `PMIX_LOAD_KEY`.
pub(crate) fn load_key(dst: &mut pmix_key_t, src: &[u8]) {
    debug_assert_eq!(dst.len(), PMIX_MAX_KEYLEN + 1);
    load_fixed(dst, src);
}

/// `PMIX_LOAD_NSPACE`.
pub(crate) fn load_nspace(dst: &mut pmix_nspace_t, src: &[u8]) {
    debug_assert_eq!(dst.len(), PMIX_MAX_NSLEN + 1);
    load_fixed(dst, src);
}

/// Number of entries of a NULL-terminated `char**` (0 for NULL).
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of pointers.
pub(crate) unsafe fn argv_len(argv: *const *mut c_char) -> usize {
    if argv.is_null() {
        return 0;
    }
    let mut n = 0;
    // SAFETY: the array is NULL-terminated, so every index up to and
    // including the terminator is in bounds.
    while !unsafe { *argv.add(n) }.is_null() {
        n += 1;
    }
    n
}

/// Reads a NULL-terminated `char**` into strings.
///
/// # Safety
/// As [`argv_len`], and every entry is NUL-terminated.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a non-UTF-8 entry.
pub(crate) unsafe fn argv_to_vec(argv: *const *mut c_char) -> Result<Vec<String>> {
    // SAFETY: forwarded caller guarantee.
    let n = unsafe { argv_len(argv) };
    (0..n)
        // SAFETY: `i < n` entries exist and each is a C string.
        .map(|i| unsafe { c_string_or_empty(*argv.add(i)) })
        .collect()
}

/// A malloc'd NULL-terminated `char**` of malloc'd copies; NULL for an
/// empty list.
///
/// # Errors
/// `PMIX_ERR_NOMEM` (nothing is leaked).
pub(crate) fn argv_from_strs<S: AsRef<str>>(items: &[S]) -> Result<*mut *mut c_char> {
    if items.is_empty() {
        return Ok(ptr::null_mut());
    }
    let argv = calloc_array::<*mut c_char>(items.len() + 1)?;
    for (i, s) in items.iter().enumerate() {
        match strdup_str(s.as_ref()) {
            // SAFETY: `i < items.len()`, inside the allocation.
            Ok(p) => unsafe { *argv.add(i) = p },
            Err(e) => {
                // SAFETY: `argv` is ours, NULL-terminated (calloc) and holds
                // malloc'd entries only.
                unsafe { argv_free(argv) };
                return Err(e);
            }
        }
    }
    Ok(argv)
}

/// Deep copy of a NULL-terminated `char**` (NULL for NULL).
///
/// # Safety
/// As [`argv_to_vec`].
///
/// # Errors
/// `PMIX_ERR_NOMEM` (nothing is leaked).
pub(crate) unsafe fn argv_dup(argv: *const *mut c_char) -> Result<*mut *mut c_char> {
    if argv.is_null() {
        return Ok(ptr::null_mut());
    }
    // SAFETY: forwarded caller guarantee.
    let n = unsafe { argv_len(argv) };
    let out = calloc_array::<*mut c_char>(n + 1)?;
    for i in 0..n {
        // SAFETY: `i < n`: a live entry of `argv` and a slot of `out`.
        match unsafe { strdup_c(*argv.add(i)) } {
            // SAFETY: as above.
            Ok(p) => unsafe { *out.add(i) = p },
            Err(e) => {
                // SAFETY: `out` is ours, NULL-terminated, malloc'd entries.
                unsafe { argv_free(out) };
                return Err(e);
            }
        }
    }
    Ok(out)
}

/// Frees a malloc'd NULL-terminated `char**` and its entries.
///
/// # Safety
/// `argv` is NULL or a libc-allocated, NULL-terminated array of
/// libc-allocated strings, none of them used afterwards.
pub(crate) unsafe fn argv_free(argv: *mut *mut c_char) {
    if argv.is_null() {
        return;
    }
    let mut i = 0;
    loop {
        // SAFETY: NULL-terminated array: every index up to the terminator is
        // in bounds.
        let p = unsafe { *argv.add(i) };
        if p.is_null() {
            break;
        }
        // SAFETY: each entry is a live libc allocation (caller guarantee).
        unsafe { free(p) };
        i += 1;
    }
    // SAFETY: the array itself is a live libc allocation.
    unsafe { free(argv) };
}

/// An output argument that an answer resets to its empty value (NULL, 0,
/// an empty struct) before it returns without a result.
pub(crate) trait Out {
    /// Writes the empty value when the pointer is not NULL.
    ///
    /// # Safety
    /// The pointer is NULL or valid for a write of its pointee.
    unsafe fn clear(self);
}

impl<T> Out for *mut *mut T {
    unsafe fn clear(self) {
        if !self.is_null() {
            // SAFETY: non-NULL and writable (trait contract).
            unsafe { self.write(ptr::null_mut()) };
        }
    }
}

macro_rules! out_zero {
    ($($t:ty = $zero:expr;)*) => {$(
        impl Out for *mut $t {
            unsafe fn clear(self) {
                if !self.is_null() {
                    // SAFETY: non-NULL and writable (trait contract).
                    unsafe { self.write($zero) };
                }
            }
        }
    )*};
}

out_zero! {
    usize = 0;
    i32 = 0;
    crate::types::pmix_locality_t = 0; // PMIX_LOCALITY_UNKNOWN
    crate::types::pmix_byte_object_t = crate::types::pmix_byte_object_t {
        bytes: ptr::null_mut(),
        size: 0,
    };
    crate::types::pmix_cpuset_t = crate::types::pmix_cpuset_t {
        source: ptr::null_mut(),
        bitmap: ptr::null_mut(),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strdup_cuts_at_nul_and_fixed_buffers_truncate() {
        let p = strdup_bytes(b"ab\0cd").unwrap();
        // SAFETY: `p` is a fresh C string from strdup_bytes.
        assert_eq!(unsafe { c_bytes(p) }, b"ab");
        // SAFETY: `p` is a live libc allocation.
        unsafe { free(p) };

        let mut key: pmix_key_t = [1; PMIX_MAX_KEYLEN + 1];
        load_key(&mut key, &[b'k'; 700]);
        assert_eq!(fixed_bytes(&key).len(), PMIX_MAX_KEYLEN);
        assert_eq!(key[PMIX_MAX_KEYLEN], 0);
        load_key(&mut key, b"x");
        assert_eq!(fixed_bytes(&key), b"x");
        assert!(key[1..].iter().all(|&c| c == 0));
    }

    #[test]
    fn argv_round_trips() {
        let argv = argv_from_strs(&["a", "bc"]).unwrap();
        // SAFETY: `argv` is a fresh NULL-terminated array.
        let copy = unsafe { argv_dup(argv) }.unwrap();
        // SAFETY: as above.
        assert_eq!(unsafe { argv_to_vec(copy) }.unwrap(), vec!["a", "bc"]);
        // SAFETY: both are ours and unused afterwards.
        unsafe {
            argv_free(argv);
            argv_free(copy);
        }
        assert!(argv_from_strs::<&str>(&[]).unwrap().is_null());
    }
}
