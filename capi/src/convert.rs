//! Conversions between the C data (`pmix_value_t`, `pmix_info_t[]`,
//! `pmix_proc_t`, apps, queries) and the Rust data model of `pmix-core`.
//!
//! C → Rust always deep-copies: the caller may release its C data as soon as
//! the call returns (CAPI.md §4.3). Rust → C allocates with libc only
//! (rule R1), so C code releases the result with `free`, `PMIX_VALUE_FREE`,
//! `PMIX_INFO_FREE` and friends.
//!
//! Mapping notes:
//! - A C string that is NULL reads as `""` (`Value::String` has no NULL);
//!   `""` is written back as an empty C string for string values and as
//!   NULL for optional fields (`cwd`, `hostname`, `executable_name`).
//! - C strings must be UTF-8 (`PMIX_ERR_BAD_PARAM` otherwise); Rust strings
//!   are cut at an embedded NUL on the way to C.
//! - Types `pmix-core` does not model (`PMIX_POINTER`, `PMIX_COORD`,
//!   `PMIX_TOPO`, the stats, ...) and arrays of `PMIX_VALUE`/`PMIX_PDATA`
//!   are `PMIX_ERR_NOT_SUPPORTED`; so are `PMIX_APP`, `PMIX_QUERY` and
//!   `PMIX_INFO` as a top-level value (C holds them only in data arrays).
#![allow(dead_code)] // the client/server entry points (next step) use the rest

use std::os::raw::c_char;
use std::ptr::{self, read_unaligned, write_unaligned};

use pmix_core::{
    App, DataArray, DataRange, DataType, Envar, Error, Info, InfoFlags, JobState, Key, Nspace,
    Persistence, Proc, ProcInfo, ProcState, Query, Rank, Result, Scope, Status, Timeval, Value,
};

use crate::cmem::{self, calloc_array, calloc_one, free};
use crate::cvalue;
use crate::types::*;

fn not_supported(ty: pmix_data_type_t) -> Error {
    Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        format!("{} cannot be converted", DataType(ty)),
    )
}

/// The C status of a result: `PMIX_SUCCESS` or the error's status.
pub(crate) fn status_of<T>(r: &Result<T>) -> pmix_status_t {
    match r {
        Ok(_) => PMIX_SUCCESS,
        Err(e) => e.status().0,
    }
}

// ---------------------------------------------------------------------------
// Names

/// A C `pmix_nspace_t` as a validated [`Nspace`].
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for non-UTF-8 bytes.
pub(crate) fn nspace_from_c(ns: &pmix_nspace_t) -> Result<Nspace> {
    let s = std::str::from_utf8(cmem::fixed_bytes(ns))
        .map_err(|_| cmem::bad_param("nspace is not UTF-8"))?;
    Nspace::new(s)
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

// ---------------------------------------------------------------------------
// Values

/// A C value as a [`Value`].
///
/// # Safety
/// `v` points to a valid `pmix_value_t` whose pointers are valid for its type.
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` for types `pmix-core` does not model;
/// `PMIX_ERR_BAD_PARAM` for invalid strings, names or arrays.
pub(crate) unsafe fn value_from_c(v: *const pmix_value_t) -> Result<Value> {
    // SAFETY: valid value (caller guarantee).
    let v = unsafe { &*v };
    let ty = v.type_;
    if ty == PMIX_UNDEF {
        return Ok(Value::Undef);
    }
    if !cvalue::in_value(ty) {
        return Err(not_supported(ty));
    }
    if cvalue::is_boxed(ty) {
        // SAFETY: a boxed type's data is NULL or a pointer to one element.
        let p = unsafe { v.data.ptr }.cast::<u8>();
        if p.is_null() {
            return Err(cmem::bad_param("NULL pointer in a value"));
        }
        // SAFETY: `p` points to one element of `ty`.
        unsafe { elem_from_c(ty, p) }
    } else {
        // SAFETY: an inline element of `ty` sits at the start of the union.
        unsafe { elem_from_c(ty, ptr::addr_of!(v.data).cast()) }
    }
}

/// Writes `value` into `out` (whose previous content is overwritten, not
/// released), allocating with libc. On error `out` is `PMIX_UNDEF`.
///
/// # Safety
/// `out` is writable.
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for `App`, `Query` and
/// `Info` as top-level values.
pub(crate) unsafe fn value_to_c(value: &Value, out: *mut pmix_value_t) -> Result<()> {
    // SAFETY: writable (caller guarantee).
    let out = unsafe { &mut *out };
    *out = pmix_value_t::INIT;
    let ty = value.data_type().0;
    if !cvalue::in_value(ty) {
        return Err(not_supported(ty));
    }
    if ty == PMIX_UNDEF {
        return Ok(());
    }
    if cvalue::is_boxed(ty) {
        let size = cvalue::elem_size(ty).ok_or_else(|| not_supported(ty))?;
        let p = calloc_array::<u8>(size)?;
        // SAFETY: `p` is a zeroed element of `ty`.
        if let Err(e) = unsafe { elem_to_c(value, p) } {
            // SAFETY: destructible after a failed write, and ours.
            unsafe {
                cvalue::elem_destruct(ty, p);
                free(p);
            }
            return Err(e);
        }
        out.data.ptr = p.cast();
    } else {
        let p = ptr::addr_of_mut!(out.data).cast::<u8>();
        // SAFETY: the zeroed union holds an inline element of `ty`.
        if let Err(e) = unsafe { elem_to_c(value, p) } {
            // SAFETY: destructible after a failed write.
            unsafe { cvalue::elem_destruct(ty, p) };
            out.data = pmix_value_data_t::ZERO;
            return Err(e);
        }
    }
    out.type_ = ty;
    Ok(())
}

/// A malloc'd `pmix_value_t` holding `value`, as `PMIx_Get` returns: the
/// caller releases it with `PMIX_VALUE_RELEASE`.
///
/// # Errors
/// As [`value_to_c`].
pub(crate) fn value_to_c_boxed(value: &Value) -> Result<*mut pmix_value_t> {
    let v = calloc_one::<pmix_value_t>()?;
    // SAFETY: `v` is a fresh writable value.
    if let Err(e) = unsafe { value_to_c(value, v) } {
        // SAFETY: `v` is ours and holds nothing after a failed write.
        unsafe { free(v) };
        return Err(e);
    }
    Ok(v)
}

fn bytes_of(bo: &pmix_byte_object_t) -> Vec<u8> {
    if bo.bytes.is_null() || bo.size == 0 {
        return Vec::new();
    }
    // SAFETY: a byte object's `bytes` holds `size` bytes (C API contract).
    unsafe { std::slice::from_raw_parts(bo.bytes.cast::<u8>(), bo.size) }.to_vec()
}

fn bo_from(bytes: &[u8]) -> Result<pmix_byte_object_t> {
    if bytes.is_empty() {
        return Ok(pmix_byte_object_t {
            bytes: ptr::null_mut(),
            size: 0,
        });
    }
    let p = calloc_array::<c_char>(bytes.len())?;
    // SAFETY: `p` is a fresh allocation of `bytes.len()` bytes.
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), p, bytes.len()) };
    Ok(pmix_byte_object_t {
        bytes: p,
        size: bytes.len(),
    })
}

/// An optional C string: NULL for `""`.
fn opt_strdup(s: &str) -> Result<*mut c_char> {
    if s.is_empty() {
        Ok(ptr::null_mut())
    } else {
        cmem::strdup_str(s)
    }
}

/// One element of `ty` at `p` as a [`Value`].
///
/// # Safety
/// `p` points to one initialised element of `ty` (array-element layout).
///
/// # Errors
/// As [`value_from_c`].
unsafe fn elem_from_c(ty: pmix_data_type_t, p: *const u8) -> Result<Value> {
    // SAFETY: (whole block) `p` points to one element of `ty` (caller), so
    // each read is of the element's C type; unaligned reads make no
    // alignment assumption about the caller's array.
    unsafe {
        Ok(match ty {
            PMIX_BOOL => Value::Bool(*p != 0),
            PMIX_BYTE => Value::Byte(*p),
            PMIX_STRING => Value::String(cmem::c_string_or_empty(read_unaligned(p.cast()))?),
            PMIX_SIZE => Value::Size(read_unaligned(p.cast::<usize>()) as u64),
            PMIX_PID => Value::Pid(read_unaligned(p.cast())),
            PMIX_INT => Value::Int(read_unaligned(p.cast())),
            PMIX_INT8 => Value::Int8(read_unaligned(p.cast())),
            PMIX_INT16 => Value::Int16(read_unaligned(p.cast())),
            PMIX_INT32 => Value::Int32(read_unaligned(p.cast())),
            PMIX_INT64 => Value::Int64(read_unaligned(p.cast())),
            PMIX_UINT => Value::Uint(read_unaligned(p.cast())),
            PMIX_UINT8 => Value::Uint8(*p),
            PMIX_UINT16 => Value::Uint16(read_unaligned(p.cast())),
            PMIX_UINT32 => Value::Uint32(read_unaligned(p.cast())),
            PMIX_UINT64 => Value::Uint64(read_unaligned(p.cast())),
            PMIX_FLOAT => Value::Float(read_unaligned(p.cast())),
            PMIX_DOUBLE => Value::Double(read_unaligned(p.cast())),
            PMIX_TIMEVAL => {
                let tv: libc::timeval = read_unaligned(p.cast());
                Value::Timeval(Timeval {
                    sec: tv.tv_sec,
                    usec: tv.tv_usec,
                })
            }
            PMIX_TIME => Value::Time(read_unaligned(p.cast::<libc::time_t>())),
            PMIX_STATUS => Value::Status(Status(read_unaligned(p.cast()))),
            PMIX_PROC => Value::Proc(proc_from_c(&read_unaligned(p.cast::<pmix_proc_t>()))?),
            PMIX_PROC_RANK => Value::Rank(Rank(read_unaligned(p.cast()))),
            PMIX_PROC_NSPACE => {
                Value::Nspace(nspace_from_c(&read_unaligned(p.cast::<pmix_nspace_t>()))?)
            }
            PMIX_BYTE_OBJECT => Value::ByteObject(bytes_of(&read_unaligned(p.cast()))),
            PMIX_COMPRESSED_STRING => Value::CompressedString(bytes_of(&read_unaligned(p.cast()))),
            PMIX_COMPRESSED_BYTE_OBJECT => {
                Value::CompressedByteObject(bytes_of(&read_unaligned(p.cast())))
            }
            PMIX_REGEX => Value::Regex(bytes_of(&read_unaligned(p.cast()))),
            PMIX_PERSIST => Value::Persistence(Persistence(*p)),
            PMIX_SCOPE => Value::Scope(Scope(*p)),
            PMIX_DATA_RANGE => Value::DataRange(DataRange(*p)),
            PMIX_PROC_STATE => Value::ProcState(ProcState(*p)),
            PMIX_JOB_STATE => Value::JobState(JobState(*p)),
            PMIX_INFO_DIRECTIVES => Value::InfoDirectives(InfoFlags(read_unaligned(p.cast()))),
            PMIX_DATA_TYPE => Value::DataType(DataType(read_unaligned(p.cast()))),
            PMIX_IOF_CHANNEL => Value::IofChannel(read_unaligned(p.cast())),
            PMIX_ALLOC_DIRECTIVE => Value::AllocDirective(*p),
            PMIX_LINK_STATE => Value::LinkState(*p),
            PMIX_LOCTYPE => Value::Locality(read_unaligned(p.cast())),
            PMIX_DEVTYPE => Value::DevType(read_unaligned(p.cast())),
            PMIX_PROC_INFO => {
                let pi: pmix_proc_info_t = read_unaligned(p.cast());
                Value::ProcInfo(Box::new(ProcInfo {
                    proc: proc_from_c(&pi.proc_)?,
                    hostname: cmem::c_string_or_empty(pi.hostname)?,
                    executable_name: cmem::c_string_or_empty(pi.executable_name)?,
                    pid: pi.pid,
                    exit_code: pi.exit_code,
                    state: ProcState(pi.state),
                }))
            }
            PMIX_DATA_ARRAY => {
                let d: pmix_data_array_t = read_unaligned(p.cast());
                Value::DataArray(Box::new(darray_from_c(&d)?))
            }
            PMIX_ENVAR => {
                let e: pmix_envar_t = read_unaligned(p.cast());
                Value::Envar(Envar {
                    envar: cmem::c_string_or_empty(e.envar)?,
                    value: cmem::c_string_or_empty(e.value)?,
                    separator: e.separator as u8,
                })
            }
            PMIX_INFO => Value::Info(Box::new(info_from_c(p.cast())?)),
            PMIX_APP => Value::App(Box::new(app_from_c(p.cast())?)),
            PMIX_QUERY => Value::Query(Box::new(query_from_c(p.cast())?)),
            _ => return Err(not_supported(ty)),
        })
    }
}

/// Writes one element for `value` at `p` (array-element layout).
///
/// # Safety
/// `p` points to a zeroed, writable element of `value`'s type. On error it
/// is left destructible with [`cvalue::elem_destruct`].
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for `Undef` (no element form).
unsafe fn elem_to_c(value: &Value, p: *mut u8) -> Result<()> {
    // SAFETY: (whole block) `p` points to a writable element of the value's
    // C type (caller); unaligned writes make no alignment assumption.
    unsafe {
        match value {
            Value::Undef => return Err(not_supported(PMIX_UNDEF)),
            Value::Bool(b) => *p = u8::from(*b),
            Value::Byte(x) | Value::Uint8(x) => *p = *x,
            Value::String(s) => write_unaligned(p.cast(), cmem::strdup_str(s)?),
            Value::Size(x) => write_unaligned(p.cast::<usize>(), *x as usize),
            Value::Pid(x) | Value::Int(x) | Value::Int32(x) => write_unaligned(p.cast(), *x),
            Value::Int8(x) => write_unaligned(p.cast(), *x),
            Value::Int16(x) => write_unaligned(p.cast(), *x),
            Value::Int64(x) | Value::Time(x) => write_unaligned(p.cast(), *x),
            Value::Uint(x) | Value::Uint32(x) => write_unaligned(p.cast(), *x),
            Value::Uint16(x) | Value::IofChannel(x) | Value::Locality(x) => {
                write_unaligned(p.cast(), *x)
            }
            Value::Uint64(x) | Value::DevType(x) => write_unaligned(p.cast(), *x),
            Value::Float(x) => write_unaligned(p.cast(), *x),
            Value::Double(x) => write_unaligned(p.cast(), *x),
            Value::Timeval(tv) => write_unaligned(
                p.cast(),
                libc::timeval {
                    tv_sec: tv.sec,
                    tv_usec: tv.usec,
                },
            ),
            Value::Status(s) => write_unaligned(p.cast(), s.0),
            Value::Proc(pr) => write_unaligned(p.cast(), proc_to_c(pr)),
            Value::Rank(r) => write_unaligned(p.cast(), r.0),
            Value::Nspace(ns) => {
                let mut buf: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
                nspace_to_c(ns, &mut buf);
                write_unaligned(p.cast(), buf);
            }
            Value::ByteObject(b)
            | Value::CompressedString(b)
            | Value::CompressedByteObject(b)
            | Value::Regex(b) => write_unaligned(p.cast(), bo_from(b)?),
            Value::Persistence(x) => *p = x.0,
            Value::Scope(x) => *p = x.0,
            Value::DataRange(x) => *p = x.0,
            Value::ProcState(x) => *p = x.0,
            Value::JobState(x) => *p = x.0,
            Value::AllocDirective(x) | Value::LinkState(x) => *p = *x,
            Value::InfoDirectives(f) => write_unaligned(p.cast(), f.0),
            Value::DataType(t) => write_unaligned(p.cast(), t.0),
            Value::ProcInfo(pi) => {
                let out = &mut *p.cast::<pmix_proc_info_t>();
                out.proc_ = proc_to_c(&pi.proc);
                out.pid = pi.pid;
                out.exit_code = pi.exit_code;
                out.state = pi.state.0;
                out.hostname = opt_strdup(&pi.hostname)?;
                out.executable_name = opt_strdup(&pi.executable_name)?;
            }
            Value::DataArray(a) => darray_to_c(a, p.cast())?,
            Value::Envar(e) => {
                let out = &mut *p.cast::<pmix_envar_t>();
                out.separator = e.separator as c_char;
                out.envar = cmem::strdup_str(&e.envar)?;
                out.value = cmem::strdup_str(&e.value)?;
            }
            Value::App(a) => app_to_c(a, p.cast())?,
            Value::Query(q) => query_to_c(q, p.cast())?,
            Value::Info(i) => info_to_c(i, p.cast())?,
        }
    }
    Ok(())
}

/// A C data array as a [`DataArray`].
///
/// # Safety
/// `d.array` holds `d.size` initialised elements of `d.type_`.
unsafe fn darray_from_c(d: &pmix_data_array_t) -> Result<DataArray> {
    let size = cvalue::elem_size(d.type_).ok_or_else(|| not_supported(d.type_))?;
    let n = if d.array.is_null() { 0 } else { d.size };
    let base = d.array.cast::<u8>().cast_const();
    let items = (0..n)
        // SAFETY: element `i < n` of the array (caller guarantee).
        .map(|i| unsafe { elem_from_c(d.type_, base.add(i * size)) })
        .collect::<Result<Vec<_>>>()?;
    DataArray::new(DataType(d.type_), items)
}

/// Writes a [`DataArray`] into `out` with a malloc'd element array.
///
/// # Safety
/// `out` is writable (zeroed or not: it is overwritten).
unsafe fn darray_to_c(a: &DataArray, out: *mut pmix_data_array_t) -> Result<()> {
    let ty = a.elem_type().0;
    let size = cvalue::elem_size(ty).ok_or_else(|| not_supported(ty))?;
    let n = a.len();
    let array = calloc_array::<u8>(size.checked_mul(n).ok_or_else(cmem::nomem)?)?;
    for (i, item) in a.items().iter().enumerate() {
        // SAFETY: element `i < n` of the zeroed array.
        if let Err(e) = unsafe { elem_to_c(item, array.add(i * size)) } {
            // SAFETY: every element is zeroed or written; the array is ours.
            unsafe { cvalue::array_free(ty, array, n) };
            return Err(e);
        }
    }
    // SAFETY: writable (caller guarantee).
    unsafe {
        *out = pmix_data_array_t {
            type_: ty,
            size: n,
            array: array.cast(),
        }
    };
    Ok(())
}

// ---------------------------------------------------------------------------
// Infos

/// A C info as an [`Info`] (key, flags, value deep-copied).
///
/// # Safety
/// `i` points to a valid `pmix_info_t`.
///
/// # Errors
/// As [`key_from_c`] and [`value_from_c`].
pub(crate) unsafe fn info_from_c(i: *const pmix_info_t) -> Result<Info> {
    // SAFETY: valid info (caller guarantee).
    let i = unsafe { &*i };
    Ok(Info {
        key: key_from_c(&i.key)?,
        // SAFETY: the info's value is valid.
        value: unsafe { value_from_c(&i.value) }?,
        flags: InfoFlags(i.flags),
    })
}

/// `n` C infos as [`Info`]s; NULL reads as none.
///
/// # Safety
/// `infos` is NULL or points to `n` valid `pmix_info_t`.
///
/// # Errors
/// As [`info_from_c`].
pub(crate) unsafe fn infos_from_c(infos: *const pmix_info_t, n: usize) -> Result<Vec<Info>> {
    if infos.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: `i < n` infos are valid (caller guarantee).
    (0..n)
        .map(|i| unsafe { info_from_c(infos.add(i)) })
        .collect()
}

/// Writes `info` into `out` (overwritten, not released).
///
/// # Safety
/// `out` is writable. On error its value is `PMIX_UNDEF`.
///
/// # Errors
/// As [`value_to_c`].
pub(crate) unsafe fn info_to_c(info: &Info, out: *mut pmix_info_t) -> Result<()> {
    // SAFETY: writable (caller guarantee).
    let out = unsafe { &mut *out };
    cmem::load_key(&mut out.key, info.key.as_str().as_bytes());
    out.flags = info.flags.0;
    // SAFETY: `out.value` is writable.
    unsafe { value_to_c(&info.value, &mut out.value) }
}

/// A malloc'd C array of `infos` (NULL when empty), released with
/// `PMIX_INFO_FREE(ptr, infos.len())`.
///
/// # Errors
/// As [`value_to_c`]; nothing is leaked.
pub(crate) fn infos_to_c(infos: &[Info]) -> Result<*mut pmix_info_t> {
    let out = calloc_array::<pmix_info_t>(infos.len())?;
    for (i, info) in infos.iter().enumerate() {
        // SAFETY: slot `i` of the zeroed array.
        if let Err(e) = unsafe { info_to_c(info, out.add(i)) } {
            // SAFETY: every slot is zeroed or written; the array is ours.
            unsafe { cvalue::array_free(PMIX_INFO, out.cast(), infos.len()) };
            return Err(e);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Apps and queries

/// A C app as an [`App`].
///
/// # Safety
/// `a` points to a valid `pmix_app_t`.
///
/// # Errors
/// As [`info_from_c`]; `PMIX_ERR_BAD_PARAM` for non-UTF-8 strings.
pub(crate) unsafe fn app_from_c(a: *const pmix_app_t) -> Result<App> {
    // SAFETY: (whole block) `a` is a valid app whose strings, argv arrays and
    // info array are valid per the C API (caller guarantee).
    unsafe {
        let a = &*a;
        Ok(App {
            cmd: cmem::c_string_or_empty(a.cmd)?,
            argv: cmem::argv_to_vec(a.argv)?,
            env: cmem::argv_to_vec(a.env)?,
            cwd: cmem::c_string_or_empty(a.cwd)?,
            maxprocs: a.maxprocs,
            info: infos_from_c(a.info, a.ninfo)?,
        })
    }
}

/// `n` C apps as [`App`]s.
///
/// # Safety
/// `apps` is NULL or points to `n` valid `pmix_app_t`.
///
/// # Errors
/// As [`app_from_c`].
pub(crate) unsafe fn apps_from_c(apps: *const pmix_app_t, n: usize) -> Result<Vec<App>> {
    if apps.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: `i < n` apps are valid (caller guarantee).
    (0..n).map(|i| unsafe { app_from_c(apps.add(i)) }).collect()
}

/// Writes an [`App`] into `out` with libc allocations.
///
/// # Safety
/// `out` points to a zeroed, writable `pmix_app_t`; on error it is left
/// destructible with [`cvalue::elem_destruct`].
///
/// # Errors
/// `PMIX_ERR_NOMEM` and as [`value_to_c`].
pub(crate) unsafe fn app_to_c(app: &App, out: *mut pmix_app_t) -> Result<()> {
    // SAFETY: writable (caller guarantee).
    let out = unsafe { &mut *out };
    out.maxprocs = app.maxprocs;
    out.cmd = cmem::strdup_str(&app.cmd)?;
    out.argv = cmem::argv_from_strs(&app.argv)?;
    out.env = cmem::argv_from_strs(&app.env)?;
    out.cwd = opt_strdup(&app.cwd)?;
    out.info = infos_to_c(&app.info)?;
    out.ninfo = app.info.len();
    Ok(())
}

/// A C query as a [`Query`].
///
/// # Safety
/// `q` points to a valid `pmix_query_t`.
///
/// # Errors
/// As [`info_from_c`]; `PMIX_ERR_BAD_PARAM` for non-UTF-8 keys.
pub(crate) unsafe fn query_from_c(q: *const pmix_query_t) -> Result<Query> {
    // SAFETY: `q` is a valid query whose keys and qualifiers are valid per
    // the C API (caller guarantee).
    unsafe {
        let q = &*q;
        Ok(Query {
            keys: cmem::argv_to_vec(q.keys)?,
            qualifiers: infos_from_c(q.qualifiers, q.nqual)?,
        })
    }
}

/// `n` C queries as [`Query`]s.
///
/// # Safety
/// `queries` is NULL or points to `n` valid `pmix_query_t`.
///
/// # Errors
/// As [`query_from_c`].
pub(crate) unsafe fn queries_from_c(queries: *const pmix_query_t, n: usize) -> Result<Vec<Query>> {
    if queries.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: `i < n` queries are valid (caller guarantee).
    (0..n)
        .map(|i| unsafe { query_from_c(queries.add(i)) })
        .collect()
}

/// Writes a [`Query`] into `out` with libc allocations.
///
/// # Safety
/// As [`app_to_c`].
///
/// # Errors
/// As [`app_to_c`].
pub(crate) unsafe fn query_to_c(q: &Query, out: *mut pmix_query_t) -> Result<()> {
    // SAFETY: writable (caller guarantee).
    let out = unsafe { &mut *out };
    out.keys = cmem::argv_from_strs(&q.keys)?;
    out.qualifiers = infos_to_c(&q.qualifiers)?;
    out.nqual = q.qualifiers.len();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: Value) {
        let mut c = pmix_value_t::INIT;
        // SAFETY: `c` is writable; it is read back and released here.
        unsafe {
            value_to_c(&v, &mut c).unwrap();
            assert_eq!(c.type_, v.data_type().0, "{v:?}");
            let back = value_from_c(&c).unwrap();
            assert_eq!(back, v);
            cvalue::value_destruct(&mut c);
        }
    }

    #[test]
    fn every_value_type_round_trips() {
        let me = Proc::new("job-1", 3).unwrap();
        let info = Info::new("k", 5u32).unwrap().required();
        for v in [
            Value::Undef,
            Value::Bool(true),
            Value::Byte(7),
            Value::String("hello".into()),
            Value::Size(1 << 40),
            Value::Pid(-2),
            Value::Int(-3),
            Value::Int8(-4),
            Value::Int16(-5),
            Value::Int32(-6),
            Value::Int64(-7),
            Value::Uint(8),
            Value::Uint8(9),
            Value::Uint16(10),
            Value::Uint32(11),
            Value::Uint64(u64::MAX),
            Value::Float(1.5),
            Value::Double(-2.25),
            Value::Timeval(Timeval { sec: 3, usec: 4 }),
            Value::Time(5),
            Value::Status(Status::ERR_NOT_FOUND),
            Value::Proc(me.clone()),
            Value::Rank(Rank::WILDCARD),
            Value::Nspace(Nspace::new("ns").unwrap()),
            Value::ByteObject(vec![0, 1, 2]),
            Value::ByteObject(vec![]),
            Value::CompressedString(vec![3]),
            Value::CompressedByteObject(vec![4]),
            Value::Regex(b"pmix[a]".to_vec()),
            Value::Persistence(Persistence::FIRST_READ),
            Value::Scope(Scope::GLOBAL),
            Value::DataRange(DataRange::SESSION),
            Value::ProcState(ProcState::RUNNING),
            Value::JobState(JobState::TERMINATED),
            Value::InfoDirectives(InfoFlags::REQD),
            Value::DataType(DataType::UINT16),
            Value::IofChannel(3),
            Value::AllocDirective(1),
            Value::LinkState(2),
            Value::Locality(0x4000),
            Value::DevType(4),
            Value::ProcInfo(Box::new(ProcInfo {
                proc: me.clone(),
                hostname: "h".into(),
                executable_name: "e".into(),
                pid: 42,
                exit_code: 1,
                state: ProcState::TERMINATED,
            })),
            Value::Envar(Envar {
                envar: "PATH".into(),
                value: "/bin".into(),
                separator: b':',
            }),
            DataArray::from_infos(vec![info.clone(), Info::new("s", "x").unwrap()]).into(),
            DataArray::from_procs(vec![me.clone(), Proc::new("b", 0).unwrap()]).into(),
            DataArray::new(DataType::UINT16, vec![Value::Uint16(1), Value::Uint16(2)])
                .unwrap()
                .into(),
            DataArray::new(DataType::STRING, vec!["a".into(), "b".into()])
                .unwrap()
                .into(),
            DataArray::new(
                DataType::APP,
                vec![Value::App(Box::new(App {
                    cmd: "a.out".into(),
                    argv: vec!["a.out".into(), "-x".into()],
                    env: vec!["A=1".into()],
                    cwd: "/tmp".into(),
                    maxprocs: 2,
                    info: vec![info.clone()],
                }))],
            )
            .unwrap()
            .into(),
            DataArray::new(
                DataType::QUERY,
                vec![Value::Query(Box::new(Query {
                    keys: vec!["pmix.qry.ns".into()],
                    qualifiers: vec![info],
                }))],
            )
            .unwrap()
            .into(),
        ] {
            round_trip(v);
        }
    }

    #[test]
    fn top_level_app_and_unknown_types_are_not_supported() {
        let mut c = pmix_value_t::INIT;
        // SAFETY: `c` is writable.
        let e = unsafe { value_to_c(&Value::App(Box::default()), &mut c) }.unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        assert_eq!(c.type_, PMIX_UNDEF);
        c.type_ = PMIX_COORD;
        // SAFETY: a coord value with NULL data is valid to read the tag of.
        let e = unsafe { value_from_c(&c) }.unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        c.type_ = PMIX_POINTER;
        // SAFETY: as above.
        let e = unsafe { value_from_c(&c) }.unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
    }

    #[test]
    fn infos_and_procs_convert_both_ways() {
        let infos = vec![
            Info::new("a", 1u32).unwrap(),
            Info::new("b", "two").unwrap().required(),
        ];
        let c = infos_to_c(&infos).unwrap();
        // SAFETY: `c` holds `infos.len()` infos; released below.
        unsafe {
            assert_eq!(infos_from_c(c, infos.len()).unwrap(), infos);
            cvalue::array_free(PMIX_INFO, c.cast(), infos.len());
        }
        let procs = vec![
            Proc::new("x", 1).unwrap(),
            Proc::new("y", Rank::WILDCARD).unwrap(),
        ];
        let c = procs_to_c(&procs).unwrap();
        // SAFETY: `c` holds 2 procs; released below.
        unsafe {
            assert_eq!(procs_from_c(c, 2).unwrap(), procs);
            free(c);
        }
        // SAFETY: NULL is allowed.
        assert!(unsafe { infos_from_c(ptr::null(), 3) }.unwrap().is_empty());
    }
}
