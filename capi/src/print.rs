//! Text of a value or an info for `PMIx_Value_string` / `PMIx_Info_string`,
//! in OpenPMIx 4.2.2's layout for the scalar, string, proc, byte-object,
//! envar, proc-info and data-array types (other types print their type
//! name only).

use std::fmt::Write as _;
use std::ptr::{self, read_unaligned};

use pmix_core::Rank;

use crate::cmem;
use crate::cvalue;
use crate::strings;
use crate::types::*;

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn type_name(ty: pmix_data_type_t) -> String {
    lossy(strings::data_type_string(ty).to_bytes())
}

fn proc_text(p: &pmix_proc_t) -> String {
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

/// The text after `" PMIX_VALUE: "` (also used, without that prefix, for
/// data-array elements).
///
/// # Safety
/// `v` is a valid value.
unsafe fn value_body(v: &pmix_value_t) -> String {
    let ty = v.type_;
    let head = format!(" Data type: {}", type_name(ty));
    // SAFETY: each arm reads the representation its type tag declares.
    unsafe {
        let d = ptr::addr_of!(v.data).cast::<u8>();
        macro_rules! val {
            ($t:ty) => {
                format!("{head}\tValue: {}", read_unaligned(d.cast::<$t>()))
            };
        }
        match ty {
            PMIX_UNDEF => head,
            PMIX_BOOL => format!("{head}\tValue: {}", if *d != 0 { "TRUE" } else { "FALSE" }),
            PMIX_BYTE => format!("{head}\tValue: {:x}", *d),
            PMIX_SIZE => val!(usize),
            PMIX_PID | PMIX_INT | PMIX_INT32 => val!(i32),
            PMIX_INT8 => val!(i8),
            PMIX_INT16 => val!(i16),
            PMIX_INT64 => val!(i64),
            PMIX_UINT | PMIX_UINT32 => val!(u32),
            PMIX_UINT8 | PMIX_PERSIST => val!(u8),
            PMIX_UINT16 => val!(u16),
            PMIX_UINT64 => val!(u64),
            PMIX_FLOAT => format!("{head}\tValue: {:.6}", read_unaligned(d.cast::<f32>())),
            PMIX_DOUBLE => format!("{head}\tValue: {:.6}", read_unaligned(d.cast::<f64>())),
            PMIX_TIMEVAL => {
                let tv = read_unaligned(d.cast::<libc::timeval>());
                format!("{head}\tValue: {}.{:06}", tv.tv_sec, tv.tv_usec)
            }
            PMIX_TIME => format!("{head}\tValue: {}", ctime(read_unaligned(d.cast()))),
            PMIX_STATUS => format!(
                "{head}\tValue: {}",
                lossy(strings::error_string(read_unaligned(d.cast())).to_bytes())
            ),
            PMIX_PROC_RANK => format!("{head}\tValue: {}", Rank(read_unaligned(d.cast()))),
            PMIX_STRING => {
                let s = v.data.string;
                if s.is_null() {
                    format!("{head}\tValue: NULL pointer")
                } else {
                    format!("{head}\tValue: {}", lossy(cmem::c_bytes(s)))
                }
            }
            PMIX_PROC_NSPACE => {
                let ns = v.data.nspace;
                let text = if ns.is_null() {
                    String::new()
                } else {
                    lossy(cmem::fixed_bytes(&*ns))
                };
                format!("{head}\tValue: {text}")
            }
            PMIX_PROC => {
                let p = v.data.proc_;
                if p.is_null() {
                    " PROC: NULL".to_owned()
                } else {
                    format!(" PROC: {}", proc_text(&*p))
                }
            }
            PMIX_BYTE_OBJECT
            | PMIX_COMPRESSED_STRING
            | PMIX_COMPRESSED_BYTE_OBJECT
            | PMIX_REGEX => format!("{head}\tSize: {}", v.data.bo.size),
            PMIX_SCOPE => text(head, strings::scope_string(*d)),
            PMIX_DATA_RANGE => text(head, strings::data_range_string(*d)),
            PMIX_PROC_STATE => text(head, strings::proc_state_string(*d)),
            PMIX_JOB_STATE => text(head, strings::job_state_string(*d)),
            PMIX_ENVAR => {
                let e = v.data.envar;
                format!(
                    "{head}\tName: {}\tValue: {}\tSeparator: {}",
                    lossy(cmem::c_bytes(e.envar)),
                    lossy(cmem::c_bytes(e.value)),
                    char::from(e.separator as u8)
                )
            }
            PMIX_PROC_INFO if !v.data.pinfo.is_null() => {
                let pi = &*v.data.pinfo;
                format!(
                    "{head}\tValue:\n \tPROC: {}\n \tHostname: {}\tExecutable: {}\n \tPid: {}\tExit code: {}\tState: {}",
                    proc_text(&pi.proc_),
                    lossy(cmem::c_bytes(pi.hostname)),
                    lossy(cmem::c_bytes(pi.executable_name)),
                    pi.pid,
                    pi.exit_code,
                    lossy(strings::proc_state_string(pi.state).to_bytes())
                )
            }
            PMIX_DATA_ARRAY if !v.data.darray.is_null() => {
                let a = &*v.data.darray;
                let mut s = format!("{head}\tType: {}\tSize: {}", type_name(a.type_), a.size);
                if let (Some(size), false) = (cvalue::elem_size(a.type_), a.array.is_null()) {
                    for i in 0..a.size {
                        let e = a.array.cast::<u8>().add(i * size);
                        let _ = write!(s, "\n {}", elem_text(a.type_, e, size));
                    }
                }
                s
            }
            _ => head,
        }
    }
}

fn text(head: String, s: &std::ffi::CStr) -> String {
    format!("{head}\tValue: {}", lossy(s.to_bytes()))
}

/// One data-array element as text.
///
/// # Safety
/// `e` points to one element of `ty` of `size` bytes.
unsafe fn elem_text(ty: pmix_data_type_t, e: *const u8, size: usize) -> String {
    if ty == PMIX_INFO {
        // SAFETY: an INFO element is a pmix_info_t.
        return unsafe { info_text(&*e.cast()) };
    }
    if ty == PMIX_VALUE {
        // SAFETY: a VALUE element is a pmix_value_t.
        return unsafe { value_body(&*e.cast()) };
    }
    if !cvalue::in_value(ty) {
        return format!(" Data type: {}", type_name(ty));
    }
    // View the element as a value: inline types are copied into the union,
    // boxed types are pointed to (the view is never destructed).
    let mut v = pmix_value_t::INIT;
    v.type_ = ty;
    if cvalue::is_boxed(ty) {
        v.data.ptr = e.cast_mut().cast();
    } else {
        // SAFETY: inline elements are at most 24 bytes, the union's size.
        unsafe { ptr::copy_nonoverlapping(e, ptr::addr_of_mut!(v.data).cast::<u8>(), size) };
    }
    // SAFETY: `v` is a valid view of the element.
    unsafe { value_body(&v) }
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
