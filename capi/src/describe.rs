//! The text helpers OpenPMIx 5 added: `PMIx_Proc_string`,
//! `PMIx_App_string` (malloc'd text) and `PMIx_Error_code` (the inverse
//! of `PMIx_Error_string`).

use std::ffi::CStr;
use std::fmt::Write as _;
use std::os::raw::c_char;
use std::ptr;

use crate::cmem;
use crate::print;
use crate::strings;
use crate::types::*;

/// The status codes `PMIx_Error_string` names lie in this range.
const NAMED_CODES: std::ops::RangeInclusive<pmix_status_t> = -2000..=0;

/// `pmix_status_t PMIx_Error_code(const char *errname)`: the status whose
/// `PMIx_Error_string` is `errname` (ignoring case); `INT32_MIN` for an
/// unknown name or NULL.
///
/// # Safety
/// `errname` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Error_code(errname: *const c_char) -> pmix_status_t {
    if errname.is_null() {
        return i32::MIN;
    }
    // SAFETY: a C string (caller guarantee).
    let name = unsafe { CStr::from_ptr(errname) }.to_bytes();
    let unknown = strings::error_string(i32::MIN).to_bytes();
    if name.eq_ignore_ascii_case(unknown) {
        return i32::MIN;
    }
    NAMED_CODES
        .rev()
        .find(|&c| {
            strings::error_string(c)
                .to_bytes()
                .eq_ignore_ascii_case(name)
        })
        .unwrap_or(i32::MIN)
}

/// `char* PMIx_Proc_string(const pmix_proc_t *proc)`: `nspace:rank`
/// (ranks with a meaning by name, as in `PMIx_Value_string`), malloc'd;
/// NULL for NULL.
///
/// # Safety
/// `proc` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Proc_string(proc: *const pmix_proc_t) -> *mut c_char {
    // SAFETY: NULL or valid (caller guarantee).
    match unsafe { proc.as_ref() } {
        Some(p) => cmem::strdup_str(&print::proc_text(p)).unwrap_or(ptr::null_mut()),
        None => ptr::null_mut(),
    }
}

/// `NAME: text` for a C string field, `NAME: NULL` for NULL.
///
/// # Safety
/// `s` is NULL or a C string.
unsafe fn field(name: &str, s: *const c_char) -> String {
    if s.is_null() {
        format!("{name}: NULL")
    } else {
        // SAFETY: a C string (caller guarantee).
        let text = unsafe { cmem::c_bytes(s) };
        format!("{name}: {}", String::from_utf8_lossy(text))
    }
}

/// Lines `LABEL[i]: entry` of an argv, or one `NONE` line.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of C strings.
unsafe fn argv_lines(out: &mut String, label: &str, argv: *const *mut c_char) {
    let _ = write!(out, "\n    {label}:");
    // SAFETY: NULL-terminated (caller guarantee).
    let n = unsafe { cmem::argv_len(argv) };
    if argv.is_null() {
        out.push_str("\n        NONE");
    }
    for i in 0..n {
        // SAFETY: entry `i < n`, a C string.
        let s = unsafe { cmem::c_bytes(*argv.add(i)) };
        let _ = write!(
            out,
            "\n        {label}[{i}]: {}",
            String::from_utf8_lossy(s)
        );
    }
}

/// `char* PMIx_App_string(const pmix_app_t *app)`: the command, argv,
/// environment, working directory, process count and infos of an app, one
/// per line, malloc'd; NULL for NULL.
///
/// # Safety
/// `app` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_string(app: *const pmix_app_t) -> *mut c_char {
    // SAFETY: NULL or valid (caller guarantee).
    let Some(a) = (unsafe { app.as_ref() }) else {
        return ptr::null_mut();
    };
    // SAFETY: the app's fields are NULL or what their types say.
    let mut out = unsafe { field("CMD", a.cmd) };
    // SAFETY: as above.
    unsafe {
        argv_lines(&mut out, "ARGV", a.argv);
        argv_lines(&mut out, "ENV", a.env);
        let _ = write!(out, "\n    {}", field("CWD", a.cwd));
    }
    let _ = write!(out, "\n    MAXPROCS: {}", a.maxprocs);
    if a.info.is_null() {
        out.push_str("\n    INFO: NONE");
    } else {
        out.push_str("\n    INFO:");
        for i in 0..a.ninfo {
            // SAFETY: `i < ninfo` valid infos.
            let text = unsafe { print::info_text(&*a.info.add(i)) };
            let _ = write!(out, "\n        INFO[{i}]: {text}");
        }
    }
    cmem::strdup_str(&out).unwrap_or(ptr::null_mut())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_code_inverts_error_string() {
        for code in [PMIX_SUCCESS, PMIX_ERR_NOT_FOUND, PMIX_ERR_BAD_PARAM, -1367] {
            let name = strings::error_string(code);
            // SAFETY: a C string.
            assert_eq!(unsafe { PMIx_Error_code(name.as_ptr()) }, code, "{name:?}");
        }
        // SAFETY: C strings or NULL.
        unsafe {
            assert_eq!(PMIx_Error_code(c"not-found".as_ptr()), PMIX_ERR_NOT_FOUND);
            assert_eq!(
                PMIx_Error_code(c"ERROR STRING NOT FOUND".as_ptr()),
                i32::MIN
            );
            assert_eq!(PMIx_Error_code(ptr::null()), i32::MIN);
        }
    }

    #[test]
    fn framework_names_is_an_empty_null_terminated_list() {
        assert!(crate::pmix_framework_names.0[0].is_null());
    }
}
