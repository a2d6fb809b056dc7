//! A table of counting barriers and peer-state cells in one shared region.
//!
//! The table gives no meaning to what it counts: a user (the server, for a
//! local fence) [`reset`](Barrier::reset)s a barrier cell to a number of
//! *parties*; every party counts its own *episodes* on the cell (its k-th
//! barrier there is episode k, from 1), [`arrive`](Barrier::arrive)s in
//! its episode and [`wait`](Barrier::wait)s for the episode's outcome.
//! Peer cells are small state words a user can give any meaning (0 = free).
//! The byte layout is in `docs/SHM-LAYOUT.md` ("Barrier table region").
//!
//! # Episodes
//!
//! An episode ends exactly once, for every party alike: **released** when
//! its last party arrives, or **timed out** when a party's deadline passes
//! first ([`time_out`](Barrier::time_out), which `wait` calls). Either way
//! the next episode starts empty, and every party's next barrier works.
//!
//! The cell keeps the open episode `e`, its arrival count `n` and a flag
//! `R` ("episode `e − 1` was released") in one 64-bit word ([`word`]), so
//! that "arrive in episode `e`" is a compare-and-swap that fails once the
//! episode has moved on. Every change of the word is such a CAS:
//!
//! | who                       | word before   | word after      | note |
//! |---------------------------|---------------|-----------------|------|
//! | arrival, not the last     | `(e, R, n)`   | `(e, R, n + 1)` | `n + 1 < parties` |
//! | arrival, the last         | `(e, R, n)`   | `(e + 1, 1, 0)` | releases `e`; wakes the sleepers |
//! | a party of `e` timing out | `(e, R, n)`   | `(e + 1, 0, 0)` | first, if `R`: raises `released` to `e − 1`; wakes the sleepers |
//! | owner, [`reset`](Barrier::reset) | any    | `(1, 0, 0)`     | while nobody uses the cell |
//!
//! The outcome of episode `e`, as [`outcome`](Barrier::outcome) reads it
//! for a party that arrived in `e` (`d = open episode − e`):
//!
//! | `d`  | outcome |
//! |------|---------|
//! | 0    | still open |
//! | 1    | released if the word's `R` is set, else timed out |
//! | ≥ 2  | released if `released ≥ e`, else timed out |
//! | < 0  | [`BarrierWaitError::OutOfStep`] (the cell was reset or overwritten) |
//!
//! Why every party of `e` gets the same answer: exactly one CAS moves the
//! word past `e`, and it says how (`R`). Episode `e + 1` cannot be released
//! while a party of `e` has not yet read its outcome (that party has not
//! arrived in `e + 1`), so the word moves past `e + 1` only by a timeout —
//! whose author saw `R` and first recorded `e` in `released`. `released`
//! only grows (a wrapping maximum) and no episode after `e` can be released
//! before every party of `e` has left it, so `released ≥ e` exactly when
//! `e` was released. The release itself stores nothing but the word: the
//! fast path is one CAS per arrival, as the `fetch_add` it replaces.
//!
//! A **late** arrival — a party whose episode `e` is already over when it
//! arrives — gets [`BarrierWaitError::Late`] at once and is counted in no
//! episode: `e` cannot have been released without it, so it timed out. The
//! party's next barrier is episode `e + 1`. Episode numbers are `u32` and
//! compared with wrapping arithmetic (parties never drift 2^31 apart).
//!
//! # Poison
//!
//! [`poison`](Barrier::poison) (the server, when a party dies) is sticky:
//! every wait and arrival then fails with [`BarrierWaitError::Poisoned`]
//! until the owner's [`clear_poison`](Barrier::clear_poison) and `reset`.
//!
//! # Fields of a cell
//!
//! | field      | written by                              | read by                   |
//! |------------|-----------------------------------------|---------------------------|
//! | `parties`  | owner, [`reset`](Barrier::reset) (last, `Release`) | arrivers (`Acquire`) |
//! | `status`   | [`poison`](Barrier::poison): CAS from 0 (first wins); owner clears | everyone (`Acquire`) |
//! | `word`     | arrivers and timing-out parties: CAS (`AcqRel` / `Release`); owner's `reset` | everyone (`Acquire`) |
//! | `released` | timing-out parties: wrapping maximum (`Relaxed`, published by their word CAS) | parties two episodes behind |
//! | `seq`      | releasers, timing-out parties and poisoners: `+1` per change | sleeping waiters (futex) |
//! | `waiters`  | waiters: `+1` before sleeping, `-1` after | everyone who changes the outcome |
//!
//! # Sleeping without lost wake-ups
//!
//! The futex word `seq` changes on every release, timeout and poison, so a
//! sleeper that waits on the value it saw before its last check wakes (or
//! never sleeps) when anything happens. The wake system call is made only
//! when `waiters` is not 0. That is the Dekker handshake of the
//! [doorbell](crate::doorbell), on two `SeqCst` fences:
//!
//! * waiter: `s = seq` (`Acquire`); `waiters += 1`; `fence(SeqCst)`; check
//!   `status` and `word`; `FUTEX_WAIT(seq, s, ≤ 100 ms)`; `waiters -= 1`;
//!   check.
//! * notifier: publish (the word CAS or `status`); `seq += 1` (`Release`);
//!   `fence(SeqCst)`; if `waiters != 0`: `FUTEX_WAKE(all)`.
//!
//! Either the notifier's load sees the waiter's announcement (and wakes it,
//! or the changed `seq` makes its `FUTEX_WAIT` return at once), or the
//! waiter's check sees what the notifier published. A waiter process that
//! dies while asleep leaves `waiters` too high: later notifiers then make
//! a needless system call, nothing worse. Each sleep lasts at most
//! [`MAX_SLEEP`], so the caller's `interrupt` (e.g. "the server is gone")
//! is polled at least that often.
//!
//! # Trust
//!
//! Every field may be written by any process mapping the region. The
//! header is validated once at attach (counts, offsets, size) and the
//! geometry is never re-read; cells are atomics, valid for any bits; bad
//! values give wrong answers (a waiter that never returns before its
//! deadline, a poisoned or out-of-step barrier), never undefined behaviour
//! or a panic.
//!
//! Under `cfg(loom)` the table's [`Memory`](crate::region::Memory) is loom
//! atomics (built by the same `region` code as in shared memory), the
//! futex is emulated, and [`Barrier::wait`] neither spins nor sleeps with a timeout
//! (the models call [`Barrier::time_out`] themselves).
//!
//! # Examples
//!
//! ```
//! use pmix_shm::barrier::{BarrierParams, BarrierTable, BarrierWaitError};
//! use std::time::{Duration, Instant};
//!
//! let table = BarrierTable::new_heap(&BarrierParams { barriers: 4, peers: 8 });
//! let fence = table.barrier(0).unwrap();
//! fence.reset(2);
//! let never = || None;
//! let soon = || Some(Instant::now() + Duration::from_secs(10));
//! let other = table.clone();
//! let t = std::thread::spawn(move || {
//!     let b = other.barrier(0).unwrap();
//!     let a = b.arrive(1)?;
//!     b.wait(a.episode, Duration::ZERO, soon(), &|| None)
//! });
//! fence.arrive(1).unwrap();
//! fence.wait(1, Duration::from_micros(20), soon(), &never).unwrap();
//! t.join().unwrap().unwrap();
//! assert_eq!(fence.outcome(1), Some(Ok(())));
//!
//! // Episode 2: this party's deadline passes alone; the other one, late,
//! // is told at once, and episode 3 works for both.
//! fence.arrive(2).unwrap();
//! let past = Some(Instant::now());
//! assert_eq!(fence.wait(2, Duration::ZERO, past, &never), Err(BarrierWaitError::Timeout));
//! assert_eq!(fence.arrive(2), Err(BarrierWaitError::Late));
//! assert!(!fence.arrive(3).unwrap().last);
//! assert!(fence.arrive(3).unwrap().last);
//! ```

mod cell; // one barrier cell: the episode protocol
#[cfg(all(test, not(loom)))]
mod episode_tests;
mod error; // BarrierWaitError
mod peer; // peer cells
mod region; // the table as a Region: header, geometry, image, checks
mod table; // the handle: its cells
#[cfg(all(test, not(loom)))]
mod tests;
mod wait; // the wait loop: spin, futex sleep, deadline
pub mod word;

use std::time::Duration;

pub use cell::{Arrival, Barrier};
pub use error::BarrierWaitError;
pub use peer::PeerCell;
pub use table::{BarrierParams, BarrierTable};

/// `"PMIXBARR"` as a little-endian `u64`: the first word of a barrier table.
pub const BARRIER_MAGIC: u64 = u64::from_le_bytes(*b"PMIXBARR");
/// The barrier-table layout version this build writes and accepts (2: the
/// episode word replaced the arrival counter of version 1; 3: the peer
/// cell's `arrived` episode).
pub const BARRIER_LAYOUT_VERSION: u32 = 3;
/// Value of the header's `ready` word once the table is initialised
/// (written with the image; the magic, stored last, publishes both).
pub const BARRIER_READY: u32 = 1;
/// Bytes of the table header (two cache lines).
pub const BARRIER_HEADER_SIZE: usize = 128;
/// Bytes of one barrier cell (`HOT_LINE`: two barriers never false-share).
pub const BARRIER_CELL_SIZE: usize = 128;
/// Bytes of one peer cell (one cache line).
pub const PEER_CELL_SIZE: usize = 64;
/// Most barrier cells a table may have.
pub const MAX_BARRIERS: u32 = 1 << 16;
/// Most peer cells a table may have.
pub const MAX_PEERS: u32 = 1 << 16;
/// The peer state of a free (unused) peer cell; every other value is the
/// user's.
pub const PEER_FREE: u32 = 0;
/// The longest single futex sleep of [`Barrier::wait`]: its `interrupt`
/// is polled at least this often.
pub const MAX_SLEEP: Duration = Duration::from_millis(100);
