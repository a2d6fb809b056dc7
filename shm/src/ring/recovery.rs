//! Dead and stalled producers: liveness checks, abandoned reservations
//! (holes), anonymous reservations and corrupt records.

#[cfg(not(loom))]
use std::time::{Duration, Instant};

use crate::layout::{Claim, SlotState};
use crate::sync::Ordering;

#[cfg(not(loom))]
use super::pid;
use super::stuck::Hole;
#[cfg(not(loom))]
use super::stuck::Stall;
use super::Consumer;

/// How long a `Reserved` record may wait at the read position before the
/// consumer checks whether its producer is alive.
#[cfg(not(loom))]
const LIVENESS_AFTER: Duration = Duration::from_millis(1);
/// How often the consumer re-checks a pending producer's pid.
#[cfg(not(loom))]
const LIVENESS_EVERY: Duration = Duration::from_millis(10);
/// `try_pop` looks at `tail` once per this many empty polls (to notice a
/// reservation whose producer never wrote its pid).
#[cfg(not(loom))]
const EMPTY_POLLS_PER_TAIL_CHECK: u32 = 1024;

impl Consumer {
    fn count_lost(&self) {
        // ORDERING: Relaxed — a statistic.
        self.ring.inner.hdr().lost.fetch_add(1, Ordering::Relaxed);
    }

    /// The state word at `pos` is not valid there. If `pos` is reserved
    /// (below `tail`), free it and walk on over free cells; otherwise repair
    /// the stamp. Returns whether the read position moved.
    pub(super) fn skip_corrupt(&mut self, pos: u64, w: u64, publish: bool) -> bool {
        self.count_corrupt(pos);
        let inner = self.shared();
        // ORDERING: Relaxed — only bounds the walk: positions below any
        // value of `tail` were handed out by a tail CAS.
        let tail = inner.hdr().tail.load(Ordering::Relaxed);
        // ORDERING: Relaxed — the CAS only decides against a producer's
        // claim CAS on the same word; no data flows.
        let target = if tail > pos {
            SlotState::free(pos + inner.cap)
        } else {
            SlotState::free(pos)
        };
        if inner
            .state(pos)
            .compare_exchange(w, target, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
            || tail <= pos
        {
            return false;
        }
        let stop = self.walk_free(pos + 1, tail);
        self.read = stop;
        if publish {
            self.publish(false);
        }
        true
    }

    /// Frees, one CAS per cell, the run of cells from `from` (below `tail`)
    /// that still hold their free stamp, i.e. that no producer claimed; a
    /// producer that claims one later fails its claim CAS and writes
    /// nothing. Returns the first position not freed.
    fn walk_free(&mut self, from: u64, tail: u64) -> u64 {
        let inner = self.shared();
        let mut p = from;
        while p < tail {
            inner.note_walk(p);
            // ORDERING: Relaxed — the CAS decides ownership against the
            // producer's claim CAS on the same word; published by `head`.
            if inner
                .state(p)
                .compare_exchange(
                    SlotState::free(p),
                    SlotState::free(p + inner.cap),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
            {
                break;
            }
            p += 1;
        }
        p
    }

    /// Gives up the anonymous reservation(s) at the read position (tail
    /// moved past it but no claim word was written). Returns whether the
    /// read position moved.
    fn skip_anonymous(&mut self, publish: bool) -> bool {
        let inner = self.shared();
        // ORDERING: Relaxed — see `skip_corrupt`.
        let tail = inner.hdr().tail.load(Ordering::Relaxed);
        let pos = self.read;
        if tail <= pos {
            return false;
        }
        let stop = self.walk_free(pos, tail);
        if stop == pos {
            return false;
        }
        self.count_lost();
        self.read = stop;
        if publish {
            self.publish(false);
        }
        true
    }

    /// Gives up the `Reserved` record at the read position. If its producer
    /// is known dead the cells are freed now; otherwise it becomes a hole.
    fn abandon_reserved(&mut self, c: Claim, dead: bool, publish: bool) -> bool {
        let inner = self.shared();
        let pos = self.read;
        let reserved = SlotState::Reserved(c).encode();
        let to = if dead {
            SlotState::free(pos + inner.cap)
        } else {
            SlotState::Abandoned(c).encode()
        };
        // ORDERING: Relaxed — decides against the producer's commit CAS on
        // the same word; a live producer's later writes are ordered by its
        // Acked store (Release), which `resolve_holes` Acquires.
        if inner
            .state(pos)
            .compare_exchange(reserved, to, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return false; // committed meanwhile
        }
        self.count_lost();
        let end = pos + u64::from(c.cells);
        if dead {
            for p in pos + 1..end {
                inner.stamp_free(p, true);
            }
        } else {
            self.holes.push_back(Hole { pos, claim: c });
        }
        self.read = end;
        if publish {
            self.publish(false);
        }
        true
    }

    /// Whether the oldest hole's producer acknowledged.
    pub(super) fn hole_resolvable(&self) -> bool {
        let Some(h) = self.holes.front() else {
            return false;
        };
        // ORDERING: Relaxed — a hint; `resolve_holes` re-loads with Acquire.
        let w = self.ring.inner.state(h.pos).load(Ordering::Relaxed);
        w == SlotState::Acked(h.claim).encode()
    }

    /// Frees the holes at the front whose producer acknowledged (or died).
    pub(super) fn resolve_holes(&mut self, publish: bool) {
        let inner = self.shared();
        #[cfg(not(loom))]
        let check_pids = {
            let now = Instant::now();
            let due = self.next_hole_check.map_or(true, |t| now >= t);
            if due {
                self.next_hole_check = Some(now + LIVENESS_EVERY);
            }
            due
        };
        while let Some(h) = self.holes.front().copied() {
            // ORDERING: Acquire — pairs with the producer's Release store of
            // Acked: its payload writes are over before we reuse the cells.
            let w = inner.state(h.pos).load(Ordering::Acquire);
            let done = w == SlotState::Acked(h.claim).encode();
            #[cfg(not(loom))]
            let done = done || (check_pids && pid::is_dead(h.claim.pid));
            if !done {
                break;
            }
            let end = h.pos + u64::from(h.claim.cells);
            inner.stamp_free(h.pos, false);
            for p in h.pos + 1..end {
                inner.stamp_free(p, true);
            }
            self.holes.pop_front();
        }
        if publish {
            self.publish(false);
        }
    }

    /// Called when the read position holds nothing deliverable: tracks how
    /// long, checks the pending producer's liveness, and applies the
    /// abandon rules. `blocking`: called from a blocking pop (always check
    /// `tail`), else only every 1024 calls. Returns whether a reservation
    /// is pending (so a sleeper should wake up to re-check).
    pub(super) fn on_not_ready(&mut self, blocking: bool) -> bool {
        self.publish(true);
        #[cfg(loom)]
        {
            let _ = blocking;
            false
        }
        #[cfg(not(loom))]
        {
            let inner = self.shared();
            let pos = self.read;
            // ORDERING: Relaxed — classification only.
            let w = inner.state(pos).load(Ordering::Relaxed);
            let reserved = match SlotState::decode(w) {
                Ok(SlotState::Reserved(c)) if inner.claim_fits(pos, c) => Some(c),
                Ok(SlotState::Free { .. }) => None,
                _ => return true, // corrupt cell not yet reserved: re-check
            };
            if reserved.is_none() {
                self.empty_polls = self.empty_polls.wrapping_add(1);
                if !blocking && self.empty_polls % EMPTY_POLLS_PER_TAIL_CHECK != 0 {
                    return !self.holes.is_empty();
                }
                // ORDERING: Relaxed — a bound, see `skip_corrupt`.
                if inner.hdr().tail.load(Ordering::Relaxed) <= pos {
                    self.stall = None;
                    return !self.holes.is_empty();
                }
            }
            let now = Instant::now();
            let s = match self.stall {
                Some(s) if s.pos == pos => s,
                _ => {
                    let s = Stall {
                        pos,
                        since: now,
                        next_liveness: now + LIVENESS_AFTER,
                    };
                    self.stall = Some(s);
                    return true;
                }
            };
            let waited = now.saturating_duration_since(s.since);
            match reserved {
                Some(c) => {
                    if now >= s.next_liveness {
                        if let Some(st) = self.stall.as_mut() {
                            st.next_liveness = now + LIVENESS_EVERY;
                        }
                        if c.pid != pid::current() && pid::is_dead(c.pid) {
                            self.abandon_reserved(c, true, true);
                            return true;
                        }
                    }
                    if waited >= self.abandon_after {
                        self.abandon_reserved(c, false, true);
                    }
                }
                None => {
                    if waited >= self.abandon_after {
                        self.skip_anonymous(true);
                    }
                }
            }
            true
        }
    }

    /// Test hook: applies the abandon rules to the record at the read
    /// position now, as if the deadline had passed (an anonymous
    /// reservation is walked over; a `Reserved` one becomes a hole, or is
    /// freed if `dead`). Returns whether the read position moved.
    #[doc(hidden)]
    pub fn abandon_stalled_now(&mut self, dead: bool) -> bool {
        let inner = self.shared();
        let pos = self.read;
        // ORDERING: Relaxed — classification; the CASes decide.
        let w = inner.state(pos).load(Ordering::Relaxed);
        match SlotState::decode(w) {
            Ok(SlotState::Reserved(c)) if inner.claim_fits(pos, c) => {
                self.abandon_reserved(c, dead, true)
            }
            Ok(SlotState::Free { .. }) => self.skip_anonymous(true),
            _ => false,
        }
    }

    /// Test hook: open holes (abandoned live reservations not yet
    /// acknowledged).
    #[doc(hidden)]
    pub fn open_holes(&self) -> usize {
        self.holes.len()
    }
}
