//! [`SlotRegions`]: each client slot's inbound event ring and modex store,
//! written into the segment when the slot is first registered rather than
//! at start-up.
//!
//! The segment reserves both regions for every slot (`max_clients`, 256 by
//! default: about 70 MB). Writing them all at start-up touched some 22 MB
//! of pages (every ring cell's state word, every store's reader slots),
//! most of a host's PMIx start-up time (`PMIx_server_init` inside Debian's
//! `mpirun`). A slot's regions are now initialised
//! ([`Segment::init_late`]) by the registration that first takes the slot,
//! before the slot number is published to anyone (the job store's `SLOT`
//! key, the handshake reply): whoever attaches to them learns of the slot
//! after their magic words were published. A freed slot keeps its regions
//! for its next occupant (its ring drained, its store cleared, as before).

use std::sync::OnceLock;

use pmix_core::{Error, Result, Status};
use pmix_shm::layout::RegionKind;
use pmix_shm::ring::{Ring, RingParams};
use pmix_shm::segment::Segment;
use pmix_shm::store::{StoreParams, StoreWriter};

/// The slots' rings (producer side) once initialised, and what
/// initialising a slot needs.
pub(crate) struct SlotRegions {
    rings: Vec<OnceLock<Ring>>,
    modex: StoreParams,
    ring: RingParams,
}

impl SlotRegions {
    /// `slots` slots, none initialised.
    pub(crate) fn new(slots: u32, modex: StoreParams, ring: RingParams) -> Self {
        Self {
            rings: (0..slots).map(|_| OnceLock::new()).collect(),
            modex,
            ring,
        }
    }

    /// The ring of `slot`, once the slot was ever registered.
    pub(crate) fn get(&self, slot: usize) -> Option<&Ring> {
        self.rings.get(slot)?.get()
    }

    /// Initialises the modex store and the event ring of `slot` in
    /// `segment` unless done before. Called under the server's state lock
    /// (registrations are serialised), so a slot is initialised once.
    ///
    /// # Errors
    /// `PMIX_ERR_INIT` when the segment refuses (a slot it does not have,
    /// or regions that do not fit: not expected after `Server::init`).
    pub(crate) fn ensure(&self, segment: &Segment, slot: u32) -> Result<()> {
        let Some(cell) = self.rings.get(slot as usize) else {
            return Err(Error::bad_param(format!("no client slot {slot}")));
        };
        if cell.get().is_some() {
            return Ok(());
        }
        let err = |what: &str, e: &dyn std::fmt::Display| {
            Error::with_context(Status::ERR_INIT, format!("slot {slot}: {what}: {e}"))
        };
        segment
            .init_late::<StoreWriter>(RegionKind::MODEX, slot, &self.modex)
            .map_err(|e| err("modex store", &e))?;
        let ring = segment
            .init_late::<Ring>(RegionKind::CLIENT_RING, slot, &self.ring)
            .map_err(|e| err("event ring", &e))?;
        let _ = cell.set(ring);
        Ok(())
    }
}
