//! One writer per store in this process: the stores that have a live
//! [`StoreWriter`](super::StoreWriter) built on a segment region, keyed by
//! the region's identity (the memfd's `(st_dev, st_ino)` and the region's
//! offset), so the rule holds across every mapping of the same memfd.
//! Other processes are bound by the protocol that hands a store over.

use std::sync::Mutex;

use crate::region::RegionId;

/// The regions with a live writer in this process.
static STORE_WRITERS: Mutex<Vec<RegionId>> = Mutex::new(Vec::new());

/// One entry of [`STORE_WRITERS`], removed when the writer holding it drops.
#[derive(Debug)]
pub(crate) struct WriterClaim {
    key: RegionId,
}

impl WriterClaim {
    /// Claims `key`, unless a live writer already holds it.
    pub(crate) fn claim(key: RegionId) -> Option<Self> {
        let mut held = STORE_WRITERS.lock().unwrap_or_else(|e| e.into_inner());
        if held.contains(&key) {
            return None;
        }
        held.push(key);
        Some(WriterClaim { key })
    }
}

impl Drop for WriterClaim {
    fn drop(&mut self) {
        let mut held = STORE_WRITERS.lock().unwrap_or_else(|e| e.into_inner());
        held.retain(|k| *k != self.key);
    }
}
