//! The producer side: claiming room, writing and committing a record,
//! waiting for space, and the test hooks that stop a producer half-way.

use std::time::{Duration, Instant};

use super::error::{PushTimeoutError, TryPushError};
use crate::layout::{cells_for_payload, Claim, RecordMeta, SlotState};
use crate::sync::{spin_loop, Ordering};

use super::{pid, Reservation, Ring};

/// Longest sleep of a producer waiting for space (it re-checks after).
const SPACE_POLL: Duration = Duration::from_millis(2);

impl Reservation {
    /// Writes and commits the reserved record.
    ///
    /// # Errors
    /// [`TryPushError::Abandoned`] if the consumer gave it up meanwhile;
    /// [`TryPushError::TooLarge`] if `payload` is not the reserved length.
    pub fn commit(self, kind: u16, payload: &[u8]) -> Result<(), TryPushError> {
        if payload.len() != self.len {
            return Err(TryPushError::TooLarge {
                len: payload.len(),
                max: self.len,
            });
        }
        self.ring
            .fill_and_commit(self.pos, self.claim, kind, payload)?;
        self.ring.wake_consumer();
        Ok(())
    }
}

impl Ring {
    /// Pushes one record if there is room now; never blocks.
    ///
    /// # Errors
    /// [`TryPushError::Full`] when there is no room now (nothing written);
    /// [`TryPushError::TooLarge`] when `payload` exceeds
    /// [`max_payload`](Self::max_payload);
    /// [`TryPushError::Abandoned`] when the consumer gave the reservation up
    /// because this producer stalled past its abandon deadline.
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::ring::TryPushError;
    /// use pmix_shm::ring::{Ring, RingParams};
    /// let ring = Ring::new_heap(RingParams::new(4).unwrap());
    /// ring.try_push(1, &[0; 48]).unwrap(); // one cell each
    /// ring.try_push(1, &[0; 48]).unwrap();
    /// ring.try_push(1, &[0; 48]).unwrap();
    /// ring.try_push(1, &[0; 48]).unwrap();
    /// assert_eq!(ring.try_push(1, &[]), Err(TryPushError::Full));
    /// assert!(matches!(ring.try_push(1, &[0; 200]), Err(TryPushError::TooLarge { .. })));
    /// ```
    pub fn try_push(&self, kind: u16, payload: &[u8]) -> Result<(), TryPushError> {
        self.try_push_quiet(kind, payload)?;
        self.wake_consumer();
        Ok(())
    }

    /// As [`try_push`](Self::try_push), but wakes nobody: the caller
    /// owes the consumer a wake-up, [`wake_consumer`](Self::wake_consumer)
    /// or a [`WakeBatch`](super::WakeBatch) that takes this ring (a
    /// fan-out pushes into every target first, then wakes the sleeping
    /// ones with one system call).
    ///
    /// # Errors
    /// As [`try_push`](Self::try_push).
    pub fn try_push_quiet(&self, kind: u16, payload: &[u8]) -> Result<(), TryPushError> {
        let (pos, claim) = self.reserve(payload.len(), pid::current(), Claiming::Full)?;
        self.fill_and_commit(pos, claim, kind, payload)
    }

    /// Pushes one record, waiting for room up to `timeout`.
    ///
    /// # Errors
    /// As [`push_deadline`](Self::push_deadline).
    pub fn push_timeout(
        &self,
        kind: u16,
        payload: &[u8],
        timeout: Duration,
    ) -> Result<(), PushTimeoutError> {
        let deadline = Instant::now().checked_add(timeout);
        self.push_until(kind, payload, deadline)
    }

    /// Pushes one record, waiting for room until `deadline`: spins briefly,
    /// then sleeps on the ring's space doorbell (which the consumer rings
    /// as it releases space), re-checking at least every 2 ms.
    ///
    /// # Errors
    /// [`PushTimeoutError::Timeout`] if the ring stayed full (nothing
    /// written); `TooLarge` and `Abandoned` as for
    /// [`try_push`](Self::try_push).
    pub fn push_deadline(
        &self,
        kind: u16,
        payload: &[u8],
        deadline: Instant,
    ) -> Result<(), PushTimeoutError> {
        self.push_until(kind, payload, Some(deadline))
    }

    fn push_until(
        &self,
        kind: u16,
        payload: &[u8],
        deadline: Option<Instant>,
    ) -> Result<(), PushTimeoutError> {
        let mut spins = 0u32;
        loop {
            match self.try_push(kind, payload) {
                Err(TryPushError::Full) => {}
                other => return other.map_err(PushTimeoutError::from),
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return Err(PushTimeoutError::Timeout);
            }
            if spins < 64 {
                spins += 1;
                for _ in 0..16 {
                    spin_loop();
                }
                continue;
            }
            let space = &self.inner.hdr().space;
            let ticket = space.prepare_sleep();
            if self.has_room_for(payload.len()) {
                continue;
            }
            let mut wait = SPACE_POLL;
            if let Some(d) = deadline {
                wait = wait.min(d.saturating_duration_since(now));
            }
            space.sleep(ticket, Some(wait));
        }
    }

    /// Whether a record of `len` bytes fits now (loads `head` afresh).
    fn has_room_for(&self, len: usize) -> bool {
        let inner = &*self.inner;
        let Some(k) = cells_for_payload(len) else {
            return true;
        };
        // ORDERING: Relaxed — a hint read after the caller's SeqCst fence.
        let t = inner.hdr().tail.load(Ordering::Relaxed);
        let i = inner.idx(t) as u64;
        let pad = if i + k as u64 > inner.cap {
            inner.cap - i
        } else {
            0
        };
        // ORDERING: Acquire — pairs with the consumer's Release store of
        // `head` (and the read follows the space doorbell's fence).
        let h = inner.hdr().head.load(Ordering::Acquire);
        t + pad + k as u64 <= h + inner.cap
    }

    /// Step 1–3 of the protocol: claim room and write the claim word(s).
    fn reserve(&self, len: usize, pid: u32, mode: Claiming) -> Result<(u64, Claim), TryPushError> {
        let inner = &*self.inner;
        let max = self.max_payload();
        let too_large = TryPushError::TooLarge { len, max };
        if len > max {
            return Err(too_large);
        }
        let k = cells_for_payload(len).ok_or(too_large)? as u64;
        let hdr = inner.hdr();
        let (t, pad) = loop {
            // ORDERING: Relaxed — a guess; the CAS below validates it.
            let t = hdr.tail.load(Ordering::Relaxed);
            let i = inner.idx(t) as u64;
            let pad = if i + k > inner.cap { inner.cap - i } else { 0 };
            let need = pad + k;
            // ORDERING: Acquire — pairs with the Release store below by
            // another thread of this process, which itself Acquired `head`:
            // the consumer's reads and free stamps of the cells we are about
            // to reuse happen before our writes.
            let mut h = inner.cached_head.load(Ordering::Acquire);
            if t + need > h + inner.cap {
                // ORDERING: Acquire — pairs with the consumer's Release store
                // of `head` after it stamped the released cells free.
                h = hdr.head.load(Ordering::Acquire);
                // ORDERING: Release — passes the Acquire above on to the
                // other threads that read the cache.
                inner.cached_head.store(h, Ordering::Release);
                if t + need > h + inner.cap {
                    return Err(TryPushError::Full);
                }
            }
            // ORDERING: Relaxed — `tail` only hands out positions; data
            // visibility comes from `head` (above) and the commit (below).
            if hdr
                .tail
                .compare_exchange_weak(t, t + need, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                break (t, pad);
            }
            spin_loop();
        };
        if mode == Claiming::Anonymous {
            return Ok((
                t + pad,
                Claim {
                    pid,
                    cells: k as u16,
                    lap: inner.lap(t + pad),
                },
            ));
        }
        if pad > 0 {
            let c = Claim {
                pid,
                cells: pad as u16,
                lap: inner.lap(t),
            };
            // ORDERING: Relaxed — a padding carries no data; the CAS itself
            // decides against the consumer's walk CAS on the same word.
            if inner
                .state(t)
                .compare_exchange(
                    SlotState::free(t),
                    SlotState::Padding(c).encode(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
            {
                return Err(TryPushError::Abandoned);
            }
        }
        let p = t + pad;
        let c = Claim {
            pid,
            cells: k as u16,
            lap: inner.lap(p),
        };
        // ORDERING: Relaxed — the CAS decides ownership against the
        // consumer's walk CAS on the same word (one modification order);
        // the payload is published later by the Release commit.
        inner
            .state(p)
            .compare_exchange(
                SlotState::free(p),
                SlotState::Reserved(c).encode(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .map_err(|_| TryPushError::Abandoned)?;
        Ok((p, c))
    }

    /// Step 4–5: write meta and payload, then commit.
    fn fill_and_commit(
        &self,
        pos: u64,
        claim: Claim,
        kind: u16,
        payload: &[u8],
    ) -> Result<(), TryPushError> {
        let inner = &*self.inner;
        let meta = RecordMeta {
            len: payload.len() as u32,
            kind,
        };
        // ORDERING: Relaxed — published by the Release commit below.
        inner.meta(pos).store(meta.encode(), Ordering::Relaxed);
        // SAFETY: we own the claim at `pos` (its Reserved CAS succeeded) of
        // `cells_for_payload(len)` cells inside the ring.
        unsafe { inner.write_payload(pos, payload) };
        let reserved = SlotState::Reserved(claim).encode();
        // ORDERING: Release — pairs with the consumer's Acquire load of the
        // state word: meta and payload are visible once it sees Committed.
        // Failure: Relaxed — we only compare the value.
        match inner.state(pos).compare_exchange(
            reserved,
            SlotState::Committed(claim).encode(),
            Ordering::Release,
            Ordering::Relaxed,
        ) {
            Ok(_) => Ok(()),
            Err(_) => {
                // The consumer abandoned us: let it reclaim the cells.
                // ORDERING: Release — pairs with the consumer's Acquire load
                // of Acked: our payload writes end before it reuses them.
                let _ = inner.state(pos).compare_exchange(
                    SlotState::Abandoned(claim).encode(),
                    SlotState::Acked(claim).encode(),
                    Ordering::Release,
                    Ordering::Relaxed,
                );
                Err(TryPushError::Abandoned)
            }
        }
    }

    /// Test hook: reserves a record of `len` bytes (claim word written with
    /// this process's pid) and returns it uncommitted.
    ///
    /// # Errors
    /// As [`try_push`](Self::try_push).
    #[doc(hidden)]
    pub fn reserve_for_test(&self, len: usize) -> Result<Reservation, TryPushError> {
        let (pos, claim) = self.reserve(len, pid::current(), Claiming::Full)?;
        Ok(Reservation {
            ring: self.clone(),
            pos,
            claim,
            len,
        })
    }

    /// Test hook: reserves a record as a producer that then dies before
    /// committing (the claim word carries `pid`). Used to SIGKILL a real
    /// producer between reserve and commit.
    ///
    /// # Errors
    /// As [`try_push`](Self::try_push).
    #[doc(hidden)]
    pub fn try_push_reserve_only(&self, len: usize, pid: Option<u32>) -> Result<(), TryPushError> {
        self.reserve(len, pid.unwrap_or_else(pid::current), Claiming::Full)
            .map(|_| ())
    }

    /// Test hook: advances `tail` like a producer that dies before writing
    /// its pid (an anonymous reservation).
    ///
    /// # Errors
    /// As [`try_push`](Self::try_push).
    #[doc(hidden)]
    pub fn try_reserve_anonymous(&self, len: usize) -> Result<(), TryPushError> {
        self.reserve(len, 0, Claiming::Anonymous).map(|_| ())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Claiming {
    /// Tail CAS, then the claim word(s).
    Full,
    /// Tail CAS only (test hook).
    Anonymous,
}
