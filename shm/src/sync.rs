//! The one door for atomics and cells (STYLE.md rule 1).
//!
//! Everything in pmix-rs that needs an atomic or an `UnsafeCell` imports it
//! from here. Under `cfg(loom)` the same names are loom's model-checked types,
//! so the lock-free structures can be explored by the models in
//! `loom-tests`.
#![allow(clippy::disallowed_types)]

// NB: aliases, not `pub use`: clippy's `disallowed-types` resolves a
// re-export to the std type and flags every use site, while a use of an
// alias resolves to the alias. So only this file names the std atomics.
#[cfg(not(loom))]
pub use std::sync::atomic::{fence, Ordering};
/// `std::sync::atomic::AtomicBool` (loom's under `cfg(loom)`).
#[cfg(not(loom))]
pub type AtomicBool = std::sync::atomic::AtomicBool;
/// `std::sync::atomic::AtomicI32` (loom's under `cfg(loom)`).
#[cfg(not(loom))]
pub type AtomicI32 = std::sync::atomic::AtomicI32;
/// `std::sync::atomic::AtomicU32` (loom's under `cfg(loom)`).
#[cfg(not(loom))]
pub type AtomicU32 = std::sync::atomic::AtomicU32;
/// `std::sync::atomic::AtomicU64` (loom's under `cfg(loom)`).
#[cfg(not(loom))]
pub type AtomicU64 = std::sync::atomic::AtomicU64;
/// `std::sync::atomic::AtomicUsize` (loom's under `cfg(loom)`).
#[cfg(not(loom))]
pub type AtomicUsize = std::sync::atomic::AtomicUsize;
/// `std::sync::atomic::AtomicPtr` (loom's under `cfg(loom)`). In-process
/// structures only (`local/snapshot.rs`): a pointer means nothing in a segment
/// mapped by other processes.
#[cfg(not(loom))]
pub type AtomicPtr<T> = std::sync::atomic::AtomicPtr<T>;
/// `std::cell::UnsafeCell` outside loom, for in-process structures whose
/// plain data a state word guards (`local/handoff.rs`). Under `cfg(loom)` the name
/// is loom's access-tracked cell, whose accessors are `with`/`with_mut`
/// rather than `get`, so users wrap the access in one `cfg`'d helper.
#[cfg(not(loom))]
pub type UnsafeCell<T> = std::cell::UnsafeCell<T>;

#[cfg(loom)]
pub use loom::sync::atomic::{
    fence, AtomicBool, AtomicI32, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

/// Loom's access-tracked cell, for plain (non-atomic) bytes shared between
/// threads under a protocol (the store's table buffers). Under `cfg(loom)`
/// only: outside loom those bytes live in the shared segment and are reached
/// through raw pointers, so there is nothing to track.
#[cfg(loom)]
pub use loom::cell::{ConstPtr, MutPtr, UnsafeCell};

// ---------------------------------------------------------------------------
// Futex words and spin hints (doorbell.rs, ring.rs).
// ---------------------------------------------------------------------------

/// What one [`FutexWord::wait`] call ended with.
///
/// A futex wait may return for no reason at all (`futex(2)`: "a return value
/// of 0 may be a spurious wake-up"), so callers always re-check their
/// condition whatever this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FutexWait {
    /// Woken by [`FutexWord::wake`] (or spuriously).
    Woken,
    /// The word did not hold the expected value when the call began.
    ValueChanged,
    /// The timeout passed first.
    TimedOut,
    /// A signal interrupted the wait.
    Interrupted,
}

/// A `u32` that processes can sleep on: a **shared** Linux futex (no
/// `FUTEX_PRIVATE_FLAG`, so the word may live in a `MAP_SHARED` segment and
/// be waited on and woken from different address spaces).
///
/// It dereferences to its [`AtomicU32`] for the ordinary atomic operations.
/// Zero is a valid initial value, so a zeroed segment holds valid words.
///
/// # Examples
/// ```
/// use pmix_shm::sync::{FutexWait, FutexWord, Ordering};
/// use std::time::Duration;
/// let w = FutexWord::new(7);
/// // The word is not 3, so the wait returns at once.
/// assert_eq!(w.wait(3, Some(Duration::from_millis(10))), FutexWait::ValueChanged);
/// w.store(3, Ordering::Relaxed);
/// assert_eq!(w.wait(3, Some(Duration::from_millis(1))), FutexWait::TimedOut);
/// assert_eq!(w.wake(1), 0); // nobody was asleep
/// ```
#[cfg(not(loom))]
#[derive(Debug, Default)]
#[repr(transparent)]
pub struct FutexWord(AtomicU32);

// SAFETY: `FutexWord` is `repr(transparent)` over `AtomicU32`, for which the
// all-zero bit pattern is the valid value 0.
#[cfg(not(loom))]
unsafe impl bytemuck::Zeroable for FutexWord {}

#[cfg(not(loom))]
impl FutexWord {
    /// A word holding `v`.
    pub const fn new(v: u32) -> Self {
        FutexWord(AtomicU32::new(v))
    }

    /// `futex(addr, FUTEX_WAIT, expected, timeout)`: sleep while the word
    /// holds `expected`, at most `timeout` (`None`: no limit).
    ///
    /// The kernel compares and sleeps atomically with respect to
    /// [`wake`](Self::wake), which is what makes the announce/re-check
    /// protocols built on it free of lost wake-ups.
    #[doc(alias = "FUTEX_WAIT")]
    pub fn wait(&self, expected: u32, timeout: Option<std::time::Duration>) -> FutexWait {
        let ts = timeout.map(|d| libc::timespec {
            tv_sec: d.as_secs().min(i64::MAX as u64 / 2) as libc::time_t,
            tv_nsec: d.subsec_nanos() as libc::c_long,
        });
        let ts_ptr = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: the word is a live, aligned `u32` for the whole call (we
        // hold `&self`); `ts_ptr` is null or points at `ts`, which outlives
        // the call; FUTEX_WAIT reads only those two.
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                self.0.as_ptr(),
                libc::FUTEX_WAIT,
                expected,
                ts_ptr,
                std::ptr::null::<u32>(),
                0u32,
            )
        };
        if r == 0 {
            return FutexWait::Woken;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EAGAIN) => FutexWait::ValueChanged,
            Some(libc::ETIMEDOUT) => FutexWait::TimedOut,
            Some(libc::EINTR) => FutexWait::Interrupted,
            // EFAULT/EINVAL cannot happen for a valid aligned word; report a
            // wake-up so the caller re-checks its condition.
            _ => FutexWait::Woken,
        }
    }

    /// `futex(addr, FUTEX_WAKE, n)`: wake at most `n` sleepers; returns how
    /// many were woken.
    #[doc(alias = "FUTEX_WAKE")]
    pub fn wake(&self, n: u32) -> usize {
        let n = n.min(i32::MAX as u32) as i32;
        // SAFETY: the word is a live, aligned `u32` (we hold `&self`);
        // FUTEX_WAKE only uses its address as a key.
        let r = unsafe { libc::syscall(libc::SYS_futex, self.0.as_ptr(), libc::FUTEX_WAKE, n) };
        if r < 0 {
            0
        } else {
            r as usize
        }
    }

    /// `futex(addr, FUTEX_WAIT_BITSET, expected, timeout, NULL, bits)`: as
    /// [`wait`](Self::wait), but only a [`wake_bitset`](Self::wake_bitset)
    /// whose mask shares a bit with `bits` wakes this sleeper. `bits` must
    /// not be 0 (it is made 1 then). The timeout is relative.
    #[doc(alias = "FUTEX_WAIT_BITSET")]
    pub fn wait_bitset(
        &self,
        expected: u32,
        bits: u32,
        timeout: Option<std::time::Duration>,
    ) -> FutexWait {
        // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline.
        let ts = timeout.map(|d| {
            let mut now = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `now` is a valid, writable timespec.
            unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
            let d = d.min(std::time::Duration::from_secs(u32::MAX as u64));
            let mut sec = now.tv_sec.saturating_add(d.as_secs() as libc::time_t);
            let mut nsec = now.tv_nsec + d.subsec_nanos() as libc::c_long;
            if nsec >= 1_000_000_000 {
                nsec -= 1_000_000_000;
                sec = sec.saturating_add(1);
            }
            libc::timespec {
                tv_sec: sec,
                tv_nsec: nsec,
            }
        });
        let ts_ptr = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        let bits = if bits == 0 { 1 } else { bits };
        // SAFETY: as in `wait`: a live aligned word, `ts_ptr` null or
        // pointing at `ts`, which outlives the call; the bitset is a value.
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                self.0.as_ptr(),
                libc::FUTEX_WAIT_BITSET,
                expected,
                ts_ptr,
                std::ptr::null::<u32>(),
                bits,
            )
        };
        if r == 0 {
            return FutexWait::Woken;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EAGAIN) => FutexWait::ValueChanged,
            Some(libc::ETIMEDOUT) => FutexWait::TimedOut,
            Some(libc::EINTR) => FutexWait::Interrupted,
            _ => FutexWait::Woken,
        }
    }

    /// `futex(addr, FUTEX_WAKE_BITSET, all, NULL, NULL, mask)`: one system
    /// call that wakes every sleeper whose [`wait_bitset`](Self::wait_bitset)
    /// bits share a bit with `mask` (plain [`wait`](Self::wait) sleepers
    /// match every mask). Returns how many were woken.
    #[doc(alias = "FUTEX_WAKE_BITSET")]
    pub fn wake_bitset(&self, mask: u32) -> usize {
        if mask == 0 {
            return 0;
        }
        // SAFETY: the word is a live, aligned `u32`; FUTEX_WAKE_BITSET uses
        // its address as a key and reads no other memory.
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                self.0.as_ptr(),
                libc::FUTEX_WAKE_BITSET,
                i32::MAX,
                std::ptr::null::<libc::timespec>(),
                std::ptr::null::<u32>(),
                mask,
            )
        };
        if r < 0 {
            0
        } else {
            r as usize
        }
    }
}

/// Under loom the futex is emulated with a mutex and a condition variable so
/// the model explores the real announce/re-check protocol. Timeouts are not
/// modelled: a wait blocks until woken, so a lost wake-up shows up as a loom
/// deadlock.
#[cfg(loom)]
pub struct FutexWord {
    word: AtomicU32,
    /// The masks of every wake so far, in order (models are short).
    lock: loom::sync::Mutex<Vec<u32>>,
    cv: loom::sync::Condvar,
}

#[cfg(loom)]
impl std::fmt::Debug for FutexWord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FutexWord").finish_non_exhaustive()
    }
}

#[cfg(loom)]
impl Default for FutexWord {
    fn default() -> Self {
        FutexWord::new(0)
    }
}

#[cfg(loom)]
impl FutexWord {
    /// A word holding `v`.
    pub fn new(v: u32) -> Self {
        FutexWord {
            word: AtomicU32::new(v),
            lock: loom::sync::Mutex::new(Vec::new()),
            cv: loom::sync::Condvar::new(),
        }
    }

    /// Emulated `FUTEX_WAIT`: compare under the lock, then wait for a wake.
    /// The timeout is ignored (see the type's docs).
    pub fn wait(&self, expected: u32, timeout: Option<std::time::Duration>) -> FutexWait {
        self.wait_bitset(expected, u32::MAX, timeout)
    }

    /// Emulated `FUTEX_WAKE`: wakes every waiter (a superset of `n`, which
    /// the callers' re-check loops tolerate like spurious wake-ups).
    pub fn wake(&self, _n: u32) -> usize {
        self.wake_bitset(u32::MAX)
    }

    /// Emulated `FUTEX_WAIT_BITSET`: returns only once a wake whose mask
    /// shares a bit with `bits` happened after the compare (a wake for
    /// other bits leaves it asleep, as the kernel does).
    pub fn wait_bitset(
        &self,
        expected: u32,
        bits: u32,
        _timeout: Option<std::time::Duration>,
    ) -> FutexWait {
        let mut guard = self.lock.lock().unwrap();
        // ORDERING: SeqCst under the emulation lock — the kernel's compare is
        // ordered with the wake by its hash-bucket lock; the mutex plays
        // that part here.
        if self.word.load(Ordering::SeqCst) != expected {
            return FutexWait::ValueChanged;
        }
        let seen = guard.len();
        loop {
            guard = self.cv.wait(guard).unwrap();
            if guard[seen..].iter().any(|m| m & bits != 0) {
                return FutexWait::Woken;
            }
        }
    }

    /// Emulated `FUTEX_WAKE_BITSET`: wakes the waiters whose bits meet
    /// `mask`.
    pub fn wake_bitset(&self, mask: u32) -> usize {
        if mask == 0 {
            return 0;
        }
        let mut guard = self.lock.lock().unwrap();
        guard.push(mask);
        self.cv.notify_all();
        1
    }
}

impl std::ops::Deref for FutexWord {
    type Target = AtomicU32;
    fn deref(&self) -> &AtomicU32 {
        #[cfg(not(loom))]
        {
            &self.0
        }
        #[cfg(loom)]
        {
            &self.word
        }
    }
}

/// One iteration of a busy-wait: the CPU's pause hint, or under loom a yield
/// so the model lets the other threads progress.
#[inline]
pub fn spin_loop() {
    #[cfg(not(loom))]
    std::hint::spin_loop();
    #[cfg(loom)]
    loom::thread::yield_now();
}
