//! `PMIx_Data_load`, `PMIx_Data_unload`, `PMIx_Data_embed`,
//! `PMIx_Data_copy_payload`: byte moves on a `pmix_data_buffer_t`, with
//! OpenPMIx's ownership rules (the buffer's `base_ptr` is libc memory, as
//! `PMIX_DATA_BUFFER_DESTRUCT` frees it). Unlike OpenPMIx they do not
//! require `PMIx_Init`: they touch no library state. Packing in OpenPMIx's
//! wire format is not supported ([`crate::unsupported`]).

use std::os::raw::c_char;
use std::ptr;

use crate::cmem::{self, free};
use crate::types::*;

/// `PMIX_DATA_BUFFER_STATIC_INIT`.
const EMPTY_BUFFER: pmix_data_buffer_t = pmix_data_buffer_t {
    base_ptr: ptr::null_mut(),
    pack_ptr: ptr::null_mut(),
    unpack_ptr: ptr::null_mut(),
    bytes_allocated: 0,
    bytes_used: 0,
};

/// Offset of `p` from `base`, NULL read as `default`; `None` below `base`.
fn offset(base: *mut c_char, p: *mut c_char, default: usize) -> Option<usize> {
    if p.is_null() {
        Some(default)
    } else {
        (p as usize).checked_sub(base as usize)
    }
}

/// The byte offsets `(unpack, pack)` of a buffer with a payload, checked:
/// `unpack <= pack == bytes_used <= bytes_allocated`. A NULL `unpack_ptr`
/// reads as the start and a NULL `pack_ptr` as the end of the used bytes.
fn cursors(b: &pmix_data_buffer_t) -> Option<(usize, usize)> {
    let unpack = offset(b.base_ptr, b.unpack_ptr, 0)?;
    let pack = offset(b.base_ptr, b.pack_ptr, b.bytes_used)?;
    (unpack <= pack && pack == b.bytes_used && b.bytes_used <= b.bytes_allocated)
        .then_some((unpack, pack))
}

/// `pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer,
/// pmix_byte_object_t *payload)`: moves the unread payload out. If nothing
/// was unpacked the allocation itself is handed over, else a malloc'd copy
/// of the unread bytes and the buffer's allocation is freed; the buffer is
/// left empty. An empty buffer gives an empty payload and stays as it is.
/// `PMIX_ERR_BAD_PARAM` for a NULL argument or inconsistent buffer
/// pointers, `PMIX_ERR_NOMEM` (buffer unchanged) when the copy fails.
///
/// # Safety
/// `buffer` is NULL or a valid buffer whose `base_ptr` is NULL or a libc
/// allocation of `bytes_allocated` bytes; `payload` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unload(
    buffer: *mut pmix_data_buffer_t,
    payload: *mut pmix_byte_object_t,
) -> pmix_status_t {
    if buffer.is_null() || payload.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: both non-NULL and valid (caller guarantee).
    let (b, p) = unsafe { (&mut *buffer, &mut *payload) };
    *p = pmix_byte_object_t {
        bytes: ptr::null_mut(),
        size: 0,
    };
    if b.base_ptr.is_null() || b.bytes_used == 0 {
        return PMIX_SUCCESS;
    }
    let Some((unpack, used)) = cursors(b) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if unpack == 0 {
        p.bytes = b.base_ptr;
        p.size = used;
        *b = EMPTY_BUFFER;
        return PMIX_SUCCESS;
    }
    let left = used - unpack;
    if left > 0 {
        let Ok(copy) = cmem::calloc_array::<c_char>(left) else {
            return PMIX_ERR_NOMEM;
        };
        // SAFETY: `unpack + left == used <= bytes_allocated` bytes of the
        // buffer's allocation are readable; `copy` is a fresh allocation of
        // `left` bytes.
        unsafe { ptr::copy_nonoverlapping(b.base_ptr.add(unpack), copy, left) };
        p.bytes = copy;
        p.size = left;
    }
    // SAFETY: the buffer's libc allocation, no longer referenced.
    unsafe { free(b.base_ptr) };
    *b = EMPTY_BUFFER;
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer,
/// pmix_byte_object_t *payload)`: frees the buffer's payload and makes the
/// byte object's bytes its new one, nothing unpacked yet; the byte object
/// is left empty (its bytes now belong to the buffer). A NULL payload (or
/// one with NULL bytes) leaves the buffer empty. `PMIX_ERR_BAD_PARAM` for
/// a NULL buffer.
///
/// # Safety
/// `buffer` is NULL or a valid buffer whose `base_ptr` is NULL or a libc
/// allocation; `payload` is NULL or a valid byte object whose `bytes` are
/// NULL or a libc allocation of at least `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_load(
    buffer: *mut pmix_data_buffer_t,
    payload: *mut pmix_byte_object_t,
) -> pmix_status_t {
    if buffer.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: non-NULL and valid (caller guarantee).
    let b = unsafe { &mut *buffer };
    let bo = if payload.is_null() {
        pmix_byte_object_t {
            bytes: ptr::null_mut(),
            size: 0,
        }
    } else {
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = unsafe { &mut *payload };
        std::mem::replace(
            p,
            pmix_byte_object_t {
                bytes: ptr::null_mut(),
                size: 0,
            },
        )
    };
    if b.base_ptr != bo.bytes {
        // SAFETY: the buffer's libc allocation (or NULL), replaced below;
        // not the new payload, which is a different allocation.
        unsafe { free(b.base_ptr) };
    }
    *b = EMPTY_BUFFER;
    if !bo.bytes.is_null() {
        b.base_ptr = bo.bytes;
        b.unpack_ptr = bo.bytes;
        b.pack_ptr = bo.bytes.wrapping_add(bo.size);
        b.bytes_allocated = bo.size;
        b.bytes_used = bo.size;
    }
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer, const
/// pmix_byte_object_t *payload)`: as [`PMIx_Data_load`] with a malloc'd
/// copy of the payload, which is left unaltered. `PMIX_ERR_BAD_PARAM` for a
/// NULL buffer, `PMIX_ERR_NOMEM` (buffer unchanged) when the copy fails.
///
/// # Safety
/// `buffer` as for [`PMIx_Data_load`]; `payload` is NULL or a valid byte
/// object whose `bytes` are NULL or readable for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_embed(
    buffer: *mut pmix_data_buffer_t,
    payload: *const pmix_byte_object_t,
) -> pmix_status_t {
    if buffer.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    let mut copy = pmix_byte_object_t {
        bytes: ptr::null_mut(),
        size: 0,
    };
    if !payload.is_null() {
        // SAFETY: non-NULL and valid (caller guarantee).
        let bo = unsafe { &*payload };
        if !bo.bytes.is_null() && bo.size > 0 {
            let Ok(p) = cmem::calloc_array::<c_char>(bo.size) else {
                return PMIX_ERR_NOMEM;
            };
            // SAFETY: `bo.bytes` is readable for `size` bytes (caller
            // guarantee); `p` is a fresh allocation of that size. The copy
            // is taken before the buffer's old payload is freed, so a
            // payload pointing into it is still valid here.
            unsafe { ptr::copy_nonoverlapping(bo.bytes, p, bo.size) };
            copy = pmix_byte_object_t {
                bytes: p,
                size: bo.size,
            };
        }
    }
    // SAFETY: forwarded caller guarantee for `buffer`; `copy` is ours.
    unsafe { PMIx_Data_load(buffer, &mut copy) }
}

/// `pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest,
/// pmix_data_buffer_t *src)`: appends a copy of `src`'s unread bytes to
/// `dest` (whose allocation grows with `realloc`); `src` is unchanged. A
/// NULL `src` is a no-op (as in OpenPMIx). `PMIX_ERR_BAD_PARAM` for a NULL
/// `dest` or inconsistent buffer pointers, `PMIX_ERR_NOMEM` (both
/// unchanged) when growing fails. `dest` and `src` may be the same buffer.
///
/// # Safety
/// Each of `dest` and `src` is NULL or a valid buffer whose `base_ptr` is
/// NULL or a libc allocation of `bytes_allocated` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy_payload(
    dest: *mut pmix_data_buffer_t,
    src: *mut pmix_data_buffer_t,
) -> pmix_status_t {
    if src.is_null() {
        return PMIX_SUCCESS;
    }
    if dest.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: non-NULL and valid (caller guarantee); copies of the fields,
    // so `dest == src` creates no aliasing references.
    let (s, d) = unsafe { (src.read(), dest.read()) };
    let (s_unpack, s_pack) = if s.base_ptr.is_null() {
        (0, 0)
    } else {
        match cursors(&s) {
            Some(c) => c,
            None => return PMIX_ERR_BAD_PARAM,
        }
    };
    let n = s_pack - s_unpack;
    if n == 0 {
        return PMIX_SUCCESS;
    }
    let (d_unpack, d_used, d_alloc) = if d.base_ptr.is_null() {
        (0, 0, 0)
    } else {
        match cursors(&d) {
            Some((unpack, used)) => (unpack, used, d.bytes_allocated),
            None => return PMIX_ERR_BAD_PARAM,
        }
    };
    let Some(need) = d_used.checked_add(n) else {
        return PMIX_ERR_NOMEM;
    };
    let (base, alloc) = if need <= d_alloc {
        (d.base_ptr, d_alloc)
    } else {
        let alloc = need.max(d_alloc.saturating_mul(2));
        // SAFETY: `d.base_ptr` is NULL or dest's libc allocation; on
        // failure realloc leaves it as it was.
        let p = unsafe { libc::realloc(d.base_ptr.cast(), alloc) }.cast::<c_char>();
        if p.is_null() {
            return PMIX_ERR_NOMEM;
        }
        (p, alloc)
    };
    // The source bytes moved with dest's allocation when they lived in it.
    let from = if !s.base_ptr.is_null() && s.base_ptr == d.base_ptr {
        base.wrapping_add(s_unpack)
    } else {
        s.base_ptr.wrapping_add(s_unpack)
    };
    // SAFETY: `from` is readable for `n` bytes (src's unread payload, in its
    // current allocation); `base + d_used` is writable for `n` bytes
    // (`d_used + n <= alloc`). `ptr::copy` allows the ranges to overlap.
    unsafe { ptr::copy(from, base.add(d_used), n) };
    // SAFETY: valid and writable (caller guarantee); written last, after
    // every read of `src`, which may be the same buffer.
    unsafe {
        dest.write(pmix_data_buffer_t {
            base_ptr: base,
            pack_ptr: base.add(need),
            unpack_ptr: base.add(d_unpack),
            bytes_allocated: alloc,
            bytes_used: need,
        })
    };
    PMIX_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmem::{c_bytes, strdup_str};

    /// The bytes a buffer holds, unread or not.
    fn used(b: &pmix_data_buffer_t) -> &[u8] {
        if b.base_ptr.is_null() {
            return &[];
        }
        // SAFETY: `bytes_used` initialised bytes at `base_ptr`.
        unsafe { std::slice::from_raw_parts(b.base_ptr.cast(), b.bytes_used) }
    }

    fn bo_bytes(bo: &pmix_byte_object_t) -> &[u8] {
        if bo.bytes.is_null() {
            return &[];
        }
        // SAFETY: `size` initialised bytes at `bytes`.
        unsafe { std::slice::from_raw_parts(bo.bytes.cast(), bo.size) }
    }

    fn malloced(s: &str) -> pmix_byte_object_t {
        pmix_byte_object_t {
            bytes: strdup_str(s).unwrap(),
            size: s.len(),
        }
    }

    #[test]
    fn data_buffer_payload_moves() {
        let mut src = EMPTY_BUFFER;
        let mut bo = malloced("hello");
        let bytes = bo.bytes;
        // SAFETY: in this test every buffer and byte object is valid and
        // holds libc memory only.
        unsafe {
            assert_eq!(PMIx_Data_load(&mut src, &mut bo), PMIX_SUCCESS);
            assert!(bo.bytes.is_null() && bo.size == 0, "load takes the payload");
            assert_eq!((src.base_ptr, src.unpack_ptr), (bytes, bytes));
            assert_eq!(src.pack_ptr, bytes.add(5));
            assert_eq!((src.bytes_used, src.bytes_allocated), (5, 5));

            let mut dst = EMPTY_BUFFER;
            assert_eq!(PMIx_Data_copy_payload(&mut dst, &mut src), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"hello");
            assert_eq!(src.base_ptr, bytes, "the source is unchanged");
            // Two bytes of `src` read: only the rest is copied.
            src.unpack_ptr = src.base_ptr.add(2);
            assert_eq!(PMIx_Data_copy_payload(&mut dst, &mut src), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"hellollo");
            let dp: *mut pmix_data_buffer_t = &mut dst;
            assert_eq!(PMIx_Data_copy_payload(dp, dp), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"hellollohellollo");
            assert_eq!(dst.pack_ptr, dst.base_ptr.add(16));
            assert_eq!(dst.unpack_ptr, dst.base_ptr);
            assert!(dst.bytes_allocated >= 16);
            assert_eq!(
                PMIx_Data_copy_payload(&mut dst, ptr::null_mut()),
                PMIX_SUCCESS
            );

            // Partly read: a copy of the unread bytes, the buffer emptied.
            assert_eq!(PMIx_Data_unload(&mut src, &mut bo), PMIX_SUCCESS);
            assert_eq!(bo_bytes(&bo), b"llo");
            assert_ne!(bo.bytes, bytes);
            assert!(src.base_ptr.is_null() && src.bytes_used == 0 && src.unpack_ptr.is_null());
            free(bo.bytes);

            // Unread: the allocation itself is handed over.
            let base = dst.base_ptr;
            assert_eq!(PMIx_Data_unload(&mut dst, &mut bo), PMIX_SUCCESS);
            assert_eq!((bo.bytes, bo.size), (base, 16));
            assert!(dst.base_ptr.is_null() && dst.bytes_allocated == 0);

            // Empty: an empty payload.
            assert_eq!(PMIx_Data_unload(&mut dst, &mut bo), PMIX_SUCCESS);
            assert!(bo.bytes.is_null() && bo.size == 0);
            free(base);

            // Embed copies and leaves the payload alone.
            let keep = malloced("xyz");
            assert_eq!(PMIx_Data_embed(&mut dst, &keep), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"xyz");
            assert_ne!(dst.base_ptr, keep.bytes);
            assert_eq!(c_bytes(keep.bytes), b"xyz");
            // Loading over a payload frees it; loading NULL empties.
            let mut again = malloced("ab");
            assert_eq!(PMIx_Data_load(&mut dst, &mut again), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"ab");
            assert_eq!(PMIx_Data_embed(&mut dst, ptr::null()), PMIX_SUCCESS);
            assert!(dst.base_ptr.is_null() && dst.bytes_used == 0);
            assert_eq!(PMIx_Data_load(&mut dst, ptr::null_mut()), PMIX_SUCCESS);
            free(keep.bytes);
        }
    }

    #[test]
    fn data_buffer_bad_params() {
        let mut b = EMPTY_BUFFER;
        let mut bo = pmix_byte_object_t {
            bytes: ptr::null_mut(),
            size: 0,
        };
        // SAFETY: in this test, valid or NULL arguments; `raw` stays ours.
        unsafe {
            assert_eq!(
                PMIx_Data_unload(ptr::null_mut(), &mut bo),
                PMIX_ERR_BAD_PARAM
            );
            assert_eq!(
                PMIx_Data_unload(&mut b, ptr::null_mut()),
                PMIX_ERR_BAD_PARAM
            );
            assert_eq!(PMIx_Data_load(ptr::null_mut(), &mut bo), PMIX_ERR_BAD_PARAM);
            assert_eq!(PMIx_Data_embed(ptr::null_mut(), &bo), PMIX_ERR_BAD_PARAM);
            assert_eq!(
                PMIx_Data_copy_payload(ptr::null_mut(), &mut b),
                PMIX_ERR_BAD_PARAM
            );

            // An unpack pointer past the used bytes is refused, untouched.
            let mut raw = malloced("abcd");
            assert_eq!(PMIx_Data_load(&mut b, &mut raw), PMIX_SUCCESS);
            let base = b.base_ptr;
            b.unpack_ptr = base.add(5);
            assert_eq!(PMIx_Data_unload(&mut b, &mut bo), PMIX_ERR_BAD_PARAM);
            let mut other = EMPTY_BUFFER;
            assert_eq!(
                PMIx_Data_copy_payload(&mut other, &mut b),
                PMIX_ERR_BAD_PARAM
            );
            assert!(other.base_ptr.is_null());
            assert_eq!(b.base_ptr, base);
            b.unpack_ptr = base;
            assert_eq!(PMIx_Data_load(&mut b, ptr::null_mut()), PMIX_SUCCESS);
        }
    }
}
