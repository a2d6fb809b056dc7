//! Finding a segment's regions and building structures in them:
//! [`Segment::init`] (the creator, before publication) and
//! [`Segment::attach`] (anyone, on a published segment), both through the
//! [`Region`](crate::region::Region) life cycle.

use super::layout::RegionInfo;
use super::Segment;
use crate::error::{InitError, OpenError, RegionError};
use crate::layout::RegionKind;
use crate::region::{self, Attach, Memory, Region};
use crate::sync::Ordering;

impl Segment {
    /// The directory index and entry of the region of `kind` and `id`.
    fn find(&self, kind: RegionKind, id: u32) -> Result<(usize, RegionInfo), RegionError> {
        self.regions
            .iter()
            .enumerate()
            .find(|(_, r)| r.kind == kind && r.id == id)
            .map(|(i, r)| (i, *r))
            .ok_or(RegionError::NotFound { kind, id })
    }

    /// The memory of the region of `kind` and `id` (bounds checked at
    /// create/open); it keeps the mapping alive.
    ///
    /// # Errors
    /// [`RegionError::NotFound`] if the directory has no such region.
    pub fn memory(&self, kind: RegionKind, id: u32) -> Result<Memory, RegionError> {
        let (_, info) = self.find(kind, id)?;
        debug_assert!(info.offset + info.len <= self.len);
        // SAFETY: offset + len <= the mapping's length (validated at
        // create/open), so the region lies inside the mapping, which the
        // owner keeps alive as long as any handle built on the memory.
        let memory = unsafe {
            let at = std::ptr::NonNull::new_unchecked(self.base.as_ptr().add(info.offset));
            Memory::from_raw(at, info.len, Some(self.owner()))
        };
        let (dev, ino) = self.map.file_id;
        Ok(memory
            .with_identity((dev, ino, info.offset))
            .with_wake_group(self.wake_group()))
    }

    /// Creator only, before [`publish`](Self::publish): writes a fresh `R`
    /// into the region of `kind` and `id` and returns its handle, which
    /// keeps the mapping alive.
    ///
    /// # Errors
    /// [`InitError`]: no such region, not the creator, already published,
    /// already initialised, or the structure refused the region
    /// (parameters, alignment, size).
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::layout::RegionKind;
    /// use pmix_shm::segment::{Segment, SegmentLayout};
    /// use pmix_shm::store::{StoreParams, StoreReader, StoreWriter};
    ///
    /// let p = StoreParams { buffer_count: 2, buffer_size: 4096, reader_slots: 4 };
    /// let layout = SegmentLayout::new().region_for::<StoreWriter>(RegionKind::JOB_STORE, 0, &p);
    /// let server = Segment::create(&layout).unwrap();
    /// let mut writer: StoreWriter = server.init(RegionKind::JOB_STORE, 0, &p).unwrap();
    /// server.publish();
    /// writer.update(|t| { t.insert("job", 0, "pmix.local.size", vec![2]); }).unwrap();
    ///
    /// let client = Segment::open(server.fd().try_clone_to_owned().unwrap()).unwrap();
    /// let reader: StoreReader = client.attach(RegionKind::JOB_STORE, 0).unwrap();
    /// assert_eq!(reader.get("job", 0, "pmix.local.size"), Some(vec![2]));
    /// ```
    pub fn init<R>(&self, kind: RegionKind, id: u32, params: &R::Params) -> Result<R, InitError>
    where
        R: Region + Attach<Region = R>,
    {
        self.init_region(kind, id, params, false)
    }

    /// Creator only, also after [`publish`](Self::publish): as
    /// [`init`](Self::init), for a region nothing has used yet. A region
    /// needed only later (a client slot's event ring and modex store, once
    /// the slot is first registered) then costs neither time nor memory at
    /// start-up: its pages are not touched before. Until this call
    /// publishes its magic, [`attach`](Self::attach) reports the region not
    /// ready; whoever learns of it afterwards through a Release/Acquire
    /// pair (a store publication, a socket message) attaches to it.
    ///
    /// # Errors
    /// As [`init`](Self::init), without `AlreadyPublished`.
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::layout::RegionKind;
    /// use pmix_shm::segment::{Segment, SegmentLayout};
    /// use pmix_shm::store::{StoreParams, StoreReader, StoreWriter};
    ///
    /// let p = StoreParams { buffer_count: 2, buffer_size: 4096, reader_slots: 4 };
    /// let layout = SegmentLayout::new().region_for::<StoreWriter>(RegionKind::MODEX, 3, &p);
    /// let server = Segment::create(&layout).unwrap();
    /// server.publish();
    /// let client = Segment::open(server.fd().try_clone_to_owned().unwrap()).unwrap();
    /// assert!(client.attach::<StoreReader>(RegionKind::MODEX, 3).is_err());
    /// let _w: StoreWriter = server.init_late(RegionKind::MODEX, 3, &p).unwrap();
    /// assert!(client.attach::<StoreReader>(RegionKind::MODEX, 3).is_ok());
    /// assert!(server.init_late::<StoreWriter>(RegionKind::MODEX, 3, &p).is_err());
    /// ```
    pub fn init_late<R>(
        &self,
        kind: RegionKind,
        id: u32,
        params: &R::Params,
    ) -> Result<R, InitError>
    where
        R: Region + Attach<Region = R>,
    {
        self.init_region(kind, id, params, true)
    }

    /// [`init`](Self::init) (`late`: false) and
    /// [`init_late`](Self::init_late).
    fn init_region<R>(
        &self,
        kind: RegionKind,
        id: u32,
        params: &R::Params,
        late: bool,
    ) -> Result<R, InitError>
    where
        R: Region + Attach<Region = R>,
    {
        let (i, _) = self.find(kind, id).map_err(InitError::Region)?;
        let Some(init_flags) = &self.initialised else {
            return Err(InitError::NotCreator);
        };
        let mut init_flags = init_flags.lock().unwrap_or_else(|e| e.into_inner());
        // ORDERING: Relaxed — a process-local flag (see `publish`).
        if !late && self.published.load(Ordering::Relaxed) {
            return Err(InitError::AlreadyPublished);
        }
        if init_flags[i] {
            return Err(InitError::AlreadyInitialized);
        }
        let mem = self.memory(kind, id).map_err(InitError::Region)?;
        // SAFETY: the region lies in our live mapping; this runs once per
        // region (checked under the lock above). No handle uses it as a
        // structure yet: none was built here, and `attach` refuses it
        // until `init_in` publishes its magic (other processes' writes are
        // never trusted, as everywhere in this crate).
        let handle = unsafe { region::init_in::<R>(mem, params) }?;
        init_flags[i] = true;
        Ok(handle)
    }

    /// Attaches an `A` to the region of `kind` and `id`, validating its
    /// header; the handle keeps the mapping alive.
    ///
    /// A [`StoreWriter`](crate::store::StoreWriter) attached here adopts
    /// the store (see its docs): inside this process the segment refuses a
    /// second live writer ([`OpenError::WriterExists`]); across processes
    /// the caller's protocol must guarantee that the previous writer has
    /// stopped publishing to it.
    ///
    /// # Errors
    /// [`OpenError`]: no such region, or the first failed check of its
    /// header (see [`region::attach`]), or the handle's own refusal.
    pub fn attach<A: Attach>(&self, kind: RegionKind, id: u32) -> Result<A, OpenError> {
        let mem = self.memory(kind, id).map_err(OpenError::Region)?;
        // SAFETY: the region lies in our live mapping, kept alive by the
        // memory's owner; `attach` validates what it reads. A store writer
        // is claimed in this process by its region's identity (set by
        // `memory`), so no other writer of it lives here; other processes
        // are bound by the protocol documented above, and as everywhere in
        // this crate their writes are atomic or inside the structures'
        // buffers, never trusted.
        unsafe { region::attach::<A>(mem) }
    }
}
