//! An atomically swappable `Arc<T>` whose readers never lock (the idea of
//! the `arc-swap` crate, with a fixed set of hazard slots).
//!
//! The cell holds `Arc::into_raw` of the current value in one pointer word.
//! A reader cannot simply load the word and bump the strong count: between
//! the two, a writer could swap the value out and drop the last reference.
//! So the reader first *announces* the pointer in a hazard slot, then
//! re-checks that the word still holds it, and only then bumps the count; a
//! writer that swapped a value out waits until no slot announces it before
//! dropping its reference (hazard pointers, Michael 2004, with a single
//! retired value per writer and no retire list).
//!
//! NB: M. M. Michael, "Hazard Pointers: Safe Memory Reclamation for
//! Lock-Free Objects", IEEE TPDS 15(6), 2004.
//!
//! # Why it is safe
//!
//! Reader: announce `p` in a slot; `fence(SeqCst)`; re-load the word.
//! Writer: swap the word; `fence(SeqCst)`; load every slot. The two fences
//! are totally ordered. If the writer's fence is first, the reader's
//! re-load sees the swap, so it does not use `p` (it retries). If the
//! reader's fence is first, the writer's slot load sees the announcement
//! (and waits), or a later value of the slot, written after the reader's
//! `Release` clearing, which then happens-before the writer's drop, so the
//! count was bumped first. A reused address (ABA) is harmless: the re-load
//! validates that `p` is the *current* value, whatever its history.
//!
//! # Progress
//!
//! [`SnapshotCell::load`] takes no lock: it completes in a bounded number
//! of steps when no writer is active and a slot is free; a reader that
//! finds all [`HAZARD_SLOTS`] busy spins until one frees (they are held
//! for a few instructions). Writers ([`store`](SnapshotCell::store),
//! [`swap`](SnapshotCell::swap), [`update`](SnapshotCell::update)) are
//! serialised by a small spin lock and wait for readers that announced the
//! old value, again a few instructions each.

use std::fmt;
use std::marker::PhantomData;
use std::ptr;
use std::sync::Arc;

use super::gate::Backoff;
use crate::sync::{fence, spin_loop, AtomicBool, AtomicPtr, Ordering};

/// Hazard slots per cell: how many loads may be between their announcement
/// and their count bump at once (2 under loom, to keep models small).
#[cfg(not(loom))]
pub const HAZARD_SLOTS: usize = 8;
/// Hazard slots per cell: how many loads may be between their announcement
/// and their count bump at once (2 under loom, to keep models small).
#[cfg(loom)]
pub const HAZARD_SLOTS: usize = 2;

/// An atomically swappable `Arc<T>`; see the module docs.
///
/// `Send` and `Sync` exactly when `Arc<T>` is (`T: Send + Sync`).
///
/// # Examples
/// ```
/// use pmix_shm::local::snapshot::SnapshotCell;
/// use std::sync::Arc;
///
/// let cell = SnapshotCell::new(Arc::new(vec![1, 2]));
/// let before = cell.load();
/// let after = cell
///     .update(|v| {
///         let mut v = v.clone();
///         v.push(3);
///         Ok::<_, ()>(v)
///     })
///     .unwrap();
/// assert_eq!(*before, [1, 2]); // an old snapshot stays valid
/// assert_eq!(*after, [1, 2, 3]);
/// assert_eq!(*cell.load(), [1, 2, 3]);
/// ```
pub struct SnapshotCell<T> {
    /// `Arc::into_raw` of the current value; never null.
    current: AtomicPtr<T>,
    /// Pointers announced by readers (null: free).
    hazards: [AtomicPtr<T>; HAZARD_SLOTS],
    /// Writers' spin lock.
    writing: AtomicBool,
    /// The cell owns one strong reference of the current value, so it is
    /// `Send`/`Sync` exactly when `Arc<T>` is.
    _owns: PhantomData<Arc<T>>,
}

impl<T> SnapshotCell<T> {
    /// A cell holding `value`.
    pub fn new(value: Arc<T>) -> Self {
        SnapshotCell {
            current: AtomicPtr::new(Arc::into_raw(value).cast_mut()),
            hazards: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())),
            writing: AtomicBool::new(false),
            _owns: PhantomData,
        }
    }

    /// The current value. Takes no lock; may be called from any number of
    /// threads at once.
    pub fn load(&self) -> Arc<T> {
        let mut backoff_slots = 0u32;
        // ORDERING: Relaxed — a guess; only the re-load below, after the
        // announcement, decides what is used.
        let mut p = self.current.load(Ordering::Relaxed);
        loop {
            let Some(slot) = self.announce(p) else {
                backoff_slots = backoff_slots.wrapping_add(1);
                spin_loop();
                if backoff_slots % 64 == 0 {
                    #[cfg(not(loom))]
                    std::thread::yield_now();
                }
                continue;
            };
            // ORDERING: SeqCst fence — pairs with the fence in `swap`: either
            // the writer's slot scan sees our announcement, or our re-load
            // below sees its swap (module docs).
            fence(Ordering::SeqCst);
            // ORDERING: Acquire — pairs with the Release of the swap that
            // installed `p`, so the value's contents are visible.
            let now = self.current.load(Ordering::Acquire);
            if now == p {
                // SAFETY: `p` came from `Arc::into_raw` and is the current
                // value while announced in `slot` (module docs), so its
                // strong count is at least 1 until a writer sees the slot
                // cleared.
                unsafe { Arc::increment_strong_count(p.cast_const()) };
                // ORDERING: Release — pairs with the Acquire slot load in
                // `swap`: our count bump happens-before the writer's drop.
                slot.store(ptr::null_mut(), Ordering::Release);
                // SAFETY: we own the strong reference just added.
                return unsafe { Arc::from_raw(p.cast_const()) };
            }
            // ORDERING: Relaxed — nothing was read through `p`.
            slot.store(ptr::null_mut(), Ordering::Relaxed);
            p = now;
        }
    }

    /// Makes `cached` the current value: a single `Acquire` load when it
    /// already is, a [`load`](Self::load) otherwise. For a reader that
    /// keeps a snapshot across many reads (the event progress thread).
    ///
    /// Pointer equality is proof: `cached` holds a strong reference, so
    /// its allocation cannot be freed and its address cannot be taken by a
    /// newer value while the caller has it (no ABA).
    pub fn refresh(&self, cached: &mut Arc<T>) {
        // ORDERING: Acquire — pairs with the Release of the swap that
        // installed the current value; when it is `cached`, the contents
        // were already visible through the load that gave us `cached`, and
        // when it is not, `load` re-reads it with its own protocol.
        if self.current.load(Ordering::Acquire).cast_const() != Arc::as_ptr(cached) {
            *cached = self.load();
        }
    }

    /// Claims a free hazard slot for `p`.
    fn announce(&self, p: *mut T) -> Option<&AtomicPtr<T>> {
        self.hazards.iter().find(|slot| {
            // ORDERING: Relaxed — the fence in `load` orders the
            // announcement before the re-load; the CAS only excludes other
            // readers from the slot.
            slot.compare_exchange(ptr::null_mut(), p, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// Replaces the value; the old one is dropped once no reader can still
    /// be reaching it (readers that loaded it keep their own `Arc`).
    pub fn store(&self, value: Arc<T>) {
        drop(self.swap(value));
    }

    /// Replaces the value and returns the old one. Waits briefly for
    /// another writer and for readers that announced the old value.
    pub fn swap(&self, value: Arc<T>) -> Arc<T> {
        let _lock = self.lock();
        self.swap_locked(value)
    }

    /// Replaces the value by `f(&current)` unless `f` fails, atomically with
    /// respect to other writers (`store`, `swap`, `update`); returns the new
    /// value. `f` runs with the writers' lock held: it may `load` this cell
    /// but must not write it (that would deadlock), and should be short.
    /// If `f` panics, the cell keeps its value and stays usable.
    ///
    /// # Errors
    /// `f`'s error; the cell is then unchanged.
    pub fn update<E>(&self, f: impl FnOnce(&T) -> Result<T, E>) -> Result<Arc<T>, E> {
        let lock = self.lock();
        // ORDERING: Relaxed — writers are serialised by the lock, whose
        // Acquire orders us after the previous writer's swap.
        let cur = self.current.load(Ordering::Relaxed);
        // SAFETY: `cur` is the current value; only a writer replaces (and
        // then may free) it, and we hold the writers' lock until after `f`.
        let next = Arc::new(f(unsafe { &*cur })?);
        let old = self.swap_locked(next.clone());
        drop(lock);
        drop(old);
        Ok(next)
    }

    /// The swap proper; the caller holds the writers' lock.
    fn swap_locked(&self, value: Arc<T>) -> Arc<T> {
        let new = Arc::into_raw(value).cast_mut();
        // ORDERING: Release — publishes the new value's contents to the
        // Acquire re-load in `load`. Acquire — orders the drop of `old` in
        // this thread after its initialisation (belt and braces; the lock
        // already does).
        let old = self.current.swap(new, Ordering::AcqRel);
        // ORDERING: SeqCst fence — pairs with the fence in `load` (module
        // docs).
        fence(Ordering::SeqCst);
        for slot in &self.hazards {
            let mut backoff = Backoff::new();
            // ORDERING: Acquire — pairs with the Release clearing in `load`
            // (or heads the release sequence a later claim continues), so a
            // reader's count bump happens-before our drop.
            while slot.load(Ordering::Acquire) == old {
                backoff.snooze();
            }
        }
        // SAFETY: `old` came from `Arc::into_raw` and the word's reference
        // is ours now: no reader can still reach it without its own count.
        unsafe { Arc::from_raw(old.cast_const()) }
    }

    /// Takes the writers' spin lock.
    fn lock(&self) -> WriteLock<'_> {
        let mut backoff = Backoff::new();
        loop {
            // ORDERING: Acquire on success — pairs with the Release in
            // `WriteLock::drop`: the previous writer's swap is visible.
            if self
                .writing
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return WriteLock(&self.writing);
            }
            backoff.snooze();
        }
    }
}

/// Holds the writers' lock; releases it on drop (also when `update`'s
/// closure panics).
struct WriteLock<'a>(&'a AtomicBool);

impl Drop for WriteLock<'_> {
    fn drop(&mut self) {
        // ORDERING: Release — pairs with the Acquire in `lock`.
        self.0.store(false, Ordering::Release);
    }
}

impl<T> Drop for SnapshotCell<T> {
    fn drop(&mut self) {
        // `&mut self`: no other thread can use the cell, so a plain read.
        // (Under loom this is also no scheduling point, which a drop during
        // a failing model's unwinding must not be.)
        #[cfg(not(loom))]
        let p = *self.current.get_mut();
        #[cfg(loom)]
        let p = self.current.with_mut(|p| *p);
        // SAFETY: `p` came from `Arc::into_raw`; the cell owns that
        // reference and is going away.
        drop(unsafe { Arc::from_raw(p.cast_const()) });
    }
}

impl<T: fmt::Debug> fmt::Debug for SnapshotCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SnapshotCell").field(&self.load()).finish()
    }
}

impl<T: Default> Default for SnapshotCell<T> {
    fn default() -> Self {
        SnapshotCell::new(Arc::new(T::default()))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::{AtomicU64, AtomicUsize};
    use std::time::{Duration, Instant};

    #[test]
    fn load_returns_what_was_stored() {
        let sut = SnapshotCell::new(Arc::new(1));
        assert_eq!(*sut.load(), 1);
        sut.store(Arc::new(2));
        assert_eq!(*sut.load(), 2);
        assert_eq!(*sut.swap(Arc::new(3)), 2);
        assert_eq!(*sut.load(), 3);
        assert_eq!(format!("{sut:?}"), "SnapshotCell(3)");
    }

    #[test]
    fn reference_counts_balance() {
        let a = Arc::new(String::from("a"));
        let sut = SnapshotCell::new(a.clone());
        assert_eq!(Arc::strong_count(&a), 2);
        let l = sut.load();
        assert_eq!(Arc::strong_count(&a), 3);
        drop(l);
        sut.store(Arc::new(String::from("b")));
        assert_eq!(Arc::strong_count(&a), 1, "the cell let go of the old value");
        let b = sut.load();
        drop(sut);
        assert_eq!(Arc::strong_count(&b), 1, "the cell let go on drop");
    }

    #[test]
    fn failed_update_leaves_the_value() {
        let sut = SnapshotCell::new(Arc::new(vec![1]));
        let r: Result<_, &str> = sut.update(|_| Err("no"));
        assert_eq!(r.unwrap_err(), "no");
        assert_eq!(*sut.load(), [1]);
        let r = sut.update(|v| Ok::<_, ()>(v.iter().map(|x| x * 10).collect()));
        assert_eq!(*r.unwrap(), [10]);
    }

    #[test]
    fn panicking_update_releases_the_lock() {
        let sut = SnapshotCell::new(Arc::new(0));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = sut.update::<()>(|_| panic!("in update"));
        }));
        assert!(r.is_err());
        sut.store(Arc::new(5));
        assert_eq!(*sut.load(), 5);
    }

    #[test]
    fn update_may_load_the_same_cell() {
        let sut = SnapshotCell::new(Arc::new(1));
        let r = sut.update(|v| Ok::<_, ()>(*v + *sut.load()));
        assert_eq!(*r.unwrap(), 2);
    }

    #[test]
    fn cell_is_send_and_sync() {
        fn check<S: Send + Sync>() {}
        check::<SnapshotCell<Vec<u8>>>();
    }

    /// Values that know whether they were dropped; readers check the value
    /// they hold is alive and that its fields are consistent.
    struct Probe {
        a: u64,
        b: u64,
        alive: AtomicBool,
        drops: Arc<AtomicUsize>,
    }

    impl Drop for Probe {
        fn drop(&mut self) {
            // ORDERING: Relaxed — probes; checked by the same or a joined
            // thread.
            assert!(self.alive.swap(false, Ordering::Relaxed), "double drop");
            self.drops.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Four readers load in a loop while two writers store and update; every
    /// loaded value is alive and consistent, and every value is dropped
    /// exactly once.
    #[test]
    fn stress_readers_and_writers() {
        const WRITES: u64 = 5_000;
        let drops = Arc::new(AtomicUsize::new(0));
        let probe = |n: u64| {
            Arc::new(Probe {
                a: n,
                b: n * 3,
                alive: AtomicBool::new(true),
                drops: drops.clone(),
            })
        };
        let sut = Arc::new(SnapshotCell::new(probe(0)));
        let stop = Arc::new(AtomicBool::new(false));
        let loads = Arc::new(AtomicU64::new(0));
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let (c, s, l) = (sut.clone(), stop.clone(), loads.clone());
                std::thread::spawn(move || {
                    let deadline = Instant::now() + Duration::from_secs(30);
                    let mut last = 0;
                    // ORDERING: Relaxed — only a stop signal.
                    while !s.load(Ordering::Relaxed) && Instant::now() < deadline {
                        let v = c.load();
                        assert!(v.alive.load(Ordering::Relaxed), "use after free");
                        assert_eq!(v.b, v.a * 3, "torn value");
                        last = last.max(v.a);
                        l.fetch_add(1, Ordering::Relaxed);
                    }
                    last
                })
            })
            .collect();
        let writers: Vec<_> = (0..2u64)
            .map(|w| {
                let c = sut.clone();
                let mk = probe;
                let values: Vec<_> = (0..WRITES).map(|i| mk(1 + i * 2 + w)).collect();
                std::thread::spawn(move || {
                    for (i, v) in values.into_iter().enumerate() {
                        if i % 2 == 0 {
                            c.store(v);
                        } else {
                            let n = v.a;
                            drop(v);
                            let d = c.update(|old| {
                                Ok::<_, ()>(Probe {
                                    a: n,
                                    b: n * 3,
                                    alive: AtomicBool::new(true),
                                    drops: old.drops.clone(),
                                })
                            });
                            assert_eq!(d.unwrap().a, n);
                        }
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().unwrap();
        }
        assert!(loads.load(Ordering::Relaxed) > 0);
        drop(sut);
        // Probes: 1 initial + WRITES per writer stored, plus WRITES/2 per
        // writer created in `update` (the pre-built ones there are dropped
        // at once). All of them are dropped exactly once.
        let created = 1 + 2 * WRITES + WRITES;
        assert_eq!(drops.load(Ordering::Relaxed) as u64, created);
    }
}
