//! Futex doorbells: one shared futex word per ring, so a consumer can sleep
//! when its ring is empty and producers wake it without a syscall on the
//! hot path.
//!
//! The word is an *event count*: bit 0 says "someone announced they are going
//! to sleep", bits 1..31 count the rings that found such an announcement.
//! A waiter announces, re-checks its condition, and only then sleeps on the
//! value it announced; a ringer publishes its data, then looks at the word and
//! makes the `FUTEX_WAKE` system call only when the announce bit is set. The
//! two sides are ordered by a `fence(SeqCst)` each (a Dekker handshake), which
//! is what rules out a lost wake-up: either the ringer sees the announcement,
//! or the waiter's re-check sees the data.
//!
//! # State table of the word
//!
//! | bits  | name       | meaning                                                        |
//! |-------|------------|----------------------------------------------------------------|
//! | 0     | `SLEEPERS` | 1: at least one waiter announced itself since the last ring     |
//! | 1..31 | epoch      | rings that found `SLEEPERS` set, modulo 2^31                    |
//!
//! | actor                   | word before | word after      | when                                        |
//! |-------------------------|-------------|-----------------|---------------------------------------------|
//! | waiter                  | `2e + s`    | `2e + 1`        | [`Doorbell::prepare_sleep`] (`fetch_or`)    |
//! | waiter (sole waiter)    | `2e + 1`    | `2e`            | [`Doorbell::cancel_sleep`], if unchanged    |
//! | ringer                  | `2e + 1`    | `2(e + 1)`      | [`Doorbell::ring`], then `FUTEX_WAKE(all)`  |
//! | ringer                  | `2e`        | unchanged       | [`Doorbell::ring`]: no sleeper, no syscall  |
//!
//! Several waiters may share one word (producers waiting for ring space do):
//! a waiter never clears another's announcement, only a ringer clears the
//! bit, and it then wakes every sleeper, each of which re-checks and, if it
//! still has to wait, announces again. Only a waiter that knows it is the sole
//! waiter (a ring's single consumer) may [`cancel_sleep`](Doorbell::cancel_sleep).
//!
//! The epoch makes the value a sleeper waits on unique: if a ring happens
//! between the announcement and the `FUTEX_WAIT`, the kernel sees another
//! value and returns at once. (An ABA needs exactly 2^31 rings inside that
//! window.)
//!
//! Under `cfg(loom)` the futex is emulated by [`FutexWord`] with a mutex and a
//! condition variable, and timeouts never fire, so a lost wake-up is a loom
//! deadlock.

use std::time::{Duration, Instant};

use crate::sync::{fence, spin_loop, FutexWait, FutexWord, Ordering};

/// A futex doorbell word (4 bytes in shared memory; see the module docs for
/// its state table).
///
/// # Examples
/// ```
/// use pmix_shm::doorbell::Doorbell;
/// use pmix_shm::sync::{AtomicU32, Ordering};
/// use std::sync::Arc;
/// use std::time::{Duration, Instant};
///
/// let bell = Arc::new(Doorbell::new());
/// let data = Arc::new(AtomicU32::new(0));
/// let (b, d) = (bell.clone(), data.clone());
/// let t = std::thread::spawn(move || {
///     d.store(1, Ordering::Release); // publish ...
///     b.ring(); // ... then ring: a syscall only if someone sleeps
/// });
/// let deadline = Instant::now() + Duration::from_secs(10);
/// assert!(bell.wait_until(|| data.load(Ordering::Acquire) == 1, Duration::ZERO, Some(deadline)));
/// t.join().unwrap();
/// ```
#[derive(Debug, Default)]
#[repr(C)]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
pub struct Doorbell {
    word: FutexWord,
}

/// What a waiter announced: the exact word value it may sleep on. Returned by
/// [`Doorbell::prepare_sleep`], consumed by [`Doorbell::sleep`] or
/// [`Doorbell::cancel_sleep`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a prepared sleep must be slept or cancelled"]
pub struct SleepTicket {
    expected: u32,
}

impl Doorbell {
    /// Bit 0: at least one waiter has announced itself.
    pub const SLEEPERS: u32 = 1;
    /// One step of the epoch (bits 1..31).
    pub const EPOCH_ONE: u32 = 2;

    /// A doorbell with no sleeper and epoch 0 (the all-zero word, which is
    /// also what a zeroed segment holds).
    pub fn new() -> Self {
        Doorbell {
            word: FutexWord::new(0),
        }
    }

    /// Resets the word to 0 (no sleeper, epoch 0). Only while nobody else
    /// can use the doorbell (initialisation).
    pub(crate) fn reset(&self) {
        // ORDERING: Relaxed — initialisation, published by the caller.
        self.word.store(0, Ordering::Relaxed);
    }

    /// The raw word, for diagnostics and tests.
    pub fn raw(&self) -> u32 {
        // ORDERING: Relaxed — a diagnostic snapshot, nothing is read through it.
        self.word.load(Ordering::Relaxed)
    }

    /// Waiter, step 1: announce "I am about to sleep" and order the
    /// announcement before the caller's re-check of its condition.
    ///
    /// After this the caller must re-check its condition; if it holds it
    /// calls [`cancel_sleep`](Self::cancel_sleep) (sole waiter) or simply
    /// goes on, otherwise it calls [`sleep`](Self::sleep) with the ticket.
    pub fn prepare_sleep(&self) -> SleepTicket {
        // ORDERING: Release — whatever the waiter did before announcing
        // (a wake-group consumer's read of the group epoch and its bits)
        // happens before the ringer's `Acquire` CAS in `take_sleeper`
        // that reads this announcement; the fence below orders the rest.
        let before = self.word.fetch_or(Self::SLEEPERS, Ordering::Release);
        // ORDERING: SeqCst fence — pairs with the SeqCst fence in `ring`:
        // either the ringer's load sees this announcement, or the caller's
        // re-check (after this fence) sees what the ringer published before
        // its fence.
        fence(Ordering::SeqCst);
        SleepTicket {
            expected: before | Self::SLEEPERS,
        }
    }

    /// Waiter: withdraw an announcement whose re-check found the condition
    /// already true. Only for a waiter that is the **sole** waiter of this
    /// word (a ring's consumer): it clears the bit only if nothing changed
    /// since [`prepare_sleep`](Self::prepare_sleep), so at worst a ringer
    /// already rang and its wake-up finds nobody.
    pub fn cancel_sleep(&self, ticket: SleepTicket) {
        // ORDERING: Relaxed — no data is published by withdrawing; the CAS
        // only keeps the next ringer from making a needless syscall.
        let _ = self.word.compare_exchange(
            ticket.expected,
            ticket.expected & !Self::SLEEPERS,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }

    /// Waiter, step 2: sleep on the announced value until a ring, the
    /// timeout, a signal, or a spurious wake-up. The caller re-checks its
    /// condition afterwards in every case.
    pub fn sleep(&self, ticket: SleepTicket, timeout: Option<Duration>) -> FutexWait {
        self.word.wait(ticket.expected, timeout)
    }

    /// Ringer: call after publishing (with `Release` or stronger) whatever
    /// the waiters wait for. Costs a fence and a load when nobody sleeps;
    /// when a waiter announced itself, clears the announcement, bumps the
    /// epoch and wakes all sleepers. Returns whether it made the wake call.
    pub fn ring(&self) -> bool {
        if self.take_sleeper() {
            self.wake_sleepers();
            true
        } else {
            false
        }
    }

    /// Ringer, without the system call: after the caller's publication,
    /// takes a waiter's announcement (clears the bit, bumps the epoch) and
    /// returns `true` when there was one — the caller then owes that
    /// waiter a wake-up: [`wake_sleepers`](Self::wake_sleepers) for a
    /// waiter sleeping on this word, or a wake of the wake group it
    /// sleeps in ([`WakeGroup::wake`](crate::wake_group::WakeGroup::wake)).
    /// Costs a fence and a load when nobody sleeps.
    pub fn take_sleeper(&self) -> bool {
        // ORDERING: SeqCst fence — pairs with the fence in `prepare_sleep`
        // (see there): the caller's publication is ordered before the load
        // of the announcement.
        fence(Ordering::SeqCst);
        // ORDERING: Relaxed — ordered by the fence above.
        let w = self.word.load(Ordering::Relaxed);
        if w & Self::SLEEPERS == 0 {
            return false;
        }
        let next = w.wrapping_add(Self::EPOCH_ONE) & !Self::SLEEPERS;
        // ORDERING: Acquire on success — reads the waiter's Release
        // announcement, so what it did before announcing (a wake-group
        // consumer's read of the group epoch) happens before whatever the
        // caller does next (the group wake's increment). Changing the word
        // makes a sleeper's FUTEX_WAIT on the old value fail or wake. A
        // failed CAS means another ringer took it, or the sole waiter
        // cancelled.
        self.word
            .compare_exchange(w, next, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// `FUTEX_WAKE` of every sleeper on this word (after
    /// [`take_sleeper`](Self::take_sleeper) returned `true`).
    pub fn wake_sleepers(&self) {
        self.word.wake(u32::MAX);
    }

    /// Waits until `cond()` holds: polls it, spins for `spin`, then sleeps
    /// in announce/re-check/sleep rounds until `deadline` (`None`: no
    /// limit). Returns `true` when `cond()` held, `false` on the deadline.
    ///
    /// `cond` must read what the ringers publish with `Acquire` (or be
    /// ordered after this call's fences). Safe with several waiters on one
    /// word: it never cancels an announcement.
    pub fn wait_until(
        &self,
        mut cond: impl FnMut() -> bool,
        spin: Duration,
        deadline: Option<Instant>,
    ) -> bool {
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
            let ticket = self.prepare_sleep();
            if cond() {
                return true;
            }
            let timeout = match deadline {
                None => None,
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return false;
                    }
                    Some(d - now)
                }
            };
            self.sleep(ticket, timeout);
            if cond() {
                return true;
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::AtomicU64;
    use std::sync::Arc;

    #[test]
    fn ring_without_sleeper_changes_nothing() {
        let sut = Doorbell::new();
        assert!(!sut.ring());
        assert_eq!(sut.raw(), 0);
    }

    #[test]
    fn ring_after_announce_bumps_epoch_and_clears_the_bit() {
        let sut = Doorbell::new();
        let t = sut.prepare_sleep();
        assert_eq!(sut.raw(), Doorbell::SLEEPERS);
        assert!(sut.ring());
        assert_eq!(sut.raw(), Doorbell::EPOCH_ONE);
        // The announced value is gone, so the sleep returns at once.
        assert_eq!(
            sut.sleep(t, Some(Duration::from_secs(5))),
            FutexWait::ValueChanged
        );
    }

    #[test]
    fn cancel_withdraws_an_unrung_announcement() {
        let sut = Doorbell::new();
        let t = sut.prepare_sleep();
        sut.cancel_sleep(t);
        assert_eq!(sut.raw(), 0);
        assert!(!sut.ring());
    }

    #[test]
    fn cancel_after_a_ring_keeps_the_new_epoch() {
        let sut = Doorbell::new();
        let t = sut.prepare_sleep();
        assert!(sut.ring());
        sut.cancel_sleep(t);
        assert_eq!(sut.raw(), Doorbell::EPOCH_ONE);
    }

    #[test]
    fn second_announcer_does_not_erase_the_first() {
        let sut = Doorbell::new();
        let a = sut.prepare_sleep();
        let b = sut.prepare_sleep();
        assert_eq!(a, b);
        assert_eq!(sut.raw() & Doorbell::SLEEPERS, 1);
        assert!(sut.ring());
        assert!(!sut.ring(), "one ring serves every announced sleeper");
    }

    #[test]
    fn sleep_times_out_when_nobody_rings() {
        let sut = Doorbell::new();
        let t = sut.prepare_sleep();
        assert_eq!(
            sut.sleep(t, Some(Duration::from_millis(5))),
            FutexWait::TimedOut
        );
    }

    #[test]
    fn wait_until_reports_the_deadline() {
        let sut = Doorbell::new();
        let deadline = Instant::now() + Duration::from_millis(10);
        assert!(!sut.wait_until(|| false, Duration::from_micros(5), Some(deadline)));
        assert!(Instant::now() >= deadline);
    }

    #[test]
    fn sleeping_thread_is_woken_by_ring() {
        let bell = Arc::new(Doorbell::new());
        let flag = Arc::new(AtomicU64::new(0));
        let (b, f) = (bell.clone(), flag.clone());
        let waiter = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            b.wait_until(
                || f.load(Ordering::Acquire) == 1,
                Duration::ZERO,
                Some(deadline),
            )
        });
        // Give the waiter time to fall asleep (not required for correctness).
        std::thread::sleep(Duration::from_millis(20));
        flag.store(1, Ordering::Release);
        bell.ring();
        assert!(waiter.join().unwrap());
    }

    /// Many sleep/wake rounds between two threads; each round has a
    /// generous timeout that must never be the reason it ends.
    #[test]
    fn ping_pong_rounds_never_end_by_timeout() {
        const ROUNDS: u64 = 3000;
        let bells = Arc::new([Doorbell::new(), Doorbell::new()]);
        let counters = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
        let (b2, c2) = (bells.clone(), counters.clone());
        let round_timeout = Duration::from_secs(10);
        let pong = std::thread::spawn(move || {
            for i in 1..=ROUNDS {
                let deadline = Instant::now() + round_timeout;
                // Alternate pure sleeping with a short spin first.
                let spin = if i % 2 == 0 {
                    Duration::ZERO
                } else {
                    Duration::from_micros(2)
                };
                if !b2[1].wait_until(|| c2[1].load(Ordering::Acquire) >= i, spin, Some(deadline)) {
                    return Err(i);
                }
                c2[0].store(i, Ordering::Release);
                b2[0].ring();
            }
            Ok(())
        });
        for i in 1..=ROUNDS {
            counters[1].store(i, Ordering::Release);
            bells[1].ring();
            let deadline = Instant::now() + round_timeout;
            assert!(
                bells[0].wait_until(
                    || counters[0].load(Ordering::Acquire) >= i,
                    Duration::ZERO,
                    Some(deadline)
                ),
                "round {i} ended by timeout on the ping side"
            );
        }
        assert_eq!(pong.join().unwrap(), Ok(()));
    }
}
