//! [`InfoBuf`]: a `pmix_info_t` array handed to C handlers, kept and
//! refilled event after event, so that an event whose infos are scalars
//! costs no heap allocation (issue 18: pooled info arrays).

use std::ptr;

use pmix_core::Info;

use crate::cdata::value_destruct;
use crate::cmem;
use crate::convert::info_to_c;
use crate::types::*;

/// Entries a fresh array holds at least (most events carry a few).
const MIN_CAPACITY: usize = 4;

/// A libc array of `cap` infos whose first `len` hold C copies of an
/// event's infos; the others are zeroed.
pub(super) struct InfoBuf {
    ptr: *mut pmix_info_t,
    cap: usize,
    len: usize,
}

// SAFETY: the array is owned by this value alone (libc memory, usable from
// any thread); the handler that reads it is done with it before the value
// moves on (see `handler::event_done`).
unsafe impl Send for InfoBuf {}

impl InfoBuf {
    /// No array.
    pub(super) const fn new() -> Self {
        Self {
            ptr: ptr::null_mut(),
            cap: 0,
            len: 0,
        }
    }

    /// Holds C copies of `infos` (an entry that does not convert is left
    /// out, as `infos_out_lossy` does), reusing the array when it is big
    /// enough.
    pub(super) fn fill(&mut self, infos: &[Info]) {
        self.fill_reserving(infos, 0);
    }

    /// As [`fill`](Self::fill), with room for `extra` entries more
    /// ([`push_pointer`](Self::push_pointer)).
    pub(super) fn fill_reserving(&mut self, infos: &[Info], extra: usize) {
        self.clear();
        let need = infos.len() + extra;
        if need == 0 {
            return;
        }
        if self.cap < need {
            let cap = need.max(MIN_CAPACITY);
            let Ok(p) = cmem::calloc_array::<pmix_info_t>(cap) else {
                return;
            };
            self.release_array();
            (self.ptr, self.cap) = (p, cap);
        }
        for info in infos {
            // SAFETY: slot `len < cap` is zeroed, or holds no allocation
            // after a failed write (overwritten next).
            if unsafe { info_to_c(info, self.ptr.add(self.len)) }.is_ok() {
                self.len += 1;
            }
        }
    }

    /// Appends an entry `key` of type `PMIX_POINTER` holding `p`, in room
    /// [`fill_reserving`](Self::fill_reserving) kept (else nothing).
    pub(super) fn push_pointer(&mut self, key: &str, p: *mut std::os::raw::c_void) {
        if self.len >= self.cap {
            return;
        }
        // SAFETY: slot `len < cap` is zeroed (cleared or fresh).
        let slot = unsafe { &mut *self.ptr.add(self.len) };
        cmem::load_key(&mut slot.key, key.as_bytes());
        slot.value.type_ = PMIX_POINTER;
        slot.value.data.ptr = p;
        self.len += 1;
    }

    /// The array (NULL when it holds nothing) and its count.
    pub(super) fn as_c(&self) -> (*mut pmix_info_t, usize) {
        if self.len == 0 {
            (ptr::null_mut(), 0)
        } else {
            (self.ptr, self.len)
        }
    }

    /// Releases what the entries own and zeroes them; keeps the array.
    pub(super) fn clear(&mut self) {
        for i in 0..self.cap.min(self.len + 1) {
            // SAFETY: slot `i < cap`: a written entry (i < len) or the slot
            // a failed write may have touched; both own libc memory or
            // nothing, and are zeroed for reuse.
            unsafe {
                let p = self.ptr.add(i);
                value_destruct(ptr::addr_of_mut!((*p).value));
                ptr::write_bytes(p, 0, 1);
            }
        }
        self.len = 0;
    }

    fn release_array(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: a libc allocation of ours whose entries were cleared.
            unsafe { libc::free(self.ptr.cast()) };
        }
        (self.ptr, self.cap) = (ptr::null_mut(), 0);
    }
}

impl Drop for InfoBuf {
    fn drop(&mut self) {
        self.clear();
        self.release_array();
    }
}
