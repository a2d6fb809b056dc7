//! Numbers every process of one build agrees on: the layout version and
//! magics, cache-line spacing, region alignment, ring geometry limits, the
//! [`RegionKind`]s of the directory and the capability bits, and the
//! codec of a ring record's header (pure functions, fuzzed). The structs
//! themselves live with their structure (`segment/header.rs`,
//! `ring/header.rs`, `barrier/region.rs`, `store/shared.rs`), each with
//! compile-time assertions of its sizes and offsets; `docs/SHM-LAYOUT.md`
//! documents every byte.
//!
//! Rules (STYLE.md rule 4): structs in shared memory are `repr(C)` and built
//! from [`sync`](crate::sync) atomics, so every field can be read from
//! memory that another (untrusted) process may be writing without undefined
//! behaviour; zero is a valid initial value of each; memory holds offsets,
//! never pointers. **Any change to any of these numbers bumps
//! [`LAYOUT_VERSION`]** (or the structure's own version).

/// Version of the segment header, its directory, the ring header and the
/// record header. Bumped on any change; openers refuse another.
pub const LAYOUT_VERSION: u32 = 2;

/// `"PMIXSHM1"` as a little-endian `u64`: the first 8 bytes of a segment.
pub const SEGMENT_MAGIC: u64 = u64::from_le_bytes(*b"PMIXSHM1");

/// `"PXRG"` as a little-endian `u32`: the first 4 bytes of a ring region.
pub const RING_MAGIC: u32 = u32::from_le_bytes(*b"PXRG");

/// One cache line: the size and alignment of a ring cell.
pub const CACHE_LINE: usize = 64;

/// Spacing of hot words written by different cores: two cache lines,
/// because the L2 prefetcher fetches lines in aligned pairs (see the NB of
/// `ring/header.rs`).
pub const HOT_LINE: usize = 128;

/// Alignment of every region offset inside a segment.
pub const REGION_ALIGN: usize = HOT_LINE;

/// Size of the fixed segment header (before the region directory).
pub const SEGMENT_HEADER_SIZE: usize = 128;

/// Size of one region directory entry.
pub const REGION_ENTRY_SIZE: usize = 32;

/// Most directory entries an opener accepts (bounds what it reads).
pub const MAX_REGIONS: usize = 4096;

/// Value of the segment header's `ready` word once the creator published it.
pub const SEGMENT_READY: u32 = 1;

/// Size of the ring header; cell 0 starts here.
pub const RING_HEADER_SIZE: usize = 640;

/// Size of a ring cell.
pub const CELL_SIZE: usize = CACHE_LINE;

/// Size of the record header (state word + meta word) at the start of a
/// record's first cell; the payload follows it.
pub const RECORD_HEADER_SIZE: usize = 16;

/// Fewest cells a ring may have.
pub const MIN_RING_CELLS: usize = 4;

/// Most cells a ring may have (2^24 cells = 1 GiB).
pub const MAX_RING_CELLS: usize = 1 << 24;

/// Most cells one record may take (the record header stores a `u16`).
pub const MAX_RECORD_CELLS: usize = u16::MAX as usize;

/// Rounds `n` up to a multiple of `align` (a power of two); `None` on
/// overflow.
pub const fn round_up(n: usize, align: usize) -> Option<usize> {
    match n.checked_add(align - 1) {
        Some(v) => Some(v & !(align - 1)),
        None => None,
    }
}

/// What a segment region holds. A `u32` in the directory; values the
/// opener does not know are listed but never interpreted.
///
/// # Examples
/// ```
/// use pmix_shm::layout::RegionKind;
/// assert_eq!(RegionKind::CLIENT_RING.0, 4);
/// assert_eq!(format!("{:?}", RegionKind::SERVER_RING), "RegionKind(3)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct RegionKind(pub u32);

impl RegionKind {
    /// The job-data store (see SHM-LAYOUT-STORE.md).
    pub const JOB_STORE: RegionKind = RegionKind(1);
    // 2 is reserved (it was the event cache's broadcast ring).
    /// The server-bound MPSC ring (requests from every client).
    pub const SERVER_RING: RegionKind = RegionKind(3);
    /// One client's inbound MPSC ring; the entry's id is the client's slot.
    pub const CLIENT_RING: RegionKind = RegionKind(4);
    /// The modex area.
    pub const MODEX: RegionKind = RegionKind(5);
    /// A table of counting barriers and peer-state cells
    /// ([`BarrierTable`](crate::barrier::BarrierTable); see SHM-LAYOUT.md).
    pub const BARRIERS: RegionKind = RegionKind(6);
}

/// Capability bits of the segment header: what the creator's layout
/// contains, so an opener can answer `PMIX_ERR_NOT_SUPPORTED` for a feature
/// it finds missing.
pub mod caps {
    /// The segment holds MPSC rings of this layout version.
    pub const MPSC_RING: u64 = 1 << 0;
    /// Ring consumers sleep on futex doorbells (shared futexes).
    pub const FUTEX_DOORBELL: u64 = 1 << 1;
    /// The segment holds a job-data store.
    pub const JOB_STORE: u64 = 1 << 2;
    // Bit 3 is reserved (it was the event cache's broadcast ring).
    /// The segment holds a barrier table (shared-memory fences).
    pub const BARRIERS: u64 = 1 << 4;
}

// ---------------------------------------------------------------------------
// Record header: the state word (bytes 0..8) and the meta word (8..16) of a
// record's first cell.
// ---------------------------------------------------------------------------

/// Bits 63..56 of a state word: what the cell holds.
const CODE_SHIFT: u32 = 56;
/// Bits 55..0 of a free stamp: the position the cell is free for.
pub const POS_MASK: u64 = (1 << CODE_SHIFT) - 1;

const CODE_FREE: u8 = b'F';
const CODE_RESERVED: u8 = b'R';
const CODE_COMMITTED: u8 = b'C';
const CODE_PADDING: u8 = b'P';
const CODE_ABANDONED: u8 = b'A';
const CODE_ACKED: u8 = b'K';

/// Who claimed a record and how big it is: the low 56 bits of every
/// non-free state word (`lap` in bits 55..48, `cells` in 47..32, `pid` in
/// 31..0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Claim {
    /// Process id of the producer (written with the claim, before anything
    /// else).
    pub pid: u32,
    /// Cells the record takes, header included (≥ 1).
    pub cells: u16,
    /// Low 8 bits of `position >> log2(ring cells)`: which lap of the ring
    /// the claim belongs to.
    pub lap: u8,
}

/// The state word of a ring cell: the record's commit state.
///
/// | code (bits 63..56) | state       | low 56 bits               | written by                          |
/// |--------------------|-------------|---------------------------|-------------------------------------|
/// | `'F'` 0x46         | `Free`      | position it is free for   | init; consumer on release           |
/// | `'R'` 0x52         | `Reserved`  | [`Claim`]                 | producer, CAS from `Free(pos)`      |
/// | `'C'` 0x43         | `Committed` | [`Claim`]                 | producer, CAS from `Reserved`       |
/// | `'P'` 0x50         | `Padding`   | [`Claim`] (cells to end)  | producer, CAS from `Free(pos)`      |
/// | `'A'` 0x41         | `Abandoned` | [`Claim`]                 | consumer, CAS from `Reserved`       |
/// | `'K'` 0x4B         | `Acked`     | [`Claim`]                 | producer, CAS from `Abandoned`      |
///
/// Any other code is corruption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotState {
    /// Free for a claim at `pos` (masked to 56 bits).
    Free {
        /// The position (mod 2^56) this cell may next be claimed at.
        pos: u64,
    },
    /// Claimed; the producer is writing.
    Reserved(Claim),
    /// Written; the consumer may read it.
    Committed(Claim),
    /// Skip-to-end record written at wrap-around (no payload).
    Padding(Claim),
    /// The consumer gave up waiting for a live producer; the cells stay
    /// held until the producer acknowledges.
    Abandoned(Claim),
    /// The producer of an abandoned record finished writing and let go.
    Acked(Claim),
}

impl SlotState {
    /// The free stamp for position `pos`.
    pub const fn free(pos: u64) -> u64 {
        ((CODE_FREE as u64) << CODE_SHIFT) | (pos & POS_MASK)
    }

    /// Encodes the state as a word.
    pub const fn encode(self) -> u64 {
        let (code, c) = match self {
            SlotState::Free { pos } => return SlotState::free(pos),
            SlotState::Reserved(c) => (CODE_RESERVED, c),
            SlotState::Committed(c) => (CODE_COMMITTED, c),
            SlotState::Padding(c) => (CODE_PADDING, c),
            SlotState::Abandoned(c) => (CODE_ABANDONED, c),
            SlotState::Acked(c) => (CODE_ACKED, c),
        };
        ((code as u64) << CODE_SHIFT)
            | ((c.lap as u64) << 48)
            | ((c.cells as u64) << 32)
            | c.pid as u64
    }

    /// Decodes a state word read from shared memory (untrusted).
    ///
    /// # Errors
    /// [`RecordDecodeError::BadCode`] for an unknown code,
    /// [`RecordDecodeError::ZeroCells`] for a claim of zero cells.
    pub const fn decode(w: u64) -> Result<SlotState, RecordDecodeError> {
        let code = (w >> CODE_SHIFT) as u8;
        if code == CODE_FREE {
            return Ok(SlotState::Free { pos: w & POS_MASK });
        }
        let c = Claim {
            pid: w as u32,
            cells: (w >> 32) as u16,
            lap: (w >> 48) as u8,
        };
        let s = match code {
            CODE_RESERVED => SlotState::Reserved(c),
            CODE_COMMITTED => SlotState::Committed(c),
            CODE_PADDING => SlotState::Padding(c),
            CODE_ABANDONED => SlotState::Abandoned(c),
            CODE_ACKED => SlotState::Acked(c),
            _ => return Err(RecordDecodeError::BadCode { code }),
        };
        if c.cells == 0 {
            return Err(RecordDecodeError::ZeroCells);
        }
        Ok(s)
    }
}

/// The meta word of a committed record: payload length in bits 31..0, the
/// caller's kind in 47..32, bits 63..48 reserved (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordMeta {
    /// Payload length in bytes.
    pub len: u32,
    /// The kind the producer passed to `try_push`.
    pub kind: u16,
}

impl RecordMeta {
    /// Encodes the meta word.
    pub const fn encode(self) -> u64 {
        ((self.kind as u64) << 32) | self.len as u64
    }

    /// Decodes a meta word read from shared memory (untrusted).
    ///
    /// # Errors
    /// [`RecordDecodeError::ReservedBits`] when bits 63..48 are not zero.
    pub const fn decode(w: u64) -> Result<RecordMeta, RecordDecodeError> {
        if w >> 48 != 0 {
            return Err(RecordDecodeError::ReservedBits);
        }
        Ok(RecordMeta {
            len: w as u32,
            kind: (w >> 32) as u16,
        })
    }
}

/// Cells a record with a `len`-byte payload takes (header included), or
/// `None` if that overflows.
pub const fn cells_for_payload(len: usize) -> Option<usize> {
    match len.checked_add(RECORD_HEADER_SIZE + CELL_SIZE - 1) {
        Some(v) => Some(v / CELL_SIZE),
        None => None,
    }
}

/// A decoded record header (see [`decode_record_header`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordHeader {
    /// The state word.
    pub state: SlotState,
    /// The meta word, for a committed record only (in every other state it
    /// may still hold an older record's bytes).
    pub meta: Option<RecordMeta>,
}

/// Why a record header read from shared memory was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordDecodeError {
    /// Fewer than [`RECORD_HEADER_SIZE`] bytes.
    Short {
        /// Bytes given.
        len: usize,
    },
    /// Unknown state code.
    BadCode {
        /// The code byte found.
        code: u8,
    },
    /// A claim of zero cells.
    ZeroCells,
    /// Reserved meta bits set.
    ReservedBits,
    /// The payload length does not fill exactly the claimed cells.
    LengthMismatch {
        /// Payload length found.
        len: u32,
        /// Cells claimed.
        cells: u16,
    },
}

impl std::fmt::Display for RecordDecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordDecodeError::Short { len } => {
                write!(
                    f,
                    "RecordDecodeError::Short: {len} bytes, need {RECORD_HEADER_SIZE}"
                )
            }
            RecordDecodeError::BadCode { code } => {
                write!(f, "RecordDecodeError::BadCode: state code {code:#04x}")
            }
            RecordDecodeError::ZeroCells => write!(f, "RecordDecodeError::ZeroCells"),
            RecordDecodeError::ReservedBits => write!(f, "RecordDecodeError::ReservedBits"),
            RecordDecodeError::LengthMismatch { len, cells } => write!(
                f,
                "RecordDecodeError::LengthMismatch: {len} payload bytes in {cells} cells"
            ),
        }
    }
}

impl std::error::Error for RecordDecodeError {}

/// Decodes a record header from untrusted bytes (native byte order, as two
/// processes on one node share it): the pure function behind the ring's
/// checks, for fuzzing. It never panics. Position-dependent checks (lap,
/// cells to the end of the ring) are the ring's.
///
/// # Errors
/// A [`RecordDecodeError`] saying what is wrong.
///
/// # Examples
/// ```
/// use pmix_shm::layout::{decode_record_header, Claim, RecordMeta, SlotState};
/// let claim = Claim { pid: 42, cells: 1, lap: 0 };
/// let mut bytes = [0u8; 16];
/// bytes[..8].copy_from_slice(&SlotState::Committed(claim).encode().to_ne_bytes());
/// bytes[8..].copy_from_slice(&RecordMeta { len: 40, kind: 7 }.encode().to_ne_bytes());
/// let h = decode_record_header(&bytes).unwrap();
/// assert_eq!(h.state, SlotState::Committed(claim));
/// assert_eq!(h.meta, Some(RecordMeta { len: 40, kind: 7 }));
/// assert!(decode_record_header(&bytes[..3]).is_err());
/// ```
pub fn decode_record_header(bytes: &[u8]) -> Result<RecordHeader, RecordDecodeError> {
    let (Some(s), Some(m)) = (bytes.get(0..8), bytes.get(8..16)) else {
        return Err(RecordDecodeError::Short { len: bytes.len() });
    };
    let mut sw = [0u8; 8];
    sw.copy_from_slice(s);
    let mut mw = [0u8; 8];
    mw.copy_from_slice(m);
    let state = SlotState::decode(u64::from_ne_bytes(sw))?;
    let meta = match state {
        SlotState::Committed(c) => {
            let meta = RecordMeta::decode(u64::from_ne_bytes(mw))?;
            if cells_for_payload(meta.len as usize) != Some(c.cells as usize) {
                return Err(RecordDecodeError::LengthMismatch {
                    len: meta.len,
                    cells: c.cells,
                });
            }
            Some(meta)
        }
        _ => None,
    };
    Ok(RecordHeader { state, meta })
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn magics_have_the_documented_values() {
        assert_eq!(SEGMENT_MAGIC, 0x314D_4853_5849_4D50);
        assert_eq!(RING_MAGIC, 0x4752_5850);
        assert_eq!(LAYOUT_VERSION, 2);
    }

    #[test]
    fn state_word_round_trips_every_state() {
        let c = Claim {
            pid: 0xDEAD_BEEF,
            cells: 513,
            lap: 0xA5,
        };
        for s in [
            SlotState::Reserved(c),
            SlotState::Committed(c),
            SlotState::Padding(c),
            SlotState::Abandoned(c),
            SlotState::Acked(c),
            SlotState::Free { pos: 12345 },
            SlotState::Free { pos: POS_MASK },
        ] {
            assert_eq!(SlotState::decode(s.encode()), Ok(s));
        }
        assert_eq!(
            SlotState::Committed(c).encode(),
            0x43A5_0201_DEAD_BEEF,
            "documented bit positions"
        );
    }

    #[test]
    fn free_stamp_masks_the_position_to_56_bits() {
        assert_eq!(SlotState::free(1 << 56), SlotState::free(0));
        assert_eq!(SlotState::free(7) >> 56, u64::from(b'F'));
    }

    #[test]
    fn zero_word_is_not_a_valid_state() {
        assert_eq!(
            SlotState::decode(0),
            Err(RecordDecodeError::BadCode { code: 0 })
        );
    }

    #[test]
    fn claim_of_zero_cells_is_rejected() {
        let w = SlotState::Committed(Claim {
            pid: 1,
            cells: 0,
            lap: 0,
        })
        .encode();
        assert_eq!(SlotState::decode(w), Err(RecordDecodeError::ZeroCells));
    }

    #[test]
    fn meta_with_reserved_bits_is_rejected() {
        assert_eq!(
            RecordMeta::decode(1 << 60),
            Err(RecordDecodeError::ReservedBits)
        );
        let m = RecordMeta {
            len: 100,
            kind: 0xFFFF,
        };
        assert_eq!(RecordMeta::decode(m.encode()), Ok(m));
    }

    #[test]
    fn cells_for_payload_counts_the_header() {
        assert_eq!(cells_for_payload(0), Some(1));
        assert_eq!(cells_for_payload(48), Some(1));
        assert_eq!(cells_for_payload(49), Some(2));
        assert_eq!(cells_for_payload(112), Some(2));
        assert_eq!(cells_for_payload(113), Some(3));
        assert_eq!(cells_for_payload(usize::MAX), None);
    }

    fn header_bytes(state: u64, meta: u64) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&state.to_ne_bytes());
        b[8..].copy_from_slice(&meta.to_ne_bytes());
        b
    }

    #[test]
    fn decode_rejects_a_length_that_does_not_fill_the_cells() {
        let c = Claim {
            pid: 9,
            cells: 2,
            lap: 0,
        };
        let b = header_bytes(
            SlotState::Committed(c).encode(),
            RecordMeta { len: 10, kind: 1 }.encode(),
        );
        assert_eq!(
            decode_record_header(&b),
            Err(RecordDecodeError::LengthMismatch { len: 10, cells: 2 })
        );
    }

    #[test]
    fn decode_ignores_meta_of_uncommitted_records() {
        let c = Claim {
            pid: 9,
            cells: 2,
            lap: 3,
        };
        let b = header_bytes(SlotState::Reserved(c).encode(), u64::MAX);
        assert_eq!(
            decode_record_header(&b),
            Ok(RecordHeader {
                state: SlotState::Reserved(c),
                meta: None
            })
        );
    }

    #[test]
    fn decode_never_panics_on_arbitrary_bytes() {
        // A cheap deterministic sweep; the fuzz target does the real work.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for n in 0..20_000usize {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut b = [0u8; 20];
            for (i, byte) in b.iter_mut().enumerate() {
                *byte = (x.rotate_left(i as u32 * 5) >> (i % 8)) as u8;
            }
            if n % 3 == 0 {
                b[7] = b"FRCPAK"[n % 6];
            }
            let _ = decode_record_header(&b[..n % 21]);
        }
    }

    #[test]
    fn round_up_aligns_and_detects_overflow() {
        assert_eq!(round_up(0, 128), Some(0));
        assert_eq!(round_up(1, 128), Some(128));
        assert_eq!(round_up(128, 128), Some(128));
        assert_eq!(round_up(usize::MAX, 128), None);
    }
}
