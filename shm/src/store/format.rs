//! The table image: the bytes of one published job-data table, and its
//! decoder for untrusted input.
//!
//! Pure code (no atomics, no unsafe): [`TableImage::parse`] checks the header
//! and section bounds in O(1); every accessor then bounds-checks each offset
//! and length it reads, so a garbage image yields `None`/errors, never a
//! panic. [`decode_table`] additionally checks every entry, name and index
//! slot (O(n)); it is what a fuzz target calls.
//!
//! Layout (all integers little-endian; offsets are from the image start;
//! byte-level tables in `docs/SHM-LAYOUT-STORE.md`):
//!
//! ```text
//! header      64 B
//! entries     entry_count × 24 B, sorted by (nspace id, rank, key id)
//! index       index_slots × u32  (0 = empty, else entry number + 1)
//! nspaces     nspace_count × 8 B name records   (8-aligned start)
//! ns index    nspace_slots × u32 (0 = empty, else nspace id + 1)
//! keys        key_count × 8 B name records      (8-aligned start)
//! key index   key_slots × u32    (0 = empty, else key id + 1)
//! blob        blob_len bytes: values (each 8-aligned), then names (8-aligned start)
//! ```

use std::fmt;

/// `"PTBL"`: first word of a table image.
pub const TABLE_MAGIC: u32 = u32::from_le_bytes(*b"PTBL");
/// The table format version this build writes and reads.
pub const TABLE_FORMAT_VERSION: u32 = 1;
/// Bytes of the table header.
pub const TABLE_HEADER_SIZE: usize = 64;
/// Bytes of one entry record.
pub const ENTRY_SIZE: usize = 24;
/// Bytes of one name record.
pub const NAME_RECORD_SIZE: usize = 8;
/// Bytes of one index slot.
pub const SLOT_SIZE: usize = 4;

/// Why a table image was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableError {
    /// Fewer bytes than a header, or than the header's `image_len`.
    TooShort,
    /// The first word is not [`TABLE_MAGIC`].
    BadMagic,
    /// The format version is not [`TABLE_FORMAT_VERSION`].
    UnsupportedVersion {
        /// The version found.
        found: u32,
    },
    /// Counts, slot counts and lengths do not add up to `image_len`, or a
    /// slot count is not a power of two at least its count.
    BadLayout,
    /// The image's generation is not the one its publication word names.
    GenerationMismatch {
        /// Generation in the image.
        found: u64,
        /// Generation in the publication word.
        expected: u64,
    },
    /// Entry `index` names an unknown id, lies out of order, or its value is
    /// outside the blob.
    BadEntry {
        /// Entry number.
        index: u32,
    },
    /// Name `id` (of nspaces, or of keys) is outside the blob, not UTF-8, or
    /// a duplicate.
    BadName {
        /// Name id.
        id: u32,
    },
    /// An index slot points outside its table or does not find its record.
    BadIndex {
        /// Slot number.
        slot: u32,
    },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooShort => f.write_str("table image too short"),
            Self::BadMagic => f.write_str("bad table magic"),
            Self::UnsupportedVersion { found } => write!(
                f,
                "table format version {found}, expected {TABLE_FORMAT_VERSION}"
            ),
            Self::BadLayout => f.write_str("table sections do not add up"),
            Self::GenerationMismatch { found, expected } => {
                write!(f, "table generation {found}, expected {expected}")
            }
            Self::BadEntry { index } => write!(f, "bad table entry {index}"),
            Self::BadName { id } => write!(f, "bad table name {id}"),
            Self::BadIndex { slot } => write!(f, "bad table index slot {slot}"),
        }
    }
}

impl std::error::Error for TableError {}

// ---------------------------------------------------------------------------
// Hashing (part of the format: a C reader must compute the same).

/// FNV-1a, 64 bits, over `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// First probe slot of `hash` in a table of `slots` (a power of two).
fn first_slot(hash: u64, slots: u32) -> u32 {
    ((hash ^ (hash >> 32)) as u32) & (slots.wrapping_sub(1))
}

/// Hash of an entry key: FNV-1a over the 12 little-endian bytes of
/// `(nspace id, rank, key id)`.
pub fn entry_hash(nspace: u32, rank: u32, key: u32) -> u64 {
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&nspace.to_le_bytes());
    b[4..8].copy_from_slice(&rank.to_le_bytes());
    b[8..].copy_from_slice(&key.to_le_bytes());
    fnv1a64(&b)
}

// ---------------------------------------------------------------------------
// Sections.

/// The counts in a table header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) entry_count: u32,
    pub(crate) index_slots: u32,
    pub(crate) nspace_count: u32,
    pub(crate) nspace_slots: u32,
    pub(crate) key_count: u32,
    pub(crate) key_slots: u32,
    pub(crate) blob_len: u32,
}

/// Section offsets, derived from the counts alone (never stored), so a
/// reader trusts nothing but the counts, and checks those.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sections {
    pub(crate) entries: usize,
    pub(crate) index: usize,
    pub(crate) nspaces: usize,
    pub(crate) nspace_index: usize,
    pub(crate) keys: usize,
    pub(crate) key_index: usize,
    pub(crate) blob: usize,
    pub(crate) end: usize,
}

fn align8(n: usize) -> Option<usize> {
    n.checked_add(7).map(|n| n & !7)
}

impl Sections {
    /// Offsets for `c`, or `None` if they overflow.
    pub(crate) fn compute(c: &Counts) -> Option<Self> {
        let mul = |n: u32, size: usize| (n as usize).checked_mul(size);
        let entries = TABLE_HEADER_SIZE;
        let index = entries.checked_add(mul(c.entry_count, ENTRY_SIZE)?)?;
        let nspaces = align8(index.checked_add(mul(c.index_slots, SLOT_SIZE)?)?)?;
        let nspace_index = nspaces.checked_add(mul(c.nspace_count, NAME_RECORD_SIZE)?)?;
        let keys = align8(nspace_index.checked_add(mul(c.nspace_slots, SLOT_SIZE)?)?)?;
        let key_index = keys.checked_add(mul(c.key_count, NAME_RECORD_SIZE)?)?;
        let blob = align8(key_index.checked_add(mul(c.key_slots, SLOT_SIZE)?)?)?;
        let end = blob.checked_add(c.blob_len as usize)?;
        Some(Self {
            entries,
            index,
            nspaces,
            nspace_index,
            keys,
            key_index,
            blob,
            end,
        })
    }
}

/// Slot count the encoder uses for `count` records: a power of two at least
/// twice the count (load factor ≤ 1/2), and at least 1.
pub(crate) fn slots_for(count: usize) -> Option<u32> {
    let slots = count.checked_mul(2)?.max(1).checked_next_power_of_two()?;
    u32::try_from(slots).ok()
}

fn valid_slots(slots: u32, count: u32) -> bool {
    slots.is_power_of_two() && slots >= count
}

// ---------------------------------------------------------------------------
// The decoder.

/// Which name table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Names {
    Nspaces,
    Keys,
}

/// One entry record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryRef<'a> {
    /// Namespace id.
    pub nspace: u32,
    /// Rank.
    pub rank: u32,
    /// Key id.
    pub key: u32,
    /// The value bytes.
    pub value: &'a [u8],
}

/// A parsed (header- and bounds-checked) table image. Cheap to copy; every
/// lookup re-checks what it reads.
#[derive(Clone, Copy)]
pub struct TableImage<'a> {
    bytes: &'a [u8],
    generation: u64,
    counts: Counts,
    sections: Sections,
}

impl fmt::Debug for TableImage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableImage")
            .field("generation", &self.generation)
            .field("entries", &self.counts.entry_count)
            .field("nspaces", &self.counts.nspace_count)
            .field("keys", &self.counts.key_count)
            .field("len", &self.bytes.len())
            .finish()
    }
}

fn read_u32(bytes: &[u8], offset: usize) -> Option<u32> {
    let b = bytes.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes(b.try_into().ok()?))
}

fn read_u64(bytes: &[u8], offset: usize) -> Option<u64> {
    let b = bytes.get(offset..offset.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

impl<'a> TableImage<'a> {
    /// Checks the header and that the sections fit: O(1). `bytes` may be
    /// longer than the image (a whole buffer).
    ///
    /// # Errors
    ///
    /// [`TableError`] for a short, foreign, newer or inconsistent header.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::store::{TableBuilder, TableImage};
    /// let mut b = TableBuilder::new();
    /// b.insert("job", 0, "pmix.lrank", vec![1, 2]);
    /// let bytes = b.encode(7);
    /// let t = TableImage::parse(&bytes).unwrap();
    /// assert_eq!((t.generation(), t.get("job", 0, "pmix.lrank")), (7, Some(&[1u8, 2][..])));
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<Self, TableError> {
        let field = |off| read_u32(bytes, off).ok_or(TableError::TooShort);
        if bytes.len() < TABLE_HEADER_SIZE {
            return Err(TableError::TooShort);
        }
        if field(0)? != TABLE_MAGIC {
            return Err(TableError::BadMagic);
        }
        let version = field(4)?;
        if version != TABLE_FORMAT_VERSION {
            return Err(TableError::UnsupportedVersion { found: version });
        }
        let generation = read_u64(bytes, 8).ok_or(TableError::TooShort)?;
        let image_len = field(16)? as usize;
        let counts = Counts {
            entry_count: field(20)?,
            index_slots: field(24)?,
            nspace_count: field(28)?,
            nspace_slots: field(32)?,
            key_count: field(36)?,
            key_slots: field(40)?,
            blob_len: field(44)?,
        };
        if image_len > bytes.len() {
            return Err(TableError::TooShort);
        }
        let sections = Sections::compute(&counts).ok_or(TableError::BadLayout)?;
        if sections.end != image_len
            || !valid_slots(counts.index_slots, counts.entry_count)
            || !valid_slots(counts.nspace_slots, counts.nspace_count)
            || !valid_slots(counts.key_slots, counts.key_count)
        {
            return Err(TableError::BadLayout);
        }
        Ok(Self {
            bytes: &bytes[..image_len],
            generation,
            counts,
            sections,
        })
    }

    /// The publication generation written in the image.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.counts.entry_count as usize
    }

    /// Whether the table has no entry.
    pub fn is_empty(&self) -> bool {
        self.counts.entry_count == 0
    }

    /// Number of interned namespaces (ids `0..n`).
    pub fn nspace_count(&self) -> u32 {
        self.counts.nspace_count
    }

    /// Number of interned keys (ids `0..n`).
    pub fn key_count(&self) -> u32 {
        self.counts.key_count
    }

    /// The image's bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    fn blob_range(&self, offset: u32, len: u32) -> Option<&'a [u8]> {
        let start = self.sections.blob.checked_add(offset as usize)?;
        let end = start.checked_add(len as usize)?;
        if end > self.sections.end {
            return None;
        }
        self.bytes.get(start..end)
    }

    fn slot(&self, base: usize, slot: u32) -> Option<u32> {
        read_u32(self.bytes, base.checked_add(slot as usize * SLOT_SIZE)?)
    }

    fn name_bytes(&self, names: Names, id: u32) -> Option<&'a [u8]> {
        let (count, base) = match names {
            Names::Nspaces => (self.counts.nspace_count, self.sections.nspaces),
            Names::Keys => (self.counts.key_count, self.sections.keys),
        };
        if id >= count {
            return None;
        }
        let rec = base.checked_add(id as usize * NAME_RECORD_SIZE)?;
        let off = read_u32(self.bytes, rec)?;
        let len = read_u32(self.bytes, rec + 4)?;
        self.blob_range(off, len)
    }

    fn lookup_name(&self, names: Names, name: &[u8]) -> Option<u32> {
        let (slots, base) = match names {
            Names::Nspaces => (self.counts.nspace_slots, self.sections.nspace_index),
            Names::Keys => (self.counts.key_slots, self.sections.key_index),
        };
        let start = first_slot(fnv1a64(name), slots);
        for probe in 0..slots {
            let v = self.slot(base, (start.wrapping_add(probe)) & (slots - 1))?;
            let id = v.checked_sub(1)?;
            if self.name_bytes(names, id) == Some(name) {
                return Some(id);
            }
        }
        None
    }

    fn name_str(&self, names: Names, id: u32) -> Option<&'a str> {
        std::str::from_utf8(self.name_bytes(names, id)?).ok()
    }

    /// The id of namespace `name`, if interned.
    pub fn nspace_id(&self, name: &str) -> Option<u32> {
        self.lookup_name(Names::Nspaces, name.as_bytes())
    }

    /// The id of key `name`, if interned.
    pub fn key_id(&self, name: &str) -> Option<u32> {
        self.lookup_name(Names::Keys, name.as_bytes())
    }

    /// The name of namespace `id`.
    pub fn nspace_name(&self, id: u32) -> Option<&'a str> {
        self.name_str(Names::Nspaces, id)
    }

    /// The name of key `id`.
    pub fn key_name(&self, id: u32) -> Option<&'a str> {
        self.name_str(Names::Keys, id)
    }

    /// Entry number `index`, bounds-checked.
    pub fn entry(&self, index: u32) -> Option<EntryRef<'a>> {
        if index >= self.counts.entry_count {
            return None;
        }
        let rec = self.sections.entries + index as usize * ENTRY_SIZE;
        let value_off = read_u32(self.bytes, rec + 16)?;
        let value_len = read_u32(self.bytes, rec + 20)?;
        Some(EntryRef {
            nspace: read_u32(self.bytes, rec)?,
            rank: read_u32(self.bytes, rec + 4)?,
            key: read_u32(self.bytes, rec + 8)?,
            value: self.blob_range(value_off, value_len)?,
        })
    }

    fn entry_key(&self, index: u32) -> Option<(u32, u32, u32)> {
        let rec = self.sections.entries + index as usize * ENTRY_SIZE;
        Some((
            read_u32(self.bytes, rec)?,
            read_u32(self.bytes, rec + 4)?,
            read_u32(self.bytes, rec + 8)?,
        ))
    }

    /// The value of `(nspace id, rank, key id)`.
    pub fn get_by_id(&self, nspace: u32, rank: u32, key: u32) -> Option<&'a [u8]> {
        let slots = self.counts.index_slots;
        let start = first_slot(entry_hash(nspace, rank, key), slots);
        for probe in 0..slots {
            let v = self.slot(self.sections.index, start.wrapping_add(probe) & (slots - 1))?;
            let index = v.checked_sub(1)?;
            if index >= self.counts.entry_count {
                return None;
            }
            if self.entry_key(index)? == (nspace, rank, key) {
                return self.entry(index).map(|e| e.value);
            }
        }
        None
    }

    /// The value of key `key` of `rank` in namespace `nspace`.
    pub fn get(&self, nspace: &str, rank: u32, key: &str) -> Option<&'a [u8]> {
        self.get_by_id(self.nspace_id(nspace)?, rank, self.key_id(key)?)
    }

    /// Entries of `(nspace id, rank)`, in key id order (the entries are
    /// sorted; a binary search finds the first).
    pub fn entries_of(&self, nspace: u32, rank: u32) -> impl Iterator<Item = EntryRef<'a>> + 'a {
        let this = *self;
        let (mut lo, mut hi) = (0u32, self.counts.entry_count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match this.entry_key(mid) {
                Some((n, r, _)) if (n, r) < (nspace, rank) => lo = mid + 1,
                _ => hi = mid,
            }
        }
        (lo..self.counts.entry_count)
            .map_while(move |i| this.entry_key(i).map(|k| (i, k)))
            .take_while(move |(_, (n, r, _))| (*n, *r) == (nspace, rank))
            .filter_map(move |(i, _)| this.entry(i))
    }

    /// `(key, value)` of every entry of `rank` in `nspace`, in key id order.
    /// Entries whose key name is not valid UTF-8 are skipped.
    pub fn keys_for(
        &self,
        nspace: &str,
        rank: u32,
    ) -> impl Iterator<Item = (&'a str, &'a [u8])> + 'a {
        let this = *self;
        let ns = self.nspace_id(nspace);
        ns.into_iter()
            .flat_map(move |ns| this.entries_of(ns, rank))
            .filter_map(move |e| Some((this.key_name(e.key)?, e.value)))
    }

    /// Every entry in order; entries with an out-of-bounds value are
    /// skipped (see [`validate`](Self::validate) to reject them instead).
    pub fn entries(&self) -> impl Iterator<Item = EntryRef<'a>> + 'a {
        let this = *self;
        (0..self.counts.entry_count).filter_map(move |i| this.entry(i))
    }

    /// Full O(n) check: every entry in bounds, with known ids, strictly
    /// sorted and reachable through the index; every name in bounds, UTF-8,
    /// unique and reachable; every index slot in range.
    ///
    /// # Errors
    ///
    /// The first [`TableError`] found.
    pub fn validate(&self) -> Result<(), TableError> {
        for names in [Names::Nspaces, Names::Keys] {
            let count = match names {
                Names::Nspaces => self.counts.nspace_count,
                Names::Keys => self.counts.key_count,
            };
            for id in 0..count {
                let name = self.name_str(names, id).ok_or(TableError::BadName { id })?;
                if self.lookup_name(names, name.as_bytes()) != Some(id) {
                    return Err(TableError::BadName { id });
                }
            }
            let (slots, base) = match names {
                Names::Nspaces => (self.counts.nspace_slots, self.sections.nspace_index),
                Names::Keys => (self.counts.key_slots, self.sections.key_index),
            };
            self.check_index(slots, base, count)?;
        }
        let mut previous = None;
        for index in 0..self.counts.entry_count {
            let bad = TableError::BadEntry { index };
            let e = self.entry(index).ok_or(bad)?;
            let rec = self.sections.entries + index as usize * ENTRY_SIZE;
            let key = (e.nspace, e.rank, e.key);
            if e.nspace >= self.counts.nspace_count
                || e.key >= self.counts.key_count
                || read_u32(self.bytes, rec + 12) != Some(0)
                || previous.is_some_and(|p| p >= key)
                || self.get_by_id(e.nspace, e.rank, e.key).map(<[u8]>::as_ptr)
                    != Some(e.value.as_ptr())
            {
                return Err(bad);
            }
            previous = Some(key);
        }
        self.check_index(
            self.counts.index_slots,
            self.sections.index,
            self.counts.entry_count,
        )
    }

    fn check_index(&self, slots: u32, base: usize, count: u32) -> Result<(), TableError> {
        for slot in 0..slots {
            let v = self.slot(base, slot).ok_or(TableError::BadIndex { slot })?;
            if v > count {
                return Err(TableError::BadIndex { slot });
            }
        }
        Ok(())
    }
}

/// Decodes and fully validates a table image from untrusted bytes: the
/// entry point for fuzzing, and for tools that inspect a segment.
///
/// # Errors
///
/// [`TableError`] if the image is malformed anywhere.
///
/// # Examples
///
/// ```
/// use pmix_shm::store::{decode_table, TableBuilder, TableError};
/// let mut b = TableBuilder::new();
/// b.insert("job", 3, "k", b"v".to_vec());
/// let mut bytes = b.encode(1);
/// assert_eq!(decode_table(&bytes).unwrap().get("job", 3, "k"), Some(&b"v"[..]));
/// bytes[0] ^= 1;
/// assert_eq!(decode_table(&bytes).unwrap_err(), TableError::BadMagic);
/// ```
pub fn decode_table(bytes: &[u8]) -> Result<TableImage<'_>, TableError> {
    let image = TableImage::parse(bytes)?;
    image.validate()?;
    Ok(image)
}

/// Writes an image: used by the builder. `out` must be exactly
/// `sections.end` bytes; every byte is written (the buffer is reused).
pub(crate) struct Encoder<'o> {
    pub(crate) out: &'o mut [u8],
    pub(crate) sections: Sections,
    pub(crate) counts: Counts,
}

impl Encoder<'_> {
    fn put_u32(&mut self, offset: usize, v: u32) {
        self.out[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn header(&mut self, generation: u64) {
        self.out.fill(0);
        let c = self.counts;
        self.put_u32(0, TABLE_MAGIC);
        self.put_u32(4, TABLE_FORMAT_VERSION);
        self.out[8..16].copy_from_slice(&generation.to_le_bytes());
        self.put_u32(16, self.sections.end as u32);
        for (i, v) in [
            c.entry_count,
            c.index_slots,
            c.nspace_count,
            c.nspace_slots,
            c.key_count,
            c.key_slots,
            c.blob_len,
        ]
        .into_iter()
        .enumerate()
        {
            self.put_u32(20 + 4 * i, v);
        }
    }

    /// Entry `index` (already sorted) with its value at `value_off` in the
    /// blob; also inserts it into the entry index.
    pub(crate) fn entry(&mut self, index: u32, key: (u32, u32, u32), value_off: u32, value: &[u8]) {
        let rec = self.sections.entries + index as usize * ENTRY_SIZE;
        self.put_u32(rec, key.0);
        self.put_u32(rec + 4, key.1);
        self.put_u32(rec + 8, key.2);
        self.put_u32(rec + 16, value_off);
        self.put_u32(rec + 20, value.len() as u32);
        let at = self.sections.blob + value_off as usize;
        self.out[at..at + value.len()].copy_from_slice(value);
        let hash = entry_hash(key.0, key.1, key.2);
        self.index_insert(self.sections.index, self.counts.index_slots, hash, index);
    }

    /// Name `id` of the nspace (`keys == false`) or key table, stored at
    /// `name_off` in the blob.
    pub(crate) fn name(&mut self, keys: bool, id: u32, name_off: u32, name: &[u8]) {
        let (records, index, slots) = if keys {
            (
                self.sections.keys,
                self.sections.key_index,
                self.counts.key_slots,
            )
        } else {
            (
                self.sections.nspaces,
                self.sections.nspace_index,
                self.counts.nspace_slots,
            )
        };
        let rec = records + id as usize * NAME_RECORD_SIZE;
        self.put_u32(rec, name_off);
        self.put_u32(rec + 4, name.len() as u32);
        let at = self.sections.blob + name_off as usize;
        self.out[at..at + name.len()].copy_from_slice(name);
        self.index_insert(index, slots, fnv1a64(name), id);
    }

    fn index_insert(&mut self, base: usize, slots: u32, hash: u64, number: u32) {
        let start = first_slot(hash, slots);
        for probe in 0..slots {
            let slot = start.wrapping_add(probe) & (slots - 1);
            let at = base + slot as usize * SLOT_SIZE;
            if self.out[at..at + 4] == [0; 4] {
                self.put_u32(at, number + 1);
                return;
            }
        }
        unreachable!("index has at least twice as many slots as records");
    }
}
