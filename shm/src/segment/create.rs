//! [`Segment::create`]: a sealed memfd, mapped, with header and directory
//! written and `ready` still 0.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use super::error::SegmentCreateError;
use super::header;
use super::layout::{RegionInfo, SegmentLayout};
use super::{Mapping, Segment};
use crate::layout::{round_up, LAYOUT_VERSION, REGION_ALIGN, SEGMENT_HEADER_SIZE, SEGMENT_MAGIC};
use crate::sync::{AtomicBool, Ordering};

/// The error of the system call that just failed.
fn io_err(call: &'static str) -> SegmentCreateError {
    SegmentCreateError::Io {
        call,
        source: std::io::Error::last_os_error(),
    }
}

/// `memfd_create("pmix-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING)`, mode 0600,
/// `total` bytes, sealed against shrinking and growing, then sealed.
fn sealed_memfd(total: usize) -> Result<File, SegmentCreateError> {
    // SAFETY: a valid NUL-terminated name and flags; returns a new fd or -1.
    let fd = unsafe {
        libc::memfd_create(
            c"pmix-shm".as_ptr(),
            libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
        )
    };
    if fd < 0 {
        return Err(io_err("memfd_create"));
    }
    // SAFETY: `fd` is a fresh descriptor nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: plain syscalls on an fd we own.
    if unsafe { libc::fchmod(fd.as_raw_fd(), 0o600) } != 0 {
        return Err(io_err("fchmod"));
    }
    // SAFETY: as above; `total` fits off_t (checked by `SegmentLayout::place`).
    if unsafe { libc::ftruncate(fd.as_raw_fd(), total as libc::off_t) } != 0 {
        return Err(io_err("ftruncate"));
    }
    // SAFETY: as above.
    let r = unsafe {
        libc::fcntl(
            fd.as_raw_fd(),
            libc::F_ADD_SEALS,
            libc::F_SEAL_SHRINK | libc::F_SEAL_GROW,
        )
    };
    if r != 0 {
        return Err(io_err("fcntl"));
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, libc::F_SEAL_SEAL) } != 0 {
        return Err(io_err("fcntl"));
    }
    Ok(File::from(fd))
}

/// Writes the header (all but `ready`) and the directory into the fresh
/// mapping at `base`.
///
/// # Safety
///
/// `base` is the page-aligned start of a live mapping laid out as
/// `regions` says (header and directory before the first region).
unsafe fn write_header(
    base: NonNull<u8>,
    total: usize,
    caps: u64,
    pid: u32,
    regions: &[RegionInfo],
) {
    // SAFETY: by the contract the mapping holds the header.
    let hdr = unsafe { header::header(base) };
    let header_size = regions.first().map_or(
        round_up(SEGMENT_HEADER_SIZE, REGION_ALIGN).unwrap_or(SEGMENT_HEADER_SIZE),
        |r| r.offset,
    );
    // ORDERING (all stores below): Relaxed — published by the Release
    // store of `ready` in `publish`.
    hdr.magic.store(SEGMENT_MAGIC, Ordering::Relaxed);
    hdr.layout_version.store(LAYOUT_VERSION, Ordering::Relaxed);
    hdr.header_size.store(header_size as u32, Ordering::Relaxed);
    hdr.total_size.store(total as u64, Ordering::Relaxed);
    hdr.capabilities.store(caps, Ordering::Relaxed);
    hdr.creator_pid.store(pid, Ordering::Relaxed);
    hdr.dir_len.store(regions.len() as u32, Ordering::Relaxed);
    hdr.ready.store(0, Ordering::Relaxed);
    for (i, r) in regions.iter().enumerate() {
        // SAFETY: by the contract entry `i` lies before the first region.
        let e = unsafe { header::entry(base, i) };
        e.kind.store(r.kind.0, Ordering::Relaxed);
        e.id.store(r.id, Ordering::Relaxed);
        e.offset.store(r.offset as u64, Ordering::Relaxed);
        e.len.store(r.len as u64, Ordering::Relaxed);
        e.flags.store(0, Ordering::Relaxed);
    }
}

impl Segment {
    /// Creates the segment for `layout`: memfd (close-on-exec, sealable),
    /// mode 0600, sized, sealed against shrinking and growing, mapped
    /// shared, header and directory written, `ready` still 0. Initialise
    /// the regions ([`init`](Self::init)), then [`publish`](Self::publish).
    ///
    /// # Errors
    /// [`SegmentCreateError::BadLayout`] for an impossible layout,
    /// [`SegmentCreateError::Io`] when a system call fails.
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::layout::RegionKind;
    /// use pmix_shm::ring::{Ring, RingParams};
    /// use pmix_shm::segment::{Segment, SegmentLayout};
    /// use std::time::Duration;
    ///
    /// let params = RingParams::new(64).unwrap();
    /// let layout = SegmentLayout::new().region_for::<Ring>(RegionKind::SERVER_RING, 0, &params);
    /// let server = Segment::create(&layout).unwrap();
    /// let ring: Ring = server.init(RegionKind::SERVER_RING, 0, &params).unwrap();
    /// server.publish();
    ///
    /// // A client maps the fd it received (here: a duplicate).
    /// let client = Segment::open(server.fd().try_clone_to_owned().unwrap()).unwrap();
    /// let mine: Ring = client.attach(RegionKind::SERVER_RING, 0).unwrap();
    /// mine.try_push(1, b"fence").unwrap();
    /// let mut consumer = ring.consumer().unwrap();
    /// let got = consumer.pop_timeout(Duration::from_secs(1), |k, p| (k, p.to_vec()));
    /// assert_eq!(got.unwrap(), (1, b"fence".to_vec()));
    /// ```
    pub fn create(layout: &SegmentLayout) -> Result<Segment, SegmentCreateError> {
        let (total, regions) = layout.place()?;
        let file = sealed_memfd(total)?;
        let meta = file.metadata().map_err(|source| SegmentCreateError::Io {
            call: "fstat",
            source,
        })?;
        // SAFETY: the file is a sealed memfd of exactly `total` bytes that
        // cannot shrink, so the mapping can never fault; concurrent writers
        // are expected (the segment is shared) and go through atomics.
        let mut map =
            unsafe { memmap2::MmapOptions::new().len(total).map_mut(&file) }.map_err(|source| {
                SegmentCreateError::Io {
                    call: "mmap",
                    source,
                }
            })?;
        let base = NonNull::new(map.as_mut_ptr()).ok_or(SegmentCreateError::Io {
            call: "mmap",
            source: std::io::Error::from_raw_os_error(libc::EFAULT),
        })?;
        // SAFETY: getpid has no preconditions.
        let pid = unsafe { libc::getpid() } as u32;
        // SAFETY: `base` starts our fresh mapping of `total` bytes, placed
        // by `layout.place()` as `regions` says.
        unsafe { write_header(base, total, layout.capabilities, pid, &regions) };
        let n = regions.len();
        Ok(Segment {
            map: Arc::new(Mapping {
                _map: map,
                file,
                file_id: (meta.dev(), meta.ino()),
            }),
            base,
            len: total,
            regions,
            creator_pid: pid,
            capabilities: layout.capabilities,
            initialised: Some(Mutex::new(vec![false; n])),
            published: AtomicBool::new(false),
        })
    }
}
