//! Byte objects, environment directives, registered attributes and data
//! buffers: `PMIx_Byte_object_*` (with `load`), `PMIx_Envar_*` (with
//! `load`), `PMIx_Regattr_*` (with `load` and `xfer`) and
//! `PMIx_Data_buffer_*` (`construct`, `destruct`, `create`, `release`,
//! `load`, `unload`).

use std::os::raw::c_char;
use std::ptr;

use super::lifecycle;
use crate::argv;
use crate::cdata::ElemKind;
use crate::cmem;
use crate::data_buffer::{PMIx_Data_load, PMIx_Data_unload};
use crate::types::*;

lifecycle! {
    Bytes: pmix_byte_object_t {
        construct PMIx_Byte_object_construct,
        destruct PMIx_Byte_object_destruct,
        create PMIx_Byte_object_create,
        free PMIx_Byte_object_free,
    }
    Envar: pmix_envar_t {
        construct PMIx_Envar_construct,
        destruct PMIx_Envar_destruct,
        create PMIx_Envar_create,
        free PMIx_Envar_free,
    }
    RegAttr: pmix_regattr_t {
        construct PMIx_Regattr_construct,
        destruct PMIx_Regattr_destruct,
        create PMIx_Regattr_create,
        free PMIx_Regattr_free,
    }
    DataBuffer: pmix_data_buffer_t {
        construct PMIx_Data_buffer_construct,
        destruct PMIx_Data_buffer_destruct,
    }
}

/// `void PMIx_Byte_object_load(pmix_byte_object_t *b, char *d, size_t
/// sz)`: the byte object takes `d` (not a copy: it now owns a libc
/// allocation `d` of `sz` bytes); what it held is not released.
///
/// # Safety
/// `b` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Byte_object_load(
    b: *mut pmix_byte_object_t,
    d: *mut c_char,
    sz: usize,
) {
    // SAFETY: NULL or writable (caller guarantee).
    if let Some(b) = unsafe { b.as_mut() } {
        b.bytes = d;
        b.size = sz;
    }
}

/// `void PMIx_Envar_load(pmix_envar_t *e, char *var, char *value, char
/// separator)`: copies of `var` and `value` (each when not NULL) and the
/// separator; what `e` held is not released. A copy that cannot be made
/// leaves that field NULL.
///
/// # Safety
/// `e` is NULL or writable; `var`/`value` are NULL or C strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Envar_load(
    e: *mut pmix_envar_t,
    var: *mut c_char,
    value: *mut c_char,
    separator: c_char,
) {
    // SAFETY: NULL or writable (caller guarantee).
    let Some(e) = (unsafe { e.as_mut() }) else {
        return;
    };
    // SAFETY: NULL or C strings (caller guarantee).
    unsafe {
        if !var.is_null() {
            e.envar = cmem::strdup_c(var).unwrap_or(ptr::null_mut());
        }
        if !value.is_null() {
            e.value = cmem::strdup_c(value).unwrap_or(ptr::null_mut());
        }
    }
    e.separator = separator;
}

/// `void PMIx_Regattr_load(pmix_regattr_t *p, const char *name, const char
/// *key, pmix_data_type_t type, const char *description)`: a copy of
/// `name`, the attribute string `key`, the type, and `description`
/// appended to the description lines (each when not NULL).
///
/// # Safety
/// `p` is NULL or a valid (constructed) regattr; the strings are NULL or
/// C strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Regattr_load(
    p: *mut pmix_regattr_t,
    name: *const c_char,
    key: *const c_char,
    type_: pmix_data_type_t,
    description: *const c_char,
) {
    // SAFETY: NULL or valid (caller guarantee).
    let Some(r) = (unsafe { p.as_mut() }) else {
        return;
    };
    // SAFETY: NULL or C strings (caller guarantee); `description` is
    // NULL or a libc argv owned by the regattr.
    unsafe {
        if !name.is_null() {
            r.name = cmem::strdup_c(name).unwrap_or(ptr::null_mut());
        }
        if !key.is_null() {
            cmem::load_key(&mut r.string, cmem::c_bytes(key));
        }
        r.type_ = type_;
        if !description.is_null() {
            let _ = argv::append(&mut r.description, cmem::c_bytes(description));
        }
    }
}

/// `void PMIx_Regattr_xfer(pmix_regattr_t *dest, const pmix_regattr_t
/// *src)`: `dest` becomes a deep copy of `src` (a part that cannot be
/// copied stays NULL); what `dest` held is not released.
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or valid; they differ.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Regattr_xfer(dest: *mut pmix_regattr_t, src: *const pmix_regattr_t) {
    if dest.is_null() || src.is_null() || ptr::eq(dest, src) {
        return;
    }
    // SAFETY: writable (caller guarantee).
    unsafe { super::construct(ElemKind::RegAttr, dest.cast()) };
    // SAFETY: distinct; `dest` constructed, `src` valid.
    let (d, s) = unsafe { (&mut *dest, &*src) };
    // SAFETY: `s.name` NULL or a C string, `s.description` NULL or an argv.
    unsafe {
        d.name = cmem::strdup_c(s.name).unwrap_or(ptr::null_mut());
        d.description = cmem::argv_dup(s.description).unwrap_or(ptr::null_mut());
    }
    d.string = s.string;
    d.type_ = s.type_;
}

/// `pmix_data_buffer_t* PMIx_Data_buffer_create(void)`: one malloc'd empty
/// buffer (NULL when memory runs out), released with
/// [`PMIx_Data_buffer_release`].
#[no_mangle]
pub extern "C" fn PMIx_Data_buffer_create() -> *mut pmix_data_buffer_t {
    super::create(ElemKind::DataBuffer, 1).cast()
}

/// `void PMIx_Data_buffer_release(pmix_data_buffer_t *b)`: frees the
/// payload and the buffer; NULL is a no-op.
///
/// # Safety
/// `b` is NULL or one libc-allocated valid buffer, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_release(b: *mut pmix_data_buffer_t) {
    // SAFETY: forwarded caller guarantee.
    unsafe { super::free_array(ElemKind::DataBuffer, b.cast(), 1) }
}

/// `void PMIx_Data_buffer_load(pmix_data_buffer_t *b, char *bytes, size_t
/// sz)`: the buffer's payload is released and `bytes` (a libc allocation
/// of `sz` bytes, now the buffer's) becomes its payload, nothing unpacked
/// yet (`PMIx_Data_load`).
///
/// # Safety
/// `b` is NULL or a valid buffer; `bytes` is NULL or a libc allocation of
/// at least `sz` bytes, not used by the caller afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_load(
    b: *mut pmix_data_buffer_t,
    bytes: *mut c_char,
    sz: usize,
) {
    let mut bo = pmix_byte_object_t { bytes, size: sz };
    // SAFETY: forwarded caller guarantee; `bo` is a valid byte object.
    let _ = unsafe { PMIx_Data_load(b, &mut bo) };
}

/// `void PMIx_Data_buffer_unload(pmix_data_buffer_t *b, char **bytes,
/// size_t *sz)`: moves the unread payload out (`PMIx_Data_unload`), the
/// caller owning it (libc `free`); `*bytes`/`*sz` are NULL/0 when there is
/// none or it fails.
///
/// # Safety
/// `b` is NULL or a valid buffer; `bytes`/`sz` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_buffer_unload(
    b: *mut pmix_data_buffer_t,
    bytes: *mut *mut c_char,
    sz: *mut usize,
) {
    let mut bo = pmix_byte_object_t {
        bytes: ptr::null_mut(),
        size: 0,
    };
    // SAFETY: forwarded caller guarantee; `bo` is ours.
    let rc = unsafe { PMIx_Data_unload(b, &mut bo) };
    if rc != PMIX_SUCCESS {
        bo = pmix_byte_object_t {
            bytes: ptr::null_mut(),
            size: 0,
        };
    }
    // SAFETY: NULL or writable (caller guarantee).
    unsafe {
        if let Some(out) = bytes.as_mut() {
            *out = bo.bytes;
        } else {
            // Nobody takes the payload: do not leak it.
            cmem::free(bo.bytes);
        }
        if let Some(out) = sz.as_mut() {
            *out = bo.size;
        }
    }
}
