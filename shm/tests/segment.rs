//! Segment creation and opening, with real memfds: the opener's checks
//! against files that are too short, unsealed, foreign, of another version,
//! unpublished, or carry a bad directory.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

use pmix_shm::error::{OpenError, RegionError};
use pmix_shm::layout::{caps, RegionKind, LAYOUT_VERSION, SEGMENT_HEADER_SIZE};
use pmix_shm::ring::{Ring, RingParams};
use pmix_shm::segment::{Segment, SegmentLayout, SegmentOpenError};

fn params() -> RingParams {
    RingParams::new(64).unwrap()
}

fn layout() -> SegmentLayout {
    SegmentLayout::new()
        .region_for::<Ring>(RegionKind::SERVER_RING, 0, &params())
        .region_for::<Ring>(RegionKind::CLIENT_RING, 0, &params())
        .region_for::<Ring>(RegionKind::CLIENT_RING, 1, &params())
        .region(RegionKind::JOB_STORE, 0, 10_000)
}

fn ring(seg: &Segment, kind: RegionKind, id: u32) -> Result<Ring, OpenError> {
    seg.attach(kind, id)
}

/// A published segment with its three rings initialised.
fn published() -> Segment {
    let seg = Segment::create(&layout()).unwrap();
    for (kind, id) in [
        (RegionKind::SERVER_RING, 0),
        (RegionKind::CLIENT_RING, 0),
        (RegionKind::CLIENT_RING, 1),
    ] {
        seg.init::<Ring>(kind, id, &params()).unwrap();
    }
    seg.publish();
    seg
}

fn dup(seg: &Segment) -> OwnedFd {
    seg.fd().try_clone_to_owned().unwrap()
}

/// A fresh memfd holding `bytes`, optionally sealed against shrinking.
fn memfd_with(bytes: &[u8], seal: bool) -> OwnedFd {
    // SAFETY: valid name and flags.
    let fd = unsafe {
        libc::memfd_create(
            c"test".as_ptr(),
            libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
        )
    };
    assert!(fd >= 0);
    // SAFETY: fresh fd we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: writing our own buffer to our own fd.
    let n = unsafe { libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
    assert_eq!(n, bytes.len() as isize);
    if seal {
        // SAFETY: plain fcntl on our fd.
        let r = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, libc::F_SEAL_SHRINK) };
        assert_eq!(r, 0);
    }
    fd
}

/// The bytes of a published segment, to tamper with.
fn image(seg: &Segment) -> Vec<u8> {
    let mut buf = vec![0u8; seg.len()];
    // SAFETY: reading into our buffer from our fd.
    let n = unsafe { libc::pread(seg.fd().as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
    assert_eq!(n, buf.len() as isize);
    buf
}

fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_ne_bytes());
}

fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_ne_bytes());
}

#[test]
fn open_sees_the_creators_header_and_directory() {
    let seg = published();
    let client = Segment::open(dup(&seg)).unwrap();
    assert_eq!(client.len(), seg.len());
    assert_eq!(client.regions(), seg.regions());
    assert_eq!(client.creator_pid(), std::process::id());
    assert_eq!(
        client.capabilities(),
        caps::MPSC_RING | caps::FUTEX_DOORBELL
    );
    let store = client.memory(RegionKind::JOB_STORE, 0).unwrap();
    assert_eq!(store.len(), 10_000);
    assert_eq!(store.base().as_ptr() as usize % 128, 0);
}

#[test]
fn segment_file_is_owner_only_and_sealed() {
    let seg = published();
    // SAFETY: fstat into a zeroed struct on our fd.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    assert_eq!(unsafe { libc::fstat(seg.fd().as_raw_fd(), &mut st) }, 0);
    assert_eq!(st.st_mode & 0o777, 0o600);
    // SAFETY: plain fcntl query.
    let seals = unsafe { libc::fcntl(seg.fd().as_raw_fd(), libc::F_GET_SEALS) };
    for s in [libc::F_SEAL_SHRINK, libc::F_SEAL_GROW, libc::F_SEAL_SEAL] {
        assert_ne!(seals & s, 0, "seal {s:#x} missing");
    }
    // SAFETY: plain ftruncate on our fd; it must be refused.
    assert_ne!(unsafe { libc::ftruncate(seg.fd().as_raw_fd(), 4096) }, 0);
}

#[test]
fn ring_pushed_by_the_client_is_popped_by_the_server() {
    let server = Segment::create(&layout()).unwrap();
    let inbound: Ring = server.init(RegionKind::SERVER_RING, 0, &params()).unwrap();
    server.publish();
    let client = Segment::open(dup(&server)).unwrap();
    let ring = ring(&client, RegionKind::SERVER_RING, 0).unwrap();
    drop(client); // the ring keeps the mapping alive
    ring.try_push(42, b"request").unwrap();
    let mut c = inbound.consumer().unwrap();
    let got = c.pop_timeout(Duration::from_secs(5), |k, p| (k, p.to_vec()));
    assert_eq!(got, Ok((42, b"request".to_vec())));
}

#[test]
fn unknown_region_is_not_found() {
    let seg = published();
    assert_eq!(
        seg.memory(RegionKind::CLIENT_RING, 7).unwrap_err(),
        RegionError::NotFound {
            kind: RegionKind::CLIENT_RING,
            id: 7
        }
    );
    assert!(matches!(
        ring(&seg, RegionKind::MODEX, 0),
        Err(OpenError::Region(_))
    ));
}

#[test]
fn region_without_a_ring_refuses_to_attach() {
    let seg = published();
    assert_eq!(
        ring(&seg, RegionKind::JOB_STORE, 0).unwrap_err(),
        OpenError::NotReady
    );
}

#[test]
fn unpublished_segment_is_not_ready() {
    let seg = Segment::create(&layout()).unwrap();
    assert!(matches!(
        Segment::open(dup(&seg)),
        Err(SegmentOpenError::NotReady)
    ));
    seg.publish();
    Segment::open(dup(&seg)).unwrap();
}

#[test]
fn file_shorter_than_a_header_is_too_small() {
    let fd = memfd_with(&[0u8; 64], true);
    assert!(matches!(
        Segment::open(fd),
        Err(SegmentOpenError::TooSmall {
            len: 64,
            needed
        }) if needed == SEGMENT_HEADER_SIZE as u64
    ));
}

#[test]
fn unsealed_file_is_refused() {
    let img = image(&published());
    assert!(matches!(
        Segment::open(memfd_with(&img, false)),
        Err(SegmentOpenError::NotSealed { .. })
    ));
}

#[test]
fn foreign_file_is_bad_magic() {
    let fd = memfd_with(&[0x5Au8; 8192], true);
    assert!(matches!(
        Segment::open(fd),
        Err(SegmentOpenError::BadMagic {
            found: 0x5A5A_5A5A_5A5A_5A5A
        })
    ));
}

#[test]
fn copy_of_a_good_image_opens() {
    let img = image(&published());
    let seg = Segment::open(memfd_with(&img, true)).unwrap();
    ring(&seg, RegionKind::CLIENT_RING, 1).unwrap();
}

#[test]
fn other_layout_version_is_a_version_mismatch() {
    let mut img = image(&published());
    put_u32(&mut img, 8, LAYOUT_VERSION + 1);
    match Segment::open(memfd_with(&img, true)) {
        Err(SegmentOpenError::VersionMismatch { found, expected }) => {
            assert_eq!((found, expected), (LAYOUT_VERSION + 1, LAYOUT_VERSION));
        }
        other => panic!("expected VersionMismatch, got {other:?}"),
    }
}

#[test]
fn header_claiming_more_than_the_file_is_too_small() {
    let mut img = image(&published());
    let len = img.len() as u64;
    put_u64(&mut img, 16, len + 4096);
    assert!(matches!(
        Segment::open(memfd_with(&img, true)),
        Err(SegmentOpenError::TooSmall { len: l, needed }) if l == len && needed == len + 4096
    ));
}

#[test]
fn directory_entry_outside_the_segment_is_refused() {
    let seg = published();
    let mut img = image(&seg);
    // Entry 3 (the job store): offset at 128 + 3*32 + 8, length at +16.
    put_u64(&mut img, 128 + 3 * 32 + 16, seg.len() as u64);
    assert!(matches!(
        Segment::open(memfd_with(&img, true)),
        Err(SegmentOpenError::BadDirectory { index: 3, .. })
    ));
    let mut img = image(&seg);
    put_u64(&mut img, 128 + 3 * 32 + 8, u64::MAX - 127);
    assert!(matches!(
        Segment::open(memfd_with(&img, true)),
        Err(SegmentOpenError::BadDirectory { index: 3, .. })
    ));
}

#[test]
fn misaligned_or_overlapping_regions_are_refused() {
    let seg = published();
    let r1 = seg.regions()[1];
    let mut img = image(&seg);
    put_u64(&mut img, 128 + 32 + 8, r1.offset as u64 + 8);
    assert!(matches!(
        Segment::open(memfd_with(&img, true)),
        Err(SegmentOpenError::BadDirectory { index: 1, .. })
    ));
    let mut img = image(&seg);
    put_u64(&mut img, 128 + 32 + 8, seg.regions()[0].offset as u64);
    assert!(matches!(
        Segment::open(memfd_with(&img, true)),
        Err(SegmentOpenError::BadDirectory { .. })
    ));
}

#[test]
fn absurd_directory_length_is_refused() {
    let mut img = image(&published());
    put_u32(&mut img, 36, u32::MAX);
    assert!(matches!(
        Segment::open(memfd_with(&img, true)),
        Err(SegmentOpenError::BadDirectory { .. })
    ));
}

#[test]
fn ring_header_with_bad_geometry_is_refused_by_attach() {
    let seg = published();
    let off = seg.regions()[0].offset;
    let mut img = image(&seg);
    put_u32(&mut img, off + 8, 1 << 22); // cells beyond the region
    let client = Segment::open(memfd_with(&img, true)).unwrap();
    assert!(matches!(
        ring(&client, RegionKind::SERVER_RING, 0),
        Err(OpenError::TooSmall { .. })
    ));
}

#[test]
fn many_client_rings_fit_one_segment() {
    let p = RingParams::new(16).unwrap();
    let mut l = SegmentLayout::new();
    for id in 0..300 {
        l = l.region_for::<Ring>(RegionKind::CLIENT_RING, id, &p);
    }
    let seg = Segment::create(&l).unwrap();
    let rings: Vec<Ring> = (0..300)
        .map(|id| seg.init(RegionKind::CLIENT_RING, id, &p).unwrap())
        .collect();
    seg.publish();
    let client = Segment::open(dup(&seg)).unwrap();
    for (id, r) in rings.iter().enumerate() {
        ring(&client, RegionKind::CLIENT_RING, id as u32)
            .unwrap()
            .try_push(id as u16, &[1, 2, 3])
            .unwrap();
        let mut c = r.consumer().unwrap();
        assert_eq!(c.try_pop(|k, _| k), Ok(id as u16));
    }
}
