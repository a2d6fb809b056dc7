//! Text of a value or an info for `PMIx_Value_string` / `PMIx_Info_string`,
//! in OpenPMIx 4.2.2's layout for the scalar, string, proc, byte-object,
//! envar, proc-info and data-array types (other types print their type
//! name only).

use std::ffi::CStr;
use std::fmt::Write as _;
use std::ptr::{self, read_unaligned};

use pmix_core::Rank;

use crate::cdata::{elem_ptr, ElemKind, PodValue};
use crate::cmem;
use crate::strings;
use crate::types::*;

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn type_name(ty: pmix_data_type_t) -> String {
    lossy(strings::data_type_string(ty).to_bytes())
}

pub(crate) fn proc_text(p: &pmix_proc_t) -> String {
    format!("{}:{}", lossy(cmem::fixed_bytes(&p.nspace)), Rank(p.rank))
}

/// `ctime(3)` without its newline.
fn ctime(t: libc::time_t) -> String {
    let mut buf = [0 as std::os::raw::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into the 64-byte buffer and
    // returns NULL or `buf`, NUL-terminated.
    let p = unsafe { libc::ctime_r(&t, buf.as_mut_ptr()) };
    if p.is_null() {
        return t.to_string();
    }
    // SAFETY: `p` is `buf`, NUL-terminated.
    lossy(unsafe { cmem::c_bytes(p) }).trim_end().to_owned()
}

fn text(head: String, s: &CStr) -> String {
    format!("{head}\tValue: {}", lossy(s.to_bytes()))
}

/// The scalar tags OpenPMIx prints as a number (the other scalar tags
/// print a name, or their type only).
const NUMBERS: [pmix_data_type_t; 16] = [
    PMIX_SIZE,
    PMIX_PID,
    PMIX_INT,
    PMIX_INT32,
    PMIX_INT8,
    PMIX_INT16,
    PMIX_INT64,
    PMIX_UINT,
    PMIX_UINT32,
    PMIX_UINT8,
    PMIX_PERSIST,
    PMIX_UINT16,
    PMIX_UINT64,
    PMIX_FLOAT,
    PMIX_DOUBLE,
    PMIX_TIMEVAL,
];

/// The text of a scalar of tag `ty` after `head`.
fn pod_text(ty: pmix_data_type_t, head: String, x: PodValue) -> String {
    use PodValue as X;
    match (ty, x) {
        (_, X::Bool(b)) => format!("{head}\tValue: {}", if b { "TRUE" } else { "FALSE" }),
        (PMIX_BYTE, X::U8(b)) => format!("{head}\tValue: {b:x}"),
        (PMIX_TIME, X::I64(t)) => format!("{head}\tValue: {}", ctime(t)),
        (PMIX_STATUS, X::I32(s)) => text(head, strings::error_string(s)),
        (PMIX_PROC_RANK, X::U32(r)) => format!("{head}\tValue: {}", Rank(r)),
        (PMIX_SCOPE, X::U8(s)) => text(head, strings::scope_string(s)),
        (PMIX_DATA_RANGE, X::U8(r)) => text(head, strings::data_range_string(r)),
        (PMIX_PROC_STATE, X::U8(s)) => text(head, strings::proc_state_string(s)),
        (PMIX_JOB_STATE, X::U8(s)) => text(head, strings::job_state_string(s)),
        _ if !NUMBERS.contains(&ty) => head,
        (_, X::F32(f)) => format!("{head}\tValue: {f:.6}"),
        (_, X::F64(f)) => format!("{head}\tValue: {f:.6}"),
        (_, X::Timeval(sec, usec)) => format!("{head}\tValue: {sec}.{usec:06}"),
        (_, X::U8(n)) => format!("{head}\tValue: {n}"),
        (_, X::I8(n)) => format!("{head}\tValue: {n}"),
        (_, X::I16(n)) => format!("{head}\tValue: {n}"),
        (_, X::U16(n)) => format!("{head}\tValue: {n}"),
        (_, X::I32(n)) => format!("{head}\tValue: {n}"),
        (_, X::U32(n)) => format!("{head}\tValue: {n}"),
        (_, X::I64(n)) => format!("{head}\tValue: {n}"),
        (_, X::U64(n)) => format!("{head}\tValue: {n}"),
        (_, X::Pointer(_)) => head,
    }
}

/// The text after `" PMIX_VALUE: "` (also used, without that prefix, for
/// data-array elements).
///
/// # Safety
/// `v` is a valid value.
unsafe fn value_body(v: &pmix_value_t) -> String {
    let ty = v.type_;
    let head = format!(" Data type: {}", type_name(ty));
    let Some(kind) = ElemKind::of(ty).filter(|k| k.in_value()) else {
        return head;
    };
    // SAFETY: a valid value of type `kind`.
    match unsafe { elem_ptr(v, kind) } {
        // SAFETY: `e` points to the value's element of `kind`.
        Some(e) => unsafe { elem_body(ty, kind, head, e) },
        None if kind == ElemKind::Proc => " PROC: NULL".to_owned(),
        None if kind == ElemKind::Nspace => format!("{head}\tValue: "),
        None => head,
    }
}

/// The text of one element of `ty` (of kind `kind`) after `head`.
///
/// # Safety
/// `e` points to one initialised element of `kind` whose pointers are
/// valid for its C type.
unsafe fn elem_body(ty: pmix_data_type_t, kind: ElemKind, head: String, e: *const u8) -> String {
    use ElemKind as K;
    match kind {
        // SAFETY: one scalar (caller guarantee).
        K::Pod(pod) => pod_text(ty, head, unsafe { pod.read(e) }),
        // SAFETY: one `pmix_proc_t` (caller guarantee).
        K::Proc => format!(" PROC: {}", proc_text(unsafe { &*e.cast() })),
        K::Nspace => {
            // SAFETY: one `pmix_nspace_t` (caller guarantee).
            let ns = unsafe { &*e.cast::<pmix_nspace_t>() };
            format!("{head}\tValue: {}", lossy(cmem::fixed_bytes(ns)))
        }
        K::String => {
            // SAFETY: one `char *` (caller guarantee).
            let s: *const std::os::raw::c_char = unsafe { read_unaligned(e.cast()) };
            if s.is_null() {
                format!("{head}\tValue: NULL pointer")
            } else {
                // SAFETY: a C string (caller guarantee).
                format!("{head}\tValue: {}", lossy(unsafe { cmem::c_bytes(s) }))
            }
        }
        K::Bytes => {
            // SAFETY: one byte object (caller guarantee).
            let bo: pmix_byte_object_t = unsafe { read_unaligned(e.cast()) };
            format!("{head}\tSize: {}", bo.size)
        }
        K::Envar => {
            // SAFETY: one `pmix_envar_t` (caller guarantee).
            let env: pmix_envar_t = unsafe { read_unaligned(e.cast()) };
            // SAFETY: its strings are NULL or C strings (caller guarantee).
            let (name, value) = unsafe { (cmem::c_bytes(env.envar), cmem::c_bytes(env.value)) };
            format!(
                "{head}\tName: {}\tValue: {}\tSeparator: {}",
                lossy(name),
                lossy(value),
                char::from(env.separator as u8)
            )
        }
        K::ProcInfo => {
            // SAFETY: one `pmix_proc_info_t` (caller guarantee).
            let pi = unsafe { &*e.cast::<pmix_proc_info_t>() };
            // SAFETY: its strings are NULL or C strings (caller guarantee).
            let (host, exe) = unsafe {
                (
                    cmem::c_bytes(pi.hostname),
                    cmem::c_bytes(pi.executable_name),
                )
            };
            format!(
                "{head}\tValue:\n \tPROC: {}\n \tHostname: {}\tExecutable: {}\n \tPid: {}\tExit code: {}\tState: {}",
                proc_text(&pi.proc_),
                lossy(host),
                lossy(exe),
                pi.pid,
                pi.exit_code,
                lossy(strings::proc_state_string(pi.state).to_bytes())
            )
        }
        K::DataArray => {
            // SAFETY: one `pmix_data_array_t` (caller guarantee).
            let a = unsafe { &*e.cast::<pmix_data_array_t>() };
            let mut s = format!("{head}\tType: {}\tSize: {}", type_name(a.type_), a.size);
            if let (Some(k), false) = (ElemKind::of(a.type_), a.array.is_null()) {
                for i in 0..a.size {
                    // SAFETY: element `i < size` of the array (caller guarantee).
                    let x = unsafe { a.array.cast::<u8>().add(i * k.size()) };
                    // SAFETY: as above.
                    let _ = write!(s, "\n {}", unsafe { array_elem_text(a.type_, k, x) });
                }
            }
            s
        }
        _ => head,
    }
}

/// One data-array element as text.
///
/// # Safety
/// `e` points to one initialised element of `ty`, of kind `kind`.
unsafe fn array_elem_text(ty: pmix_data_type_t, kind: ElemKind, e: *const u8) -> String {
    match kind {
        // SAFETY: an INFO element is a pmix_info_t.
        ElemKind::Info => unsafe { info_text(&*e.cast()) },
        // SAFETY: a VALUE element is a pmix_value_t.
        ElemKind::Value => unsafe { value_body(&*e.cast()) },
        k if !k.in_value() => format!(" Data type: {}", type_name(ty)),
        k => {
            // View the element as a value: inline types are copied into the
            // union, boxed types are pointed to (the view is never
            // destructed).
            let mut v = pmix_value_t::INIT;
            v.type_ = ty;
            if k.boxed_in_value() {
                v.data.ptr = e.cast_mut().cast();
            } else {
                // SAFETY: inline elements are at most 24 bytes, the union's
                // size; `e` holds one.
                unsafe {
                    ptr::copy_nonoverlapping(e, ptr::addr_of_mut!(v.data).cast::<u8>(), k.size())
                };
            }
            // SAFETY: `v` is a valid view of the element.
            unsafe { value_body(&v) }
        }
    }
}

/// `PMIx_Value_string` text.
///
/// # Safety
/// `v` is a valid value.
pub(crate) unsafe fn value_text(v: &pmix_value_t) -> String {
    // SAFETY: forwarded.
    format!(" PMIX_VALUE: {}", unsafe { value_body(v) })
}

/// `PMIx_Info_string` text.
///
/// # Safety
/// `i` is a valid info.
pub(crate) unsafe fn info_text(i: &pmix_info_t) -> String {
    let key = cmem::fixed_bytes(&i.key);
    let name = std::ffi::CString::new(key)
        .ok()
        .and_then(|k| strings::attribute_name(&k))
        .map_or_else(|| lossy(key), |n| lossy(n.to_bytes()));
    format!(
        " KEY: {name}\n \t Data type: PMIX_INFO_DIRECTIVES\tValue: {}\n \t{}",
        strings::info_directives_string(i.flags),
        // SAFETY: forwarded.
        unsafe { value_text(&i.value) }
    )
}
