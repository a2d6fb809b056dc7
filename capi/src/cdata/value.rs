//! `pmix_value_t` in and out of plain C data: `PMIx_Value_load`,
//! `PMIx_Value_unload`, and where the element a value holds sits
//! ([`elem_ptr`]).

use std::os::raw::{c_char, c_void};
use std::ptr;

use pmix_core::{Error, Result, Status};

use super::copy::{boxed_copy, inline_copy, kind_of, not_supported};
use super::kind::{in_value, ElemKind, Pod};
use crate::cmem::{self, calloc_one, strdup_c};
use crate::types::*;

/// Where the element a value of `kind` holds sits: the start of its data
/// union, or, for a type held through a pointer
/// ([`ElemKind::boxed_in_value`]), the element it points to (`None` when
/// that pointer is NULL).
///
/// # Safety
/// `v` is a valid value whose type has the element kind `kind`.
#[inline]
pub(crate) unsafe fn elem_ptr(v: &pmix_value_t, kind: ElemKind) -> Option<*const u8> {
    if kind.boxed_in_value() {
        // SAFETY: a boxed type's data is NULL or a pointer to one element
        // (caller guarantee).
        let p = unsafe { v.data.ptr }.cast::<u8>().cast_const();
        (!p.is_null()).then_some(p)
    } else {
        Some(ptr::addr_of!(v.data).cast())
    }
}

/// `PMIx_Value_load`: copies the datum at `data` (a pointer to a C object of
/// type `ty`; for `PMIX_POINTER` the pointer itself) into `v`, overwriting
/// without releasing. NULL `data` gives zero data (and `true` for
/// `PMIX_BOOL`, as OpenPMIx does). On error `v` is `PMIX_UNDEF`.
///
/// # Safety
/// `v` is writable; `data` is NULL or points to an initialised object of
/// the C type of `ty` (a NUL-terminated string for `PMIX_STRING` and
/// `PMIX_PROC_NSPACE`).
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for a type a value cannot
/// hold and for hwloc types.
pub(crate) unsafe fn value_load(
    v: *mut pmix_value_t,
    data: *const c_void,
    ty: pmix_data_type_t,
) -> Result<()> {
    // SAFETY: `v` is writable (caller guarantee).
    let v = unsafe { &mut *v };
    *v = pmix_value_t::INIT;
    if data.is_null() {
        v.type_ = ty;
        if ty == PMIX_BOOL {
            v.data.flag = true;
        }
        return Ok(());
    }
    if !in_value(ty) {
        return Err(not_supported(ty));
    }
    let Some(kind) = ElemKind::of(ty) else {
        return Ok(()); // PMIX_UNDEF
    };
    match kind {
        ElemKind::Pod(Pod::Pointer) => v.data.ptr = data.cast_mut(),
        // SAFETY: for a string `data` is the C string itself (caller).
        ElemKind::String => v.data.string = unsafe { strdup_c(data.cast()) }?,
        ElemKind::Nspace => {
            let ns = calloc_one::<pmix_nspace_t>()?;
            // SAFETY: `data` is a NUL-terminated string (caller): strnlen
            // reads at most PMIX_MAX_NSLEN bytes and stops at its NUL.
            let len = unsafe { libc::strnlen(data.cast(), PMIX_MAX_NSLEN) };
            // SAFETY: `len` readable bytes at `data`, and room for them in
            // the fresh zeroed pmix_nspace_t.
            unsafe { ptr::copy_nonoverlapping(data.cast::<c_char>(), ns.cast::<c_char>(), len) };
            v.data.nspace = ns;
        }
        // SAFETY: `data` points to one element of `ty` (caller).
        k if k.boxed_in_value() => v.data.ptr = unsafe { boxed_copy(k, data.cast()) }?.cast(),
        // SAFETY: as above; an inline kind.
        k => unsafe { inline_copy(k, v, data.cast()) }?,
    }
    v.type_ = ty;
    Ok(())
}

/// `PMIx_Value_unload`, with OpenPMIx 4.2.2's conventions:
///
/// | type | `*data` on entry | result |
/// |---|---|---|
/// | `PMIX_STRING` | any | `*data` = malloc'd copy (NULL for a NULL string), `*sz` = strlen |
/// | byte objects, `PMIX_REGEX` | any | `*data` = the value's own bytes (not a copy), `*sz` = size |
/// | `PMIX_POINTER` | any | `*data` = the pointer |
/// | other pointer types (`PMIX_DATA_ARRAY`, `PMIX_PROC_INFO`, `PMIX_ENVAR`, ...) | any | `*data` = malloc'd deep copy |
/// | scalars, `PMIX_PROC`, `PMIX_PROC_NSPACE` | caller's buffer | copied into it; NULL is `PMIX_ERR_BAD_PARAM` |
///
/// # Safety
/// `v` is a valid value; `data`/`sz` are NULL or writable; a non-NULL
/// `*data` for an inline type has room for the datum.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (see table), `PMIX_ERR_UNKNOWN_DATA_TYPE` for
/// `PMIX_UNDEF`, `PMIX_ERR_NOMEM`, `PMIX_ERR_NOT_SUPPORTED`.
pub(crate) unsafe fn value_unload(
    v: *const pmix_value_t,
    data: *mut *mut c_void,
    sz: *mut usize,
) -> Result<()> {
    if v.is_null() || data.is_null() || sz.is_null() {
        return Err(cmem::bad_param("NULL argument to PMIx_Value_unload"));
    }
    // SAFETY: all three are valid (checked non-NULL; caller guarantee).
    let (v, data, sz) = unsafe { (&*v, &mut *data, &mut *sz) };
    let ty = v.type_;
    if ty == PMIX_UNDEF {
        return Err(if data.is_null() {
            cmem::bad_param("PMIx_Value_unload into NULL")
        } else {
            Error::new(Status::ERR_UNKNOWN_DATA_TYPE)
        });
    }
    let kind = kind_of(ty)?;
    match kind {
        ElemKind::String => {
            // SAFETY: a string value holds NULL or a C string.
            let s = unsafe { v.data.string };
            // SAFETY: as above.
            *data = unsafe { strdup_c(s) }?.cast();
            // SAFETY: as above.
            *sz = unsafe { cmem::c_bytes(s) }.len();
        }
        ElemKind::Bytes => {
            // SAFETY: these types hold a byte object inline.
            let bo = unsafe { v.data.bo };
            let empty = bo.bytes.is_null() || bo.size == 0;
            *data = if empty {
                ptr::null_mut()
            } else {
                bo.bytes.cast()
            };
            *sz = if empty { 0 } else { bo.size };
        }
        ElemKind::Pod(Pod::Pointer) => {
            // SAFETY: a pointer value holds `ptr`.
            *data = unsafe { v.data.ptr };
            *sz = std::mem::size_of::<*mut c_void>();
        }
        ElemKind::Nspace => {
            if data.is_null() {
                return Err(cmem::bad_param("PMIx_Value_unload of a nspace into NULL"));
            }
            // SAFETY: a nspace value holds NULL or a pointer to a
            // pmix_nspace_t.
            let ns = unsafe { v.data.nspace };
            // SAFETY: as above.
            let bytes = unsafe { ns.as_ref() }.map_or(&[][..], |ns| cmem::fixed_bytes(ns));
            // SAFETY: the caller's buffer has room for the namespace (API
            // contract); we write its bytes and a NUL.
            unsafe {
                ptr::copy_nonoverlapping(bytes.as_ptr(), data.cast::<u8>(), bytes.len());
                *data.cast::<u8>().add(bytes.len()) = 0;
            }
            *sz = bytes.len();
        }
        ElemKind::Pod(_) | ElemKind::Proc => {
            if data.is_null() {
                return Err(cmem::bad_param("PMIx_Value_unload into NULL"));
            }
            // SAFETY: the value's element sits in the union, or behind
            // `data.proc` for a proc.
            let src = unsafe { elem_ptr(v, kind) }
                .ok_or_else(|| cmem::bad_param("PMIX_PROC value with NULL proc"))?;
            // SAFETY: `src` holds one element; the caller's buffer has room
            // for it (API contract).
            unsafe { ptr::copy_nonoverlapping(src, data.cast::<u8>(), kind.size()) };
            *sz = kind.size();
        }
        k if k == ElemKind::Envar || k.boxed_in_value() => {
            // SAFETY: the value's element (inline for an envar, behind its
            // pointer otherwise).
            *data = match unsafe { elem_ptr(v, k) } {
                None => ptr::null_mut(),
                // SAFETY: `src` points to one element of `k`.
                Some(src) => unsafe { boxed_copy(k, src) }?.cast(),
            };
            *sz = k.size();
        }
        _ => return Err(not_supported(ty)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdata::{value_destruct, value_xfer};

    #[test]
    fn load_xfer_destruct_a_nested_array() {
        let mut infos = [pmix_info_t::INIT; 2];
        cmem::load_key(&mut infos[0].key, b"k1");
        let s = c"v1";
        let n = 7u32;
        // SAFETY: the values are writable and the data pointers are a C
        // string and a u32, matching the types.
        unsafe {
            value_load(&mut infos[0].value, s.as_ptr().cast(), PMIX_STRING).unwrap();
            value_load(&mut infos[1].value, ptr::addr_of!(n).cast(), PMIX_UINT32).unwrap();
        }
        let darray = pmix_data_array_t {
            type_: PMIX_INFO,
            size: 2,
            array: infos.as_mut_ptr().cast(),
        };
        let mut a = pmix_value_t::INIT;
        let mut b = pmix_value_t::INIT;
        // SAFETY: `darray` is a valid data array of 2 infos; `a`/`b` are
        // writable values, released below.
        unsafe {
            value_load(&mut a, ptr::addr_of!(darray).cast(), PMIX_DATA_ARRAY).unwrap();
            value_xfer(&mut b, &a).unwrap();
            let copy = &*b.data.darray;
            assert_eq!((copy.type_, copy.size), (PMIX_INFO, 2));
            let elems = copy.array.cast::<pmix_info_t>();
            assert_ne!((*elems).value.data.string, infos[0].value.data.string);
            assert_eq!((*elems.add(1)).value.data.uint32, 7);
            value_destruct(&mut a);
            value_destruct(&mut b);
            value_destruct(&mut infos[0].value);
        }
        assert_eq!(a.type_, PMIX_UNDEF);
    }

    #[test]
    fn null_data_loads_zero_and_true_for_bool() {
        let mut v = pmix_value_t::INIT;
        // SAFETY: `v` is writable; NULL data is allowed.
        unsafe { value_load(&mut v, ptr::null(), PMIX_BOOL).unwrap() };
        // SAFETY: the union was written with `flag`.
        assert!(unsafe { v.data.byte } == 1);
        // SAFETY: as above.
        unsafe { value_load(&mut v, ptr::null(), PMIX_STRING).unwrap() };
        // SAFETY: zero data.
        assert!(unsafe { v.data.string }.is_null());
        let x = 1u8;
        // SAFETY: `x` is a valid u8 but PMIX_INFO cannot be held by a value.
        let e = unsafe { value_load(&mut v, ptr::addr_of!(x).cast(), PMIX_INFO) }.unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        assert_eq!(v.type_, PMIX_UNDEF);
    }
}
