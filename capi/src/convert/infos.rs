//! Info arrays of C calls: directives (lenient for optional entries), data
//! the library only passes along (lossy), and C copies for handlers and
//! hosts that only read them.

use std::ptr;

use pmix_core::{Info, Result, Status};

use super::value::{info_from_c, info_to_c};
use crate::cdata::info_destruct;
use crate::cmem;
use crate::types::*;

/// A C info array given as directives: deep-copied, skipping entries whose
/// type the data model cannot hold unless they are required
/// (`PMIX_INFO_REQD`).
///
/// # Safety
/// `info` is NULL or points to `n` valid infos.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a malformed entry; the conversion error of a
/// required one.
#[inline]
pub(crate) unsafe fn directives_in(info: *const pmix_info_t, n: usize) -> Result<Vec<Info>> {
    if info.is_null() || n == 0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: `i < n` infos are valid (caller guarantee).
        let ci = unsafe { &*info.add(i) };
        // SAFETY: as above.
        match unsafe { info_from_c(ci) } {
            Ok(x) => out.push(x),
            Err(e) if e.status() == Status::ERR_NOT_SUPPORTED && ci.flags & PMIX_INFO_REQD == 0 => {
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// `n` C infos read leniently (entries that do not convert are dropped):
/// for data the library only passes along.
///
/// # Safety
/// As [`directives_in`].
pub(crate) unsafe fn infos_in_lossy(info: *const pmix_info_t, n: usize) -> Vec<Info> {
    if info.is_null() {
        return Vec::new();
    }
    // SAFETY: `i < n` infos are valid (caller guarantee).
    (0..n)
        .filter_map(|i| unsafe { info_from_c(info.add(i)) }.ok())
        .collect()
}

/// A malloc'd C copy of `infos` for code that only reads it, dropping
/// entries C cannot represent; the last entry carries
/// `PMIX_INFO_ARRAY_END` as `PMIX_INFO_CREATE` sets it. `(NULL, 0)` when
/// nothing remains. Release with `cdata::array_free(PMIX_INFO, …)`.
pub(crate) fn infos_out_lossy(infos: &[Info]) -> (*mut pmix_info_t, usize) {
    infos_out_where(infos, |_| true)
}

/// As [`infos_out_lossy`], keeping only the entries whose C value type
/// passes `keep`.
pub(crate) fn infos_out_where(
    infos: &[Info],
    keep: impl Fn(pmix_data_type_t) -> bool,
) -> (*mut pmix_info_t, usize) {
    if infos.is_empty() {
        return (ptr::null_mut(), 0);
    }
    let Ok(arr) = cmem::calloc_array::<pmix_info_t>(infos.len()) else {
        return (ptr::null_mut(), 0);
    };
    let mut k = 0;
    for info in infos {
        // SAFETY: slot `k < infos.len()` of the zeroed array.
        let slot = unsafe { arr.add(k) };
        // SAFETY: a writable slot; a failed write leaves it holding no
        // allocation, and the next entry overwrites it.
        if unsafe { info_to_c(info, slot) }.is_err() {
            continue;
        }
        // SAFETY: just written.
        if keep(unsafe { (*slot).value.type_ }) {
            k += 1;
        } else {
            // SAFETY: a written slot, released and zeroed for reuse.
            unsafe {
                info_destruct(slot);
                ptr::write_bytes(slot, 0, 1);
            }
        }
    }
    if k == 0 {
        // SAFETY: ours, and no slot owns anything.
        unsafe { cmem::free(arr) };
        return (ptr::null_mut(), 0);
    }
    // SAFETY: `k - 1 < infos.len()`, a written slot.
    unsafe { (*arr.add(k - 1)).flags |= PMIX_INFO_ARRAY_END };
    (arr, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdata::array_free;
    use pmix_core::Value;

    #[test]
    fn directives_skip_unconvertible_optional_entries_only() {
        let mut infos = [pmix_info_t::INIT, pmix_info_t::INIT, pmix_info_t::INIT];
        cmem::load_key(&mut infos[0].key, b"a");
        infos[0].value.type_ = PMIX_POINTER;
        cmem::load_key(&mut infos[1].key, b"b");
        infos[1].value.type_ = PMIX_UINT32;
        infos[1].value.data.uint32 = 7;
        cmem::load_key(&mut infos[2].key, b"c");
        infos[2].value.type_ = PMIX_POINTER;
        // SAFETY: three valid infos (pointer values are never dereferenced).
        let got = unsafe { directives_in(infos.as_ptr(), 2) }.unwrap();
        assert_eq!(got, vec![Info::new("b", Value::Uint32(7)).unwrap()]);
        infos[2].flags = PMIX_INFO_REQD;
        // SAFETY: as above.
        let e = unsafe { directives_in(infos.as_ptr(), 3) }.unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        // SAFETY: as above.
        assert_eq!(unsafe { infos_in_lossy(infos.as_ptr(), 3) }.len(), 1);
    }

    #[test]
    fn lossy_output_marks_the_array_end() {
        let infos = vec![Info::new("x", 1u16).unwrap(), Info::new("y", "s").unwrap()];
        let (arr, n) = infos_out_lossy(&infos);
        assert_eq!(n, 2);
        // SAFETY: `arr` holds `n` infos; released below.
        unsafe {
            assert_eq!((*arr).flags & PMIX_INFO_ARRAY_END, 0);
            assert_ne!((*arr.add(1)).flags & PMIX_INFO_ARRAY_END, 0);
            assert_eq!(infos_in_lossy(arr, n).len(), 2);
            array_free(PMIX_INFO, arr.cast(), n);
        }
        assert!(infos_out_lossy(&[]).0.is_null());
        // A filter keeps only the entries whose C type passes.
        let (arr, n) = infos_out_where(&infos, |t| t == PMIX_STRING);
        assert_eq!(n, 1);
        // SAFETY: as above.
        unsafe {
            assert_ne!((*arr).flags & PMIX_INFO_ARRAY_END, 0);
            let back = infos_in_lossy(arr, n);
            assert_eq!(
                (&back[0].key, &back[0].value),
                (&infos[1].key, &infos[1].value)
            );
            array_free(PMIX_INFO, arr.cast(), n);
        }
    }
}
