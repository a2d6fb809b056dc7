//! Unit tests of the layout placement and the creator's init checks.

use super::*;
use crate::error::{InitError, RegionError};
use crate::layout::RegionKind;
use crate::ring::{Ring, RingParams};

#[test]
fn layout_places_regions_aligned_after_the_directory() {
    let l = SegmentLayout::new()
        .region(RegionKind::JOB_STORE, 0, 100)
        .region(RegionKind::SERVER_RING, 0, 1000);
    let (total, r) = l.place().unwrap();
    assert_eq!(r[0].offset, 256); // 128 + 2 * 32 = 192 -> 256
    assert_eq!(r[1].offset, 384);
    assert_eq!(total, 4096);
}

#[test]
fn layout_rejects_duplicates_and_empty_regions() {
    let dup = SegmentLayout::new()
        .region(RegionKind::CLIENT_RING, 1, 64)
        .region(RegionKind::CLIENT_RING, 1, 64);
    assert!(matches!(
        dup.total_size(),
        Err(SegmentCreateError::BadLayout { .. })
    ));
    let empty = SegmentLayout::new().region(RegionKind::MODEX, 0, 0);
    assert!(matches!(
        Segment::create(&empty),
        Err(SegmentCreateError::BadLayout { .. })
    ));
    let huge = SegmentLayout::new()
        .region(RegionKind::MODEX, 0, usize::MAX - 10)
        .region(RegionKind::MODEX, 1, usize::MAX - 10);
    assert!(huge.total_size().is_err());
}

#[test]
fn creator_cannot_init_a_ring_twice_or_after_publish() {
    let p = RingParams::new(16).unwrap();
    let seg = Segment::create(
        &SegmentLayout::new()
            .region_for::<Ring>(RegionKind::CLIENT_RING, 0, &p)
            .region_for::<Ring>(RegionKind::CLIENT_RING, 1, &p),
    )
    .unwrap();
    seg.init::<Ring>(RegionKind::CLIENT_RING, 0, &p).unwrap();
    assert_eq!(
        seg.init::<Ring>(RegionKind::CLIENT_RING, 0, &p)
            .unwrap_err(),
        InitError::AlreadyInitialized
    );
    seg.publish();
    assert_eq!(
        seg.init::<Ring>(RegionKind::CLIENT_RING, 1, &p)
            .unwrap_err(),
        InitError::AlreadyPublished
    );
    assert!(matches!(
        seg.init::<Ring>(RegionKind::MODEX, 0, &p),
        Err(InitError::Region(RegionError::NotFound { .. }))
    ));
}

#[test]
fn ring_in_a_too_small_region_is_refused() {
    let seg =
        Segment::create(&SegmentLayout::new().region(RegionKind::SERVER_RING, 0, 700)).unwrap();
    assert!(matches!(
        seg.init::<Ring>(RegionKind::SERVER_RING, 0, &RingParams::new(16).unwrap()),
        Err(InitError::TooSmall { .. })
    ));
}
