//! [`Barrier::wait`]: spin, then sleep on the cell's futex word in
//! announce / re-check / sleep rounds (the Dekker handshake of the
//! [module docs](super)), each sleep at most [`MAX_SLEEP`] so that the
//! caller's interruption is polled.

use std::time::{Duration, Instant};

use super::{Barrier, BarrierWaitError, MAX_SLEEP};
#[cfg(not(loom))]
use crate::sync::spin_loop;
use crate::sync::{fence, Ordering};

/// Spin rounds (16 pause hints and a check each) between two polls of the
/// interruption while spinning.
#[cfg(not(loom))]
const SPIN_ROUNDS_PER_POLL: u32 = 64;

impl Barrier<'_> {
    /// Waits for the outcome of `episode`, which this party
    /// [`arrive`](Self::arrive)d in (and did not complete): checks, spins
    /// for up to `spin` re-checking, then sleeps on the futex in announce /
    /// re-check / sleep rounds of at most [`MAX_SLEEP`]. When `deadline`
    /// passes (`None`: no limit) the episode is ended as timed out for
    /// every party ([`time_out`](Self::time_out)), unless it ended first.
    ///
    /// `interrupt` is polled while spinning and before every sleep (so at
    /// least every [`MAX_SLEEP`]); the first `Some(status)` it returns ends
    /// the wait with [`BarrierWaitError::Interrupted`]. The episode is left
    /// as it is (this party's arrival still counts).
    ///
    /// Under `cfg(loom)` it never spins and sleeps without a timeout.
    ///
    /// # Errors
    ///
    /// - [`BarrierWaitError::Poisoned`] as soon as the barrier is poisoned;
    /// - [`BarrierWaitError::Timeout`]: the deadline passed and this call
    ///   ended the episode;
    /// - [`BarrierWaitError::EpisodeTimedOut`]: another party's deadline
    ///   ended it;
    /// - [`BarrierWaitError::Interrupted`]: `interrupt` said so;
    /// - [`BarrierWaitError::OutOfStep`]: the cell was reset under the wait.
    pub fn wait(
        &self,
        episode: u32,
        spin: Duration,
        deadline: Option<Instant>,
        interrupt: &dyn Fn() -> Option<i32>,
    ) -> Result<(), BarrierWaitError> {
        if let Some(done) = self.outcome(episode) {
            return done;
        }
        #[cfg(not(loom))]
        if !spin.is_zero() {
            if let Some(done) = self.spin(episode, spin, deadline, interrupt) {
                return done;
            }
        }
        #[cfg(loom)]
        let _ = spin;
        let c = self.cell;
        loop {
            // ORDERING: Acquire — pairs with the Release bump in `notify`:
            // if this already reads a bump, the check below sees what was
            // published before it. Read before the check, so any later
            // change of the outcome changes the word we sleep on.
            let seen = c.seq.load(Ordering::Acquire);
            // ORDERING: Relaxed — ordered by the fence below.
            c.waiters.fetch_add(1, Ordering::Relaxed);
            // ORDERING: SeqCst fence — pairs with the SeqCst fence in
            // `notify`: either the notifier's load of `waiters` sees our
            // announcement, or our check below sees what it published.
            fence(Ordering::SeqCst);
            let over = self
                .outcome(episode)
                .or_else(|| interrupt().map(|s| Err(BarrierWaitError::Interrupted(s))));
            let now = Instant::now();
            if over.is_some() || deadline.is_some_and(|d| now >= d) {
                // ORDERING: Relaxed — withdrawing only saves a notifier a
                // needless system call.
                c.waiters.fetch_sub(1, Ordering::Relaxed);
                return over.unwrap_or_else(|| self.time_out(episode));
            }
            let nap = deadline.map_or(MAX_SLEEP, |d| (d - now).min(MAX_SLEEP));
            c.seq.wait(seen, Some(nap));
            // ORDERING: Relaxed — as above.
            c.waiters.fetch_sub(1, Ordering::Relaxed);
            if let Some(done) = self.outcome(episode) {
                return done;
            }
        }
    }

    /// The spin phase of [`wait`](Self::wait): `Some` when the wait is
    /// over, `None` once `spin` (or the deadline) has passed.
    #[cfg(not(loom))]
    fn spin(
        &self,
        episode: u32,
        spin: Duration,
        deadline: Option<Instant>,
        interrupt: &dyn Fn() -> Option<i32>,
    ) -> Option<Result<(), BarrierWaitError>> {
        let end = Instant::now().checked_add(spin);
        let mut rounds = 0u32;
        loop {
            for _ in 0..16 {
                spin_loop();
            }
            if let Some(done) = self.outcome(episode) {
                return Some(done);
            }
            rounds = rounds.wrapping_add(1);
            if rounds % SPIN_ROUNDS_PER_POLL == 0 {
                if let Some(s) = interrupt() {
                    return Some(Err(BarrierWaitError::Interrupted(s)));
                }
            }
            let now = Instant::now();
            if end.is_some_and(|e| now >= e) || deadline.is_some_and(|d| now >= d) {
                return None;
            }
        }
    }
}
