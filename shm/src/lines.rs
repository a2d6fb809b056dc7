//! A region of padded lines with no protocol of their own: each
//! [`LINE_SIZE`]-byte line holds one [`AtomicU64`] and one [`FutexWord`],
//! zero once the region is initialised. Two processes mapping the segment
//! reach the same words, which is what the benchmarks need to measure the
//! machine's own limits next to the rings (a cache line bounced between
//! two processes, a shared futex slept on and woken; `benches/src/probe.rs`)
//! without any `unsafe` of their own.
//!
//! # Examples
//! ```
//! use pmix_shm::layout::RegionKind;
//! use pmix_shm::lines::{Lines, LinesParams};
//! use pmix_shm::segment::{Segment, SegmentLayout};
//! use pmix_shm::sync::Ordering;
//!
//! let p = LinesParams { lines: 2 };
//! let kind = RegionKind(0x100);
//! let seg = Segment::create(&SegmentLayout::new().region_for::<Lines>(kind, 0, &p)).unwrap();
//! let mine: Lines = seg.init(kind, 0, &p).unwrap();
//! seg.publish();
//! let other = Segment::open(seg.fd().try_clone_to_owned().unwrap()).unwrap();
//! let theirs: Lines = other.attach(kind, 0).unwrap();
//! mine.line(1).unwrap().word().store(7, Ordering::Relaxed);
//! assert_eq!(theirs.line(1).unwrap().word().load(Ordering::Relaxed), 7);
//! assert!(theirs.line(2).is_none());
//! ```

use std::fmt;
use std::sync::Arc;

use crate::error::{InitError, OpenError};
use crate::layout::HOT_LINE;
use crate::region::header::impl_header;
use crate::region::{self, Attach, Memory, Part, Plain, Region};
use crate::sync::{AtomicU32, AtomicU64, FutexWord, Ordering};

/// `"PMIXLINE"` as a little-endian `u64`: the first word of a lines region.
pub const LINES_MAGIC: u64 = u64::from_le_bytes(*b"PMIXLINE");
/// The layout version of a lines region.
pub const LINES_LAYOUT_VERSION: u32 = 1;
/// Bytes of the header (one line).
pub const LINES_HEADER_SIZE: usize = HOT_LINE;
/// Bytes of one line: two cache lines, so no two lines false-share.
pub const LINE_SIZE: usize = HOT_LINE;
/// Most lines a region may have.
pub const MAX_LINES: u32 = 1 << 16;

/// The header at offset 0.
#[repr(C, align(128))]
pub struct LinesHeader {
    magic: AtomicU64,
    version: AtomicU32,
    /// Number of lines.
    count: AtomicU32,
    _reserved: [u64; 14],
}

/// One line: a word to bounce and a futex word to sleep on.
#[repr(C, align(128))]
pub struct Line {
    word: AtomicU64,
    futex: FutexWord,
    _reserved: [u32; 29],
}

#[cfg(not(loom))]
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<LinesHeader>() == LINES_HEADER_SIZE);
    assert!(offset_of!(LinesHeader, magic) == 0);
    assert!(offset_of!(LinesHeader, version) == 8);
    assert!(offset_of!(LinesHeader, count) == 12);
    assert!(size_of::<Line>() == LINE_SIZE);
    assert!(offset_of!(Line, word) == 0);
    assert!(offset_of!(Line, futex) == 8);
};

// SAFETY: `repr(C)`, atomics and never-read padding; zero is a valid value.
unsafe impl Plain for LinesHeader {
    #[cfg(loom)]
    fn zeroed() -> Self {
        LinesHeader {
            magic: AtomicU64::new(0),
            version: AtomicU32::new(0),
            count: AtomicU32::new(0),
            _reserved: [0; 14],
        }
    }
}

// SAFETY: `repr(C)`, atomics (the futex word is `repr(transparent)`) and
// never-read padding; zero is a valid value.
unsafe impl Plain for Line {
    #[cfg(loom)]
    fn zeroed() -> Self {
        Line {
            word: AtomicU64::new(0),
            futex: FutexWord::new(0),
            _reserved: [0; 29],
        }
    }
}

impl_header!(LinesHeader, magic: AtomicU64, version);

impl Line {
    /// The word to bounce between processes.
    pub fn word(&self) -> &AtomicU64 {
        &self.word
    }

    /// The shared futex word.
    pub fn futex(&self) -> &FutexWord {
        &self.futex
    }
}

impl fmt::Debug for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // ORDERING: Relaxed — a diagnostic snapshot.
        f.debug_struct("Line")
            .field("word", &self.word.load(Ordering::Relaxed))
            .field("futex", &self.futex.load(Ordering::Relaxed))
            .finish()
    }
}

/// How many lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinesParams {
    /// Lines, `0..=MAX_LINES`.
    pub lines: u32,
}

/// A handle on a lines region; cloning shares it, and it keeps the memory
/// alive.
#[derive(Clone)]
pub struct Lines {
    lines: Arc<Part<Line>>,
}

impl fmt::Debug for Lines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lines")
            .field("lines", &self.lines.len())
            .finish()
    }
}

impl Lines {
    /// Line `i`, or `None` past the end.
    pub fn line(&self, i: u32) -> Option<&Line> {
        self.lines.get(i as usize)
    }

    /// Number of lines.
    pub fn len(&self) -> u32 {
        self.lines.len() as u32
    }

    /// Whether there are no lines.
    pub fn is_empty(&self) -> bool {
        self.lines.len() == 0
    }

    /// Lines in memory owned by their handles.
    ///
    /// # Panics
    ///
    /// Panics if `params.lines` is above [`MAX_LINES`].
    pub fn new_heap(params: &LinesParams) -> Lines {
        region::new_heap::<Lines>(params).expect("too many lines")
    }
}

/// The lines (part 1).
fn lines(mem: &Memory, geom: &LinesParams) -> Part<Line> {
    mem.part(1, LINES_HEADER_SIZE, geom.lines as usize)
}

impl Region for Lines {
    const NAME: &'static str = "lines";
    const MAGIC: u64 = LINES_MAGIC;
    const VERSION: u32 = LINES_LAYOUT_VERSION;
    const ALIGN: usize = HOT_LINE;
    const HEADER_SIZE: usize = LINES_HEADER_SIZE;
    type Params = LinesParams;
    type Geometry = LinesParams;
    type Header = LinesHeader;

    fn geometry(params: &LinesParams) -> Result<LinesParams, InitError> {
        if params.lines <= MAX_LINES {
            Ok(*params)
        } else {
            Err(InitError::InvalidParams {
                reason: "more than 65536 lines",
            })
        }
    }

    /// `128 + 128 · lines`.
    fn size(geom: &LinesParams) -> usize {
        LINES_HEADER_SIZE + geom.lines as usize * LINE_SIZE
    }

    fn write_image(mem: &Memory, geom: &LinesParams) {
        let part = mem.header::<LinesHeader>();
        // ORDERING: Relaxed (every store) — published by the Release store
        // of the magic in `region::init_in`.
        part[0].count.store(geom.lines, Ordering::Relaxed);
        for line in lines(mem, geom).iter() {
            line.word.store(0, Ordering::Relaxed);
            line.futex.store(0, Ordering::Relaxed);
        }
    }

    fn read_geometry(h: &LinesHeader) -> Result<LinesParams, OpenError> {
        // ORDERING: Relaxed — after the Acquire of the magic.
        let lines = h.count.load(Ordering::Relaxed);
        if lines > MAX_LINES {
            return Err(OpenError::BadGeometry {
                reason: "more than 65536 lines",
            });
        }
        Ok(LinesParams { lines })
    }

    #[cfg(loom)]
    fn loom_parts(geom: &LinesParams) -> Vec<Arc<dyn std::any::Any + Send + Sync>> {
        vec![
            region::loom_part::<LinesHeader>(1),
            region::loom_part::<Line>(geom.lines as usize),
        ]
    }
}

impl Attach for Lines {
    type Region = Lines;

    fn from_memory(mem: Memory, geom: LinesParams) -> Result<Lines, OpenError> {
        Ok(Lines {
            lines: Arc::new(lines(&mem, &geom)),
        })
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn lines_are_zero_and_separate() {
        let l = Lines::new_heap(&LinesParams { lines: 3 });
        assert_eq!(l.len(), 3);
        l.line(0).unwrap().word().store(5, Ordering::Relaxed);
        assert_eq!(l.line(1).unwrap().word().load(Ordering::Relaxed), 0);
        assert_eq!(l.line(2).unwrap().futex().load(Ordering::Relaxed), 0);
        let (a, b) = (l.line(0).unwrap(), l.line(1).unwrap());
        let gap = (b as *const Line as usize) - (a as *const Line as usize);
        assert_eq!(gap, LINE_SIZE);
        assert!(l.line(3).is_none());
        assert_eq!(Lines::memory_size(&LinesParams { lines: 4 }), 128 * 5);
    }
}
