//! One barrier cell: the episode protocol of the [module docs](super) —
//! arrival, timeout, outcome, poison and the wake-up of sleepers. The wait
//! loop itself is in `wait.rs`.

use std::fmt;

use super::word::{episode_diff, EpisodeWord, MAX_PARTIES};
use super::BarrierWaitError;
use crate::region::Plain;
use crate::sync::{fence, AtomicI32, AtomicU32, AtomicU64, FutexWord, Ordering};

/// One barrier cell ([`BARRIER_CELL_SIZE`](super::BARRIER_CELL_SIZE)
/// bytes; `docs/SHM-LAYOUT.md`, "Barrier cell").
#[repr(C, align(128))]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
pub(super) struct RawBarrier {
    /// Arrivals per episode (0 behaves as 1).
    pub(super) parties: AtomicU32,
    /// 0 = healthy; otherwise the sticky poison status.
    pub(super) status: AtomicI32,
    /// The [`EpisodeWord`]: open episode, previous outcome, arrivals.
    pub(super) word: AtomicU64,
    /// The highest episode known released (wrapping maximum), recorded by
    /// the party that times out the episode after it.
    pub(super) released: AtomicU32,
    pub(super) _pad: u32,
    /// Bumped on every release, timeout and poison; sleepers wait on it.
    pub(super) seq: FutexWord,
    /// Waiters announced (about to sleep or asleep).
    pub(super) waiters: AtomicU32,
    pub(super) _reserved: [u64; 12],
}

#[cfg(not(loom))]
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<RawBarrier>() == super::BARRIER_CELL_SIZE);
    assert!(align_of::<RawBarrier>() == crate::layout::HOT_LINE);
    assert!(offset_of!(RawBarrier, parties) == 0);
    assert!(offset_of!(RawBarrier, status) == 4);
    assert!(offset_of!(RawBarrier, word) == 8);
    assert!(offset_of!(RawBarrier, released) == 16);
    assert!(offset_of!(RawBarrier, seq) == 24);
    assert!(offset_of!(RawBarrier, waiters) == 28);
};

// SAFETY: `repr(C)`, atomics (the futex word is `repr(transparent)`) and
// never-read padding; zero is a valid value of each.
unsafe impl Plain for RawBarrier {
    #[cfg(loom)]
    fn zeroed() -> Self {
        RawBarrier {
            parties: AtomicU32::new(0),
            status: AtomicI32::new(0),
            word: AtomicU64::new(0),
            released: AtomicU32::new(0),
            _pad: 0,
            seq: FutexWord::new(0),
            waiters: AtomicU32::new(0),
            _reserved: [0; 12],
        }
    }
}

impl RawBarrier {
    /// The initial image: zero parties, healthy, episode 1 open and empty.
    pub(super) fn write_initial(&self) {
        // ORDERING: Relaxed — published with the table's magic word.
        self.parties.store(0, Ordering::Relaxed);
        self.status.store(0, Ordering::Relaxed);
        self.word
            .store(EpisodeWord::RESET.to_bits(), Ordering::Relaxed);
        self.released.store(0, Ordering::Relaxed);
        self.seq.store(0, Ordering::Relaxed);
        self.waiters.store(0, Ordering::Relaxed);
    }
}

/// What [`Barrier::arrive`] recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arrival {
    /// The episode arrived in: the one to [`wait`](Barrier::wait) for.
    pub episode: u32,
    /// Whether this arrival completed (released) the episode: there is
    /// nothing to wait for.
    pub last: bool,
}

/// One counting barrier of a [`BarrierTable`](super::BarrierTable) (see
/// the [module docs](super) for the protocol).
#[derive(Clone, Copy)]
pub struct Barrier<'a> {
    pub(super) cell: &'a RawBarrier,
    index: u32,
}

impl fmt::Debug for Barrier<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.cell;
        // ORDERING: Relaxed — a diagnostic snapshot.
        let w = EpisodeWord::from_bits(c.word.load(Ordering::Relaxed));
        f.debug_struct("Barrier")
            .field("index", &self.index)
            .field("parties", &c.parties.load(Ordering::Relaxed))
            .field("word", &w)
            .field("released", &c.released.load(Ordering::Relaxed))
            .field("status", &c.status.load(Ordering::Relaxed))
            .finish()
    }
}

impl<'a> Barrier<'a> {
    pub(super) fn new(cell: &'a RawBarrier, index: u32) -> Self {
        Barrier { cell, index }
    }
}

impl Barrier<'_> {
    /// The cell's index in its table.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Owner only, while nobody uses the cell (no arrival or wait in
    /// flight, and none until the parties learn of the reset through the
    /// user's own channel): sets `parties`, opens episode 1 empty, and
    /// clears `released` and `status`. The futex word is left as it is, so
    /// it never repeats a value a stale sleeper could be waiting on.
    pub fn reset(&self, parties: u32) {
        let c = self.cell;
        // ORDERING: Relaxed — the cell is unused (caller contract); these
        // reach the parties through the Release store of `parties` below.
        c.word
            .store(EpisodeWord::RESET.to_bits(), Ordering::Relaxed);
        c.released.store(0, Ordering::Relaxed);
        c.status.store(0, Ordering::Relaxed);
        // ORDERING: Release — pairs with the Acquire load in `parties`
        // (every `arrive`): an arriver that sees the new count sees the
        // reset word.
        c.parties.store(parties, Ordering::Release);
    }

    /// Arrivals per episode, as last [`reset`](Self::reset) (0 on a cell
    /// never reset; [`arrive`](Self::arrive) treats 0 as 1).
    pub fn parties(&self) -> u32 {
        // ORDERING: Acquire — pairs with the Release store in `reset`.
        self.cell.parties.load(Ordering::Acquire)
    }

    /// The open episode and its arrivals so far (a snapshot).
    pub fn open_episode(&self) -> EpisodeWord {
        // ORDERING: Acquire — as in `outcome`: a caller that sees an
        // episode past its own sees how it ended.
        EpisodeWord::from_bits(self.cell.word.load(Ordering::Acquire))
    }

    /// The highest episode known released (0: none yet). Recorded lazily:
    /// exact for an episode once the cell is two episodes past it.
    pub fn released(&self) -> u32 {
        // ORDERING: Relaxed — a snapshot; `outcome` orders its own read.
        self.cell.released.load(Ordering::Relaxed)
    }

    fn clamped_parties(&self) -> u32 {
        self.parties().clamp(1, MAX_PARTIES)
    }

    /// Arrives in `episode` (this party's own count of its barriers on the
    /// cell, from 1). The arrival that completes the episode releases it at
    /// once (waking sleepers) and returns `last`; any other then
    /// [`wait`](Self::wait)s for it.
    ///
    /// The caller's writes before `arrive` are visible to every party that
    /// learns the episode was released.
    ///
    /// # Errors
    ///
    /// [`BarrierWaitError::Late`] when `episode` is already over (it timed
    /// out: a release needs this arrival); the arrival is counted nowhere
    /// and the party's next episode is `episode + 1`.
    /// [`BarrierWaitError::Poisoned`] on a poisoned barrier;
    /// [`BarrierWaitError::OutOfStep`] when the cell is behind `episode`.
    pub fn arrive(&self, episode: u32) -> Result<Arrival, BarrierWaitError> {
        let status = self.status();
        if status != 0 {
            return Err(BarrierWaitError::Poisoned(status));
        }
        let parties = self.clamped_parties();
        let c = self.cell;
        // ORDERING: Relaxed — only the first guess of the CAS below, which
        // does the ordering.
        let mut bits = c.word.load(Ordering::Relaxed);
        loop {
            let w = EpisodeWord::from_bits(bits);
            match w.past(episode) {
                0 => {}
                d if d > 0 => return Err(BarrierWaitError::Late),
                _ => {
                    return Err(BarrierWaitError::OutOfStep {
                        episode,
                        open: w.episode,
                    })
                }
            }
            let last = w.count.saturating_add(1) >= parties;
            let new = if last {
                w.next(true)
            } else {
                EpisodeWord {
                    count: w.count + 1,
                    ..w
                }
            };
            // ORDERING: AcqRel on success — Release: this party's earlier
            // writes head a release sequence that every later change of the
            // word continues (all of them are RMWs), so any party that later
            // acquires the word sees them; Acquire: the last arriver sees
            // every earlier arriver's writes. Relaxed on failure: the value
            // found only restarts the loop (or says "late", which reads
            // nothing).
            match c
                .word
                .compare_exchange(bits, new.to_bits(), Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => {
                    if last {
                        self.notify();
                    }
                    return Ok(Arrival { episode, last });
                }
                Err(found) => bits = found,
            }
        }
    }

    /// This party arrived in `episode` and its deadline passed: ends the
    /// episode as timed out for every party, unless it already ended — then
    /// its outcome is returned like [`outcome`](Self::outcome)'s (possibly
    /// `Ok`: the last arrival won the race).
    ///
    /// # Errors
    ///
    /// [`BarrierWaitError::Timeout`] when this call ended the episode;
    /// otherwise the episode's outcome as for [`wait`](Self::wait).
    pub fn time_out(&self, episode: u32) -> Result<(), BarrierWaitError> {
        let status = self.status();
        if status != 0 {
            return Err(BarrierWaitError::Poisoned(status));
        }
        let c = self.cell;
        // ORDERING: Relaxed — only the first guess of the CAS below.
        let mut bits = c.word.load(Ordering::Relaxed);
        loop {
            let w = EpisodeWord::from_bits(bits);
            if w.past(episode) != 0 {
                // Ended by someone else (or out of step): read it properly.
                if let Some(done) = self.outcome(episode) {
                    return done;
                }
                // ORDERING: Relaxed — as above (the cell was reset back).
                bits = c.word.load(Ordering::Relaxed);
                continue;
            }
            if w.prev_released {
                // Parties of `episode - 1` may not have read its outcome
                // yet; once the word moves on, `released` must tell them.
                self.raise_released(episode.wrapping_sub(1));
            }
            // ORDERING: Release on success — publishes the raise of
            // `released` above to every party that later acquires the word
            // (`outcome`); this party reads nothing (it answers Timeout).
            // Relaxed on failure: the value found restarts the loop.
            match c.word.compare_exchange(
                bits,
                w.next(false).to_bits(),
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.notify();
                    return Err(BarrierWaitError::Timeout);
                }
                Err(found) => bits = found,
            }
        }
    }

    /// `released = max(released, episode)`, with wrapping comparison.
    fn raise_released(&self, episode: u32) {
        let c = self.cell;
        // ORDERING: Relaxed (load and CAS) — `released` publishes nothing
        // itself: the raise reaches readers through the Release CAS of the
        // word that follows it in `time_out`, which they acquire.
        let mut cur = c.released.load(Ordering::Relaxed);
        while episode_diff(episode, cur) > 0 {
            match c
                .released
                .compare_exchange(cur, episode, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(found) => cur = found,
            }
        }
    }

    /// The outcome of `episode` for a party that arrived in it: `None`
    /// while it is open; `Ok` if it was released; otherwise the error the
    /// wait ends with (see the table in the [module docs](super)).
    ///
    /// Poison is reported first, even for a released episode.
    pub fn outcome(&self, episode: u32) -> Option<Result<(), BarrierWaitError>> {
        let status = self.status();
        if status != 0 {
            return Some(Err(BarrierWaitError::Poisoned(status)));
        }
        let c = self.cell;
        // ORDERING: Acquire — pairs with the Release side of every word CAS
        // (arrivals' AcqRel, timeouts' Release). All changes of the word
        // are RMWs, so a value past `episode` synchronizes with each earlier
        // one: the writes of a released episode's arrivers, and a
        // timing-out party's raise of `released`.
        let w = EpisodeWord::from_bits(c.word.load(Ordering::Acquire));
        let released = match w.past(episode) {
            0 => return None,
            1 => w.prev_released,
            d if d > 1 => {
                // ORDERING: Relaxed — ordered by the Acquire load above.
                let r = c.released.load(Ordering::Relaxed);
                episode_diff(r, episode) >= 0
            }
            _ => {
                return Some(Err(BarrierWaitError::OutOfStep {
                    episode,
                    open: w.episode,
                }))
            }
        };
        Some(if released {
            Ok(())
        } else {
            Err(BarrierWaitError::EpisodeTimedOut)
        })
    }

    /// Poisons the barrier with `status` (non-zero) if it is healthy: the
    /// first poison wins and stays until the owner's
    /// [`clear_poison`](Self::clear_poison). Every waiter wakes and returns
    /// [`BarrierWaitError::Poisoned`], and so does every later arrival.
    /// Returns whether this call poisoned it (`false` for status 0 or an
    /// already poisoned barrier).
    pub fn poison(&self, status: i32) -> bool {
        if status == 0 {
            return false;
        }
        // ORDERING: Release on success — pairs with the Acquire loads of
        // `status`: what the poisoner wrote before is visible to a waiter
        // that reports the poison. Relaxed on failure: another poisoner won
        // and notified; nothing is read.
        let won = self
            .cell
            .status
            .compare_exchange(0, status, Ordering::Release, Ordering::Relaxed)
            .is_ok();
        if won {
            self.notify();
        }
        won
    }

    /// The poison status (0: healthy).
    pub fn status(&self) -> i32 {
        // ORDERING: Acquire — pairs with the Release CAS in `poison`.
        self.cell.status.load(Ordering::Acquire)
    }

    /// Owner only: makes a poisoned barrier healthy again (typically just
    /// before a [`reset`](Self::reset), while nobody uses the cell).
    pub fn clear_poison(&self) {
        // ORDERING: Release — the owner's preceding writes (a reset) are
        // visible to a waiter that sees the cleared status.
        self.cell.status.store(0, Ordering::Release);
    }

    /// After a release, timeout or poison was published: bump `seq`, and
    /// wake the sleepers if any announced themselves.
    fn notify(&self) {
        let c = self.cell;
        // ORDERING: Release — pairs with the Acquire load of `seq` in
        // `wait`: a waiter that reads the bumped value also sees what was
        // published before it.
        c.seq.fetch_add(1, Ordering::Release);
        // ORDERING: SeqCst fence — pairs with the SeqCst fence in `wait`
        // (see there and the module docs).
        fence(Ordering::SeqCst);
        // ORDERING: Relaxed — ordered by the fence above.
        if c.waiters.load(Ordering::Relaxed) != 0 {
            c.seq.wake(u32::MAX);
        }
    }
}
