//! [`TableBuilder`]: the writer-side model of one table version (interned
//! names plus entries), and its encoder into the image format of
//! [`format`](super::format).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use super::format::{slots_for, Counts, Encoder, Sections};
use crate::error::into_core_error;

/// An image would not fit: `needed` bytes, `capacity` available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreFull {
    /// Bytes the image needs.
    pub needed: usize,
    /// Bytes of one table buffer.
    pub capacity: usize,
}

impl fmt::Display for StoreFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "job-data table needs {} bytes, a buffer holds {}",
            self.needed, self.capacity
        )
    }
}

impl std::error::Error for StoreFull {}

impl StoreFull {
    /// `PMIX_ERR_OUT_OF_RESOURCE`.
    pub fn status(&self) -> pmix_core::Status {
        pmix_core::Status::ERR_OUT_OF_RESOURCE
    }
}

into_core_error!(StoreFull);

/// [`TableBuilder::with_fixed_keys`] was given the same key twice, so the
/// ids after it could not be the list positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateName {
    /// The repeated name.
    pub name: String,
}

impl fmt::Display for DuplicateName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "name {:?} listed twice", self.name)
    }
}

impl std::error::Error for DuplicateName {}

/// Strings to dense ids `0..n`, in first-interned order. Ids never change.
#[derive(Clone, Debug, Default)]
struct Interner {
    names: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
}

impl Interner {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = u32::try_from(self.names.len()).expect("fewer than 2^32 names");
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    fn get(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }
}

/// One table version under construction: namespaces and keys interned to
/// ids, and `(nspace id, rank, key id) → value bytes` entries.
///
/// Ids are stable for the life of a builder and of its clones (the
/// [`StoreWriter`](super::StoreWriter) hands out clones of the last
/// published table), so a reader may cache them across generations.
///
/// # Examples
///
/// ```
/// use pmix_shm::store::TableBuilder;
/// let mut b = TableBuilder::with_fixed_keys(&["pmix.rank", "pmix.size"]).unwrap();
/// assert_eq!(b.key_id("pmix.size"), Some(1));
/// b.insert("job-1", 0, "pmix.size", 4u32.to_le_bytes().to_vec());
/// assert_eq!(b.get("job-1", 0, "pmix.size"), Some(&4u32.to_le_bytes()[..]));
/// assert_eq!(b.len(), 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct TableBuilder {
    nspaces: Interner,
    keys: Interner,
    entries: BTreeMap<(u32, u32, u32), Vec<u8>>,
}

impl TableBuilder {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table whose keys `keys[i]` have the fixed ids `i` (the
    /// standard keys, so that every process agrees on them).
    ///
    /// # Errors
    ///
    /// [`DuplicateName`] if a key is listed twice.
    pub fn with_fixed_keys(keys: &[&str]) -> Result<Self, DuplicateName> {
        let mut b = Self::new();
        for (i, key) in keys.iter().enumerate() {
            if b.keys.intern(key) as usize != i {
                return Err(DuplicateName {
                    name: (*key).to_owned(),
                });
            }
        }
        Ok(b)
    }

    /// Interns `keys` in order (ids for new names are consecutive, names
    /// already known keep theirs) and returns their ids.
    pub fn intern_keys<'k>(&mut self, keys: impl IntoIterator<Item = &'k str>) -> Vec<u32> {
        keys.into_iter().map(|k| self.keys.intern(k)).collect()
    }

    /// The id of `key`, interning it if new.
    pub fn intern_key(&mut self, key: &str) -> u32 {
        self.keys.intern(key)
    }

    /// The id of namespace `nspace`, interning it if new.
    pub fn intern_nspace(&mut self, nspace: &str) -> u32 {
        self.nspaces.intern(nspace)
    }

    /// The id of `key`, if interned.
    pub fn key_id(&self, key: &str) -> Option<u32> {
        self.keys.get(key)
    }

    /// The id of namespace `nspace`, if interned.
    pub fn nspace_id(&self, nspace: &str) -> Option<u32> {
        self.nspaces.get(nspace)
    }

    /// Sets `value` for `(nspace, rank, key)`; returns the previous value.
    pub fn insert(
        &mut self,
        nspace: &str,
        rank: u32,
        key: &str,
        value: impl Into<Vec<u8>>,
    ) -> Option<Vec<u8>> {
        let id = (self.nspaces.intern(nspace), rank, self.keys.intern(key));
        self.entries.insert(id, value.into())
    }

    /// The value of `(nspace, rank, key)`.
    pub fn get(&self, nspace: &str, rank: u32, key: &str) -> Option<&[u8]> {
        let id = (self.nspaces.get(nspace)?, rank, self.keys.get(key)?);
        self.entries.get(&id).map(Vec::as_slice)
    }

    /// `(key, value)` of every entry of `rank` in `nspace`, in key id order.
    pub fn entries_of<'a>(
        &'a self,
        nspace: &str,
        rank: u32,
    ) -> impl Iterator<Item = (&'a str, &'a [u8])> + 'a {
        let ns = self.nspaces.get(nspace);
        let range = ns.map(|n| (n, rank, 0)..=(n, rank, u32::MAX));
        range
            .into_iter()
            .flat_map(move |r| self.entries.range(r))
            .map(|((_, _, k), v)| (&*self.keys.names[*k as usize], v.as_slice()))
    }

    /// Removes `(nspace, rank, key)`; returns its value. Names stay interned.
    pub fn remove(&mut self, nspace: &str, rank: u32, key: &str) -> Option<Vec<u8>> {
        let id = (self.nspaces.get(nspace)?, rank, self.keys.get(key)?);
        self.entries.remove(&id)
    }

    /// Removes every entry of namespace `nspace` (a job that ended); returns
    /// how many. The name stays interned, so its id is not reused.
    pub fn remove_nspace(&mut self, nspace: &str) -> usize {
        let Some(ns) = self.nspaces.get(nspace) else {
            return 0;
        };
        let before = self.entries.len();
        self.entries.retain(|(n, _, _), _| *n != ns);
        before - self.entries.len()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Counts and sections of this table's image, with the blob offsets of
    /// every value (8-aligned) and name. `None` if the image would exceed
    /// the format's 32-bit offsets.
    fn plan(&self) -> Option<(Counts, Sections, Vec<u32>, u32)> {
        let mut value_offs = Vec::with_capacity(self.entries.len());
        let mut blob = 0usize;
        for v in self.entries.values() {
            value_offs.push(u32::try_from(blob).ok()?);
            blob = blob.checked_add(v.len())?.checked_add(7)? & !7;
        }
        let names_off = u32::try_from(blob).ok()?;
        for name in self.nspaces.names.iter().chain(&self.keys.names) {
            blob = blob.checked_add(name.len())?;
        }
        let counts = Counts {
            entry_count: u32::try_from(self.entries.len()).ok()?,
            index_slots: slots_for(self.entries.len())?,
            nspace_count: u32::try_from(self.nspaces.names.len()).ok()?,
            nspace_slots: slots_for(self.nspaces.names.len())?,
            key_count: u32::try_from(self.keys.names.len()).ok()?,
            key_slots: slots_for(self.keys.names.len())?,
            blob_len: u32::try_from(blob).ok()?,
        };
        let sections = Sections::compute(&counts)?;
        u32::try_from(sections.end).ok()?;
        Some((counts, sections, value_offs, names_off))
    }

    /// Bytes of this table's image (`usize::MAX` if it cannot be encoded at
    /// all).
    pub fn encoded_len(&self) -> usize {
        self.plan().map_or(usize::MAX, |(_, s, _, _)| s.end)
    }

    /// Encodes the image, stamped with `generation`, into the start of
    /// `out`; returns its length. Every byte of the image is written.
    ///
    /// # Errors
    ///
    /// [`StoreFull`] if `out` is shorter than [`encoded_len`](Self::encoded_len).
    pub fn encode_into(&self, generation: u64, out: &mut [u8]) -> Result<usize, StoreFull> {
        let full = StoreFull {
            needed: self.encoded_len(),
            capacity: out.len(),
        };
        let (counts, sections, value_offs, names_off) = self.plan().ok_or(full)?;
        let out = out.get_mut(..sections.end).ok_or(full)?;
        let mut enc = Encoder {
            out,
            sections,
            counts,
        };
        enc.header(generation);
        for (i, ((key, value), off)) in self.entries.iter().zip(&value_offs).enumerate() {
            enc.entry(i as u32, *key, *off, value);
        }
        let mut at = names_off;
        for (keys, interner) in [(false, &self.nspaces), (true, &self.keys)] {
            for (id, name) in interner.names.iter().enumerate() {
                enc.name(keys, id as u32, at, name.as_bytes());
                at += name.len() as u32;
            }
        }
        Ok(sections.end)
    }

    /// The image as a new vector (tests, tools, fuzz corpora).
    ///
    /// # Panics
    ///
    /// Panics if the table exceeds the format's 32-bit offsets (4 GiB).
    pub fn encode(&self, generation: u64) -> Vec<u8> {
        let mut out = vec![0; self.encoded_len()];
        self.encode_into(generation, &mut out)
            .expect("table fits the format");
        out
    }
}
