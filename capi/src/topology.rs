//! `PMIx_Cpuset_destruct` and `PMIx_Topology_destruct`: releasing what a
//! `pmix_cpuset_t` or `pmix_topology_t` owns, with OpenPMIx's rules. This
//! library does not link hwloc: the hwloc functions are looked up at run
//! time in the process's global scope. The topology services that need
//! hwloc are in [`crate::unsupported`]; `PMIx_Get_relative_locality`
//! works on locality strings alone and is here.

use std::os::raw::{c_char, c_void};
use std::ptr;

use crate::cmem::{self, free};
use crate::types::*;

/// True when `source` is a C string starting with `hwloc`, ignoring case
/// (OpenPMIx's `strncasecmp(source, "hwloc", 5)`).
///
/// # Safety
/// `source` is NULL or a NUL-terminated string.
unsafe fn is_hwloc(source: *const c_char) -> bool {
    // SAFETY: forwarded caller guarantee.
    let s = unsafe { cmem::c_bytes(source) };
    s.len() >= 5 && s[..5].eq_ignore_ascii_case(b"hwloc")
}

/// Releases an hwloc object with the hwloc function `name`
/// (`hwloc_bitmap_free` or `hwloc_topology_destroy`, both `void f(void *)`)
/// when the process has hwloc in its global symbol scope. Returns whether
/// it did. Without hwloc there the object cannot have come from this
/// process's hwloc, and is left alone.
///
/// # Safety
/// `obj` is a live object of the hwloc type `name` releases, not used
/// afterwards.
unsafe fn hwloc_release(name: &std::ffi::CStr, obj: *mut c_void) -> bool {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no
    // other precondition; NULL means "not found".
    let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if f.is_null() {
        return false;
    }
    // SAFETY: both hwloc functions named here have the C type
    // `void (*)(void *)` (hwloc.h: `void hwloc_bitmap_free(hwloc_bitmap_t)`,
    // `void hwloc_topology_destroy(hwloc_topology_t)`, both pointer typedefs).
    let f = unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut c_void)>(f) };
    // SAFETY: `obj` is such an object (caller guarantee).
    unsafe { f(obj) };
    true
}

/// `void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset)`: releases what the
/// cpuset owns, with OpenPMIx's rules: a cpuset whose `source` is not
/// `"hwloc"` (case-insensitive, first 5 characters) is not ours and is left
/// untouched; otherwise the bitmap is released with `hwloc_bitmap_free`
/// (found at run time in the process's global scope: this library does not
/// link hwloc; where it is absent the bitmap is left to its owner), the
/// `source` string is freed with libc `free`, and both fields become NULL.
/// NULL is a no-op.
///
/// # Safety
/// `cpuset` is NULL or a valid `pmix_cpuset_t` whose `source` is NULL or a
/// libc string and whose `bitmap` is NULL or an hwloc bitmap, not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Cpuset_destruct(cpuset: *mut pmix_cpuset_t) {
    // SAFETY: NULL or a valid cpuset (caller guarantee).
    if let Some(c) = unsafe { cpuset.as_mut() } {
        // SAFETY: its fields as the caller guarantees.
        unsafe { release(&mut c.source, &mut c.bitmap, c"hwloc_bitmap_free") };
    }
}

/// `void PMIx_Topology_destruct(pmix_topology_t *topo)`: as
/// [`PMIx_Cpuset_destruct`], the topology being released with
/// `hwloc_topology_destroy`.
///
/// # Safety
/// `topo` is NULL or a valid `pmix_topology_t` whose `source` is NULL or a
/// libc string and whose `topology` is NULL or an hwloc topology, not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Topology_destruct(topo: *mut pmix_topology_t) {
    // SAFETY: NULL or a valid topology (caller guarantee).
    if let Some(t) = unsafe { topo.as_mut() } {
        // SAFETY: its fields as the caller guarantees.
        unsafe { release(&mut t.source, &mut t.topology, c"hwloc_topology_destroy") };
    }
}

/// The rule of both destructors: a struct whose `source` is not hwloc's is
/// not ours and is left untouched; otherwise `object` is released with the
/// hwloc function `destroy` (when hwloc is in the process), `source` is
/// freed, and both become NULL.
///
/// # Safety
/// `source` is NULL or a libc string; `object` is NULL or a live object of
/// the hwloc type `destroy` releases; neither is used afterwards.
unsafe fn release(source: &mut *mut c_char, object: &mut *mut c_void, destroy: &std::ffi::CStr) {
    // SAFETY: `source` is NULL or a C string (caller guarantee).
    if !unsafe { is_hwloc(*source) } {
        return;
    }
    if !object.is_null() {
        // SAFETY: an hwloc object of that type owned by the struct (caller
        // guarantee).
        unsafe { hwloc_release(destroy, *object) };
        *object = ptr::null_mut();
    }
    // SAFETY: a libc string owned by the struct (caller guarantee).
    unsafe { free(*source) };
    *source = ptr::null_mut();
}

/// `pmix_status_t PMIx_Get_relative_locality(const char *locality1, const
/// char *locality2, pmix_locality_t *locality)`: the
/// `PMIX_LOCALITY_SHARE_*` bits two processes of one node share, from
/// their `PMIX_LOCALITY_STRING`s (with or without the `hwloc:` prefix);
/// needs no hwloc ([`pmix_core::locality`]). `PMIX_ERR_BAD_PARAM` (and
/// `PMIX_LOCALITY_UNKNOWN`) for a NULL argument or a string that is not a
/// locality string.
///
/// # Safety
/// `locality1` and `locality2` NULL or NUL-terminated; `locality` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_relative_locality(
    locality1: *const c_char,
    locality2: *const c_char,
    locality: *mut pmix_locality_t,
) -> pmix_status_t {
    if locality.is_null() {
        return crate::status::fail(
            "PMIx_Get_relative_locality",
            &pmix_core::Error::bad_param("PMIx_Get_relative_locality: NULL result"),
        );
    }
    // SAFETY: non-NULL and writable (caller guarantee).
    unsafe { locality.write(0) };
    // SAFETY: NULL or NUL-terminated (caller guarantee).
    let (a, b) = unsafe { (cmem::c_string(locality1), cmem::c_string(locality2)) };
    let r = match (a, b) {
        (Ok(Some(a)), Ok(Some(b))) => pmix_core::locality::relative(&a, &b),
        (Err(e), _) | (_, Err(e)) => Err(e),
        _ => Err(pmix_core::Error::bad_param(
            "PMIx_Get_relative_locality: NULL locality string",
        )),
    };
    match r {
        Ok(bits) => {
            // SAFETY: as above.
            unsafe { locality.write(bits) };
            PMIX_SUCCESS
        }
        Err(e) => crate::status::fail("PMIx_Get_relative_locality", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmem::strdup_str;

    fn dangling<T>() -> *mut T {
        ptr::NonNull::dangling().as_ptr()
    }

    /// An hwloc function from the process's global scope, if any.
    fn global(name: &std::ffi::CStr) -> *mut c_void {
        // SAFETY: dlsym with RTLD_DEFAULT and a C string.
        unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
    }

    #[test]
    fn cpuset_and_topology_destruct() {
        // SAFETY: in this test every struct is valid, its `source` a libc
        // string or NULL, its object an hwloc object or, while hwloc is
        // absent, a pointer that must not be touched.
        unsafe {
            PMIx_Cpuset_destruct(ptr::null_mut());
            PMIx_Topology_destruct(ptr::null_mut());
            let mut empty = pmix_cpuset_t {
                source: ptr::null_mut(),
                bitmap: ptr::null_mut(),
            };
            PMIx_Cpuset_destruct(&mut empty);

            // Not an hwloc cpuset: not ours, untouched.
            let other = strdup_str("other").unwrap();
            let mut cs = pmix_cpuset_t {
                source: other,
                bitmap: dangling(),
            };
            PMIx_Cpuset_destruct(&mut cs);
            assert_eq!((cs.source, cs.bitmap), (other, dangling()));
            let mut t = pmix_topology_t {
                source: other,
                topology: dangling(),
            };
            PMIx_Topology_destruct(&mut t);
            assert_eq!((t.source, t.topology), (other, dangling()));
            free(other);

            // hwloc objects without hwloc in the process: the source is
            // freed, the object left alone (it cannot be touched here).
            if global(c"hwloc_bitmap_free").is_null() {
                let mut cs = pmix_cpuset_t {
                    source: strdup_str("HWLOC").unwrap(),
                    bitmap: dangling(),
                };
                PMIx_Cpuset_destruct(&mut cs);
                assert!(cs.source.is_null() && cs.bitmap.is_null());
                let mut t = pmix_topology_t {
                    source: strdup_str("hwloc").unwrap(),
                    topology: dangling(),
                };
                PMIx_Topology_destruct(&mut t);
                assert!(t.source.is_null() && t.topology.is_null());
            }

            // With hwloc loaded (where installed), its objects are released
            // by hwloc.
            let lib = libc::dlopen(
                c"libhwloc.so.15".as_ptr(),
                libc::RTLD_NOW | libc::RTLD_GLOBAL,
            );
            if lib.is_null() {
                return;
            }
            let alloc = libc::dlsym(lib, c"hwloc_bitmap_alloc".as_ptr());
            let init = libc::dlsym(lib, c"hwloc_topology_init".as_ptr());
            assert!(!alloc.is_null() && !init.is_null());
            assert!(!global(c"hwloc_bitmap_free").is_null());
            let alloc =
                std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(alloc);
            let init = std::mem::transmute::<
                *mut c_void,
                unsafe extern "C" fn(*mut *mut c_void) -> i32,
            >(init);
            let mut cs = pmix_cpuset_t {
                source: strdup_str("hwloc").unwrap(),
                bitmap: alloc(),
            };
            assert!(!cs.bitmap.is_null());
            PMIx_Cpuset_destruct(&mut cs);
            assert!(cs.source.is_null() && cs.bitmap.is_null());
            let mut topo = ptr::null_mut();
            assert_eq!(init(&mut topo), 0);
            let mut t = pmix_topology_t {
                source: strdup_str("hwloc").unwrap(),
                topology: topo,
            };
            PMIx_Topology_destruct(&mut t);
            assert!(t.source.is_null() && t.topology.is_null());
        }
    }
}
