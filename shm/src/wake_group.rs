//! A wake group: one futex word that the consumers of several rings sleep
//! on, each on its own bit, so that a producer that filled several of
//! those rings wakes every sleeping consumer with **one** system call
//! (`FUTEX_WAKE_BITSET` with the union of their bits).
//!
//! The word is a plain epoch: every group wake adds one before its
//! system call. A consumer reads the epoch *before* it announces itself
//! on its ring's own [`Doorbell`](crate::doorbell::Doorbell) (with
//! `Release`), and sleeps with `FUTEX_WAIT_BITSET` on that epoch. A
//! producer that takes the announcement (an `Acquire` CAS, see
//! [`Doorbell::take_sleeper`](crate::doorbell::Doorbell::take_sleeper))
//! therefore bumps the epoch *after* the consumer read it: either the
//! consumer is already asleep and the wake reaches it, or its
//! `FUTEX_WAIT` finds another value and returns at once. Whether a
//! consumer sleeps (and so whether any system call is needed) is still
//! decided per ring by the doorbell's announce bit, so a producer never
//! makes a system call for a consumer that is awake.
//!
//! Bits are `1 << (id % 32)`: consumers whose ids alias share a bit and
//! may be woken for another's record; they find nothing, and sleep again.
//!
//! In a segment the group word is the segment header's `wake_group` word
//! (`docs/SHM-LAYOUT.md`); every ring attached from the segment carries it.

use std::any::Any;
use std::fmt;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Duration;

use crate::sync::{FutexWait, FutexWord, Ordering};

/// A handle on one wake-group word (cloning shares it).
///
/// # Examples
/// ```
/// use pmix_shm::wake_group::WakeGroup;
/// let g = WakeGroup::new_heap();
/// let e = g.epoch();
/// assert!(g.wake(WakeGroup::bit_for(3)));
/// assert_eq!(g.epoch(), e.wrapping_add(1));
/// assert!(!g.wake(0), "no bits, no system call");
/// ```
#[derive(Clone)]
pub struct WakeGroup {
    word: NonNull<FutexWord>,
    _keep: Arc<dyn Any + Send + Sync>,
}

// SAFETY: `word` points at a futex word inside memory kept alive by
// `_keep` (a heap word or the mapping of a segment); it is only used
// through its atomic operations and futex calls, which any thread may make.
unsafe impl Send for WakeGroup {}
// SAFETY: as for `Send`: `&WakeGroup` only reaches the word's atomics.
unsafe impl Sync for WakeGroup {}

impl fmt::Debug for WakeGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WakeGroup")
            .field("word", &self.word)
            .finish_non_exhaustive()
    }
}

impl WakeGroup {
    /// A group whose word lives on the heap (tests, models, one process).
    pub fn new_heap() -> WakeGroup {
        let word: Arc<FutexWord> = Arc::new(FutexWord::new(0));
        let ptr = NonNull::from(&*word);
        WakeGroup {
            word: ptr,
            _keep: word,
        }
    }

    /// A group on the word at `word`.
    ///
    /// # Safety
    /// `word` must point at an aligned futex word that stays valid as long
    /// as `keep` lives.
    #[cfg(not(loom))]
    pub(crate) unsafe fn from_raw(
        word: NonNull<FutexWord>,
        keep: Arc<dyn Any + Send + Sync>,
    ) -> WakeGroup {
        WakeGroup { word, _keep: keep }
    }

    fn word(&self) -> &FutexWord {
        // SAFETY: see the `Send` impl: the word outlives `self`.
        unsafe { self.word.as_ref() }
    }

    /// The bit of the consumer `id` (its slot): `1 << (id % 32)`.
    pub fn bit_for(id: u32) -> u32 {
        1 << (id % 32)
    }

    /// Whether two handles name the same word.
    pub fn same(&self, other: &WakeGroup) -> bool {
        self.word == other.word
    }

    /// The current epoch. A consumer reads it before announcing itself
    /// (see the module docs) and sleeps on it.
    pub fn epoch(&self) -> u32 {
        // ORDERING: Relaxed — the consumer orders this load before its
        // announcement by the announcement's Release (see the module docs).
        self.word().load(Ordering::Relaxed)
    }

    /// Consumer: sleeps while the epoch is `epoch`, until a wake that
    /// names one of `bits`, the timeout, a signal or a spurious wake-up.
    pub fn sleep(&self, epoch: u32, bits: u32, timeout: Option<Duration>) -> FutexWait {
        self.word().wait_bitset(epoch, bits, timeout)
    }

    /// Producer: bumps the epoch and wakes, in one system call, every
    /// consumer sleeping on one of `bits`. Call only for consumers whose
    /// announcements were taken (`Doorbell::take_sleeper`). Returns
    /// whether it made the call (`false` for no bits).
    pub fn wake(&self, bits: u32) -> bool {
        if bits == 0 {
            return false;
        }
        // ORDERING: Relaxed — the word carries no data; the change makes a
        // consumer's FUTEX_WAIT on the old epoch return. That the consumer
        // read the old epoch before this increment follows from the
        // Release/Acquire pair on its doorbell (module docs).
        self.word().fetch_add(1, Ordering::Relaxed);
        self.word().wake_bitset(bits);
        true
    }
}
