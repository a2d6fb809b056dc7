//! Probes of the machine's own limits, measured in the same run as the
//! rings so every ring figure can be quoted as a ratio: a cache line bounced
//! between two processes, and a shared futex word slept on and woken.
//!
//! A [`Probe`] is a small block of padded words placed in a segment region
//! of kind [`RegionKind::PROBE`]; both processes map the segment and reach
//! the same words. The benchmark harness in `benches` drives it.

use std::any::Any;
use std::fmt;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::error::RegionError;
use crate::layout::RegionKind;
use crate::segment::Segment;
use crate::sync::{AtomicU64, FutexWord};

/// One word on its own 128-byte line pair (the adjacent-line prefetcher on
/// x86-64 pulls lines in pairs; see crossbeam's `CachePadded`).
#[repr(C, align(128))]
#[derive(bytemuck::Zeroable)]
struct Line<T> {
    value: T,
}

/// The probe block as laid out in shared memory (all zero is valid).
#[repr(C)]
#[derive(bytemuck::Zeroable)]
struct ProbeBlock {
    line: Line<AtomicU64>,
    futex: Line<FutexWord>,
    go: Line<AtomicU64>,
    ready: Line<AtomicU64>,
}

impl RegionKind {
    /// A limits probe block (benchmarks only).
    pub const PROBE: RegionKind = RegionKind(0x100);
}

/// A handle on a probe block in a mapped segment.
pub struct Probe {
    block: NonNull<ProbeBlock>,
    _owner: Arc<dyn Any + Send + Sync>,
}

// SAFETY: the block holds only atomics (shared-memory safe by design); the
// pointer stays valid while `_owner` keeps the mapping alive.
unsafe impl Send for Probe {}
// SAFETY: as for `Send`: every access goes through atomics.
unsafe impl Sync for Probe {}

impl fmt::Debug for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Probe").field("block", &self.block).finish()
    }
}

/// Why a probe could not be reached.
#[derive(Debug)]
pub enum ProbeError {
    /// The segment has no probe region with that id.
    Region(RegionError),
    /// The region is smaller than [`Probe::SIZE`].
    TooSmall {
        /// Its length.
        len: usize,
    },
    /// The region is not 128-byte aligned.
    Misaligned,
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::Region(e) => write!(f, "probe region: {e}"),
            ProbeError::TooSmall { len } => {
                write!(f, "probe region of {len} bytes, {} needed", Probe::SIZE)
            }
            ProbeError::Misaligned => f.write_str("probe region not 128-byte aligned"),
        }
    }
}

impl std::error::Error for ProbeError {}

impl Probe {
    /// Bytes a probe region needs.
    pub const SIZE: usize = std::mem::size_of::<ProbeBlock>();

    /// The probe in `segment`'s region `(PROBE, id)`. A freshly created
    /// segment is zeroed, which is the probe's initial state.
    ///
    /// # Errors
    /// [`ProbeError`] when the region is missing, short or misaligned.
    pub fn in_segment(segment: &Segment, id: u32) -> Result<Probe, ProbeError> {
        let region = segment
            .region(RegionKind::PROBE, id)
            .map_err(ProbeError::Region)?;
        if region.len() < Self::SIZE {
            return Err(ProbeError::TooSmall { len: region.len() });
        }
        let ptr = region.ptr().cast::<ProbeBlock>();
        if ptr.as_ptr() as usize % std::mem::align_of::<ProbeBlock>() != 0 {
            return Err(ProbeError::Misaligned);
        }
        Ok(Probe {
            block: ptr,
            _owner: segment.owner(),
        })
    }

    fn block(&self) -> &ProbeBlock {
        // SAFETY: `block` points at SIZE bytes inside a live mapping (checked
        // in `in_segment`, kept alive by `_owner`), aligned for ProbeBlock;
        // every field is an atomic, for which any bit pattern another process
        // writes is a valid value, so a shared reference is sound.
        unsafe { self.block.as_ref() }
    }

    /// The ping-pong cache line.
    pub fn line(&self) -> &AtomicU64 {
        &self.block().line.value
    }

    /// The futex ping-pong word.
    pub fn futex(&self) -> &FutexWord {
        &self.block().futex.value
    }

    /// A start barrier word.
    pub fn go(&self) -> &AtomicU64 {
        &self.block().go.value
    }

    /// A readiness counter.
    pub fn ready(&self) -> &AtomicU64 {
        &self.block().ready.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::SegmentLayout;
    use crate::sync::Ordering;

    #[test]
    fn probe_words_are_shared_through_the_segment() {
        let seg = Segment::create(&SegmentLayout::new().region(RegionKind::PROBE, 0, Probe::SIZE))
            .unwrap();
        let a = Probe::in_segment(&seg, 0).unwrap();
        let b = Probe::in_segment(&seg, 0).unwrap();
        // ORDERING: Relaxed — single thread, the test only checks addresses.
        a.line().store(7, Ordering::Relaxed);
        assert_eq!(b.line().load(Ordering::Relaxed), 7);
        assert_eq!(Probe::SIZE, 512);
        assert!(Probe::in_segment(&seg, 1).is_err());
    }
}
