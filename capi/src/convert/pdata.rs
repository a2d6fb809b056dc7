//! What a host hands back through its callbacks: published data
//! (`pmix_pdata_t` arrays) and byte blobs, copied out before the host
//! releases them.

use std::os::raw::c_char;

use pmix_core::proto::PData;
use pmix_core::Result;

use super::names::proc_from_c;
use super::value::value_from_c;
use crate::cmem;
use crate::types::*;

/// `n` C pdata as [`PData`]s (NULL: none).
///
/// # Safety
/// `data` is NULL or points to `n` valid pdata.
///
/// # Errors
/// As [`value_from_c`] and [`proc_from_c`].
pub(crate) unsafe fn pdata_from_c(data: *const pmix_pdata_t, n: usize) -> Result<Vec<PData>> {
    if data.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: `n` valid pdata (caller guarantee).
    unsafe { std::slice::from_raw_parts(data, n) }
        .iter()
        .map(|d| {
            Ok(PData {
                proc: proc_from_c(&d.proc_)?,
                key: String::from_utf8_lossy(cmem::fixed_bytes(&d.key)).into_owned(),
                // SAFETY: a valid value inside a valid pdata.
                value: unsafe { value_from_c(&d.value) }?,
            })
        })
        .collect()
}

/// A copy of `n` bytes at `data` (NULL or none: empty).
///
/// # Safety
/// `data` is NULL or readable for `n` bytes.
pub(crate) unsafe fn bytes_in(data: *const c_char, n: usize) -> Vec<u8> {
    if data.is_null() || n == 0 {
        return Vec::new();
    }
    // SAFETY: `n` readable bytes (caller guarantee).
    unsafe { std::slice::from_raw_parts(data.cast::<u8>(), n) }.to_vec()
}
