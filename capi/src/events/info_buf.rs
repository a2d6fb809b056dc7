//! [`InfoBuf`]: a `pmix_info_t` array handed to C handlers, kept and
//! refilled event after event, so that an event costs no heap allocation
//! when its infos are scalars, or data arrays no longer than the ones at
//! the same places before (issue 18: pooled info arrays; a CUSTOM-range
//! event carries its procs as a `pmix_data_array_t`).
//!
//! A data array's memory (the `pmix_data_array_t` and its element array)
//! stays with its slot when the array is cleared: its elements are
//! released and zeroed, and the next data array written at that slot that
//! fits goes there. Nothing written for an event survives into the next
//! one but zeroed memory.

use std::ptr;

use pmix_core::{Info, Value};

use crate::cdata::{array_destruct, value_destruct};
use crate::cmem;
use crate::convert::{darray_bytes, darray_items_to_c, info_to_c};
use crate::types::*;

/// Entries a fresh array holds at least (most events carry a few).
const MIN_CAPACITY: usize = 4;

/// The libc memory of a data array this buffer wrote into a slot.
#[derive(Clone, Copy)]
struct ArrayMem {
    /// The `pmix_data_array_t` the value points to.
    darray: *mut pmix_data_array_t,
    /// Its element array.
    array: *mut u8,
    /// The element array's size in bytes.
    bytes: usize,
    /// The slot's value holds it now (else it is kept, zeroed, for the
    /// next data array of its slot).
    in_use: bool,
}

impl ArrayMem {
    const NONE: ArrayMem = ArrayMem {
        darray: ptr::null_mut(),
        array: ptr::null_mut(),
        bytes: 0,
        in_use: false,
    };

    /// Frees what is kept (nothing in use).
    fn release(&mut self) {
        if !self.in_use && !self.darray.is_null() {
            // SAFETY: libc allocations of ours that nothing else points to
            // (kept, not in use); the elements were released and zeroed.
            unsafe {
                libc::free(self.array.cast());
                libc::free(self.darray.cast());
            }
        }
        *self = ArrayMem::NONE;
    }
}

/// A libc array of `cap` infos whose first `len` hold C copies of an
/// event's infos; the others are zeroed.
pub(super) struct InfoBuf {
    ptr: *mut pmix_info_t,
    cap: usize,
    len: usize,
    /// For each of the `cap` slots, the data array memory it holds or
    /// keeps.
    arrays: Vec<ArrayMem>,
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
            arrays: Vec::new(),
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
            self.arrays.resize(cap, ArrayMem::NONE);
        }
        for info in infos {
            // SAFETY: slot `len < cap` is zeroed, or holds no allocation
            // after a failed write (overwritten next).
            if unsafe { self.write(self.len, info) } {
                self.len += 1;
            }
        }
    }

    /// Writes `info` into slot `i`, into the data array memory the slot
    /// keeps when it fits; whether it converted.
    ///
    /// # Safety
    /// Slot `i < cap` is zeroed.
    unsafe fn write(&mut self, i: usize, info: &Info) -> bool {
        // SAFETY: `i < cap` (caller guarantee).
        let out = unsafe { self.ptr.add(i) };
        let kept = &mut self.arrays[i];
        let Value::DataArray(a) = &info.value else {
            // SAFETY: a zeroed slot (caller guarantee).
            return unsafe { info_to_c(info, out) }.is_ok();
        };
        let Ok(bytes) = darray_bytes(a) else {
            return false; // not convertible: left out
        };
        if kept.darray.is_null() || bytes > kept.bytes || bytes == 0 {
            // a new array (recorded, so that the next event may reuse it)
            kept.release();
            // SAFETY: a zeroed slot (caller guarantee).
            if unsafe { info_to_c(info, out) }.is_err() {
                return false;
            }
            // SAFETY: written as a data array: the value points to one.
            let d = unsafe { (*out).value.data.darray };
            if !d.is_null() && bytes > 0 {
                // SAFETY: the data array just written.
                let array = unsafe { (*d).array }.cast::<u8>();
                *kept = ArrayMem {
                    darray: d,
                    array,
                    bytes,
                    in_use: true,
                };
            }
            return true;
        }
        // SAFETY: the kept element array: `kept.bytes >= bytes` zeroed,
        // writable bytes (zeroed when it was cleared).
        if unsafe { darray_items_to_c(a, kept.array) }.is_err() {
            // SAFETY: the elements are zeroed or written: released and
            // zeroed again, the memory still kept.
            unsafe { array_destruct(a.elem_type().0, kept.array, a.len()) };
            return false;
        }
        // SAFETY: the slot and the kept data array are ours and writable.
        unsafe {
            *kept.darray = pmix_data_array_t {
                type_: a.elem_type().0,
                size: a.len(),
                array: kept.array.cast(),
            };
            let slot = &mut *out;
            cmem::load_key(&mut slot.key, info.key.as_str().as_bytes());
            slot.flags = info.flags.0;
            slot.value.type_ = PMIX_DATA_ARRAY;
            slot.value.data.darray = kept.darray;
        }
        kept.in_use = true;
        true
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

    /// Releases what the entries own and zeroes them; keeps the array and
    /// the memory of the data arrays written into it.
    pub(super) fn clear(&mut self) {
        for i in 0..self.cap.min(self.len + 1) {
            // SAFETY: slot `i < cap`: a written entry (i < len) or the slot
            // a failed write may have touched; both own libc memory or
            // nothing, and are zeroed for reuse.
            unsafe {
                let p = self.ptr.add(i);
                let v = ptr::addr_of_mut!((*p).value);
                if !self.keep_array(i, &*v) {
                    value_destruct(v);
                }
                ptr::write_bytes(p, 0, 1);
            }
        }
        self.len = 0;
    }

    /// When slot `i`'s value is still the data array this buffer wrote
    /// there, releases what its elements own, zeroes them and keeps the
    /// memory for the slot's next data array; whether it did.
    fn keep_array(&mut self, i: usize, v: &pmix_value_t) -> bool {
        let kept = &mut self.arrays[i];
        if !kept.in_use {
            return false;
        }
        kept.in_use = false;
        // SAFETY: the tag says which union member is valid.
        let same = v.type_ == PMIX_DATA_ARRAY
            && unsafe { v.data.darray } == kept.darray
            // SAFETY: our data array, still the value's.
            && unsafe { (*kept.darray).array }.cast::<u8>() == kept.array;
        if !same {
            // the handler replaced it: released as any value, not kept
            *kept = ArrayMem::NONE;
            return false;
        }
        // SAFETY: the data array this buffer wrote: `size` elements of
        // `type_` in the kept element array.
        unsafe {
            let d = &mut *kept.darray;
            array_destruct(d.type_, kept.array, d.size);
            // zeroed beyond what the elements took, should they have been
            // fewer than the memory holds
            ptr::write_bytes(kept.array, 0, kept.bytes);
            *d = pmix_data_array_t {
                type_: PMIX_UNDEF,
                size: 0,
                array: ptr::null_mut(),
            };
        }
        true
    }

    fn release_array(&mut self) {
        for a in &mut self.arrays {
            a.release();
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::infos_from_c;
    use pmix_core::{DataArray, DataType, Proc, Rank};

    fn procs(n: u32) -> Info {
        let p = (0..n).map(|r| Proc::new("job", Rank(r)).unwrap()).collect();
        Info::new(
            pmix_core::attrs::EVENT_CUSTOM_RANGE,
            DataArray::from_procs(p),
        )
        .unwrap()
    }

    fn strings(s: &[&str]) -> Info {
        let items = s.iter().map(|&s| Value::from(s)).collect();
        Info::new("test.s", DataArray::new(DataType::STRING, items).unwrap()).unwrap()
    }

    /// What the C array holds, read back.
    fn read(b: &InfoBuf) -> Vec<Info> {
        let (p, n) = b.as_c();
        // SAFETY: `n` infos this buffer wrote.
        unsafe { infos_from_c(p, n) }.unwrap()
    }

    /// The data array memory of slot `i`.
    fn memory(b: &InfoBuf, i: usize) -> (*mut pmix_data_array_t, *mut std::os::raw::c_void) {
        // SAFETY: slot `i` holds a data array this buffer wrote.
        unsafe {
            let d = (*b.ptr.add(i)).value.data.darray;
            (d, (*d).array)
        }
    }

    #[test]
    fn a_data_array_is_rewritten_into_the_memory_its_slot_kept() {
        let x = Info::new("test.x", 42u64).unwrap();
        let mut b = InfoBuf::new();
        b.fill(&[procs(3), x.clone()]);
        assert_eq!(read(&b), [procs(3), x.clone()]);
        let kept = memory(&b, 0);
        // fewer procs fit: same memory, nothing of the 3 left over
        b.fill(&[procs(1), x.clone()]);
        assert_eq!(read(&b), [procs(1), x.clone()]);
        assert_eq!(memory(&b, 0), kept);
        // a scalar there meanwhile: the memory waits for the next array
        b.fill(&[x.clone(), procs(2)]);
        assert_eq!(read(&b), [x.clone(), procs(2)]);
        b.fill(&[procs(2)]);
        assert_eq!(read(&b), [procs(2)]);
        assert_eq!(memory(&b, 0), kept);
        // more than fits: a new array, read back the same
        b.fill(&[procs(9)]);
        assert_eq!(read(&b), [procs(9)]);
        // elements that own memory are released between events
        b.fill(&[strings(&["a", "bb", "ccc"])]);
        let kept = memory(&b, 0);
        b.fill(&[strings(&["d"])]);
        assert_eq!(read(&b), [strings(&["d"])]);
        assert_eq!(memory(&b, 0), kept);
        b.fill(&[]);
        assert_eq!(b.as_c().1, 0);
    }

    #[test]
    fn a_cleared_slot_gives_nothing_of_the_last_event_away() {
        let mut b = InfoBuf::new();
        b.fill(&[procs(2)]);
        let (d, _) = memory(&b, 0);
        b.clear();
        // SAFETY: the kept data array, still allocated.
        let left = unsafe { *d };
        assert_eq!(
            (left.type_, left.size, left.array),
            (PMIX_UNDEF, 0, ptr::null_mut())
        );
        // SAFETY: slot 0 of the cleared array.
        assert_eq!(unsafe { (*b.ptr).value.type_ }, PMIX_UNDEF);
    }
}
