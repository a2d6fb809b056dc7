//! A one-shot handoff that decides where an asynchronous completion
//! continues: inline on the dispatcher, or posted back to it.
//!
//! The dispatcher calls a handler, which may complete at once (from inside
//! the call) or later from any thread. When the handler has returned, the
//! dispatcher asks [`Handoff::after_call`]: if the completion is already
//! there it continues inline; otherwise it goes async, and the completer's
//! [`Handoff::complete`] hands the value back so that the completer posts
//! it to the dispatcher's queue. Exactly one of the two sides ends up with
//! the value.
//!
//! # State table of the word
//!
//! | bit | name      | set by                    | meaning                                        |
//! |-----|-----------|---------------------------|------------------------------------------------|
//! | 0   | `CLAIMED` | the first `complete`      | a completer owns the cell (writes it next)     |
//! | 1   | `DONE`    | that completer, after writing | the cell holds the value for the dispatcher |
//! | 2   | `AFTER`   | the first `after_call`    | the dispatcher has looked; it never looks again |
//!
//! Who owns the cell: the completer from `CLAIMED` until it sets `DONE`;
//! after that the dispatcher, if its `AFTER` came later, or the completer
//! again (to take its value back) if `AFTER` came first. The two `fetch_or`
//! calls that set `DONE` and `AFTER` are totally ordered, so exactly one side
//! sees the other's bit. A `complete` that finds `AFTER` already set before
//! it claims never touches the cell.

use std::fmt;

use crate::sync::{AtomicU32, Ordering, UnsafeCell};

/// A second [`Handoff::try_complete`]: the value is handed back; the
/// caller has a bug (an operation completed twice) and should report it,
/// not post the value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AlreadyCompleted<R>(pub R);

impl<R> fmt::Debug for AlreadyCompleted<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AlreadyCompleted(..)")
    }
}

impl<R> fmt::Display for AlreadyCompleted<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the operation was already completed")
    }
}

impl<R> std::error::Error for AlreadyCompleted<R> {}

/// A one-shot inline-or-post decision for one handler call (see the module
/// docs). Lock-free: two `fetch_or`s per side at most.
///
/// # Examples
/// ```
/// use pmix_shm::local::handoff::Handoff;
///
/// // Completed from inside the call: the dispatcher continues inline.
/// let h = Handoff::new();
/// assert_eq!(h.complete(7), None);
/// assert_eq!(h.after_call(), Some(7));
///
/// // Completed later: the dispatcher went async, the completer posts.
/// let h = Handoff::new();
/// assert_eq!(h.after_call(), None);
/// assert_eq!(h.complete(7), Some(7)); // post 7 to the dispatcher
/// ```
pub struct Handoff<R> {
    state: AtomicU32,
    cell: UnsafeCell<Option<R>>,
}

// SAFETY: the cell is only reached by the one thread that owns it under the
// state machine (module docs), and a value moves between threads at most
// once, so sharing a `Handoff` is sound when the value may be sent.
unsafe impl<R: Send> Sync for Handoff<R> {}

impl<R> Handoff<R> {
    /// A completer owns the cell.
    pub const CLAIMED: u32 = 1;
    /// The cell holds the completed value.
    pub const DONE: u32 = 2;
    /// The dispatcher has called `after_call`.
    pub const AFTER: u32 = 4;

    /// An empty handoff: not completed, dispatcher not returned.
    pub fn new() -> Self {
        Handoff {
            state: AtomicU32::new(0),
            cell: UnsafeCell::new(None),
        }
    }

    /// The completer (any thread, once): hands over `r`. Returns `None` if
    /// the dispatcher will pick `r` up inline from
    /// [`after_call`](Self::after_call), or `Some(r)` if the caller must
    /// post `r` to the dispatcher itself.
    ///
    /// A second call (a caller bug) also returns `Some(r)`, never panics and
    /// leaks nothing; callers that can complete twice should use
    /// [`try_complete`](Self::try_complete), which tells the two apart.
    pub fn complete(&self, r: R) -> Option<R> {
        match self.try_complete(r) {
            Ok(back) => back,
            Err(AlreadyCompleted(r)) => Some(r),
        }
    }

    /// Like [`complete`](Self::complete), but a second completion is an
    /// error.
    ///
    /// # Errors
    /// [`AlreadyCompleted`] with `r` when the handoff was already completed.
    pub fn try_complete(&self, r: R) -> Result<Option<R>, AlreadyCompleted<R>> {
        // ORDERING: Relaxed — claiming only excludes other completers, whose
        // failed claim leaves the cell alone; it publishes nothing, and a
        // seen AFTER needs no data from the dispatcher.
        let before = self.state.fetch_or(Self::CLAIMED, Ordering::Relaxed);
        if before & Self::CLAIMED != 0 {
            return Err(AlreadyCompleted(r));
        }
        if before & Self::AFTER != 0 {
            // The dispatcher went async already: post.
            return Ok(Some(r));
        }
        // SAFETY: we set CLAIMED first and DONE is not set yet, so we own
        // the cell (module docs): no other thread accesses it.
        unsafe { self.put(r) };
        // ORDERING: Release — publishes the cell's value to the Acquire in
        // `after_call`. No Acquire needed: if AFTER is set we take back our
        // own write.
        let before = self.state.fetch_or(Self::DONE, Ordering::Release);
        if before & Self::AFTER != 0 {
            // SAFETY: the dispatcher's AFTER preceded our DONE, so it saw no
            // DONE and will never touch the cell: it is ours again.
            return Ok(unsafe { self.take() });
        }
        Ok(None)
    }

    /// The dispatcher, once the handler has returned: `Some(r)` if the
    /// completion is already here (continue inline), `None` if not (go
    /// async; the completer will post the value). Only the first call
    /// decides; later calls return `None`.
    pub fn after_call(&self) -> Option<R> {
        // ORDERING: Acquire — pairs with the Release that set DONE, so the
        // cell's value is visible.
        let before = self.state.fetch_or(Self::AFTER, Ordering::Acquire);
        if before & (Self::DONE | Self::AFTER) == Self::DONE {
            // SAFETY: DONE was set before our (first) AFTER, so the
            // completer has finished with the cell and will not touch it
            // again; no later `after_call` reaches here.
            return unsafe { self.take() };
        }
        None
    }

    /// Back to a fresh handoff, for reuse by a dispatcher that holds the
    /// only reference (e.g. through `Arc::get_mut`): exclusive access means
    /// no completer can still reach it.
    pub fn reset(&mut self) {
        *self = Handoff::new();
    }

    /// Whether a completion has been handed over (`complete` was called).
    pub fn is_completed(&self) -> bool {
        // ORDERING: Relaxed — a snapshot; nothing is read through it.
        self.state.load(Ordering::Relaxed) & Self::CLAIMED != 0
    }

    /// Stores `r` in the cell.
    ///
    /// # Safety
    /// The caller owns the cell (module docs).
    unsafe fn put(&self, r: R) {
        #[cfg(not(loom))]
        // SAFETY: the caller owns the cell, so this is the only access.
        unsafe {
            *self.cell.get() = Some(r)
        };
        #[cfg(loom)]
        // SAFETY: as above; loom checks it.
        self.cell.with_mut(|p| unsafe { *p = Some(r) });
    }

    /// Takes the value out of the cell.
    ///
    /// # Safety
    /// The caller owns the cell (module docs).
    unsafe fn take(&self) -> Option<R> {
        #[cfg(not(loom))]
        // SAFETY: the caller owns the cell, so this is the only access.
        unsafe {
            (*self.cell.get()).take()
        }
        #[cfg(loom)]
        // SAFETY: as above; loom checks it.
        self.cell.with_mut(|p| unsafe { (*p).take() })
    }
}

impl<R> Default for Handoff<R> {
    fn default() -> Self {
        Handoff::new()
    }
}

impl<R> fmt::Debug for Handoff<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // ORDERING: Relaxed — a diagnostic snapshot.
        let s = self.state.load(Ordering::Relaxed);
        f.debug_struct("Handoff")
            .field("completed", &(s & Self::CLAIMED != 0))
            .field("after_call", &(s & Self::AFTER != 0))
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::AtomicUsize;
    use std::sync::Arc;

    #[test]
    fn completion_before_return_continues_inline() {
        let sut = Handoff::new();
        assert!(!sut.is_completed());
        assert_eq!(sut.complete(String::from("x")), None);
        assert!(sut.is_completed());
        assert_eq!(sut.after_call().as_deref(), Some("x"));
        assert_eq!(sut.after_call(), None, "only the first after_call decides");
    }

    #[test]
    fn completion_after_return_is_posted() {
        let sut = Handoff::new();
        assert_eq!(sut.after_call(), None);
        assert_eq!(sut.complete(3u8), Some(3));
        assert_eq!(sut.after_call(), None);
    }

    #[test]
    fn second_completion_is_an_error_and_gives_the_value_back() {
        let sut = Handoff::new();
        assert_eq!(sut.try_complete(1), Ok(None));
        assert_eq!(sut.try_complete(2), Err(AlreadyCompleted(2)));
        assert_eq!(sut.complete(3), Some(3));
        assert_eq!(sut.after_call(), Some(1));
        assert_eq!(sut.try_complete(4), Err(AlreadyCompleted(4)));
        assert!(AlreadyCompleted(4).to_string().contains("already"));
    }

    #[test]
    fn unclaimed_value_is_dropped_with_the_handoff() {
        let v = Arc::new(());
        let sut = Handoff::new();
        assert!(sut.complete(v.clone()).is_none());
        assert_eq!(Arc::strong_count(&v), 2);
        drop(sut);
        assert_eq!(Arc::strong_count(&v), 1, "no leak");
    }

    #[test]
    fn debug_shows_the_state() {
        let sut: Handoff<u8> = Handoff::default();
        sut.after_call();
        let s = format!("{sut:?}");
        assert!(s.contains("after_call: true"), "{s}");
    }

    /// Many completer/dispatcher races: each value ends up on exactly one
    /// side, and none is lost or dropped twice.
    #[test]
    fn stress_exactly_one_side_gets_the_value() {
        const ROUNDS: usize = 20_000;
        let inline = Arc::new(AtomicUsize::new(0));
        let posted = Arc::new(AtomicUsize::new(0));
        let token = Arc::new(());
        for round in 0..ROUNDS {
            let h = Arc::new(Handoff::new());
            let (h2, p2, t2) = (h.clone(), posted.clone(), token.clone());
            let completer = std::thread::spawn(move || {
                if round % 2 == 0 {
                    std::thread::yield_now();
                }
                if let Some(v) = h2.complete(t2) {
                    drop(v);
                    // ORDERING: Relaxed — counted after join.
                    p2.fetch_add(1, Ordering::Relaxed);
                }
            });
            if let Some(v) = h.after_call() {
                drop(v);
                inline.fetch_add(1, Ordering::Relaxed);
            }
            completer.join().unwrap();
            drop(h);
            assert_eq!(Arc::strong_count(&token), 1, "round {round}");
        }
        let (i, p) = (
            inline.load(Ordering::Relaxed),
            posted.load(Ordering::Relaxed),
        );
        assert_eq!(i + p, ROUNDS);
    }
}
