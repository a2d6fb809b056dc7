//! [`Memory`], the one storage type of every region: the bytes of a segment
//! region (or of a heap allocation), or — under `cfg(loom)` — the loom
//! objects that stand for them; and [`Part`], a typed run of values at a
//! fixed place in it, which is how every structure reaches its header and
//! cells in both builds.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
#[cfg(not(loom))]
use std::{mem, ptr::NonNull};

/// What keeps the memory behind a handle alive: the owner of the mapping (a
/// segment, or the heap memory of `new_heap`). Handles hold one and drop it
/// last.
pub type KeepAlive = Arc<dyn Any + Send + Sync>;

/// Which region of which file a [`Memory`] is: `(st_dev, st_ino, offset)`
/// of a segment region, the same for every mapping of it in this process.
pub(crate) type RegionId = (u64, u64, usize);

/// The identity of heap memory at `addr`: no file has the device and
/// inode `u64::MAX`, and the address is unique while the memory lives
/// (every handle, and so every claim keyed by it, keeps it alive).
pub(super) fn heap_identity(addr: usize) -> RegionId {
    (u64::MAX, u64::MAX, addr)
}

/// A type that may live in a region.
///
/// # Safety
///
/// Outside loom the implementer is `repr(C)` (or `repr(transparent)`) and
/// made only of [`sync`](crate::sync) atomics, `UnsafeCell` bytes that its
/// structure reaches only under its protocol, and padding that is never
/// read; so every bit pattern another process may write is a valid value,
/// zero bytes (a fresh segment) included, and `&T` may be shared between
/// threads and processes. Under `cfg(loom)` the type is not laid out in
/// bytes: `zeroed` builds what a zeroed region holds.
pub unsafe trait Plain: 'static {
    /// The value a zeroed region holds (loom only).
    #[cfg(loom)]
    fn zeroed() -> Self;
}

/// The memory of one region (see the module docs). Cloning shares it.
#[derive(Clone)]
pub struct Memory {
    #[cfg(not(loom))]
    base: NonNull<u8>,
    /// Bytes (under loom: the size the region would have).
    len: usize,
    #[cfg(not(loom))]
    keep: Option<KeepAlive>,
    identity: Option<RegionId>,
    /// The wake group of the segment the region is in (none on the heap).
    wake_group: Option<crate::wake_group::WakeGroup>,
    /// One loom object per part, in part order.
    #[cfg(loom)]
    parts: Vec<Arc<dyn Any + Send + Sync>>,
}

// SAFETY: outside loom `base` points into memory kept alive by `keep` (or by
// the caller of `from_raw`, per its contract), reached only through `Part`s
// of `Plain` types; under loom the parts are loom objects, used from the
// model's threads only under the structures' protocols.
unsafe impl Send for Memory {}
// SAFETY: as for `Send`: `&Memory` only hands out `Part`s.
unsafe impl Sync for Memory {}

impl fmt::Debug for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Memory");
        #[cfg(not(loom))]
        d.field("base", &self.base);
        d.field("len", &self.len)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl Memory {
    /// `len` bytes at `base`, kept alive by `owner` if given.
    ///
    /// # Safety
    ///
    /// `base..base + len` must be valid for reads and writes for as long as
    /// any handle built on this memory lives (for as long as `owner` lives,
    /// if given). Other processes may write the bytes at any time: every
    /// structure reads them through atomics and validates what it reads.
    #[cfg(not(loom))]
    pub unsafe fn from_raw(base: NonNull<u8>, len: usize, owner: Option<KeepAlive>) -> Memory {
        Memory {
            base,
            len,
            keep: owner,
            identity: None,
            wake_group: None,
        }
    }

    /// `len` bytes standing for a region, made of the loom objects
    /// `parts` (one per part, in part order).
    #[cfg(loom)]
    pub(super) fn loom(len: usize, parts: Vec<Arc<dyn Any + Send + Sync>>) -> Memory {
        let first = parts
            .first()
            .map_or(0, |p| Arc::as_ptr(p).cast::<()>() as usize);
        Memory {
            len,
            identity: Some(heap_identity(first)),
            wake_group: None,
            parts,
        }
    }

    /// Names the region this memory is (see [`RegionId`]).
    #[cfg(not(loom))]
    pub(crate) fn with_identity(mut self, id: RegionId) -> Memory {
        self.identity = Some(id);
        self
    }

    /// Names the wake group of the segment this memory is in.
    #[cfg(not(loom))]
    pub(crate) fn with_wake_group(mut self, group: crate::wake_group::WakeGroup) -> Memory {
        self.wake_group = Some(group);
        self
    }

    /// The wake group of the segment this memory is in, if any.
    pub(crate) fn wake_group(&self) -> Option<&crate::wake_group::WakeGroup> {
        self.wake_group.as_ref()
    }

    /// Which region of which file this is, for a segment region.
    pub(crate) fn identity(&self) -> Option<RegionId> {
        self.identity
    }

    /// The first byte.
    #[cfg(not(loom))]
    pub fn base(&self) -> NonNull<u8> {
        self.base
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the memory is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of the first byte (0 under loom: loom objects have no
    /// place in a region, so every alignment check passes).
    pub(crate) fn addr(&self) -> usize {
        #[cfg(not(loom))]
        {
            self.base.as_ptr() as usize
        }
        #[cfg(loom)]
        {
            0
        }
    }

    /// Part `index` of the region: `count` values of `T` from byte
    /// `offset`.
    ///
    /// # Panics
    ///
    /// If the part does not lie inside the memory, is misaligned, or (loom)
    /// was built with another type or count: the callers compute parts from
    /// a geometry already checked against the length, so this is a bug of
    /// this crate, never the doing of another process.
    pub(crate) fn part<T: Plain>(&self, index: usize, offset: usize, count: usize) -> Part<T> {
        #[cfg(not(loom))]
        {
            let _ = index;
            let end = count
                .checked_mul(mem::size_of::<T>())
                .and_then(|bytes| bytes.checked_add(offset));
            assert!(
                end.is_some_and(|end| end <= self.len),
                "part outside the region"
            );
            let ptr = self.base.as_ptr().wrapping_add(offset);
            assert!(
                ptr as usize % mem::align_of::<T>() == 0,
                "misaligned region part"
            );
            Part {
                // SAFETY: `offset <= len` (checked above), so `ptr` is inside
                // (or one past) the region: not null.
                ptr: unsafe { NonNull::new_unchecked(ptr.cast::<T>()) },
                len: count,
                _keep: self.keep.clone(),
            }
        }
        #[cfg(loom)]
        {
            let _ = offset;
            let items = self.parts[index]
                .clone()
                .downcast::<LoomPart<T>>()
                .unwrap_or_else(|_| panic!("region part {index} has another type"));
            assert_eq!(
                items.0.len(),
                count,
                "region part {index} has another count"
            );
            Part { items }
        }
    }

    /// The header: part 0, one value at offset 0.
    pub(crate) fn header<H: Plain>(&self) -> Part<H> {
        self.part(0, 0, 1)
    }
}

/// The values of one part under loom.
#[cfg(loom)]
pub(crate) struct LoomPart<T>(Box<[T]>);

// SAFETY: loom objects used by the model's threads under the structures'
// protocols (the cells they contain are loom's access-tracked ones).
#[cfg(loom)]
unsafe impl<T> Send for LoomPart<T> {}
// SAFETY: as for `Send`.
#[cfg(loom)]
unsafe impl<T> Sync for LoomPart<T> {}

/// `count` zeroed values of `T`, as one loom part.
#[cfg(loom)]
pub(crate) fn loom_part<T: Plain>(count: usize) -> Arc<dyn Any + Send + Sync> {
    loom_part_with(count, |_| T::zeroed())
}

/// `count` values made by `make`, as one loom part.
#[cfg(loom)]
pub(crate) fn loom_part_with<T: Plain>(
    count: usize,
    make: impl FnMut(usize) -> T,
) -> Arc<dyn Any + Send + Sync> {
    Arc::new(LoomPart((0..count).map(make).collect::<Box<[T]>>()))
}

/// A run of values of one [`Plain`] type inside a region, valid for as long
/// as the part lives (it holds the memory's keep-alive).
pub(crate) struct Part<T> {
    #[cfg(not(loom))]
    ptr: NonNull<T>,
    #[cfg(not(loom))]
    len: usize,
    #[cfg(not(loom))]
    _keep: Option<KeepAlive>,
    #[cfg(loom)]
    items: Arc<LoomPart<T>>,
}

// SAFETY: `T: Plain` may be shared between threads (and processes) under its
// structure's protocol; the memory lives as long as the part.
unsafe impl<T: Plain> Send for Part<T> {}
// SAFETY: as for `Send`: `&Part` only hands out `&T`.
unsafe impl<T: Plain> Sync for Part<T> {}

impl<T: Plain> Part<T> {
    /// Number of values.
    pub(crate) fn len(&self) -> usize {
        #[cfg(not(loom))]
        {
            self.len
        }
        #[cfg(loom)]
        {
            self.items.0.len()
        }
    }

    /// Value `i`, or `None` past the end.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        #[cfg(not(loom))]
        {
            // SAFETY: `i < len`, so the value lies inside the region (checked
            // in `Memory::part`), aligned; `T: Plain` is valid for any bits
            // and shareable; the keep-alive (or `from_raw`'s contract) keeps
            // the memory mapped while `self` lives.
            (i < self.len).then(|| unsafe { &*self.ptr.as_ptr().add(i) })
        }
        #[cfg(loom)]
        {
            self.items.0.get(i)
        }
    }

    /// Value `i`, without a bounds check (hot paths whose index is
    /// already bounded, e.g. masked by a power-of-two length).
    ///
    /// # Safety
    ///
    /// `i < self.len()`.
    #[inline]
    pub(crate) unsafe fn get_unchecked(&self, i: usize) -> &T {
        debug_assert!(i < self.len());
        #[cfg(not(loom))]
        {
            // SAFETY: as in `get`, with `i < len` by the contract.
            unsafe { &*self.ptr.as_ptr().add(i) }
        }
        #[cfg(loom)]
        {
            // SAFETY: `i < len` by the contract.
            unsafe { self.items.0.get_unchecked(i) }
        }
    }

    /// Every value, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The first value's address (for byte-level access under a
    /// structure's protocol).
    #[cfg(not(loom))]
    pub(crate) fn as_ptr(&self) -> NonNull<T> {
        self.ptr
    }
}

impl<T: Plain> std::ops::Index<usize> for Part<T> {
    type Output = T;

    /// Value `i`.
    ///
    /// # Panics
    ///
    /// If `i` is out of range (callers index with validated geometry).
    #[inline]
    fn index(&self, i: usize) -> &T {
        match self.get(i) {
            Some(v) => v,
            None => panic!("region part index {i} out of range"),
        }
    }
}
