//! Values and the types they nest (data arrays, infos, apps, queries)
//! between C and the Rust data model. One file, because the types are
//! recursive: a value holds a data array of infos holding values.
//!
//! C → Rust dispatches on the C layout ([`ElemKind`]); Rust → C on the
//! [`Value`] variant. The tag-specific meaning of a scalar (which variant a
//! `uint8_t` tag is) is [`pod_value`] one way and [`value_pod`] the other.

use std::os::raw::c_char;
use std::ptr::{self, read_unaligned, write_unaligned};

use pmix_core::{
    App, DataArray, DataRange, DataType, Envar, Error, Info, InfoFlags, JobState, Persistence,
    ProcInfo, ProcState, Query, Rank, Result, Scope, Status, Timeval, Value,
};

use super::names::{key_from_c, nspace_from_c, nspace_to_c, proc_from_c, proc_to_c};
use crate::cdata::{array_free, elem_destruct, elem_ptr, ElemKind, PodValue};
use crate::cmem::{self, calloc_array, calloc_one, free};
use crate::types::*;

fn not_supported(ty: pmix_data_type_t) -> Error {
    Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        format!("{} cannot be converted", DataType(ty)),
    )
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
    let kind = ElemKind::of(ty)
        .filter(|k| k.in_value())
        .ok_or_else(|| not_supported(ty))?;
    // SAFETY: a valid value of `kind`.
    let p =
        unsafe { elem_ptr(v, kind) }.ok_or_else(|| cmem::bad_param("NULL pointer in a value"))?;
    // SAFETY: `p` points to one element of `ty`.
    unsafe { elem_from_c(ty, kind, p) }
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
    if let Some(x) = value_pod(value) {
        // SAFETY: a scalar sits inline at the start of the zeroed union.
        unsafe { x.write(ptr::addr_of_mut!(out.data).cast()) };
        out.type_ = ty;
        return Ok(());
    }
    let kind = match ElemKind::of(ty) {
        Some(k) if k.in_value() => k,
        None if ty == PMIX_UNDEF => return Ok(()),
        _ => return Err(not_supported(ty)),
    };
    if kind.boxed_in_value() {
        let p = calloc_array::<u8>(kind.size())?;
        // SAFETY: `p` is a zeroed element of `ty`.
        if let Err(e) = unsafe { elem_to_c(value, p) } {
            // SAFETY: destructible after a failed write, and ours.
            unsafe {
                elem_destruct(kind, p);
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
            unsafe { elem_destruct(kind, p) };
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

/// The [`Value`] of a C scalar of tag `ty`; `None` for a tag the data model
/// does not hold (`PMIX_POINTER`, the storage types).
fn pod_value(ty: pmix_data_type_t, x: PodValue) -> Option<Value> {
    use PodValue as X;
    Some(match (ty, x) {
        (PMIX_BOOL, X::Bool(b)) => Value::Bool(b),
        (PMIX_BYTE, X::U8(x)) => Value::Byte(x),
        (PMIX_UINT8, X::U8(x)) => Value::Uint8(x),
        (PMIX_PERSIST, X::U8(x)) => Value::Persistence(Persistence(x)),
        (PMIX_SCOPE, X::U8(x)) => Value::Scope(Scope(x)),
        (PMIX_DATA_RANGE, X::U8(x)) => Value::DataRange(DataRange(x)),
        (PMIX_PROC_STATE, X::U8(x)) => Value::ProcState(ProcState(x)),
        (PMIX_JOB_STATE, X::U8(x)) => Value::JobState(JobState(x)),
        (PMIX_ALLOC_DIRECTIVE, X::U8(x)) => Value::AllocDirective(x),
        (PMIX_LINK_STATE, X::U8(x)) => Value::LinkState(x),
        (PMIX_INT8, X::I8(x)) => Value::Int8(x),
        (PMIX_INT16, X::I16(x)) => Value::Int16(x),
        (PMIX_UINT16, X::U16(x)) => Value::Uint16(x),
        (PMIX_DATA_TYPE, X::U16(x)) => Value::DataType(DataType(x)),
        (PMIX_IOF_CHANNEL, X::U16(x)) => Value::IofChannel(x),
        (PMIX_LOCTYPE, X::U16(x)) => Value::Locality(x),
        (PMIX_PID, X::I32(x)) => Value::Pid(x),
        (PMIX_INT, X::I32(x)) => Value::Int(x),
        (PMIX_INT32, X::I32(x)) => Value::Int32(x),
        (PMIX_STATUS, X::I32(x)) => Value::Status(Status(x)),
        (PMIX_UINT, X::U32(x)) => Value::Uint(x),
        (PMIX_UINT32, X::U32(x)) => Value::Uint32(x),
        (PMIX_PROC_RANK, X::U32(x)) => Value::Rank(Rank(x)),
        (PMIX_INFO_DIRECTIVES, X::U32(x)) => Value::InfoDirectives(InfoFlags(x)),
        (PMIX_INT64, X::I64(x)) => Value::Int64(x),
        (PMIX_TIME, X::I64(x)) => Value::Time(x),
        (PMIX_SIZE, X::U64(x)) => Value::Size(x),
        (PMIX_UINT64, X::U64(x)) => Value::Uint64(x),
        (PMIX_DEVTYPE, X::U64(x)) => Value::DevType(x),
        (PMIX_FLOAT, X::F32(x)) => Value::Float(x),
        (PMIX_DOUBLE, X::F64(x)) => Value::Double(x),
        (PMIX_TIMEVAL, X::Timeval(sec, usec)) => Value::Timeval(Timeval { sec, usec }),
        _ => return None,
    })
}

/// The C scalar of a scalar [`Value`]; `None` for the other variants.
#[inline(always)]
fn value_pod(v: &Value) -> Option<PodValue> {
    use PodValue as X;
    Some(match v {
        Value::Bool(b) => X::Bool(*b),
        Value::Byte(x) | Value::Uint8(x) | Value::AllocDirective(x) | Value::LinkState(x) => {
            X::U8(*x)
        }
        Value::Persistence(x) => X::U8(x.0),
        Value::Scope(x) => X::U8(x.0),
        Value::DataRange(x) => X::U8(x.0),
        Value::ProcState(x) => X::U8(x.0),
        Value::JobState(x) => X::U8(x.0),
        Value::Int8(x) => X::I8(*x),
        Value::Int16(x) => X::I16(*x),
        Value::Uint16(x) | Value::IofChannel(x) | Value::Locality(x) => X::U16(*x),
        Value::DataType(t) => X::U16(t.0),
        Value::Pid(x) | Value::Int(x) | Value::Int32(x) => X::I32(*x),
        Value::Status(s) => X::I32(s.0),
        Value::Uint(x) | Value::Uint32(x) => X::U32(*x),
        Value::Rank(r) => X::U32(r.0),
        Value::InfoDirectives(f) => X::U32(f.0),
        Value::Int64(x) | Value::Time(x) => X::I64(*x),
        Value::Size(x) | Value::Uint64(x) | Value::DevType(x) => X::U64(*x),
        Value::Float(x) => X::F32(*x),
        Value::Double(x) => X::F64(*x),
        Value::Timeval(tv) => X::Timeval(tv.sec, tv.usec),
        _ => return None,
    })
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

/// One element of `ty` (of kind `kind`) at `p` as a [`Value`].
///
/// # Safety
/// `p` points to one initialised element of `ty` (array-element layout,
/// any alignment) whose pointers are valid for its C type.
///
/// # Errors
/// As [`value_from_c`].
unsafe fn elem_from_c(ty: pmix_data_type_t, kind: ElemKind, p: *const u8) -> Result<Value> {
    use ElemKind as K;
    Ok(match kind {
        K::Pod(pod) => {
            // SAFETY: one scalar of `pod` (caller guarantee).
            let x = unsafe { pod.read(p) };
            pod_value(ty, x).ok_or_else(|| not_supported(ty))?
        }
        K::Proc => {
            // SAFETY: one `pmix_proc_t` (caller guarantee).
            let cp: pmix_proc_t = unsafe { read_unaligned(p.cast()) };
            Value::Proc(proc_from_c(&cp)?)
        }
        K::Nspace => {
            // SAFETY: one `pmix_nspace_t` (caller guarantee).
            let ns: pmix_nspace_t = unsafe { read_unaligned(p.cast()) };
            Value::Nspace(nspace_from_c(&ns)?)
        }
        K::String => {
            // SAFETY: one `char *` (caller guarantee).
            let s: *const c_char = unsafe { read_unaligned(p.cast()) };
            // SAFETY: NULL or a C string (caller guarantee).
            Value::String(unsafe { cmem::c_string_or_empty(s) }?)
        }
        K::Bytes => {
            // SAFETY: one byte object (caller guarantee).
            let b = bytes_of(&unsafe { read_unaligned(p.cast()) });
            match ty {
                PMIX_COMPRESSED_STRING => Value::CompressedString(b),
                PMIX_COMPRESSED_BYTE_OBJECT => Value::CompressedByteObject(b),
                PMIX_REGEX => Value::Regex(b),
                _ => Value::ByteObject(b),
            }
        }
        K::Envar => {
            // SAFETY: one `pmix_envar_t` (caller guarantee).
            let e: pmix_envar_t = unsafe { read_unaligned(p.cast()) };
            // SAFETY: its strings are NULL or C strings (caller guarantee).
            let (envar, value) = unsafe {
                (
                    cmem::c_string_or_empty(e.envar)?,
                    cmem::c_string_or_empty(e.value)?,
                )
            };
            Value::Envar(Envar {
                envar,
                value,
                separator: e.separator as u8,
            })
        }
        K::ProcInfo => {
            // SAFETY: one `pmix_proc_info_t` (caller guarantee).
            let pi: pmix_proc_info_t = unsafe { read_unaligned(p.cast()) };
            let proc = proc_from_c(&pi.proc_)?;
            // SAFETY: its strings are NULL or C strings (caller guarantee).
            let (hostname, executable_name) = unsafe {
                (
                    cmem::c_string_or_empty(pi.hostname)?,
                    cmem::c_string_or_empty(pi.executable_name)?,
                )
            };
            Value::ProcInfo(Box::new(ProcInfo {
                proc,
                hostname,
                executable_name,
                pid: pi.pid,
                exit_code: pi.exit_code,
                state: ProcState(pi.state),
            }))
        }
        K::DataArray => {
            // SAFETY: one `pmix_data_array_t` (caller guarantee).
            let d: pmix_data_array_t = unsafe { read_unaligned(p.cast()) };
            // SAFETY: its elements are valid (caller guarantee).
            Value::DataArray(Box::new(unsafe { darray_from_c(&d) }?))
        }
        // SAFETY: one `pmix_info_t` (caller guarantee).
        K::Info => Value::Info(Box::new(unsafe { info_from_c(p.cast()) }?)),
        // SAFETY: one `pmix_app_t` (caller guarantee).
        K::App => Value::App(Box::new(unsafe { app_from_c(p.cast()) }?)),
        // SAFETY: one `pmix_query_t` (caller guarantee).
        K::Query => Value::Query(Box::new(unsafe { query_from_c(p.cast()) }?)),
        // SAFETY: one `pmix_value_t` (caller guarantee).
        K::Value => unsafe { value_from_c(p.cast()) }?,
        K::Pdata
        | K::Coord
        | K::Geometry
        | K::DeviceDist
        | K::Endpoint
        | K::RegAttr
        | K::DataBuffer
        | K::ProcStats
        | K::DiskStats
        | K::NetStats
        | K::NodeStats
        | K::Topology
        | K::Cpuset => return Err(not_supported(ty)),
    })
}

/// Writes one element for `value` at `p` (array-element layout).
///
/// # Safety
/// `p` points to a zeroed, writable element of `value`'s C type. On error
/// it is left destructible with [`elem_destruct`].
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for `Undef` (no element form).
#[inline]
unsafe fn elem_to_c(value: &Value, p: *mut u8) -> Result<()> {
    if let Some(x) = value_pod(value) {
        // SAFETY: a writable element of the scalar's C type (caller).
        unsafe { x.write(p) };
        return Ok(());
    }
    match value {
        Value::String(s) => {
            let c = cmem::strdup_str(s)?;
            // SAFETY: a writable `char *` slot (caller guarantee).
            unsafe { write_unaligned(p.cast(), c) };
        }
        // SAFETY: a writable `pmix_proc_t` (caller guarantee).
        Value::Proc(pr) => unsafe { write_unaligned(p.cast(), proc_to_c(pr)) },
        Value::Nspace(ns) => {
            let mut buf: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
            nspace_to_c(ns, &mut buf);
            // SAFETY: a writable `pmix_nspace_t` (caller guarantee).
            unsafe { write_unaligned(p.cast(), buf) };
        }
        Value::ByteObject(b)
        | Value::CompressedString(b)
        | Value::CompressedByteObject(b)
        | Value::Regex(b) => {
            let bo = bo_from(b)?;
            // SAFETY: a writable byte object (caller guarantee).
            unsafe { write_unaligned(p.cast(), bo) };
        }
        Value::ProcInfo(pi) => {
            // SAFETY: a zeroed, writable `pmix_proc_info_t` (caller).
            let out = unsafe { &mut *p.cast::<pmix_proc_info_t>() };
            out.proc_ = proc_to_c(&pi.proc);
            out.pid = pi.pid;
            out.exit_code = pi.exit_code;
            out.state = pi.state.0;
            out.hostname = opt_strdup(&pi.hostname)?;
            out.executable_name = opt_strdup(&pi.executable_name)?;
        }
        // SAFETY: a writable `pmix_data_array_t` (caller guarantee).
        Value::DataArray(a) => unsafe { darray_to_c(a, p.cast()) }?,
        Value::Envar(e) => {
            // SAFETY: a zeroed, writable `pmix_envar_t` (caller).
            let out = unsafe { &mut *p.cast::<pmix_envar_t>() };
            out.separator = e.separator as c_char;
            out.envar = cmem::strdup_str(&e.envar)?;
            out.value = cmem::strdup_str(&e.value)?;
        }
        // SAFETY: a zeroed, writable `pmix_app_t` (caller guarantee).
        Value::App(a) => unsafe { app_to_c(a, p.cast()) }?,
        // SAFETY: a zeroed, writable `pmix_query_t` (caller guarantee).
        Value::Query(q) => unsafe { query_to_c(q, p.cast()) }?,
        // SAFETY: a writable `pmix_info_t` (caller guarantee).
        Value::Info(i) => unsafe { info_to_c(i, p.cast()) }?,
        other => return Err(not_supported(other.data_type().0)),
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Data arrays

/// A C data array as a [`DataArray`].
///
/// # Safety
/// `d.array` holds `d.size` initialised elements of `d.type_`.
unsafe fn darray_from_c(d: &pmix_data_array_t) -> Result<DataArray> {
    let kind = ElemKind::of(d.type_).ok_or_else(|| not_supported(d.type_))?;
    let n = if d.array.is_null() { 0 } else { d.size };
    let base = d.array.cast::<u8>().cast_const();
    let items = (0..n)
        // SAFETY: element `i < n` of the array (caller guarantee).
        .map(|i| unsafe { elem_from_c(d.type_, kind, base.add(i * kind.size())) })
        .collect::<Result<Vec<_>>>()?;
    DataArray::new(DataType(d.type_), items)
}

/// Writes a [`DataArray`] into `out` with a malloc'd element array.
///
/// # Safety
/// `out` is writable (zeroed or not: it is overwritten).
unsafe fn darray_to_c(a: &DataArray, out: *mut pmix_data_array_t) -> Result<()> {
    let ty = a.elem_type().0;
    let n = a.len();
    let array = calloc_array::<u8>(darray_bytes(a)?)?;
    // SAFETY: `array` is `n` zeroed elements of the array's type.
    if let Err(e) = unsafe { darray_items_to_c(a, array) } {
        // SAFETY: every element is zeroed or written; the array is ours.
        unsafe { array_free(ty, array, n) };
        return Err(e);
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

/// The bytes the C elements of `a` take.
///
/// # Errors
/// `PMIX_ERR_NOT_SUPPORTED` for an element type without a C form;
/// `PMIX_ERR_NOMEM` when the size overflows.
pub(crate) fn darray_bytes(a: &DataArray) -> Result<usize> {
    let ty = a.elem_type().0;
    let size = ElemKind::of(ty).ok_or_else(|| not_supported(ty))?.size();
    size.checked_mul(a.len()).ok_or_else(cmem::nomem)
}

/// Writes the elements of `a` into `array` as C elements of its type.
///
/// # Safety
/// `array` holds [`darray_bytes`]`(a)` zeroed, writable bytes. On error
/// each element is zeroed or written (destructible), none is released.
///
/// # Errors
/// As [`value_to_c`].
pub(crate) unsafe fn darray_items_to_c(a: &DataArray, array: *mut u8) -> Result<()> {
    let ty = a.elem_type().0;
    let size = ElemKind::of(ty).ok_or_else(|| not_supported(ty))?.size();
    for (i, item) in a.items().iter().enumerate() {
        // SAFETY: element `i < n` of the array of `n` elements of `size`.
        let slot = unsafe { array.add(i * size) };
        if ty == PMIX_VALUE {
            // SAFETY: element `i < n`: a zeroed `pmix_value_t`.
            unsafe { value_to_c(item, slot.cast()) }?;
        } else {
            // SAFETY: element `i < n` of the zeroed array.
            unsafe { elem_to_c(item, slot) }?;
        }
    }
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

/// `n` C infos as [`Info`]s, every one converted exactly; NULL reads as
/// none.
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
            unsafe { array_free(PMIX_INFO, out.cast(), infos.len()) };
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
unsafe fn app_from_c(a: *const pmix_app_t) -> Result<App> {
    // SAFETY: a valid app (caller guarantee).
    let a = unsafe { &*a };
    // SAFETY: its strings, argvs and infos are valid per the C API.
    unsafe {
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

/// `n` C apps (NULL: none), deep-copied.
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

/// A malloc'd C array of `apps` (NULL when empty), released with
/// `PMIX_APP_FREE(ptr, apps.len())`.
///
/// # Errors
/// As [`app_to_c`]; nothing is leaked.
pub(crate) fn apps_to_c(apps: &[App]) -> Result<*mut pmix_app_t> {
    let out = calloc_array::<pmix_app_t>(apps.len())?;
    for (i, app) in apps.iter().enumerate() {
        // SAFETY: slot `i` of the zeroed array.
        if let Err(e) = unsafe { app_to_c(app, out.add(i)) } {
            // SAFETY: every slot is zeroed or written; the array is ours.
            unsafe { array_free(PMIX_APP, out.cast(), apps.len()) };
            return Err(e);
        }
    }
    Ok(out)
}

/// Writes an [`App`] into `out` with libc allocations.
///
/// # Safety
/// `out` points to a zeroed, writable `pmix_app_t`; on error it is left
/// destructible with [`elem_destruct`].
///
/// # Errors
/// `PMIX_ERR_NOMEM` and as [`value_to_c`].
unsafe fn app_to_c(app: &App, out: *mut pmix_app_t) -> Result<()> {
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
    // SAFETY: a valid query (caller guarantee).
    let q = unsafe { &*q };
    // SAFETY: its keys and qualifiers are valid per the C API.
    unsafe {
        Ok(Query {
            keys: cmem::argv_to_vec(q.keys)?,
            qualifiers: infos_from_c(q.qualifiers, q.nqual)?,
        })
    }
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
