//! [`StoreReader`]: lock-free readers of the job-data store, and
//! [`PinnedTable`], one pinned table version.

use std::fmt;
use std::sync::Arc;

use pmix_core::Status;

use super::format::{TableError, TableImage};
use super::shared::{BufferRead, Shared, INDEX_BITS};
use crate::error::{into_core_error, OpenError};
use crate::sync::{fence, Ordering};

/// Most attempts [`StoreReader::pin`] makes before reporting contention
/// (each failed attempt means a publication happened meanwhile).
const MAX_PIN_ATTEMPTS: usize = 1000;

/// The id this process announces in its reader slots.
pub(crate) fn current_pid() -> u32 {
    #[cfg(not(loom))]
    {
        std::process::id()
    }
    #[cfg(loom)]
    {
        1
    }
}

/// Why [`StoreReader::pin`] found no table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PinError {
    /// Nothing has been published yet.
    NotPublished,
    /// The publication word changed on every one of many attempts.
    Contended,
    /// The publication word names a buffer that does not exist.
    BadCurrent {
        /// The word found.
        word: u64,
    },
    /// The published image is malformed.
    Corrupt(TableError),
}

impl fmt::Display for PinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotPublished => f.write_str("no job-data table published yet"),
            Self::Contended => f.write_str("job-data table replaced during every pin attempt"),
            Self::BadCurrent { word } => write!(f, "bad publication word {word:#x}"),
            Self::Corrupt(e) => write!(f, "corrupt job-data table: {e}"),
        }
    }
}

impl std::error::Error for PinError {}

impl PinError {
    /// `NotPublished` → `PMIX_ERR_NOT_FOUND`; `Contended` →
    /// `PMIX_ERR_RESOURCE_BUSY`; any other → `PMIX_ERROR`.
    pub fn status(&self) -> Status {
        match self {
            PinError::NotPublished => Status::ERR_NOT_FOUND,
            PinError::Contended => Status::ERR_RESOURCE_BUSY,
            _ => Status::ERROR,
        }
    }
}

into_core_error!(PinError);

/// A claimed reader slot; freed when the last handle sharing it drops.
pub(crate) struct SlotClaim {
    pub(crate) shared: Arc<Shared>,
    pub(crate) index: usize,
}

impl Drop for SlotClaim {
    fn drop(&mut self) {
        self.shared.release_slot(self.index);
    }
}

/// A lock-free reader of the job-data store. Cloning shares the reader slot
/// (pins are counts, so clones and threads may read at once). Built by
/// [`Segment::attach`](crate::segment::Segment::attach) (or
/// [`region::attach`](crate::region::attach)), which validates the header
/// and claims a slot announcing this process id, or by
/// [`StoreWriter::reader`](super::StoreWriter::reader).
#[derive(Clone)]
pub struct StoreReader {
    pub(crate) slot: Arc<SlotClaim>,
}

impl fmt::Debug for StoreReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreReader")
            .field("slot", &self.slot.index)
            .field("generation", &self.generation())
            .finish()
    }
}

impl StoreReader {
    pub(crate) fn from_shared(shared: Arc<Shared>) -> Result<Self, OpenError> {
        let index = shared
            .claim_slot(current_pid())
            .ok_or(OpenError::NoFreeReaderSlot)?;
        Ok(Self {
            slot: Arc::new(SlotClaim { shared, index }),
        })
    }

    fn shared(&self) -> &Shared {
        &self.slot.shared
    }

    /// Generation of the current table (0: nothing published yet).
    pub fn generation(&self) -> u64 {
        // ORDERING: Acquire — pairs with the Release store in
        // `StoreWriter::try_publish`; informational only.
        self.shared().header().current.load(Ordering::Acquire) >> INDEX_BITS
    }

    /// Pins the current table: until the returned guard drops, the writer
    /// will not reuse its buffer, so lookups through it are zero-copy and
    /// all see one version. Keep it short: a pinned buffer is one the
    /// writer cannot build the next version in.
    ///
    /// # Errors
    ///
    /// [`PinError`]: nothing published, a corrupt publication, or a writer
    /// that replaced the table during every attempt.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::store::{StoreParams, StoreWriter};
    /// let mut w = StoreWriter::new_heap(&StoreParams { buffer_count: 2, buffer_size: 4096, reader_slots: 1 });
    /// w.update(|t| { t.insert("job", 0, "a", b"1".to_vec()); t.insert("job", 0, "b", b"2".to_vec()); }).unwrap();
    /// let r = w.reader().unwrap();
    /// let t = r.pin().unwrap();
    /// let both = (t.get("job", 0, "a"), t.get("job", 0, "b"));
    /// assert_eq!(both, (Some(&b"1"[..]), Some(&b"2"[..])));
    /// ```
    pub fn pin(&self) -> Result<PinnedTable<'_>, PinError> {
        let shared = self.shared();
        let header = shared.header();
        let pins = &shared.slot(self.slot.index).pins;
        for _ in 0..MAX_PIN_ATTEMPTS {
            // ORDERING: Acquire — pairs with the Release store of `current`
            // in `StoreWriter::try_publish`: the image of this generation is
            // visible to our reads of the buffer.
            let word = header.current.load(Ordering::Acquire);
            if word == 0 {
                return Err(PinError::NotPublished);
            }
            let b = (word & 0xff) as usize;
            if b >= shared.geom.buffer_count as usize {
                return Err(PinError::BadCurrent { word });
            }
            // ORDERING: Relaxed — the pin reaches the writer through the
            // SeqCst fence below, not through this RMW's own ordering.
            pins[b].fetch_add(1, Ordering::Relaxed);
            // ORDERING: SeqCst fence — pairs with the SeqCst fence in
            // `StoreWriter::find_free_buffer`: either the writer's scan
            // after its fence sees our pin, or our re-load below sees the
            // `current` it stored before its fence.
            fence(Ordering::SeqCst);
            // ORDERING: Relaxed — ordered by the fence; equality with the
            // Acquire-loaded word means the same store (generations never
            // repeat).
            if header.current.load(Ordering::Relaxed) == word {
                // SAFETY: `b < buffer_count`; our pin on `b` was announced
                // before `current` was seen again to name `b`, so the writer
                // does not write `b` until we unpin (PinnedTable::drop ends
                // the access first).
                let read = unsafe { shared.buffer_read(b) };
                let bytes = read.bytes;
                // From here on, dropping the guard ends the access, then
                // unpins (also on the error paths below).
                let mut guard = PinnedTable {
                    reader: self,
                    buffer: b,
                    image: None,
                    read: Some(read),
                };
                let image = TableImage::parse(bytes).map_err(PinError::Corrupt)?;
                let expected = word >> INDEX_BITS;
                if image.generation() != expected {
                    return Err(PinError::Corrupt(TableError::GenerationMismatch {
                        found: image.generation(),
                        expected,
                    }));
                }
                guard.image = Some(image);
                return Ok(guard);
            }
            // ORDERING: Release — pairs with the Acquire pin loads in
            // `find_free_buffer` (nothing was read; kept uniform).
            pins[b].fetch_sub(1, Ordering::Release);
        }
        Err(PinError::Contended)
    }

    /// Runs `f` on the value of `(nspace, rank, key)` in place (zero-copy),
    /// with the table pinned for the duration of `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::store::{StoreParams, StoreWriter};
    /// let mut w = StoreWriter::new_heap(&StoreParams { buffer_count: 2, buffer_size: 4096, reader_slots: 1 });
    /// w.update(|t| { t.insert("job", 1, "pmix.hname", b"node7".to_vec()); }).unwrap();
    /// let r = w.reader().unwrap();
    /// assert_eq!(r.with("job", 1, "pmix.hname", |v| v.len()), Some(5));
    /// assert_eq!(r.with("job", 2, "pmix.hname", |v| v.len()), None);
    /// ```
    pub fn with<R>(
        &self,
        nspace: &str,
        rank: u32,
        key: &str,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Option<R> {
        let table = self.pin().ok()?;
        table.get(nspace, rank, key).map(f)
    }

    /// A copy of the value of `(nspace, rank, key)`; `None` if absent, if
    /// nothing is published, or if the table is unreadable (see
    /// [`pin`](Self::pin) for the reasons).
    pub fn get(&self, nspace: &str, rank: u32, key: &str) -> Option<Vec<u8>> {
        self.with(nspace, rank, key, <[u8]>::to_vec)
    }

    /// The keys `rank` of `nspace` has in the current table, in key id
    /// order.
    pub fn keys_for(&self, nspace: &str, rank: u32) -> Vec<String> {
        self.pin().map_or_else(
            |_| Vec::new(),
            |t| {
                t.image()
                    .keys_for(nspace, rank)
                    .map(|(k, _)| k.to_owned())
                    .collect()
            },
        )
    }
}

/// One pinned table version (see [`StoreReader::pin`]). Lookups borrow from
/// the guard: the bytes stay valid and unchanged until it drops.
pub struct PinnedTable<'r> {
    reader: &'r StoreReader,
    buffer: usize,
    image: Option<TableImage<'r>>,
    /// The buffer access; ended before the pin is released.
    read: Option<BufferRead<'r>>,
}

impl fmt::Debug for PinnedTable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedTable")
            .field("buffer", &self.buffer)
            .field("image", &self.image)
            .finish()
    }
}

impl PinnedTable<'_> {
    /// The pinned image (its borrows end with the guard).
    pub fn image(&self) -> TableImage<'_> {
        self.image.expect("set while pinned")
    }

    /// Generation of the pinned table.
    pub fn generation(&self) -> u64 {
        self.image().generation()
    }

    /// The value of `(nspace, rank, key)`, in place.
    pub fn get(&self, nspace: &str, rank: u32, key: &str) -> Option<&[u8]> {
        self.image().get(nspace, rank, key)
    }

    /// `(key, value)` of every entry of `rank` in `nspace`.
    pub fn keys_for(&self, nspace: &str, rank: u32) -> impl Iterator<Item = (&str, &[u8])> + '_ {
        self.image().keys_for(nspace, rank)
    }
}

impl Drop for PinnedTable<'_> {
    fn drop(&mut self) {
        self.image = None;
        // End the buffer access before the pin is released (under loom this
        // ends the tracked read).
        self.read = None;
        let shared = self.reader.shared();
        // ORDERING: Release — pairs with the Acquire pin loads in
        // `StoreWriter::find_free_buffer`: our reads of the buffer
        // happen-before the writer reuses it.
        shared.slot(self.reader.slot.index).pins[self.buffer].fetch_sub(1, Ordering::Release);
    }
}
