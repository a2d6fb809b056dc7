//! Behaviour of the job-data store through its public API: lookups,
//! republication, capacity, reclamation (including a reader process that
//! dies while pinning), untrusted headers and images, concurrent readers.
#![cfg(not(loom))]

mod common;
use common::Region;

use std::ptr::NonNull;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use pmix_shm::error::{InitError, OpenError};
use pmix_shm::region::{self, Memory, Region as _};
use pmix_shm::store::{
    decode_table, PinError, PublishError, StoreParams, StoreReader, StoreWriter, TableBuilder,
    TableError, TableImage, STORE_LAYOUT_VERSION, STORE_MAGIC,
};
use pmix_shm::sync::{AtomicBool, Ordering};
use proptest::prelude::*;

fn params(buffer_count: u32, buffer_size: usize, reader_slots: u32) -> StoreParams {
    StoreParams {
        buffer_count,
        buffer_size,
        reader_slots,
    }
}

/// `len` bytes of `region`, kept alive by it.
fn memory(region: &Arc<Region>, at: usize, len: usize) -> Memory {
    assert!(at + len <= region.len());
    // SAFETY: `at..at + len` lies inside the region, which the keep-alive
    // holds for as long as any handle built on the memory.
    unsafe {
        Memory::from_raw(
            NonNull::new_unchecked(region.ptr.as_ptr().add(at)),
            len,
            Some(region.clone()),
        )
    }
}

fn attach(region: &Arc<Region>, len: usize) -> Result<StoreReader, OpenError> {
    // SAFETY: a reader; the memory is valid (see `memory`).
    unsafe { region::attach::<StoreReader>(memory(region, 0, len)) }
}

/// Initialises a store in `len` bytes at `at` of `region`.
fn init(
    region: &Arc<Region>,
    at: usize,
    len: usize,
    p: &StoreParams,
) -> Result<StoreWriter, InitError> {
    // SAFETY: the memory is valid (see `memory`); no handle of an earlier
    // store lives in it (each test initialises its region once).
    unsafe { region::init_in::<StoreWriter>(memory(region, at, len), p) }
}

fn writer_in_region(p: &StoreParams) -> (StoreWriter, Arc<Region>) {
    let region = Region::new(StoreWriter::memory_size(p));
    let w = init(&region, 0, region.len(), p).unwrap();
    (w, region)
}

#[test]
fn get_returns_published_values_and_none_for_missing_ones() {
    let mut w = StoreWriter::new_heap(&params(2, 4096, 2));
    let r = w.reader().unwrap();
    assert_eq!((r.generation(), r.get("ns", 0, "k")), (0, None));
    assert_eq!(r.pin().unwrap_err(), PinError::NotPublished);
    assert!(r.keys_for("ns", 0).is_empty());
    let mut t = TableBuilder::new();
    t.insert("ns", 0, "k", b"v0".to_vec());
    t.insert("ns", 1, "k", b"v1".to_vec());
    t.insert("ns", 1, "empty", Vec::new());
    assert_eq!(w.publish(t).unwrap(), 1);
    assert_eq!(r.get("ns", 0, "k"), Some(b"v0".to_vec()));
    assert_eq!(r.get("ns", 1, "k"), Some(b"v1".to_vec()));
    assert_eq!(r.get("ns", 1, "empty"), Some(Vec::new()));
    assert_eq!(r.get("ns", 2, "k"), None, "missing rank");
    assert_eq!(r.get("ns", 0, "nokey"), None, "missing key");
    assert_eq!(r.get("other", 0, "k"), None, "missing nspace");
    assert_eq!(r.get("ns", 0, "empty"), None, "key known, entry absent");
    assert_eq!(r.keys_for("ns", 1), ["k", "empty"]);
    assert_eq!(r.keys_for("ns", 0), ["k"]);
    assert_eq!(r.with("ns", 1, "k", |v| v.to_vec()), Some(b"v1".to_vec()));
}

#[test]
fn many_namespaces_ranks_and_keys_are_all_found() {
    let mut w = StoreWriter::new_heap(&params(3, 1 << 20, 4));
    let r = w.reader().unwrap();
    let mut t = TableBuilder::new();
    for ns in 0..200u32 {
        for rank in 0..8u32 {
            for key in 0..4u32 {
                let v = format!("{ns}/{rank}/{key}").into_bytes();
                t.insert(&format!("job-{ns}"), rank, &format!("key.{key}"), v);
            }
        }
    }
    w.publish(t).unwrap();
    let pinned = r.pin().unwrap();
    assert_eq!(pinned.image().len(), 200 * 8 * 4);
    for ns in 0..200u32 {
        for rank in 0..8u32 {
            for key in 0..4u32 {
                let v = pinned.get(&format!("job-{ns}"), rank, &format!("key.{key}"));
                assert_eq!(v, Some(format!("{ns}/{rank}/{key}").as_bytes()));
            }
            let keys: Vec<_> = pinned.keys_for(&format!("job-{ns}"), rank).collect();
            assert_eq!(keys.len(), 4);
        }
    }
    assert!(decode_table(pinned.image().as_bytes()).is_ok());
}

#[test]
fn update_republishes_a_copy_with_changes() {
    let mut w = StoreWriter::new_heap(&params(3, 4096, 2));
    let r = w.reader().unwrap();
    w.update(|t| {
        t.insert("a", 0, "x", b"1".to_vec());
        t.insert("b", 0, "x", b"2".to_vec());
    })
    .unwrap();
    let g = w
        .update(|t| {
            t.insert("a", 0, "x", b"3".to_vec());
            t.insert("a", 0, "y", b"4".to_vec());
        })
        .unwrap();
    assert_eq!((g, r.generation()), (2, 2));
    assert_eq!(r.get("a", 0, "x"), Some(b"3".to_vec()));
    assert_eq!(r.get("a", 0, "y"), Some(b"4".to_vec()));
    assert_eq!(r.get("b", 0, "x"), Some(b"2".to_vec()));
    w.update(|t| {
        assert_eq!(t.remove_nspace("b"), 1);
        assert_eq!(t.remove("a", 0, "y"), Some(b"4".to_vec()));
    })
    .unwrap();
    assert_eq!(r.get("b", 0, "x"), None);
    assert_eq!(r.get("a", 0, "y"), None);
    assert_eq!(r.get("a", 0, "x"), Some(b"3".to_vec()));
    // Ids are stable across versions.
    let ids = r
        .pin()
        .map(|t| (t.image().nspace_id("b"), t.image().key_id("y")));
    assert_eq!(ids, Ok((Some(1), Some(1))));
}

#[test]
fn builder_lists_the_entries_of_one_rank_only() {
    let mut t = TableBuilder::new();
    t.insert("a", 1, "y", b"2".to_vec());
    t.insert("a", 1, "x", b"1".to_vec());
    t.insert("a", 2, "x", b"other rank".to_vec());
    t.insert("b", 1, "x", b"other nspace".to_vec());
    t.insert("a", u32::MAX, "x", b"wildcard".to_vec());
    let got: Vec<_> = t.entries_of("a", 1).collect();
    assert_eq!(got, [("y", &b"2"[..]), ("x", &b"1"[..])]);
    let job: Vec<_> = t.entries_of("a", u32::MAX).collect();
    assert_eq!(job, [("x", &b"wildcard"[..])]);
    assert_eq!(t.entries_of("none", 1).count(), 0);
    assert_eq!(t.entries_of("a", 3).count(), 0);
}

#[test]
fn fixed_keys_get_their_list_positions_as_ids() {
    let mut t = TableBuilder::with_fixed_keys(&["pmix.rank", "pmix.size", "pmix.hname"]).unwrap();
    assert_eq!(t.intern_keys(["pmix.hname", "custom", "other"]), [2, 3, 4]);
    t.insert("ns", 0, "pmix.size", vec![1]);
    let img = t.encode(1);
    let img = decode_table(&img).unwrap();
    assert_eq!(img.key_id("pmix.rank"), Some(0));
    assert_eq!(img.key_id("pmix.hname"), Some(2));
    assert_eq!(img.key_name(4), Some("other"));
    assert_eq!(img.get_by_id(0, 0, 1), Some(&[1u8][..]));
    let dup = TableBuilder::with_fixed_keys(&["a", "b", "a"]).unwrap_err();
    assert_eq!(dup.name, "a");
}

#[test]
fn table_larger_than_a_buffer_is_refused_and_given_back() {
    let mut w = StoreWriter::new_heap(&params(2, 1024, 1));
    let r = w.reader().unwrap();
    w.update(|t| {
        t.insert("ns", 0, "small", vec![1; 8]);
    })
    .unwrap();
    let mut t = w.builder();
    t.insert("ns", 0, "big", vec![0; 2000]);
    let needed = t.encoded_len();
    match w.try_publish(t) {
        Err(PublishError::StoreFull {
            needed: n,
            capacity,
            table,
        }) => {
            assert_eq!((n, capacity), (needed, 1024));
            assert_eq!(table.get("ns", 0, "big").map(<[u8]>::len), Some(2000));
        }
        other => panic!("expected StoreFull, got {other:?}"),
    }
    // Nothing changed for readers.
    assert_eq!(r.generation(), 1);
    assert_eq!(r.get("ns", 0, "big"), None);
    assert_eq!(r.get("ns", 0, "small"), Some(vec![1; 8]));
    let e: pmix_core::Error = w
        .try_publish({
            let mut t = TableBuilder::new();
            t.insert("n", 0, "k", vec![0; 4096]);
            t
        })
        .unwrap_err()
        .into();
    assert_eq!(e.status(), pmix_core::Status::ERR_OUT_OF_RESOURCE);
}

#[test]
fn pinned_buffer_is_not_reused_until_released() {
    let mut w = StoreWriter::new_heap(&params(2, 4096, 2));
    let r = w.reader().unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", b"gen1".to_vec());
    })
    .unwrap();
    let pinned = r.pin().unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", b"gen2".to_vec());
    })
    .unwrap();
    // Buffer of gen 1 is pinned, gen 2 is current: nowhere to build gen 3.
    let mut t = w.builder();
    t.insert("ns", 0, "k", b"gen3".to_vec());
    let t = match w.try_publish(t) {
        Err(PublishError::BuffersPinned { table }) => *table,
        other => panic!("expected BuffersPinned, got {other:?}"),
    };
    let started = Instant::now();
    let t = w
        .publish_timeout(t, Duration::from_millis(20))
        .unwrap_err()
        .into_table();
    assert!(started.elapsed() >= Duration::from_millis(20));
    assert_eq!(pinned.get("ns", 0, "k"), Some(&b"gen1"[..]));
    assert_eq!(pinned.generation(), 1);
    assert_eq!(r.get("ns", 0, "k"), Some(b"gen2".to_vec()));
    drop(pinned);
    assert_eq!(w.try_publish(t).unwrap(), 3);
    assert_eq!(r.get("ns", 0, "k"), Some(b"gen3".to_vec()));
}

#[test]
fn leaked_pin_blocks_only_its_buffer_and_is_cleared_by_reaping() {
    let mut w = StoreWriter::new_heap(&params(3, 4096, 2));
    let leaky = w.reader().unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", vec![1]);
    })
    .unwrap();
    // A reader that never unpins (as if its process died mid-read).
    std::mem::forget(leaky.pin().unwrap());
    for g in 2..10u8 {
        w.update(|t| {
            t.insert("ns", 0, "k", vec![g]);
        })
        .unwrap();
    }
    assert_eq!(w.reader().unwrap().get("ns", 0, "k"), Some(vec![9]));

    // With two buffers, the leak plus the current one block publication.
    let mut w = StoreWriter::new_heap(&params(2, 4096, 2));
    let leaky = w.reader().unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", vec![1]);
    })
    .unwrap();
    std::mem::forget(leaky.pin().unwrap());
    // The handle itself is never dropped either: a process that vanished.
    std::mem::forget(leaky);
    w.update(|t| {
        t.insert("ns", 0, "k", vec![2]);
    })
    .unwrap();
    let e = w
        .publish_timeout(w.builder(), Duration::from_millis(10))
        .unwrap_err();
    assert!(matches!(e, PublishError::BuffersPinned { .. }));
    // This process is alive, so automatic reaping leaves its slot alone.
    assert_eq!(w.reap_dead_readers(), 0);
    // SAFETY: the only reader handle of this store in this process was
    // forgotten above and is never used again.
    assert_eq!(unsafe { w.reap_reader(std::process::id()) }, 1);
    assert_eq!(w.try_publish(w.builder()).unwrap(), 3);
}

#[test]
fn dropping_a_reader_clears_pins_its_guards_leaked() {
    let mut w = StoreWriter::new_heap(&params(2, 4096, 1));
    let leaky = w.reader().unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", vec![1]);
    })
    .unwrap();
    std::mem::forget(leaky.pin().unwrap());
    w.update(|t| {
        t.insert("ns", 0, "k", vec![2]);
    })
    .unwrap();
    assert!(w.try_publish(w.builder()).is_err());
    drop(leaky);
    assert_eq!(w.try_publish(w.builder()).unwrap(), 3);
    let r = w.reader().unwrap();
    assert_eq!(r.get("ns", 0, "k"), Some(vec![2]));
}

#[test]
fn reader_slots_run_out_and_come_back() {
    let w = StoreWriter::new_heap(&params(2, 4096, 2));
    let a = w.reader().unwrap();
    let b = w.reader().unwrap();
    assert_eq!(w.reader().unwrap_err(), OpenError::NoFreeReaderSlot);
    let a2 = a.clone(); // clones share the slot
    drop(a);
    assert_eq!(w.reader().unwrap_err(), OpenError::NoFreeReaderSlot);
    drop(a2);
    let c = w.reader().unwrap();
    drop((b, c));
}

#[test]
fn init_in_refuses_bad_params_short_and_misaligned_regions() {
    let region = Region::new(1 << 16);
    for p in [
        params(1, 4096, 1),
        params(9, 4096, 1),
        params(2, 4096, 0),
        params(2, 0, 1),
        params(2, usize::MAX, 1),
    ] {
        let e = init(&region, 0, region.len(), &p);
        assert!(matches!(e, Err(InitError::InvalidParams { .. })), "{p:?}");
    }
    let e = init(&region, 0, 1000, &params(2, 4096, 1));
    assert_eq!(
        e.unwrap_err(),
        InitError::TooSmall {
            needed: 128 + 64 + 8192,
            len: 1000
        }
    );
    // Eight bytes in: misaligned but in bounds.
    let e = init(&region, 8, 9000, &params(2, 4096, 1));
    assert!(matches!(e, Err(InitError::Misaligned { align: 64, .. })));
}

#[test]
fn attach_refuses_garbage_headers() {
    let p = params(2, 4096, 2);
    let size = StoreWriter::memory_size(&p);
    let region = Region::new(size);
    let attach_err = |len| attach(&region, len).unwrap_err();
    assert_eq!(attach_err(size), OpenError::NotReady);
    assert!(matches!(attach_err(64), OpenError::TooSmall { .. }));
    let mut w = init(&region, 0, size, &p).unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", b"v".to_vec());
    })
    .unwrap();
    assert_eq!(region.u64_at(0).load(Ordering::Relaxed), STORE_MAGIC);
    assert_eq!(region.u64_at(64).load(Ordering::Relaxed), 1 << 8); // gen 1, buffer 0
    {
        let r = attach(&region, size).unwrap();
        assert_eq!(r.get("ns", 0, "k"), Some(b"v".to_vec()));
        // The writer holds no slot: slot 0 (offset 128) is this reader's.
        assert_eq!(
            region.u32_at(128).load(Ordering::Relaxed),
            std::process::id()
        );
    }
    assert_eq!(
        attach_err(size - 1),
        OpenError::TooSmall {
            needed: size,
            len: size - 1
        }
    );
    let poke32 = |off: usize, v: u32, expect: OpenError| {
        let old = region.u32_at(off).swap(v, Ordering::Relaxed);
        assert_eq!(
            attach(&region, size).unwrap_err(),
            expect,
            "u32 at {off} = {v}"
        );
        region.u32_at(off).store(old, Ordering::Relaxed);
    };
    let range = OpenError::BadGeometry {
        reason: "counts or buffer size out of range",
    };
    let mismatch = OpenError::BadGeometry {
        reason: "offsets or buffer size do not match the counts",
    };
    poke32(12, 1, range); // buffer_count
    poke32(12, 200, range);
    poke32(16, 0, range); // reader_slots
    poke32(16, 3, mismatch); // buffers_offset then mismatches
    poke32(
        8,
        2,
        OpenError::VersionMismatch {
            found: 2,
            expected: STORE_LAYOUT_VERSION,
        },
    );
    let poke64 = |off: usize, v: u64, expect: OpenError| {
        let old = region.u64_at(off).swap(v, Ordering::Relaxed);
        assert_eq!(
            attach(&region, size).unwrap_err(),
            expect,
            "u64 at {off} = {v}"
        );
        region.u64_at(off).store(old, Ordering::Relaxed);
    };
    poke64(24, 4000, mismatch); // buffer_size not ×64
    poke64(24, u64::MAX, range);
    poke64(32, 64, mismatch); // slots_offset
    poke64(40, 0, mismatch); // buffers_offset
    poke64(
        0,
        42,
        OpenError::BadMagic {
            found: 42,
            expected: STORE_MAGIC,
        },
    );
    assert!(attach(&region, size).is_ok());
}

#[test]
fn garbage_in_a_published_buffer_is_never_trusted() {
    let p = params(2, 4096, 2);
    let (mut w, region) = writer_in_region(&p);
    let r = attach(&region, region.len()).unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", b"value".to_vec());
    })
    .unwrap();
    let buffer0 = 128 + 2 * 64;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..2000 {
        // Scribble a few words of the published image (a broken writer).
        for _ in 0..(1 + round % 4) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let off = buffer0 + ((seed >> 8) as usize % 256) * 4;
            region
                .u32_at(off)
                .store((seed >> 32) as u32, Ordering::Relaxed);
        }
        let _ = r.get("ns", 0, "k");
        let _ = r.keys_for("ns", 0);
        if let Ok(t) = r.pin() {
            let _ = t.image().validate();
            let _ = t.image().entries().count();
        }
    }
}

#[test]
fn concurrent_readers_never_see_a_mix_of_versions() {
    const KEYS: u32 = 16;
    let publications: u64 = if cfg!(miri) { 50 } else { 3000 };
    let mut w = StoreWriter::new_heap(&params(3, 1 << 14, 4));
    let done = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + Duration::from_secs(60);
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let r = w.reader().unwrap();
            let done = done.clone();
            thread::spawn(move || {
                let (mut seen, mut last) = (0u64, 0u64);
                // ORDERING: Acquire — pairs with the Release store of `done`.
                while !done.load(Ordering::Acquire) {
                    assert!(Instant::now() < deadline, "reader timed out");
                    let Ok(t) = r.pin() else { continue };
                    let g = t.generation();
                    assert!(g >= last, "generations go forward");
                    for k in 0..KEYS {
                        let ns = format!("job-{}", k % 4);
                        let v = t.get(&ns, k, "pub").expect("every key present");
                        assert_eq!(v[..8], g.to_le_bytes(), "value from another version");
                        assert!(v[8..].iter().all(|b| *b == g as u8));
                    }
                    // A single get is always one whole value too.
                    if let Some(v) = r.get("job-1", 1, "pub") {
                        let vg = u64::from_le_bytes(v[..8].try_into().unwrap());
                        assert!(vg >= g && v[8..].iter().all(|b| *b == vg as u8));
                    }
                    last = g;
                    seen += 1;
                }
                seen
            })
        })
        .collect();
    for g in 1..=publications {
        let mut t = w.builder();
        for k in 0..KEYS {
            let mut v = g.to_le_bytes().to_vec();
            v.extend(std::iter::repeat(g as u8).take(8 + (g % 17) as usize));
            t.insert(&format!("job-{}", k % 4), k, "pub", v);
        }
        assert_eq!(w.publish(t).unwrap(), g);
    }
    // ORDERING: Release — pairs with the readers' Acquire loads.
    done.store(true, Ordering::Release);
    for h in readers {
        assert!(h.join().unwrap() > 0);
    }
}

/// The child half of `dead_reader_process_is_reaped_by_the_writer`: run by
/// the parent as a separate process; a no-op in a normal test run.
#[test]
fn child_pins_and_dies() {
    let Ok(fd) = std::env::var("PMIX_STORE_TEST_FD") else {
        return;
    };
    let fd: i32 = fd.parse().unwrap();
    let len: usize = std::env::var("PMIX_STORE_TEST_LEN")
        .unwrap()
        .parse()
        .unwrap();
    // SAFETY: mapping an inherited memfd of `len` bytes, shared.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    assert_ne!(base, libc::MAP_FAILED);
    // SAFETY: the mapping is valid for `len` bytes until the process exits;
    // a reader.
    let r = unsafe {
        let mem = Memory::from_raw(NonNull::new(base.cast()).unwrap(), len, None);
        region::attach::<StoreReader>(mem)
    }
    .unwrap();
    let t = r.pin().unwrap();
    assert_eq!(t.get("ns", 0, "k"), Some(&b"gen1"[..]));
    // Die holding the pin: no destructor runs.
    std::process::exit(0);
}

#[test]
fn dead_reader_process_is_reaped_by_the_writer() {
    if std::env::var("PMIX_STORE_TEST_FD").is_ok() {
        return;
    }
    let p = params(2, 4096, 4);
    let len = StoreWriter::memory_size(&p);
    // SAFETY: memfd_create with a valid C string; no CLOEXEC, so the child
    // inherits it.
    let fd = unsafe { libc::memfd_create(c"pmix-store-test".as_ptr(), 0) };
    assert!(fd >= 0);
    // SAFETY: `fd` is ours.
    assert_eq!(unsafe { libc::ftruncate(fd, len as libc::off_t) }, 0);
    // SAFETY: shared mapping of the memfd.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    assert_ne!(base, libc::MAP_FAILED);
    let base = NonNull::new(base.cast::<u8>()).unwrap();
    // SAFETY: the mapping lives until the end of this test (never
    // unmapped); nothing else uses it yet.
    let mut w =
        unsafe { region::init_in::<StoreWriter>(Memory::from_raw(base, len, None), &p) }.unwrap();
    w.update(|t| {
        t.insert("ns", 0, "k", b"gen1".to_vec());
    })
    .unwrap();
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_pins_and_dies",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PMIX_STORE_TEST_FD", fd.to_string())
        .env("PMIX_STORE_TEST_LEN", len.to_string())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    // The child's slot still pins buffer 0 (generation 1).
    w.update(|t| {
        t.insert("ns", 0, "k", b"gen2".to_vec());
    })
    .unwrap();
    assert!(matches!(
        w.try_publish(w.builder()),
        Err(PublishError::BuffersPinned { .. })
    ));
    // The child has exited and was waited for: its pid no longer exists.
    let g = w
        .publish_timeout(w.builder(), Duration::from_secs(5))
        .unwrap();
    assert_eq!(g, 3);
    // SAFETY: as above; a reader.
    let r = unsafe { region::attach::<StoreReader>(Memory::from_raw(base, len, None)) }.unwrap();
    assert_eq!(r.get("ns", 0, "k"), Some(b"gen2".to_vec()));
}

#[test]
fn decode_table_rejects_each_kind_of_damage() {
    let mut t = TableBuilder::new();
    t.insert("ns", 0, "a", b"xy".to_vec());
    t.insert("ns", 1, "b", b"z".to_vec());
    let good = t.encode(4);
    assert!(decode_table(&good).is_ok());
    let with = |off: usize, v: u32| {
        let mut b = good.clone();
        b[off..off + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    assert_eq!(decode_table(&good[..63]).unwrap_err(), TableError::TooShort);
    assert_eq!(
        decode_table(&good[..good.len() - 1]).unwrap_err(),
        TableError::TooShort
    );
    assert_eq!(decode_table(&with(0, 0)).unwrap_err(), TableError::BadMagic);
    assert_eq!(
        decode_table(&with(4, 2)).unwrap_err(),
        TableError::UnsupportedVersion { found: 2 }
    );
    assert_eq!(
        decode_table(&with(20, 3)).unwrap_err(),
        TableError::BadLayout
    );
    assert_eq!(
        decode_table(&with(24, 3)).unwrap_err(),
        TableError::BadLayout
    );
    // Entry 1's rank (64 + 24 + 4) = 0: duplicates entry 0's position.
    assert_eq!(
        decode_table(&with(92, 0)).unwrap_err(),
        TableError::BadEntry { index: 1 }
    );
    // Entry 0's value length (64 + 20) past the blob.
    assert_eq!(
        decode_table(&with(84, 1 << 20)).unwrap_err(),
        TableError::BadEntry { index: 0 }
    );
    // Trailing bytes after the image are ignored.
    let mut longer = good.clone();
    longer.extend_from_slice(&[0xff; 100]);
    assert_eq!(decode_table(&longer).unwrap().len(), 2);
    let img = TableImage::parse(&good).unwrap();
    let all: Vec<_> = img
        .entries()
        .map(|e| (e.nspace, e.rank, e.key, e.value))
        .collect();
    assert_eq!(all, [(0, 0, 0, &b"xy"[..]), (0, 1, 1, &b"z"[..])]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 256 }))]

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        if let Ok(img) = TableImage::parse(&bytes) {
            let _ = img.validate();
            let _ = img.get("ns", 0, "k");
            let _ = img.entries().count();
            let _ = img.keys_for("ns", 0).count();
        }
    }

    #[test]
    fn damaged_images_never_panic(
        flips in proptest::collection::vec((0usize..400, any::<u8>()), 1..6),
        n in 0u32..12,
    ) {
        let mut t = TableBuilder::new();
        for i in 0..n {
            t.insert(&format!("ns{}", i % 3), i, &format!("k{}", i % 5), vec![i as u8; i as usize]);
        }
        let mut bytes = t.encode(1);
        for (at, v) in flips {
            let at = at % bytes.len();
            bytes[at] = v;
        }
        if let Ok(img) = TableImage::parse(&bytes) {
            let _ = img.validate();
            for i in 0..n {
                let _ = img.get(&format!("ns{}", i % 3), i, &format!("k{}", i % 5));
            }
            let _ = img.keys_for("ns0", 0).count();
        }
    }

    #[test]
    fn encoded_tables_decode_to_the_same_entries(
        entries in proptest::collection::btree_map(
            (0u32..4, 0u32..6, 0u32..5),
            proptest::collection::vec(any::<u8>(), 0..20),
            0..40,
        )
    ) {
        let mut t = TableBuilder::new();
        for ((ns, rank, key), v) in &entries {
            t.insert(&format!("ns-{ns}"), *rank, &format!("key-{key}"), v.clone());
        }
        let bytes = t.encode(9);
        let img = decode_table(&bytes).unwrap();
        prop_assert_eq!(img.len(), entries.len());
        for ((ns, rank, key), v) in &entries {
            prop_assert_eq!(img.get(&format!("ns-{ns}"), *rank, &format!("key-{key}")), Some(v.as_slice()));
        }
    }
}
