//! Waking a ring's consumer: on the ring's own doorbell, or — for a
//! consumer that sleeps in its segment's [`WakeGroup`] — with a group
//! wake that one system call can share among many rings ([`WakeBatch`]).
//!
//! The consumer says where it sleeps in the header's `consumer_wake_bits`
//! (0: on the doorbell word; otherwise its group bits), written before it
//! announces sleep on the doorbell. A producer always decides on the
//! doorbell's announce bit whether a system call is owed at all
//! ([`Doorbell::take_sleeper`]), so waking an awake consumer costs a fence
//! and a load, as before.

use std::time::{Duration, Instant};

use crate::doorbell::Doorbell;
use crate::sync::{spin_loop, Ordering};
use crate::wake_group::WakeGroup;

use super::Ring;

impl Ring {
    /// The wake group of this ring's segment (`None` for a heap ring made
    /// without one).
    pub fn wake_group(&self) -> Option<&WakeGroup> {
        self.group.as_ref()
    }

    /// This handle with `group` as the ring's wake group (heap rings in
    /// tests and models; rings attached from a segment carry its group).
    pub fn with_wake_group(mut self, group: WakeGroup) -> Ring {
        self.group = Some(group);
        self
    }

    /// Wakes the consumer if it announced sleep; call after publishing
    /// what it waits for (a record, or another source it checks). Returns
    /// whether a wake-up system call was made.
    pub fn wake_consumer(&self) -> bool {
        let mut batch = WakeBatch::new();
        batch.add(self);
        batch.finish() > 0
    }

    /// Consumer only: waits until `cond()` holds, as
    /// [`Doorbell::wait_until`], sleeping in the ring's wake group on the
    /// bits `bits` when the ring has a group and `bits` is not 0, else on
    /// the ring's own doorbell. Every producer of a ring whose consumer
    /// sleeps in a group must wake it through [`wake_consumer`](Self::wake_consumer),
    /// a push, or a [`WakeBatch`] (which all do).
    ///
    /// `cond` must read what the producers publish with `Acquire` (the
    /// [`Consumer::is_ready`](super::Consumer::is_ready) check does).
    pub fn consumer_wait_until(
        &self,
        bits: u32,
        mut cond: impl FnMut() -> bool,
        spin: Duration,
        deadline: Option<Instant>,
    ) -> bool {
        let bell = &self.inner.hdr().doorbell;
        let group = match (&self.group, bits) {
            (Some(g), b) if b != 0 => g,
            _ => {
                self.set_consumer_wake_bits(0);
                return bell.wait_until(cond, spin, deadline);
            }
        };
        self.set_consumer_wake_bits(bits);
        if cond() {
            return true;
        }
        if !spin.is_zero() {
            let end = Instant::now() + spin;
            loop {
                for _ in 0..16 {
                    spin_loop();
                }
                if cond() {
                    return true;
                }
                if Instant::now() >= end {
                    break;
                }
            }
        }
        loop {
            // Read the epoch before announcing (the announcement's Release
            // orders it, see `wake_group.rs`).
            let epoch = group.epoch();
            let ticket = bell.prepare_sleep();
            if cond() {
                bell.cancel_sleep(ticket);
                return true;
            }
            let timeout = match deadline {
                None => None,
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        bell.cancel_sleep(ticket);
                        return false;
                    }
                    Some(d - now)
                }
            };
            group.sleep(epoch, bits, timeout);
            if cond() {
                return true;
            }
        }
    }

    /// Consumer only: says where its next sleep is (before announcing it).
    pub(super) fn set_consumer_wake_bits(&self, bits: u32) {
        let w = &self.inner.hdr().consumer_wake_bits;
        // ORDERING: Relaxed — published to ringers by the Release of the
        // consumer's next announcement (`Doorbell::prepare_sleep`); only
        // the consumer writes it. Stored only when it changes, so the
        // line stays shared in the ringers' caches.
        if w.load(Ordering::Relaxed) != bits {
            w.store(bits, Ordering::Relaxed);
        }
    }
}

/// The wake-ups one producer owes after pushing into several rings: each
/// ring whose consumer sleeps on its own doorbell is woken at once (one
/// system call each); consumers sleeping in one wake group are collected
/// and woken together by [`finish`](Self::finish) — one system call for a
/// whole fan-out within a segment.
///
/// # Examples
/// ```
/// use pmix_shm::ring::{Ring, RingParams, WakeBatch};
/// let ring = Ring::new_heap(RingParams::new(16).unwrap());
/// ring.try_push_quiet(1, b"quiet").unwrap();
/// let mut batch = WakeBatch::new();
/// batch.add(&ring);
/// assert_eq!(batch.finish(), 0, "nobody sleeps: no system call");
/// ```
#[derive(Debug, Default)]
pub struct WakeBatch {
    group: Option<WakeGroup>,
    bits: u32,
    calls: usize,
}

impl WakeBatch {
    /// An empty batch.
    pub fn new() -> WakeBatch {
        WakeBatch::default()
    }

    /// After publishing into `ring`: takes its consumer's announcement, if
    /// any, and wakes it now (own doorbell) or adds its bits (group).
    pub fn add(&mut self, ring: &Ring) {
        let hdr = ring.inner.hdr();
        if !hdr.doorbell.take_sleeper() {
            return;
        }
        // ORDERING: Relaxed — after `take_sleeper`'s Acquire CAS, which
        // read the consumer's Release announcement made after this store.
        let bits = hdr.consumer_wake_bits.load(Ordering::Relaxed);
        match &ring.group {
            Some(g) if bits != 0 => {
                if self.group.as_ref().is_some_and(|cur| !cur.same(g)) {
                    self.flush();
                }
                if self.group.is_none() {
                    self.group = Some(g.clone());
                }
                self.bits |= bits;
            }
            // A consumer on its own word; or (not expected: every handle
            // of a segment ring carries its group) a group sleeper this
            // handle cannot reach, which its bounded sleep then covers.
            _ => wake_own(&hdr.doorbell, &mut self.calls),
        }
    }

    /// Wakes the collected group sleepers (one system call) and returns
    /// how many wake-up system calls this batch made in all.
    pub fn finish(&mut self) -> usize {
        self.flush();
        std::mem::take(&mut self.calls)
    }

    fn flush(&mut self) {
        if let Some(g) = self.group.take() {
            if g.wake(std::mem::take(&mut self.bits)) {
                self.calls += 1;
            }
        }
    }
}

fn wake_own(bell: &Doorbell, calls: &mut usize) {
    bell.wake_sleepers();
    *calls += 1;
}
