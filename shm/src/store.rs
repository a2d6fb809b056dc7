//! The job-data store: tables the server publishes and clients read without
//! locks, system calls or messages.
//!
//! A table maps `(nspace id, rank, key id)` to an opaque value (the server
//! stores pmix-core's encoding; this crate does not look inside). Namespace
//! and key strings are interned to dense ids published with the table;
//! standard keys can be given fixed ids ([`TableBuilder::with_fixed_keys`]).
//! The image format is in [`format`](mod@format) and `docs/SHM-LAYOUT-STORE.md`.
//!
//! # Publication
//!
//! The region holds `N` table buffers (2 to 8, default 3). The writer builds
//! each new version *whole* in a buffer no reader can be using, then stores
//! one word, `current = generation << 8 | buffer` (`Release`). A reader
//! loads `current` (`Acquire`) and reads that buffer, so it sees either the
//! old or the new table, never a mix. Generations only grow, so a word never
//! comes back (no ABA).
//!
//! | `current`                 | meaning                                       |
//! |---------------------------|-----------------------------------------------|
//! | `0`                       | nothing published: every lookup finds nothing |
//! | `g << 8 \| b`, `g ≥ 1`    | version `g` is in buffer `b`, complete, immutable while current or pinned |
//!
//! # Reclamation: per-reader pin slots
//!
//! Each reader handle owns a *slot* (one cache line): `owner` (its process
//! id, 0 = free) and `pins[b]`, a count of reads of buffer `b` in progress.
//!
//! | `owner` | `pins[b]` | meaning                                              |
//! |---------|-----------|------------------------------------------------------|
//! | `0`     | all `0`   | free slot                                            |
//! | pid     | `0`       | process `pid` is not reading buffer `b`             |
//! | pid     | `n > 0`   | `n` reads of `b` in progress or being validated      |
//!
//! * **Reader** ([`StoreReader::pin`]): `w = current` (Acquire);
//!   `pins[b] += 1`; `fence(SeqCst)`; if `current` is still `w`, read
//!   buffer `b`, then `pins[b] -= 1` (Release); else `pins[b] -= 1` and
//!   retry.
//! * **Writer** (`find_free_buffer`, after its last `current` store):
//!   `fence(SeqCst)`; a buffer `b` is free if it is not current and every
//!   slot's `pins[b]` is 0 (Acquire). It encodes the table into `b`, then
//!   stores `current` (Release).
//!
//! The two SeqCst fences make this the hazard-pointer handshake: either the
//! writer's scan sees the reader's pin, or the reader's re-load sees the
//! newer `current` and it backs off without touching the buffer. So a buffer
//! is never written while a reader that validated it is reading it, and
//! readers read plain bytes (zero-copy) with no torn data.
//!
//! **Dead readers.** A reader process that dies while pinning leaves a count
//! behind. It can only block the buffer it pinned: the writer uses any other
//! free one (with `N ≥ 3`, one dead pin never stops publication). When none
//! is free, [`StoreWriter::publish_deadline`] reaps slots whose owner
//! process no longer exists (`kill(pid, 0)` = `ESRCH`), waits with backoff
//! until the deadline, reaps once more, then fails with
//! [`PublishError::BuffersPinned`] (the table is given back). The server can
//! also reap a client it knows has exited ([`StoreWriter::reap_reader`]).
//! A dead *writer* leaves `current` at the last complete version.
//!
//! # Readers trust nothing
//!
//! Everything a reader reads was written by another process: the header is
//! validated once at attach, the publication word's buffer index is
//! checked, and the image is parsed with bounds checks on every offset and
//! length ([`TableImage`]); garbage gives `None` or an error, never a panic.
//!
//! # Examples
//!
//! ```
//! use pmix_shm::store::{StoreParams, StoreWriter, TableBuilder};
//!
//! let mut writer = StoreWriter::new_heap(&StoreParams::default());
//! let reader = writer.reader().unwrap();
//! assert_eq!(reader.get("job-1", 0, "pmix.local.rank"), None);
//!
//! let mut table = TableBuilder::with_fixed_keys(&["pmix.rank", "pmix.local.rank"]).unwrap();
//! table.insert("job-1", 0, "pmix.local.rank", 0u16.to_le_bytes().to_vec());
//! table.insert("job-1", 1, "pmix.local.rank", 1u16.to_le_bytes().to_vec());
//! assert_eq!(writer.publish(table).unwrap(), 1);
//!
//! assert_eq!(reader.get("job-1", 1, "pmix.local.rank"), Some(vec![1, 0]));
//! assert_eq!(reader.keys_for("job-1", 0), ["pmix.local.rank"]);
//!
//! // Incremental update: copy of the current table plus changes.
//! writer.update(|t| { t.insert("job-1", 0, "pmix.hname", b"n1".to_vec()); }).unwrap();
//! assert_eq!(reader.generation(), 2);
//! assert_eq!(reader.get("job-1", 0, "pmix.hname"), Some(b"n1".to_vec()));
//! ```

mod builder; // TableBuilder: the table a writer publishes
mod claim; // one writer per store in this process
pub mod format; // the table image: encoding, bounds-checked parsing
mod reader; // StoreReader, PinnedTable: pins and lookups
mod region; // the store as a Region: geometry, image, checks; both handles
mod shared; // header, reader slots, buffers: the shared control block
mod writer; // StoreWriter: publication and reclamation

pub use builder::{DuplicateName, StoreFull, TableBuilder};
pub use format::{decode_table, EntryRef, TableError, TableImage};
pub use reader::{PinError, PinnedTable, StoreReader};
pub use shared::{
    StoreGeometry, StoreParams, MAX_BUFFERS, MAX_BUFFER_SIZE, MAX_READER_SLOTS, MIN_BUFFERS,
    READER_SLOT_SIZE, STORE_HEADER_SIZE, STORE_LAYOUT_VERSION, STORE_MAGIC,
};
#[cfg(not(loom))]
pub use writer::DEFAULT_PUBLISH_TIMEOUT;
pub use writer::{PublishError, StoreWriter};

#[cfg(all(test, not(loom)))]
mod tests;
