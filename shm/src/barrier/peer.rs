//! Peer cells: a user-defined state word, a process id, an epoch bumped
//! on every state change, and the last barrier episode the peer said it
//! arrived in (for messages that name who a failed barrier waited for).

use std::fmt;

use super::PEER_FREE;
use crate::region::Plain;
use crate::sync::{AtomicU32, AtomicU64, Ordering};

/// One peer cell ([`PEER_CELL_SIZE`](super::PEER_CELL_SIZE) bytes).
#[repr(C, align(64))]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
pub(super) struct RawPeer {
    /// User-defined state; [`PEER_FREE`] = free.
    pub(super) state: AtomicU32,
    /// User-defined process id.
    pub(super) pid: AtomicU32,
    /// Bumped on every state change.
    pub(super) epoch: AtomicU64,
    /// The last barrier episode the peer itself recorded arriving in.
    pub(super) arrived: AtomicU32,
    pub(super) _pad: u32,
    pub(super) _reserved: [u64; 5],
}

#[cfg(not(loom))]
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<RawPeer>() == super::PEER_CELL_SIZE);
    assert!(offset_of!(RawPeer, state) == 0);
    assert!(offset_of!(RawPeer, pid) == 4);
    assert!(offset_of!(RawPeer, epoch) == 8);
    assert!(offset_of!(RawPeer, arrived) == 16);
};

// SAFETY: `repr(C)`, atomics and never-read padding; zero is a valid value
// of each.
unsafe impl Plain for RawPeer {
    #[cfg(loom)]
    fn zeroed() -> Self {
        RawPeer {
            state: AtomicU32::new(0),
            pid: AtomicU32::new(0),
            epoch: AtomicU64::new(0),
            arrived: AtomicU32::new(0),
            _pad: 0,
            _reserved: [0; 5],
        }
    }
}

impl RawPeer {
    /// The initial image: free, no pid, epoch 0, no episode arrived in.
    pub(super) fn write_initial(&self) {
        // ORDERING: Relaxed — published with the table's magic word.
        self.state.store(PEER_FREE, Ordering::Relaxed);
        self.pid.store(0, Ordering::Relaxed);
        self.epoch.store(0, Ordering::Relaxed);
        self.arrived.store(0, Ordering::Relaxed);
    }
}

/// One peer-state cell of a [`BarrierTable`](super::BarrierTable): a user-defined state word
/// ([`PEER_FREE`] = 0 means free), a process id, and an epoch bumped on
/// every state change so a watcher can tell that something changed even
/// if the state came back to the same value.
#[derive(Clone, Copy)]
pub struct PeerCell<'a> {
    cell: &'a RawPeer,
    index: u32,
}

impl<'a> PeerCell<'a> {
    pub(super) fn new(cell: &'a RawPeer, index: u32) -> Self {
        PeerCell { cell, index }
    }
}

impl fmt::Debug for PeerCell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PeerCell")
            .field("index", &self.index)
            .field("state", &self.state())
            .field("pid", &self.pid())
            .field("epoch", &self.epoch())
            .field("arrived", &self.arrived())
            .finish()
    }
}

impl PeerCell<'_> {
    /// The cell's index in its table.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The current state ([`PEER_FREE`] = free).
    pub fn state(&self) -> u32 {
        // ORDERING: Acquire — pairs with the Release stores in `set_state`
        // and `compare_set_state`: what the setter wrote before is visible.
        self.cell.state.load(Ordering::Acquire)
    }

    /// Sets the state and bumps the epoch; returns the new epoch.
    pub fn set_state(&self, state: u32) -> u64 {
        // ORDERING: Release — pairs with the Acquire load in `state`.
        self.cell.state.store(state, Ordering::Release);
        self.bump_epoch()
    }

    /// Sets the state to `new` only if it is `current` (e.g. claiming a
    /// free cell: `compare_set_state(PEER_FREE, busy)`), bumping the epoch.
    ///
    /// # Errors
    ///
    /// The state found, when it was not `current`; nothing changed.
    pub fn compare_set_state(&self, current: u32, new: u32) -> Result<u64, u32> {
        // ORDERING: AcqRel on success — Release as in `set_state`; Acquire
        // so the winner sees what the previous setter wrote. Acquire on
        // failure: the returned state is read like `state()`.
        self.cell
            .state
            .compare_exchange(current, new, Ordering::AcqRel, Ordering::Acquire)?;
        Ok(self.bump_epoch())
    }

    fn bump_epoch(&self) -> u64 {
        // ORDERING: Release — pairs with the Acquire load in `epoch`: a
        // watcher that sees the new epoch sees the state stored before it
        // (or a later one).
        self.cell
            .epoch
            .fetch_add(1, Ordering::Release)
            .wrapping_add(1)
    }

    /// The number of state changes so far (wraps at 2^64).
    pub fn epoch(&self) -> u64 {
        // ORDERING: Acquire — pairs with the Release bump in `bump_epoch`.
        self.cell.epoch.load(Ordering::Acquire)
    }

    /// The recorded process id (0 = none).
    pub fn pid(&self) -> u32 {
        // ORDERING: Acquire — pairs with the Release store in `set_pid`.
        self.cell.pid.load(Ordering::Acquire)
    }

    /// Records a process id (does not change the epoch).
    pub fn set_pid(&self, pid: u32) {
        // ORDERING: Release — pairs with the Acquire load in `pid`.
        self.cell.pid.store(pid, Ordering::Release);
    }

    /// Records that the peer owning this cell arrives in barrier episode
    /// `episode` (written by that peer, before its arrival). Only messages
    /// read it: after a barrier timed out, a party names the peers whose
    /// recorded episode is behind its own.
    pub fn set_arrived(&self, episode: u32) {
        // ORDERING: Relaxed — a diagnostic: the barrier's own word orders
        // the arrivals; a stale read only names, in an error message, a
        // peer that did arrive.
        self.cell.arrived.store(episode, Ordering::Relaxed);
    }

    /// The last barrier episode the owner recorded with
    /// [`set_arrived`](Self::set_arrived) (0: none).
    pub fn arrived(&self) -> u32 {
        // ORDERING: Relaxed — see `set_arrived`.
        self.cell.arrived.load(Ordering::Relaxed)
    }
}
