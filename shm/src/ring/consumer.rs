//! The single consumer: taking the role, reading records in reservation
//! order, releasing their space and waiting for the next one.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::{ConsumerBusyError, PopTimeoutError, TryPopError};
use crate::layout::{cells_for_payload, RecordMeta, SlotState, POS_MASK};
use crate::sync::{spin_loop, Ordering};

use super::inner::RingInner;
use super::stuck::Hole;
#[cfg(not(loom))]
use super::stuck::Stall;
use super::{pid, Ring};

/// The default for [`Consumer::set_abandon_after`].
pub const DEFAULT_ABANDON_AFTER: Duration = Duration::from_secs(2);
/// The default for [`Consumer::set_spin`].
pub const DEFAULT_SPIN: Duration = Duration::from_micros(2);
/// Longest sleep of a consumer while a reservation is pending (so the
/// liveness checks in `recovery` run).
const PENDING_POLL: Duration = Duration::from_millis(10);

/// The single consumer of a ring (see [`Ring::consumer`]). `Send`, used
/// from one thread at a time (`&mut self`). Dropping it gives the role
/// back. Hand-over caveat: while an abandoned record's cells are still held
/// (an open hole), `head` stays at the hole, so a later consumer re-reads —
/// and delivers again — the records after it that this one already
/// delivered.
///
/// # Examples
/// ```
/// use pmix_shm::ring::{Ring, RingParams};
/// let ring = Ring::new_heap(RingParams::new(64).unwrap());
/// let mut c = ring.consumer().unwrap();
/// for i in 0..5u8 {
///     ring.try_push(u16::from(i), &[i; 3]).unwrap();
/// }
/// let mut seen = Vec::new();
/// assert_eq!(c.drain(usize::MAX, |kind, p| seen.push((kind, p.to_vec()))), 5);
/// assert_eq!(seen[4], (4, vec![4, 4, 4]));
/// assert!(c.try_pop(|_, _| ()).is_err());
/// ```
pub struct Consumer {
    pub(super) ring: Ring,
    /// Position of the next record to read.
    pub(super) read: u64,
    /// Last value published to `head`.
    released: u64,
    /// Abandoned live reservations, in position order.
    pub(super) holes: VecDeque<Hole>,
    /// Cells released since the space doorbell was last rung.
    unrung: u64,
    #[cfg(not(loom))]
    pub(super) empty_polls: u32,
    spin: Duration,
    pub(super) abandon_after: Duration,
    #[cfg(not(loom))]
    pub(super) stall: Option<Stall>,
    /// When the open holes' producers are next checked for liveness.
    #[cfg(not(loom))]
    pub(super) next_hole_check: Option<Instant>,
    /// Position of the last corrupt header counted (count once).
    corrupt_at: Option<u64>,
}

impl fmt::Debug for Consumer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Consumer")
            .field("read", &self.read)
            .field("released", &self.released)
            .field("holes", &self.holes.len())
            .field("spin", &self.spin)
            .field("abandon_after", &self.abandon_after)
            .finish_non_exhaustive()
    }
}

/// What one look at the read position found.
enum Look<R, F> {
    Delivered(R),
    NotReady(F),
}

impl Ring {
    /// Takes the consumer role. One consumer per ring across all processes:
    /// the header records the holder's pid; a holder that is dead is
    /// replaced.
    ///
    /// # Errors
    /// [`ConsumerBusyError`] while another consumer (in any process,
    /// including this one) holds the ring.
    pub fn consumer(&self) -> Result<Consumer, ConsumerBusyError> {
        let hdr = self.inner.hdr();
        let me = pid::current();
        let mut expected = 0;
        loop {
            // ORDERING: Acquire — pairs with the Release store in
            // `Consumer::drop`: the previous consumer's releases are visible.
            match hdr.consumer_pid.compare_exchange(
                expected,
                me,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(0) => expected = 0,
                Err(other) => {
                    #[cfg(not(loom))]
                    if other != me && expected != other && pid::is_dead(other) {
                        expected = other;
                        continue;
                    }
                    return Err(ConsumerBusyError { pid: other });
                }
            }
        }
        // ORDERING: Acquire — the release point the previous consumer (if
        // any) published.
        let read = hdr.head.load(Ordering::Acquire);
        Ok(Consumer {
            ring: self.clone(),
            read,
            released: read,
            holes: VecDeque::new(),
            unrung: 0,
            #[cfg(not(loom))]
            empty_polls: 0,
            spin: DEFAULT_SPIN,
            abandon_after: DEFAULT_ABANDON_AFTER,
            #[cfg(not(loom))]
            stall: None,
            #[cfg(not(loom))]
            next_hole_check: None,
            corrupt_at: None,
        })
    }
}

impl Consumer {
    /// The ring's shared state, borrowed apart from `&mut self` (so the
    /// hot path needs no `Arc` clone, whose count shares a line with what
    /// producers read).
    #[inline]
    pub(super) fn shared<'a>(&self) -> &'a RingInner {
        // SAFETY: `self.ring` holds the Arc for as long as `self` lives and
        // the `RingInner` never moves inside it; the reference is only used
        // within the consumer's own methods, while `self` is alive.
        unsafe { &*Arc::as_ptr(&self.ring.inner) }
    }

    /// The ring this consumer reads.
    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    /// How long the blocking pops spin before they sleep (default
    /// [`DEFAULT_SPIN`]; LIMITS.md §2.2: spin only when a record is
    /// expected within the window).
    pub fn set_spin(&mut self, spin: Duration) {
        self.spin = spin;
    }

    /// How long a reservation may stay uncommitted at the read position
    /// while its producer is alive (or unknown) before the consumer gives
    /// it up (default [`DEFAULT_ABANDON_AFTER`]). A dead producer's record
    /// is skipped as soon as its death is seen, whatever this says.
    pub fn set_abandon_after(&mut self, after: Duration) {
        self.abandon_after = after;
    }

    /// Pops one record if one is committed at the read position: lends its
    /// kind and payload to `f`, releases its space when `f` returns, and
    /// returns what `f` returned. Never blocks; no syscall on this path.
    ///
    /// # Errors
    /// [`TryPopError::Empty`] if no committed record is ready (the ring is
    /// empty, or the next record in reservation order is still being
    /// written).
    pub fn try_pop<R>(&mut self, f: impl FnOnce(u16, &[u8]) -> R) -> Result<R, TryPopError> {
        match self.look(f, true) {
            Look::Delivered(r) => Ok(r),
            Look::NotReady(_) => {
                self.on_not_ready(false);
                Err(TryPopError::Empty)
            }
        }
    }

    /// Pops every committed record available now, up to `max`, handing
    /// each to `f`; publishes the released space once at the end. Returns
    /// how many it popped.
    pub fn drain(&mut self, max: usize, mut f: impl FnMut(u16, &[u8])) -> usize {
        let mut n = 0;
        while n < max {
            match self.look(|k: u16, p: &[u8]| f(k, p), false) {
                Look::Delivered(()) => n += 1,
                Look::NotReady(_) => break,
            }
        }
        let idle = n < max;
        self.publish(idle);
        if idle {
            self.on_not_ready(false);
        }
        n
    }

    /// Pops one record, waiting up to `timeout`.
    ///
    /// # Errors
    /// As [`pop_deadline`](Self::pop_deadline).
    pub fn pop_timeout<R>(
        &mut self,
        timeout: Duration,
        f: impl FnOnce(u16, &[u8]) -> R,
    ) -> Result<R, PopTimeoutError> {
        let deadline = Instant::now().checked_add(timeout);
        self.pop_until(deadline, f)
    }

    /// Pops one record, waiting until `deadline`: polls, spins for the
    /// configured spin time, then announces itself on the doorbell,
    /// re-checks, and sleeps until a producer rings (waking at least every
    /// 10 ms while a reservation is pending, to check its producer).
    ///
    /// # Errors
    /// [`PopTimeoutError::Timeout`] if no record arrived in time.
    pub fn pop_deadline<R>(
        &mut self,
        deadline: Instant,
        f: impl FnOnce(u16, &[u8]) -> R,
    ) -> Result<R, PopTimeoutError> {
        self.pop_until(Some(deadline), f)
    }

    fn pop_until<R, F: FnOnce(u16, &[u8]) -> R>(
        &mut self,
        deadline: Option<Instant>,
        f: F,
    ) -> Result<R, PopTimeoutError> {
        let mut f = match self.look(f, true) {
            Look::Delivered(r) => return Ok(r),
            Look::NotReady(f) => f,
        };
        if !self.spin.is_zero() {
            let end = Instant::now() + self.spin;
            loop {
                for _ in 0..16 {
                    spin_loop();
                }
                if self.peek_ready() || Instant::now() >= end {
                    break;
                }
            }
        }
        loop {
            f = match self.look(f, true) {
                Look::Delivered(r) => return Ok(r),
                Look::NotReady(f) => f,
            };
            let pending = self.on_not_ready(true);
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return Err(PopTimeoutError::Timeout);
            }
            // this sleep is on the doorbell word itself, not in a group
            self.ring.set_consumer_wake_bits(0);
            let bell = &self.ring.inner.hdr().doorbell;
            let ticket = bell.prepare_sleep();
            if self.peek_ready() {
                bell.cancel_sleep(ticket);
                continue;
            }
            let mut wait = deadline.map(|d| d.saturating_duration_since(now));
            if pending {
                wait = Some(wait.map_or(PENDING_POLL, |w| w.min(PENDING_POLL)));
            }
            bell.sleep(ticket, wait);
        }
    }

    /// Whether the read position holds something `look` would act on now
    /// (anything but a free stamp or a reservation still being written).
    /// Whether a record (or something the consumer must act on: a padding,
    /// a corrupt or resolvable abandoned record) waits at the read
    /// position. For callers that wait on several sources with
    /// [`Ring::consumer_doorbell`]; call it after the doorbell's
    /// `prepare_sleep` (whose fence orders this load).
    pub fn is_ready(&self) -> bool {
        self.peek_ready()
    }

    fn peek_ready(&self) -> bool {
        let inner = self.shared();
        // ORDERING: Relaxed — only decides whether to sleep; after the
        // doorbell's SeqCst fence this load pairs (fence to fence) with the
        // producer's commit and fence.
        let w = inner.state(self.read).load(Ordering::Relaxed);
        let waiting = matches!(
            SlotState::decode(w),
            Ok(SlotState::Free { .. }) | Ok(SlotState::Reserved(_))
        );
        !waiting || (!self.holes.is_empty() && self.hole_resolvable())
    }

    /// Reads at the read position until it delivers a record or finds
    /// nothing ready. Paddings, corrupt records and dead reservations are
    /// skipped on the way. `publish`: publish `head` after each release.
    fn look<R, F: FnOnce(u16, &[u8]) -> R>(&mut self, f: F, publish: bool) -> Look<R, F> {
        let inner = self.shared();
        if !self.holes.is_empty() {
            self.resolve_holes(publish);
        }
        loop {
            let pos = self.read;
            // ORDERING: Acquire — pairs with the Release commit CAS in
            // `fill_and_commit`: the meta word and payload are visible.
            let w = inner.state(pos).load(Ordering::Acquire);
            match SlotState::decode(w) {
                Ok(SlotState::Free { pos: p }) if p == pos & POS_MASK => {
                    return Look::NotReady(f);
                }
                Ok(SlotState::Committed(c)) if inner.claim_fits(pos, c) => {
                    // ORDERING: Relaxed — ordered by the Acquire above.
                    let m = RecordMeta::decode(inner.meta(pos).load(Ordering::Relaxed));
                    match m {
                        Ok(m) if cells_for_payload(m.len as usize) == Some(c.cells as usize) => {
                            // SAFETY: Committed was seen with Acquire; the
                            // claim fits the ring and the length fills
                            // exactly its cells; we release only after `f`.
                            let r = unsafe {
                                inner.read_payload(pos, m.len as usize, |b| f(m.kind, b))
                            };
                            self.release(pos, c.cells, publish);
                            return Look::Delivered(r);
                        }
                        _ => {
                            self.count_corrupt(pos);
                            self.release(pos, c.cells, publish);
                        }
                    }
                }
                Ok(SlotState::Padding(c))
                    if inner.claim_fits(pos, c)
                        && inner.idx(pos) + c.cells as usize == inner.cap as usize =>
                {
                    self.release(pos, c.cells, publish);
                }
                Ok(SlotState::Reserved(c)) if inner.claim_fits(pos, c) => {
                    return Look::NotReady(f);
                }
                Ok(SlotState::Abandoned(c)) | Ok(SlotState::Acked(c))
                    if inner.claim_fits(pos, c) =>
                {
                    // A hole left by a previous consumer: hold it again.
                    self.holes.push_back(Hole { pos, claim: c });
                    self.read = pos + u64::from(c.cells);
                    self.resolve_holes(publish);
                }
                _ => {
                    if !self.skip_corrupt(pos, w, publish) {
                        return Look::NotReady(f);
                    }
                }
            }
        }
    }

    /// Stamps the record's cells free and moves past it.
    fn release(&mut self, pos: u64, cells: u16, publish: bool) {
        let inner = self.shared();
        let end = pos + u64::from(cells);
        for p in pos..end {
            inner.stamp_free(p, p != pos);
        }
        self.read = end;
        if publish {
            self.publish(false);
        }
    }

    /// Publishes the release point (`head`): the first open hole, or the
    /// read position. Rings the space doorbell every quarter ring of
    /// released cells, and when `idle` (the consumer found nothing to read).
    pub(super) fn publish(&mut self, idle: bool) {
        let inner = self.shared();
        let new = self.holes.front().map_or(self.read, |h| h.pos);
        if new > self.released {
            // ORDERING: Release — pairs with the producers' Acquire loads of
            // `head` in `reserve`/`has_room_for`: our reads of the released
            // records and the free stamps happen before their reuse.
            inner.hdr().head.store(new, Ordering::Release);
            self.unrung += new - self.released;
            self.released = new;
        }
        if self.unrung > 0 && (idle || self.unrung >= inner.cap / 4) {
            self.unrung = 0;
            inner.hdr().space.ring();
        }
    }

    pub(super) fn count_corrupt(&mut self, pos: u64) {
        if self.corrupt_at != Some(pos) {
            self.corrupt_at = Some(pos);
            // ORDERING: Relaxed — a statistic.
            self.ring
                .inner
                .hdr()
                .corrupt
                .fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Drop for Consumer {
    fn drop(&mut self) {
        self.publish(true);
        // ORDERING: Release — pairs with the Acquire CAS in `Ring::consumer`.
        let _ = self.ring.inner.hdr().consumer_pid.compare_exchange(
            pid::current(),
            0,
            Ordering::Release,
            Ordering::Relaxed,
        );
    }
}
