//! Unit tests that need the private layout: offsets against
//! docs/SHM-LAYOUT-STORE.md, the image sections, and corrupt publication
//! words. Behaviour through the public API is in `shm/tests/store.rs`.

use std::mem::{offset_of, size_of};

use super::format::{Counts, Sections, ENTRY_SIZE, TABLE_HEADER_SIZE};
use super::shared::{ReaderSlot, StoreHeader};
use super::*;
use crate::region::Region;
use crate::sync::Ordering;

fn small() -> StoreParams {
    StoreParams {
        buffer_count: 2,
        buffer_size: 4096,
        reader_slots: 2,
    }
}

#[test]
fn store_header_and_reader_slot_match_the_documented_offsets() {
    assert_eq!(size_of::<StoreHeader>(), STORE_HEADER_SIZE);
    assert_eq!(offset_of!(StoreHeader, magic), 0);
    assert_eq!(offset_of!(StoreHeader, layout_version), 8);
    assert_eq!(offset_of!(StoreHeader, buffer_count), 12);
    assert_eq!(offset_of!(StoreHeader, reader_slots), 16);
    assert_eq!(offset_of!(StoreHeader, buffer_size), 24);
    assert_eq!(offset_of!(StoreHeader, slots_offset), 32);
    assert_eq!(offset_of!(StoreHeader, buffers_offset), 40);
    assert_eq!(offset_of!(StoreHeader, current), 64);
    assert_eq!(size_of::<ReaderSlot>(), READER_SLOT_SIZE);
    assert_eq!(offset_of!(ReaderSlot, owner), 0);
    assert_eq!(offset_of!(ReaderSlot, pins), 8);
    assert_eq!(offset_of!(ReaderSlot, reserved1), 40);
    let p = StoreParams::default();
    assert_eq!(StoreWriter::memory_size(&p), 128 + 256 * 64 + 3 * (1 << 20));
}

#[test]
fn image_sections_follow_the_documented_order_and_alignment() {
    assert_eq!(TABLE_HEADER_SIZE, 64);
    assert_eq!(ENTRY_SIZE, 24);
    let c = Counts {
        entry_count: 3,
        index_slots: 8,
        nspace_count: 1,
        nspace_slots: 2,
        key_count: 3,
        key_slots: 8,
        blob_len: 30,
    };
    let s = Sections::compute(&c).unwrap();
    // 64 + 3*24 = 136; +8*4 = 168; +1*8 = 176; +2*4 = 184; +3*8 = 208;
    // +8*4 = 240; blob 240..270.
    assert_eq!(
        (
            s.entries,
            s.index,
            s.nspaces,
            s.nspace_index,
            s.keys,
            s.key_index,
            s.blob,
            s.end
        ),
        (64, 136, 168, 176, 184, 208, 240, 270)
    );
    let odd = Counts {
        entry_count: 0,
        index_slots: 1,
        nspace_count: 0,
        nspace_slots: 1,
        key_count: 0,
        key_slots: 1,
        blob_len: 0,
    };
    // 64 + 4 → 72 (8-aligned); +4 → 80; +4 → 88.
    let s = Sections::compute(&odd).unwrap();
    assert_eq!((s.nspaces, s.keys, s.blob, s.end), (72, 80, 88, 88));
    assert_eq!(TableBuilder::new().encoded_len(), 88);
}

#[test]
fn encoded_image_has_the_documented_header_fields() {
    let mut b = TableBuilder::new();
    b.insert("ns", 5, "k", b"abc".to_vec());
    let img = b.encode(0x0102_0304_0506_0708);
    let u32_at = |o: usize| u32::from_le_bytes(img[o..o + 4].try_into().unwrap());
    assert_eq!(&img[0..4], b"PTBL");
    assert_eq!(u32_at(4), 1);
    assert_eq!(&img[8..16], &0x0102_0304_0506_0708u64.to_le_bytes());
    assert_eq!(u32_at(16) as usize, img.len());
    assert_eq!((u32_at(20), u32_at(24)), (1, 2)); // entries, index slots
    assert_eq!((u32_at(28), u32_at(32)), (1, 2)); // nspaces
    assert_eq!((u32_at(36), u32_at(40)), (1, 2)); // keys
    assert_eq!(u32_at(44), 8 + 2 + 1); // "abc" padded to 8, "ns", "k"
                                       // Entry 0 at 64: (0, 5, 0), reserved, value at blob 0, len 3.
    assert_eq!(
        (u32_at(64), u32_at(68), u32_at(72), u32_at(76)),
        (0, 5, 0, 0)
    );
    assert_eq!((u32_at(80), u32_at(84)), (0, 3));
    assert!(decode_table(&img).is_ok());
}

#[test]
fn corrupt_publication_word_is_reported_not_followed() {
    let mut w = StoreWriter::new_heap(&small());
    let r = w.reader().unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", b"v".to_vec());
    })
    .unwrap();
    let current = &w.shared.header().current;
    current.store(1 << 8 | 7, Ordering::Relaxed);
    assert_eq!(
        r.pin().unwrap_err(),
        PinError::BadCurrent { word: 1 << 8 | 7 }
    );
    // Names buffer 0 (holds generation 1) with generation 9.
    current.store(9 << 8, Ordering::Relaxed);
    assert_eq!(
        r.pin().unwrap_err(),
        PinError::Corrupt(TableError::GenerationMismatch {
            found: 1,
            expected: 9
        })
    );
    assert_eq!(r.get("ns", 0, "k"), None);
    // Names buffer 1, never written: no magic.
    current.store(2 << 8 | 1, Ordering::Relaxed);
    assert_eq!(
        r.pin().unwrap_err(),
        PinError::Corrupt(TableError::BadMagic)
    );
    // A failed pin leaves no pin behind.
    for slot in w.shared.slots() {
        assert!(slot.pins.iter().all(|p| p.load(Ordering::Relaxed) == 0));
    }
}

#[test]
fn pin_counts_return_to_zero_after_reads() {
    let mut w = StoreWriter::new_heap(&small());
    let r = w.reader().unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", b"v".to_vec());
    })
    .unwrap();
    let slot = w.shared.slot(r.slot.index);
    {
        let t1 = r.pin().unwrap();
        let t2 = r.clone().pin().map(|t| t.generation());
        assert_eq!(t2, Ok(1));
        assert_eq!(slot.pins[0].load(Ordering::Relaxed), 1);
        assert_eq!(t1.get("ns", 0, "k"), Some(&b"v"[..]));
    }
    assert_eq!(r.get("ns", 0, "k"), Some(b"v".to_vec()));
    assert!(slot.pins.iter().all(|p| p.load(Ordering::Relaxed) == 0));
    assert_eq!(slot.owner.load(Ordering::Relaxed), std::process::id());
    let index = r.slot.index;
    drop(r);
    assert_eq!(w.shared.slot(index).owner.load(Ordering::Relaxed), 0);
}
