//! Named shorthands for [`Segment::init`], [`Segment::attach`] and
//! [`SegmentLayout::region_for`], one line each, kept for the call sites
//! in `pmix-server` and `pmix-client` (which name the structure in the
//! method rather than in a type parameter). New code calls the generic
//! methods.

use super::{Segment, SegmentLayout};
use crate::barrier::{BarrierParams, BarrierTable};
use crate::error::{InitError, OpenError};
use crate::layout::RegionKind;
use crate::ring::{Ring, RingParams};
use crate::store::{StoreParams, StoreReader, StoreWriter};

impl SegmentLayout {
    /// `region_for::<Ring>(kind, id, &params)`.
    pub fn ring(self, kind: RegionKind, id: u32, params: RingParams) -> Self {
        self.region_for::<Ring>(kind, id, &params)
    }
}

impl Segment {
    /// `init::<Ring>(kind, id, &params)`.
    ///
    /// # Errors
    /// As [`init`](Self::init).
    pub fn init_ring(
        &self,
        kind: RegionKind,
        id: u32,
        params: RingParams,
    ) -> Result<Ring, InitError> {
        self.init(kind, id, &params)
    }

    /// `attach::<Ring>(kind, id)`.
    ///
    /// # Errors
    /// As [`attach`](Self::attach).
    pub fn ring(&self, kind: RegionKind, id: u32) -> Result<Ring, OpenError> {
        self.attach(kind, id)
    }

    /// `init::<StoreWriter>(kind, id, params)`.
    ///
    /// # Errors
    /// As [`init`](Self::init).
    pub fn init_store(
        &self,
        kind: RegionKind,
        id: u32,
        params: &StoreParams,
    ) -> Result<StoreWriter, InitError> {
        self.init(kind, id, params)
    }

    /// `attach::<StoreReader>(kind, id)`.
    ///
    /// # Errors
    /// As [`attach`](Self::attach).
    pub fn store_reader(&self, kind: RegionKind, id: u32) -> Result<StoreReader, OpenError> {
        self.attach(kind, id)
    }

    /// `attach::<StoreWriter>(kind, id)` (see [`attach`](Self::attach) for
    /// the one-writer rule).
    ///
    /// # Errors
    /// As [`attach`](Self::attach).
    pub fn store_writer(&self, kind: RegionKind, id: u32) -> Result<StoreWriter, OpenError> {
        self.attach(kind, id)
    }

    /// `init::<BarrierTable>(kind, id, params)`.
    ///
    /// # Errors
    /// As [`init`](Self::init).
    pub fn init_barriers(
        &self,
        kind: RegionKind,
        id: u32,
        params: &BarrierParams,
    ) -> Result<BarrierTable, InitError> {
        self.init(kind, id, params)
    }

    /// `attach::<BarrierTable>(kind, id)`.
    ///
    /// # Errors
    /// As [`attach`](Self::attach).
    pub fn barriers(&self, kind: RegionKind, id: u32) -> Result<BarrierTable, OpenError> {
        self.attach(kind, id)
    }
}
