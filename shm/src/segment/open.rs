//! [`Segment::open`]: maps a segment another process created and checks
//! everything itself — file size, seals, header, directory — keeping its own
//! copy of the directory.

use std::fs::File;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::ptr::NonNull;
use std::sync::Arc;

use super::error::SegmentOpenError;
use super::header::{self, SegmentHeader};
use super::layout::RegionInfo;
use super::{Mapping, Segment};
use crate::layout::{
    RegionKind, LAYOUT_VERSION, MAX_REGIONS, REGION_ALIGN, REGION_ENTRY_SIZE, SEGMENT_HEADER_SIZE,
    SEGMENT_MAGIC, SEGMENT_READY,
};
use crate::sync::{AtomicBool, Ordering};

/// What the header says about the directory, once checked.
struct Checked {
    /// Size of the segment (≤ the file's size).
    total: usize,
    /// Bytes before the first region.
    header_size: usize,
    /// Directory entries.
    dir_len: usize,
}

/// `BadDirectory` for the header itself.
fn bad_header(reason: &'static str) -> SegmentOpenError {
    SegmentOpenError::BadDirectory {
        index: usize::MAX,
        reason,
    }
}

/// Checks the header of a mapping of `size` bytes: magic, layout version,
/// `ready` (loaded first, `Acquire`), the total size against the file, and
/// the directory's bounds.
fn validate_header(hdr: &SegmentHeader, size: u64) -> Result<Checked, SegmentOpenError> {
    // ORDERING: Acquire — pairs with the Release store in `publish`.
    let ready = hdr.ready.load(Ordering::Acquire);
    // ORDERING (header loads): Relaxed — after the Acquire above.
    let magic = hdr.magic.load(Ordering::Relaxed);
    if magic != SEGMENT_MAGIC {
        return Err(SegmentOpenError::BadMagic { found: magic });
    }
    let version = hdr.layout_version.load(Ordering::Relaxed);
    if version != LAYOUT_VERSION {
        return Err(SegmentOpenError::VersionMismatch {
            found: version,
            expected: LAYOUT_VERSION,
        });
    }
    if ready != SEGMENT_READY {
        return Err(SegmentOpenError::NotReady);
    }
    let total = hdr.total_size.load(Ordering::Relaxed);
    if total > size {
        return Err(SegmentOpenError::TooSmall {
            len: size,
            needed: total,
        });
    }
    let total = total as usize; // <= size, which fits usize
    let header_size = hdr.header_size.load(Ordering::Relaxed) as usize;
    let dir_len = hdr.dir_len.load(Ordering::Relaxed) as usize;
    if dir_len > MAX_REGIONS {
        return Err(bad_header("more than MAX_REGIONS entries"));
    }
    let dir_end = SEGMENT_HEADER_SIZE + dir_len * REGION_ENTRY_SIZE;
    if header_size < dir_end || header_size > total || header_size % REGION_ALIGN != 0 {
        return Err(bad_header("header size out of bounds"));
    }
    Ok(Checked {
        total,
        header_size,
        dir_len,
    })
}

/// Copies and checks the directory: every entry non-empty, aligned, inside
/// `[header_size, total)`; no two overlapping, no duplicate `(kind, id)`.
///
/// # Safety
///
/// `base` starts a live mapping holding the `c.dir_len` entries after the
/// header (`c` came from [`validate_header`] on it).
unsafe fn read_directory(
    base: NonNull<u8>,
    c: &Checked,
) -> Result<Vec<RegionInfo>, SegmentOpenError> {
    let mut regions = Vec::with_capacity(c.dir_len);
    for i in 0..c.dir_len {
        let bad = |reason| SegmentOpenError::BadDirectory { index: i, reason };
        // SAFETY: the entry lies below `dir_end <= header_size <= total
        // <= size` (contract); any bytes are valid atomics.
        let e = unsafe { header::entry(base, i) };
        let kind = RegionKind(e.kind.load(Ordering::Relaxed));
        let id = e.id.load(Ordering::Relaxed);
        let offset = e.offset.load(Ordering::Relaxed);
        let len = e.len.load(Ordering::Relaxed);
        if len == 0 {
            return Err(bad("empty region"));
        }
        if offset % REGION_ALIGN as u64 != 0 {
            return Err(bad("misaligned offset"));
        }
        match offset.checked_add(len) {
            Some(end) if offset >= c.header_size as u64 && end <= c.total as u64 => {}
            _ => return Err(bad("region outside the segment")),
        }
        regions.push(RegionInfo {
            kind,
            id,
            offset: offset as usize,
            len: len as usize,
        });
    }
    check_disjoint(&regions)?;
    Ok(regions)
}

/// No two regions overlap; no two share a `(kind, id)`.
fn check_disjoint(regions: &[RegionInfo]) -> Result<(), SegmentOpenError> {
    let mut spans: Vec<(usize, usize, usize)> = regions
        .iter()
        .enumerate()
        .map(|(i, r)| (r.offset, r.offset + r.len, i))
        .collect();
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        return Err(SegmentOpenError::BadDirectory {
            index: w[1].2,
            reason: "regions overlap",
        });
    }
    let mut keys: Vec<(u32, u32, usize)> = regions
        .iter()
        .enumerate()
        .map(|(i, r)| (r.kind.0, r.id, i))
        .collect();
    keys.sort_unstable();
    if let Some(w) = keys
        .windows(2)
        .find(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
    {
        return Err(SegmentOpenError::BadDirectory {
            index: w[1].2,
            reason: "duplicate region kind and id",
        });
    }
    Ok(())
}

impl Segment {
    /// Maps a segment received as `fd` and validates it without trusting
    /// it: the real file size (`fstat`) covers the header and the size the
    /// header claims, the file is sealed against shrinking, magic and
    /// layout version match, `ready` is set, and every directory entry is
    /// aligned, non-empty, inside the segment, unique and non-overlapping.
    ///
    /// # Errors
    /// [`SegmentOpenError`] naming the first failed check; never undefined
    /// behaviour whatever the file holds.
    pub fn open(fd: OwnedFd) -> Result<Segment, SegmentOpenError> {
        let file = File::from(fd);
        let meta = file.metadata().map_err(|source| SegmentOpenError::Io {
            call: "fstat",
            source,
        })?;
        let size = meta.len();
        if size < SEGMENT_HEADER_SIZE as u64 {
            return Err(SegmentOpenError::TooSmall {
                len: size,
                needed: SEGMENT_HEADER_SIZE as u64,
            });
        }
        // SAFETY: a plain fcntl query on a descriptor we own.
        let seals = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GET_SEALS) };
        if seals < 0 || seals & libc::F_SEAL_SHRINK == 0 {
            return Err(SegmentOpenError::NotSealed {
                seals: seals.max(0),
            });
        }
        let map_len =
            usize::try_from(size).map_err(|_| bad_header("file larger than the address space"))?;
        // SAFETY: the file is sealed against shrinking, so the mapping of
        // its current size can never fault; its contents are untrusted and
        // only read through atomics (and the structures' own validation).
        let mut map = unsafe { memmap2::MmapOptions::new().len(map_len).map_mut(&file) }.map_err(
            |source| SegmentOpenError::Io {
                call: "mmap",
                source,
            },
        )?;
        let base = NonNull::new(map.as_mut_ptr()).ok_or(SegmentOpenError::Io {
            call: "mmap",
            source: std::io::Error::from_raw_os_error(libc::EFAULT),
        })?;
        // SAFETY: page-aligned mapping of at least SEGMENT_HEADER_SIZE bytes,
        // alive until `map` drops (after the last use of `hdr`).
        let hdr = unsafe { header::header(base) };
        let checked = validate_header(hdr, size)?;
        // SAFETY: `checked` came from `validate_header` on this mapping.
        let regions = unsafe { read_directory(base, &checked) }?;
        Ok(Segment {
            // ORDERING: Relaxed — after the Acquire of `ready`.
            creator_pid: hdr.creator_pid.load(Ordering::Relaxed),
            capabilities: hdr.capabilities.load(Ordering::Relaxed),
            map: Arc::new(Mapping {
                _map: map,
                file,
                file_id: (meta.dev(), meta.ino()),
            }),
            base,
            len: checked.total,
            regions,
            initialised: None,
            published: AtomicBool::new(true),
        })
    }
}
