//! The store as a [`Region`]: geometry, initial image and header checks
//! (`docs/SHM-LAYOUT-STORE.md`), and the two handles built on a published
//! store — the writer (which adopts the publication word) and the readers
//! (which claim a slot).

use std::sync::Arc;

use super::claim::WriterClaim;
use super::reader::StoreReader;
use super::shared::{
    BufferCell, ReaderSlot, Shared, StoreGeometry, StoreHeader, StoreParams, STORE_HEADER_SIZE,
    STORE_LAYOUT_VERSION, STORE_MAGIC,
};
use super::writer::StoreWriter;
use crate::error::{InitError, OpenError};
use crate::region::{Attach, Memory, Region};
use crate::sync::Ordering;

/// Alignment of a store region: one cache line.
const STORE_ALIGN: usize = 64;

impl Region for StoreWriter {
    const NAME: &'static str = "job-data store";
    const MAGIC: u64 = STORE_MAGIC;
    const VERSION: u32 = STORE_LAYOUT_VERSION;
    const ALIGN: usize = STORE_ALIGN;
    const HEADER_SIZE: usize = STORE_HEADER_SIZE;
    type Params = StoreParams;
    type Geometry = StoreGeometry;
    type Header = StoreHeader;

    fn geometry(params: &StoreParams) -> Result<StoreGeometry, InitError> {
        StoreGeometry::new(params).ok_or(InitError::InvalidParams {
            reason: "need 2..=8 buffers of 64 bytes..=2 GiB and 1..=65536 reader slots",
        })
    }

    /// `128 + 64 · reader_slots + buffer_count · buffer_size` (the buffer
    /// size rounded up to 64).
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::region::Region;
    /// use pmix_shm::store::{StoreParams, StoreWriter};
    /// let p = StoreParams { buffer_count: 2, buffer_size: 4096, reader_slots: 4 };
    /// assert_eq!(StoreWriter::memory_size(&p), 128 + 4 * 64 + 2 * 4096);
    /// ```
    fn size(geom: &StoreGeometry) -> usize {
        geom.memory_size()
    }

    fn write_image(mem: &Memory, g: &StoreGeometry) {
        let part = mem.header::<StoreHeader>();
        let h = &part[0];
        // ORDERING: Relaxed (every store) — published by the Release store
        // of the magic in `region::init_in`.
        h.buffer_count.store(g.buffer_count, Ordering::Relaxed);
        h.reader_slots.store(g.reader_slots, Ordering::Relaxed);
        h.buffer_size.store(g.buffer_size as u64, Ordering::Relaxed);
        h.slots_offset
            .store(STORE_HEADER_SIZE as u64, Ordering::Relaxed);
        h.buffers_offset
            .store(g.buffers_offset() as u64, Ordering::Relaxed);
        h.current.store(0, Ordering::Relaxed);
        for slot in slots(mem, g).iter() {
            slot.owner.store(0, Ordering::Relaxed);
            for pin in &slot.pins {
                pin.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Counts and buffer size in range, offsets equal to the values they
    /// imply.
    fn read_geometry(h: &StoreHeader) -> Result<StoreGeometry, OpenError> {
        let bad = |reason| OpenError::BadGeometry { reason };
        // ORDERING: Relaxed (header loads) — after the Acquire of the magic.
        let buffer_size = h.buffer_size.load(Ordering::Relaxed);
        let params = StoreParams {
            buffer_count: h.buffer_count.load(Ordering::Relaxed),
            buffer_size: usize::try_from(buffer_size).map_err(|_| bad("buffer size overflows"))?,
            reader_slots: h.reader_slots.load(Ordering::Relaxed),
        };
        let geom = StoreGeometry::new(&params).ok_or(bad("counts or buffer size out of range"))?;
        if geom.buffer_size as u64 != buffer_size
            || h.slots_offset.load(Ordering::Relaxed) != STORE_HEADER_SIZE as u64
            || h.buffers_offset.load(Ordering::Relaxed) != geom.buffers_offset() as u64
        {
            return Err(bad("offsets or buffer size do not match the counts"));
        }
        Ok(geom)
    }

    #[cfg(loom)]
    fn loom_parts(g: &StoreGeometry) -> Vec<Arc<dyn std::any::Any + Send + Sync>> {
        use crate::region::{loom_part, loom_part_with};
        use crate::sync::UnsafeCell;
        vec![
            loom_part::<StoreHeader>(1),
            loom_part::<ReaderSlot>(g.reader_slots as usize),
            loom_part_with::<BufferCell>(g.buffer_count as usize, |_| {
                UnsafeCell::new(vec![0u8; g.buffer_size].into_boxed_slice())
            }),
        ]
    }
}

/// The reader slots (part 1).
fn slots(mem: &Memory, g: &StoreGeometry) -> crate::region::Part<ReaderSlot> {
    mem.part(1, STORE_HEADER_SIZE, g.reader_slots as usize)
}

/// The control block every handle of the store in `mem` shares.
fn shared(mem: &Memory, g: StoreGeometry) -> Shared {
    #[cfg(not(loom))]
    let buffer_cells = g.buffer_count as usize * g.buffer_size;
    #[cfg(loom)]
    let buffer_cells = g.buffer_count as usize;
    Shared {
        header: mem.header(),
        slots: slots(mem, &g),
        buffers: mem.part::<BufferCell>(2, g.buffers_offset(), buffer_cells),
        geom: g,
    }
}

impl Attach for StoreWriter {
    type Region = StoreWriter;

    /// Adopts the store's publication word: the next publication gets the
    /// next generation and goes into a buffer that is neither current nor
    /// pinned. In a segment region, claims the store's one writer in this
    /// process ([`OpenError::WriterExists`] if another lives).
    fn from_memory(mem: Memory, g: StoreGeometry) -> Result<StoreWriter, OpenError> {
        let claim = match mem.identity() {
            Some(id) => Some(WriterClaim::claim(id).ok_or(OpenError::WriterExists)?),
            None => None,
        };
        Ok(StoreWriter::adopt(Arc::new(shared(&mem, g)), claim))
    }
}

impl Attach for StoreReader {
    type Region = StoreWriter;

    /// Claims a reader slot, announcing this process id
    /// ([`OpenError::NoFreeReaderSlot`] if every slot is taken).
    fn from_memory(mem: Memory, g: StoreGeometry) -> Result<StoreReader, OpenError> {
        StoreReader::from_shared(Arc::new(shared(&mem, g)))
    }
}
