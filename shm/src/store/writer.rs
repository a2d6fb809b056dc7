//! [`StoreWriter`]: the single writer (the server) of the job-data store.

use std::fmt;
use std::sync::Arc;
#[cfg(not(loom))]
use std::time::{Duration, Instant};

use pmix_core::Status;

use super::builder::TableBuilder;
use super::claim::WriterClaim;
#[cfg(not(loom))]
use super::reader::current_pid;
use super::reader::StoreReader;
use super::shared::{Shared, StoreParams, INDEX_BITS};
use crate::error::{into_core_error, OpenError};
use crate::region;
use crate::sync::{fence, Ordering};

/// How long [`StoreWriter::publish`] waits for a free buffer.
#[cfg(not(loom))]
pub const DEFAULT_PUBLISH_TIMEOUT: Duration = Duration::from_secs(1);

/// Why a publication failed; the table comes back to the caller.
pub enum PublishError {
    /// The table's image is larger than one buffer.
    StoreFull {
        /// Bytes the image needs.
        needed: usize,
        /// Bytes of one buffer.
        capacity: usize,
        /// The table, unpublished.
        table: Box<TableBuilder>,
    },
    /// Every buffer but the current one is still pinned by a reader (one
    /// that is slow, or that died while reading and was not reaped).
    BuffersPinned {
        /// The table, unpublished.
        table: Box<TableBuilder>,
    },
}

impl PublishError {
    /// The table that was not published.
    pub fn into_table(self) -> TableBuilder {
        match self {
            Self::StoreFull { table, .. } | Self::BuffersPinned { table } => *table,
        }
    }
}

impl fmt::Debug for PublishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::StoreFull {
                needed, capacity, ..
            } => f
                .debug_struct("StoreFull")
                .field("needed", needed)
                .field("capacity", capacity)
                .finish_non_exhaustive(),
            Self::BuffersPinned { .. } => f.debug_struct("BuffersPinned").finish_non_exhaustive(),
        }
    }
}

impl fmt::Display for PublishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::StoreFull {
                needed, capacity, ..
            } => write!(
                f,
                "job-data table needs {needed} bytes, a buffer holds {capacity}"
            ),
            Self::BuffersPinned { .. } => {
                f.write_str("every spare table buffer is pinned by a reader")
            }
        }
    }
}

impl std::error::Error for PublishError {}

impl PublishError {
    /// `StoreFull` → `PMIX_ERR_OUT_OF_RESOURCE`; `BuffersPinned` →
    /// `PMIX_ERR_RESOURCE_BUSY`.
    pub fn status(&self) -> Status {
        match self {
            PublishError::StoreFull { .. } => Status::ERR_OUT_OF_RESOURCE,
            PublishError::BuffersPinned { .. } => Status::ERR_RESOURCE_BUSY,
        }
    }
}

into_core_error!(PublishError);

/// The single writer of a job-data store.
///
/// Each publication encodes a whole table into a free buffer and then
/// switches the one `current` word; see the [module docs](super) for the
/// protocol and the reclamation rule.
///
/// Built by [`Segment::init`](crate::segment::Segment::init) (a fresh
/// store), or by [`Segment::attach`](crate::segment::Segment::attach) on a
/// store that is already initialised (by this or another process): the
/// attached writer adopts the publication word, so its next publication
/// gets the next generation and goes into a buffer that is neither current
/// nor pinned. It does not know the published table: [`table`](Self::table)
/// and [`builder`](Self::builder) start empty, so [`update`](Self::update)
/// publishes only what it adds; publish whole tables (or rebuild the
/// current one first) from such a writer. A publication word whose buffer
/// index is out of range is adopted as it is: no reader can pin it, so
/// every buffer is free for the next publication, which replaces it.
///
/// **Exactly one writer at a time** across every process mapping the store:
/// inside this process the segment enforces it
/// ([`OpenError::WriterExists`]); across processes the previous writer must
/// have made its last publication and be gone or idle for good, with that
/// publication ordered before the attach (e.g. through the protocol that
/// handed the store over). Two writers could write a buffer a reader is
/// reading.
pub struct StoreWriter {
    pub(crate) shared: Arc<Shared>,
    /// Last value stored to `current` (the writer is its only writer).
    current: u64,
    /// The last published table (for incremental updates).
    table: TableBuilder,
    /// Whether `publish_deadline` reaps slots of vanished processes.
    reap_dead: bool,
    /// Held as long as this writer lives: the claim that this is the
    /// store's only writer in this process (segment regions only).
    _exclusive: Option<WriterClaim>,
}

impl fmt::Debug for StoreWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreWriter")
            .field("geometry", &self.shared.geom)
            .field("generation", &self.generation())
            .field("entries", &self.table.len())
            .finish()
    }
}

impl StoreWriter {
    /// The writer of the store `shared`, adopting its publication word
    /// (0 for a fresh store), holding `claim` while it lives.
    pub(super) fn adopt(shared: Arc<Shared>, claim: Option<WriterClaim>) -> Self {
        // ORDERING: Acquire — pairs with the Release store of `current` by
        // the previous writer: its last image is complete before we pick a
        // buffer that is not the current one.
        let current = shared.header().current.load(Ordering::Acquire);
        Self {
            shared,
            current,
            table: TableBuilder::new(),
            reap_dead: true,
            _exclusive: claim,
        }
    }

    /// A store in memory owned by its handles (tests, one process; the
    /// models' store under `cfg(loom)`).
    ///
    /// # Panics
    ///
    /// Panics if `params` are out of range.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::store::{StoreParams, StoreWriter};
    /// let mut w = StoreWriter::new_heap(&StoreParams { buffer_count: 2, buffer_size: 4096, reader_slots: 2 });
    /// let r = w.reader().unwrap();
    /// w.update(|t| { t.insert("job", 0, "pmix.local.size", vec![4]); }).unwrap();
    /// assert_eq!(r.get("job", 0, "pmix.local.size"), Some(vec![4]));
    /// assert_eq!(r.generation(), 1);
    /// ```
    pub fn new_heap(params: &StoreParams) -> Self {
        region::new_heap::<StoreWriter>(params).expect("invalid store parameters")
    }

    /// A reader of this store in this process (claims a reader slot).
    ///
    /// # Errors
    ///
    /// [`OpenError::NoFreeReaderSlot`] if every slot is taken.
    pub fn reader(&self) -> Result<StoreReader, OpenError> {
        StoreReader::from_shared(Arc::clone(&self.shared))
    }

    /// Generation of the last publication (0 before the first).
    pub fn generation(&self) -> u64 {
        self.current >> INDEX_BITS
    }

    /// The last published table.
    pub fn table(&self) -> &TableBuilder {
        &self.table
    }

    /// A copy of the last published table, to change and publish (an
    /// incremental update is "copy current + changes").
    pub fn builder(&self) -> TableBuilder {
        self.table.clone()
    }

    /// Bytes of one table buffer: the largest image that can be published.
    pub fn buffer_size(&self) -> usize {
        self.shared.geom.buffer_size
    }

    /// Publishes `table` if a buffer is free now; returns the new
    /// generation. Never waits.
    ///
    /// # Errors
    ///
    /// [`PublishError::StoreFull`] if the image exceeds a buffer;
    /// [`PublishError::BuffersPinned`] if every spare buffer is pinned.
    pub fn try_publish(&mut self, table: TableBuilder) -> Result<u64, PublishError> {
        let capacity = self.shared.geom.buffer_size;
        let needed = table.encoded_len();
        if needed > capacity {
            return Err(PublishError::StoreFull {
                needed,
                capacity,
                table: Box::new(table),
            });
        }
        let Some(b) = self.find_free_buffer() else {
            return Err(PublishError::BuffersPinned {
                table: Box::new(table),
            });
        };
        let generation = self.generation() + 1;
        {
            // SAFETY: we are the only writer; `find_free_buffer` found `b`
            // unpinned, not current, after our last store of `current`;
            // the access ends (end of block) before `current` names `b`.
            let buffer = unsafe { self.shared.buffer_write(b) };
            if let Err(full) = table.encode_into(generation, buffer.bytes) {
                return Err(PublishError::StoreFull {
                    needed: full.needed,
                    capacity,
                    table: Box::new(table),
                });
            }
        }
        let word = generation << INDEX_BITS | b as u64;
        // ORDERING: Release — pairs with the Acquire load of `current` in
        // `StoreReader::pin`: the image written above is visible to a reader
        // that sees this word.
        self.shared.header().current.store(word, Ordering::Release);
        self.current = word;
        self.table = table;
        Ok(generation)
    }

    /// Publishes `table`, waiting until `deadline` for a free buffer. While
    /// waiting it reaps reader slots whose process is gone.
    ///
    /// # Errors
    ///
    /// As [`try_publish`](Self::try_publish), `BuffersPinned` once the
    /// deadline has passed.
    #[cfg(not(loom))]
    pub fn publish_deadline(
        &mut self,
        mut table: TableBuilder,
        deadline: Instant,
    ) -> Result<u64, PublishError> {
        let mut round = 0u32;
        loop {
            match self.try_publish(table) {
                Err(PublishError::BuffersPinned { table: t }) => table = *t,
                done => return done,
            }
            let expired = Instant::now() >= deadline;
            if self.reap_dead && (round == 0 || expired) {
                // A dead reader pins forever: look for one first, and once
                // more before giving up.
                if self.reap_dead_readers() > 0 {
                    round += 1;
                    continue;
                }
            }
            if expired {
                return Err(PublishError::BuffersPinned {
                    table: Box::new(table),
                });
            }
            match round {
                0..=63 => std::hint::spin_loop(),
                64..=127 => std::thread::yield_now(),
                _ => std::thread::sleep(Duration::from_micros(50)),
            }
            round += 1;
        }
    }

    /// [`publish_deadline`](Self::publish_deadline) with a timeout.
    ///
    /// # Errors
    ///
    /// As [`publish_deadline`](Self::publish_deadline).
    #[cfg(not(loom))]
    pub fn publish_timeout(
        &mut self,
        table: TableBuilder,
        timeout: Duration,
    ) -> Result<u64, PublishError> {
        self.publish_deadline(table, Instant::now() + timeout)
    }

    /// [`publish_timeout`](Self::publish_timeout) with
    /// [`DEFAULT_PUBLISH_TIMEOUT`].
    ///
    /// # Errors
    ///
    /// As [`publish_deadline`](Self::publish_deadline).
    #[cfg(not(loom))]
    pub fn publish(&mut self, table: TableBuilder) -> Result<u64, PublishError> {
        self.publish_timeout(table, DEFAULT_PUBLISH_TIMEOUT)
    }

    /// Copies the current table, applies `change`, and publishes it (with
    /// [`publish`](Self::publish); [`try_publish`](Self::try_publish) under
    /// loom).
    ///
    /// # Errors
    ///
    /// As [`publish`](Self::publish).
    pub fn update(&mut self, change: impl FnOnce(&mut TableBuilder)) -> Result<u64, PublishError> {
        let mut table = self.builder();
        change(&mut table);
        #[cfg(not(loom))]
        {
            self.publish(table)
        }
        #[cfg(loom)]
        {
            self.try_publish(table)
        }
    }

    /// A buffer that is neither current nor pinned by any reader slot, if
    /// any; round-robin from the one after the current.
    fn find_free_buffer(&self) -> Option<usize> {
        // ORDERING: SeqCst fence — pairs with the SeqCst fence in
        // `StoreReader::pin` (between its pin increment and its re-load of
        // `current`). Our last store of `current` precedes this fence: if
        // the reader's fence comes first in the SC order, our loads below
        // see its pin; otherwise its re-load sees our newer `current` and it
        // backs off without reading the buffer.
        fence(Ordering::SeqCst);
        let n = self.shared.geom.buffer_count as usize;
        let current = (self.current != 0).then_some((self.current & 0xff) as usize);
        let start = current.map_or(0, |c| c + 1);
        (0..n)
            .map(|step| (start + step) % n)
            .filter(|b| Some(*b) != current)
            .find(|&b| {
                self.shared.slots().all(|slot| {
                    // ORDERING: Acquire — pairs with the Release decrement in
                    // `PinnedTable::drop`: the reader's reads of buffer `b`
                    // happen-before our writes to it.
                    slot.pins[b].load(Ordering::Acquire) == 0
                })
            })
    }

    /// Whether [`publish_deadline`](Self::publish_deadline) may reap the
    /// slots of vanished processes (default: yes). Turn it off when readers
    /// may live in another pid namespace than the writer: their announced
    /// pids then mean nothing here, and reaping a live reader would let the
    /// writer rewrite a buffer under it.
    pub fn set_reap_dead_readers(&mut self, on: bool) {
        self.reap_dead = on;
    }

    /// Frees the reader slots of processes that no longer exist
    /// (`kill(pid, 0)` fails with `ESRCH`), so their pins stop blocking
    /// buffer reuse; returns how many. Slots of this process are never
    /// reaped. [`publish_deadline`](Self::publish_deadline) calls this.
    ///
    /// Readers announce `getpid()`; this assumes they share the writer's
    /// pid namespace (as clients forked by the server do; see
    /// [`set_reap_dead_readers`](Self::set_reap_dead_readers) otherwise).
    #[cfg(not(loom))]
    pub fn reap_dead_readers(&mut self) -> usize {
        let me = current_pid();
        let mut reaped = 0;
        for i in 0..self.shared.geom.reader_slots as usize {
            // ORDERING: Relaxed — only the pid is needed; the slot is
            // reaped with a CAS on this value.
            let owner = self.shared.slot(i).owner.load(Ordering::Relaxed);
            if owner != 0
                && owner != me
                && process_is_gone(owner)
                && self.shared.reap_slot(i, owner)
            {
                reaped += 1;
            }
        }
        reaped
    }

    /// Frees every reader slot owned by process `pid` (the server learned
    /// that the client exited, e.g. its socket closed); returns how many.
    ///
    /// # Safety
    ///
    /// No handle of process `pid` may use the store any more (if `pid` is
    /// this process: no reader of this store may be alive); otherwise a
    /// reader could read a buffer while it is rewritten.
    pub unsafe fn reap_reader(&mut self, pid: u32) -> usize {
        (0..self.shared.geom.reader_slots as usize)
            .filter(|&i| {
                // ORDERING: Relaxed — as in `reap_dead_readers`.
                pid != 0
                    && self.shared.slot(i).owner.load(Ordering::Relaxed) == pid
                    && self.shared.reap_slot(i, pid)
            })
            .count()
    }
}

/// Whether no process `pid` exists. Garbage pids (above `i32::MAX`) count
/// as gone: no process has them.
#[cfg(not(loom))]
fn process_is_gone(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return true;
    };
    // SAFETY: `kill` with signal 0 sends nothing; it only checks whether the
    // process exists (pid > 0 here: never a process group).
    let r = unsafe { libc::kill(pid, 0) };
    r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}
