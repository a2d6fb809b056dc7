//! The argv helpers of PMIx v5 (`PMIx_Argv_count`, `..._append_nosize`,
//! `..._prepend_nosize`, `..._append_unique_nosize`, `..._free`,
//! `..._split`, `..._split_with_empty`, `..._split_inter`, `..._join`,
//! `..._copy`) and `PMIx_Setenv`, on NULL-terminated `char **` arrays in
//! libc memory (rule R1), so the caller's own argv code (Open MPI's
//! `opal_argv_*`) can free or extend what these build.

use std::os::raw::{c_char, c_int};
use std::ptr;

use pmix_core::Result;

use crate::cmem;
use crate::status::status_of;
use crate::types::*;

extern "C" {
    /// The process environment (POSIX `environ`).
    static mut environ: *mut *mut c_char;
}

/// Inserts a malloc'd copy of `s` at `at` (clamped to the length) of the
/// argv, growing it with `realloc` (a NULL argv becomes a new one).
///
/// # Safety
/// `*argv` is NULL or a libc-allocated NULL-terminated array of libc
/// strings.
///
/// # Errors
/// `PMIX_ERR_NOMEM`; the argv is unchanged then.
pub(crate) unsafe fn insert(argv: &mut *mut *mut c_char, at: usize, s: &[u8]) -> Result<()> {
    // SAFETY: NULL-terminated (caller guarantee).
    let n = unsafe { cmem::argv_len(*argv) };
    let copy = cmem::strdup_bytes(s)?;
    let bytes = (n + 2) * std::mem::size_of::<*mut c_char>();
    // SAFETY: `*argv` is NULL or a libc allocation (caller guarantee).
    let grown = unsafe { libc::realloc((*argv).cast(), bytes) }.cast::<*mut c_char>();
    if grown.is_null() {
        // SAFETY: our fresh copy.
        unsafe { cmem::free(copy) };
        return Err(cmem::nomem());
    }
    let at = at.min(n);
    // SAFETY: `grown` has room for n + 2 pointers; entries `at..n` move up
    // by one, then the copy and the terminator are written.
    unsafe {
        ptr::copy(grown.add(at), grown.add(at + 1), n - at);
        *grown.add(at) = copy;
        *grown.add(n + 1) = ptr::null_mut();
    }
    *argv = grown;
    Ok(())
}

/// Appends a malloc'd copy of `s` (see [`insert`]).
///
/// # Safety
/// As [`insert`].
///
/// # Errors
/// As [`insert`].
pub(crate) unsafe fn append(argv: &mut *mut *mut c_char, s: &[u8]) -> Result<()> {
    // SAFETY: forwarded caller guarantee.
    unsafe { insert(argv, usize::MAX, s) }
}

/// The entries of an argv as byte strings.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of C strings living for `'a`.
unsafe fn entries<'a>(argv: *const *mut c_char) -> Vec<&'a [u8]> {
    // SAFETY: NULL-terminated (caller guarantee).
    let n = unsafe { cmem::argv_len(argv) };
    // SAFETY: `i < n` entries, each a C string.
    (0..n)
        .map(|i| unsafe { cmem::c_bytes(*argv.add(i)) })
        .collect()
}

/// `int PMIx_Argv_count(char **argv)`: entries before the NULL (0 for
/// NULL).
///
/// # Safety
/// `argv` is NULL or NULL-terminated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_count(argv: *mut *mut c_char) -> c_int {
    // SAFETY: forwarded caller guarantee.
    c_int::try_from(unsafe { cmem::argv_len(argv) }).unwrap_or(c_int::MAX)
}

/// Shared body of the append/prepend exports.
///
/// # Safety
/// `argv` is NULL or points to a NULL or libc argv (see [`insert`]); `arg`
/// is NULL or a C string.
unsafe fn add(
    argv: *mut *mut *mut c_char,
    arg: *const c_char,
    at: usize,
    unique: bool,
) -> pmix_status_t {
    // SAFETY: NULL or writable (caller guarantee).
    let (Some(argv), false) = (unsafe { argv.as_mut() }, arg.is_null()) else {
        return PMIX_ERR_BAD_PARAM;
    };
    // SAFETY: a C string (caller guarantee).
    let s = unsafe { cmem::c_bytes(arg) };
    // SAFETY: a NULL-terminated argv of C strings (caller guarantee).
    if unique && unsafe { entries(*argv) }.contains(&s) {
        return PMIX_SUCCESS;
    }
    // SAFETY: as above.
    status_of(&unsafe { insert(argv, at, s) })
}

/// `pmix_status_t PMIx_Argv_append_nosize(char ***argv, const char *arg)`:
/// appends a copy of `arg` (a NULL `*argv` becomes a new array).
/// `PMIX_ERR_BAD_PARAM` for NULL arguments, `PMIX_ERR_NOMEM`.
///
/// # Safety
/// `argv` is NULL or points to NULL or a libc-allocated NULL-terminated
/// array of libc strings; `arg` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_nosize(
    argv: *mut *mut *mut c_char,
    arg: *const c_char,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    unsafe { add(argv, arg, usize::MAX, false) }
}

/// `pmix_status_t PMIx_Argv_prepend_nosize(char ***argv, const char
/// *arg)`: as [`PMIx_Argv_append_nosize`], at the front.
///
/// # Safety
/// As [`PMIx_Argv_append_nosize`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_prepend_nosize(
    argv: *mut *mut *mut c_char,
    arg: *const c_char,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    unsafe { add(argv, arg, 0, false) }
}

/// `pmix_status_t PMIx_Argv_append_unique_nosize(char ***argv, const char
/// *arg)`: as [`PMIx_Argv_append_nosize`] unless an equal entry is there
/// already (then nothing changes: `PMIX_SUCCESS`).
///
/// # Safety
/// As [`PMIx_Argv_append_nosize`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_append_unique_nosize(
    argv: *mut *mut *mut c_char,
    arg: *const c_char,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    unsafe { add(argv, arg, usize::MAX, true) }
}

/// `void PMIx_Argv_free(char **argv)`: frees the entries and the array.
///
/// # Safety
/// `argv` is NULL or a libc-allocated NULL-terminated array of libc
/// strings, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_free(argv: *mut *mut c_char) {
    // SAFETY: forwarded caller guarantee.
    unsafe { cmem::argv_free(argv) }
}

/// `char **PMIx_Argv_split_inter(const char *src, int delimiter, bool
/// include_empty)`: the pieces of `src` between delimiters, as a new argv
/// (NULL when there are none, or when memory runs out). Empty pieces
/// between delimiters or at the front are kept only with
/// `include_empty`; a trailing delimiter adds no piece.
///
/// # Safety
/// `src` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_inter(
    src: *const c_char,
    delimiter: c_int,
    include_empty: bool,
) -> *mut *mut c_char {
    // SAFETY: NULL or a C string (caller guarantee).
    let s = unsafe { cmem::c_bytes(src) };
    // C converts the int delimiter to char for the comparison.
    let delim = delimiter as u8;
    let mut pieces: Vec<&[u8]> = s.split(|&b| b == delim).collect();
    if s.is_empty() || s.last() == Some(&delim) {
        pieces.pop();
    }
    let mut argv: *mut *mut c_char = ptr::null_mut();
    for p in pieces
        .into_iter()
        .filter(|p| include_empty || !p.is_empty())
    {
        // SAFETY: `argv` is NULL or built here by `append`.
        if unsafe { append(&mut argv, p) }.is_err() {
            // SAFETY: ours.
            unsafe { cmem::argv_free(argv) };
            return ptr::null_mut();
        }
    }
    argv
}

/// `char **PMIx_Argv_split(const char *src, int delimiter)`:
/// [`PMIx_Argv_split_inter`] without empty pieces.
///
/// # Safety
/// `src` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split(src: *const c_char, delimiter: c_int) -> *mut *mut c_char {
    // SAFETY: forwarded caller guarantee.
    unsafe { PMIx_Argv_split_inter(src, delimiter, false) }
}

/// `char **PMIx_Argv_split_with_empty(const char *src, int delimiter)`:
/// [`PMIx_Argv_split_inter`] keeping empty pieces.
///
/// # Safety
/// `src` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_split_with_empty(
    src: *const c_char,
    delimiter: c_int,
) -> *mut *mut c_char {
    // SAFETY: forwarded caller guarantee.
    unsafe { PMIx_Argv_split_inter(src, delimiter, true) }
}

/// `char *PMIx_Argv_join(char **argv, int delimiter)`: the entries joined
/// by the delimiter character, malloc'd (`""` for NULL or an empty argv;
/// NULL when memory runs out).
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of C strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_join(argv: *mut *mut c_char, delimiter: c_int) -> *mut c_char {
    // SAFETY: forwarded caller guarantee.
    let joined = unsafe { entries(argv) }.join(&(delimiter as u8));
    cmem::strdup_bytes(&joined).unwrap_or(ptr::null_mut())
}

/// `char **PMIx_Argv_copy(char **argv)`: a deep copy in libc memory (NULL
/// for NULL or when memory runs out).
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of C strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Argv_copy(argv: *mut *mut c_char) -> *mut *mut c_char {
    // SAFETY: forwarded caller guarantee.
    unsafe { cmem::argv_dup(argv) }.unwrap_or(ptr::null_mut())
}

/// `pmix_status_t PMIx_Setenv(const char *name, const char *value, bool
/// overwrite, char ***env)`: sets `name=value` (`name=` for a NULL value)
/// in the argv-style environment `*env`: an existing entry for `name` is
/// replaced when `overwrite`, else the answer is `PMIX_ERR_EXISTS`;
/// otherwise the entry is appended. When `*env` is the process's own
/// `environ`, libc `setenv` (`unsetenv` for a NULL value) does it instead.
/// `PMIX_ERR_BAD_PARAM` for a NULL `env` or `name`, `PMIX_ERR_NOMEM`.
///
/// # Safety
/// `env` is NULL or points to NULL, `environ`, or a libc-allocated
/// NULL-terminated array of libc strings; `name`/`value` are NULL or C
/// strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Setenv(
    name: *const c_char,
    value: *const c_char,
    overwrite: bool,
    env: *mut *mut *mut c_char,
) -> pmix_status_t {
    // SAFETY: NULL or writable (caller guarantee).
    let (Some(env), false) = (unsafe { env.as_mut() }, name.is_null()) else {
        return PMIX_ERR_BAD_PARAM;
    };
    // SAFETY: reading the address held by `environ`, a plain pointer
    // load; nothing is written through it here.
    let process_env = unsafe { ptr::addr_of!(environ).read() };
    if !(*env).is_null() && *env == process_env {
        // SAFETY: C strings (caller guarantee); libc copies them.
        let rc = unsafe {
            if value.is_null() {
                libc::unsetenv(name)
            } else {
                libc::setenv(name, value, c_int::from(overwrite))
            }
        };
        return if rc == 0 {
            PMIX_SUCCESS
        } else {
            PMIX_ERR_BAD_PARAM
        };
    }
    // SAFETY: C strings (caller guarantee).
    let (name, value) = unsafe { (cmem::c_bytes(name), cmem::c_bytes(value)) };
    let prefix = [name, b"="].concat();
    let entry = [&prefix[..], value].concat();
    // SAFETY: a NULL-terminated argv of C strings (caller guarantee).
    let found = unsafe { entries(*env) }
        .iter()
        .position(|e| e.starts_with(&prefix));
    match found {
        Some(_) if !overwrite => PMIX_ERR_EXISTS,
        Some(i) => {
            let Ok(copy) = cmem::strdup_bytes(&entry) else {
                return PMIX_ERR_NOMEM;
            };
            // SAFETY: `i` is an entry of the libc argv; its old string is
            // a libc allocation replaced here.
            unsafe {
                let slot = (*env).add(i);
                cmem::free(*slot);
                *slot = copy;
            }
            PMIX_SUCCESS
        }
        // SAFETY: a NULL or libc argv (caller guarantee).
        None => status_of(&unsafe { append(env, &entry) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entries of an argv this module built, then freed.
    fn take(argv: *mut *mut c_char) -> Vec<String> {
        // SAFETY: NULL or an argv built by this module.
        let v = unsafe { cmem::argv_to_vec(argv) }.unwrap();
        // SAFETY: as above, not used afterwards.
        unsafe { cmem::argv_free(argv) };
        v
    }

    fn split(s: &std::ffi::CStr, empty: bool) -> Vec<String> {
        // SAFETY: a C string.
        take(unsafe { PMIx_Argv_split_inter(s.as_ptr(), c_int::from(b':'), empty) })
    }

    #[test]
    fn split_keeps_empty_pieces_only_when_asked_and_never_a_trailing_one() {
        assert_eq!(split(c"a::b", false), ["a", "b"]);
        assert_eq!(split(c"a::b", true), ["a", "", "b"]);
        assert_eq!(split(c":a:", true), ["", "a"]);
        assert_eq!(split(c"a:", false), ["a"]);
        assert!(split(c"", true).is_empty());
        assert_eq!(split(c":", true), [""]);
    }

    #[test]
    fn append_prepend_unique_and_join() {
        let mut argv: *mut *mut c_char = ptr::null_mut();
        // SAFETY: `argv` is NULL then built here; C strings.
        unsafe {
            assert_eq!(
                PMIx_Argv_append_nosize(&mut argv, c"b".as_ptr()),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Argv_prepend_nosize(&mut argv, c"a".as_ptr()),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Argv_append_unique_nosize(&mut argv, c"a".as_ptr()),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Argv_append_nosize(&mut argv, ptr::null()),
                PMIX_ERR_BAD_PARAM
            );
            assert_eq!(PMIx_Argv_count(argv), 2);
            let joined = PMIx_Argv_join(argv, c_int::from(b' '));
            assert_eq!(cmem::c_bytes(joined), b"a b");
            cmem::free(joined);
            let empty = PMIx_Argv_join(ptr::null_mut(), c_int::from(b' '));
            assert_eq!(cmem::c_bytes(empty), b"");
            cmem::free(empty);
        }
        assert_eq!(take(argv), ["a", "b"]);
    }

    #[test]
    fn setenv_replaces_only_with_overwrite() {
        let mut env: *mut *mut c_char = ptr::null_mut();
        // SAFETY: `env` is NULL then built here; C strings.
        unsafe {
            assert_eq!(
                PMIx_Setenv(c"X".as_ptr(), c"1".as_ptr(), false, &mut env),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Setenv(c"XY".as_ptr(), c"2".as_ptr(), false, &mut env),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Setenv(c"X".as_ptr(), c"3".as_ptr(), false, &mut env),
                PMIX_ERR_EXISTS
            );
            assert_eq!(
                PMIx_Setenv(c"X".as_ptr(), ptr::null(), true, &mut env),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Setenv(ptr::null(), c"1".as_ptr(), true, &mut env),
                PMIX_ERR_BAD_PARAM
            );
            assert_eq!(
                PMIx_Setenv(c"X".as_ptr(), c"1".as_ptr(), true, ptr::null_mut()),
                PMIX_ERR_BAD_PARAM
            );
        }
        assert_eq!(take(env), ["X=", "XY=2"]);
    }
}
