//! A per-handler gate: lets the dispatcher call a handler only while it is
//! armed and not retired, and lets a deregistering thread wait until a call
//! in progress has ended.
//!
//! The client keeps one [`HandlerGate`] per registered event handler. Its
//! single *dispatcher* (the progress thread) brackets every call with
//! [`enter`](HandlerGate::enter)/[`exit`](HandlerGate::exit); any thread may
//! [`arm`](HandlerGate::arm) it once registration has finished, and
//! [`retire`](HandlerGate::retire) it on deregistration.
//!
//! # Guarantee
//!
//! After [`retire(true)`](HandlerGate::retire) returns, no call through the
//! gate is in progress, every effect of earlier calls happens-before the
//! return, and [`enter`](HandlerGate::enter) never returns `true` again. So
//! the deregistering thread may free whatever the handler uses.
//!
//! Why: every operation is a read-modify-write of one word, and such
//! operations are totally ordered. If the dispatcher's `enter` comes first,
//! `retire` finds `IN_CALL` set and waits for the `exit` (whose `Release`
//! its `Acquire` load then reads); if `retire` comes first, `enter` finds
//! `RETIRED` and returns `false`.
//!
//! A handler that deregisters *itself* from inside its call runs on the
//! dispatcher thread, inside `enter`/`exit`: waiting would wait for itself,
//! so it calls `retire(false)`, which only sets the bit.
//!
//! # State table of the word
//!
//! | bit | name      | set by            | cleared by                          |
//! |-----|-----------|-------------------|-------------------------------------|
//! | 0   | `ARMED`   | [`HandlerGate::arm`] (unless retired) | never               |
//! | 1   | `RETIRED` | [`HandlerGate::retire`] | never (terminal)              |
//! | 2   | `IN_CALL` | [`HandlerGate::enter`]  | [`HandlerGate::exit`], or `enter` itself when it refuses |
//!
//! | word (`IN_CALL` clear)  | `enter` returns | meaning                           |
//! |-------------------------|-----------------|-----------------------------------|
//! | `0`                     | `false`         | registered, not yet armed         |
//! | `ARMED`                 | `true`          | live: calls go through            |
//! | `RETIRED`               | `false`         | retired before it was ever armed  |
//! | `ARMED \| RETIRED`      | `false`         | retired                           |
//!
//! With `IN_CALL` set, a call is in progress (`ARMED` set, `RETIRED` clear
//! when it began) or `enter` is about to clear the bit again.

use std::fmt;

use crate::sync::{spin_loop, AtomicU32, Ordering};

/// A handler's gate: one `u32` state word (see the module docs for the
/// state table and the guarantee).
///
/// # Examples
/// ```
/// use pmix_shm::local::gate::HandlerGate;
///
/// let gate = HandlerGate::new();
/// assert!(!gate.enter(), "not armed yet");
/// assert!(gate.arm());
/// if gate.enter() {
///     // ... call the handler ...
///     gate.exit();
/// }
/// gate.retire(true); // no call in progress once this returns
/// assert!(!gate.enter());
/// assert!(!gate.arm(), "a retired gate stays retired");
/// ```
pub struct HandlerGate {
    word: AtomicU32,
}

impl HandlerGate {
    /// Bit 0: the handler may be called.
    pub const ARMED: u32 = 1;
    /// Bit 1: the handler is deregistered; terminal.
    pub const RETIRED: u32 = 2;
    /// Bit 2: the dispatcher is inside `enter`..`exit`.
    pub const IN_CALL: u32 = 4;

    /// A gate that is neither armed nor retired: [`enter`](Self::enter)
    /// refuses until [`arm`](Self::arm).
    pub fn new() -> Self {
        HandlerGate {
            word: AtomicU32::new(0),
        }
    }

    /// Arms the gate unless it is retired; returns whether it is armed
    /// now. Call it once the handler's state is set up: that state is
    /// visible to every call that `enter` lets through afterwards.
    pub fn arm(&self) -> bool {
        let mut cur = self.word.load(Ordering::Relaxed);
        loop {
            if cur & Self::RETIRED != 0 {
                return false;
            }
            if cur & Self::ARMED != 0 {
                return true;
            }
            // ORDERING: Release on success — publishes the handler's set-up
            // to the Acquire in `enter`. Relaxed on failure — we only retry
            // with the value read.
            match self.word.compare_exchange_weak(
                cur,
                cur | Self::ARMED,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// Dispatcher only (at most one thread calls `enter`/`exit` at a
    /// time): begins a call. Returns `true` iff the gate is armed and not
    /// retired; the caller then calls the handler and must call
    /// [`exit`](Self::exit) afterwards. On `false` the caller must skip the
    /// handler (and not call `exit`).
    pub fn enter(&self) -> bool {
        // ORDERING: Acquire — pairs with the Release in `arm` (the
        // handler's set-up is visible to the call). Being an RMW, it is
        // totally ordered with `retire`'s RMW, which is the guarantee's
        // argument (module docs); no stronger ordering is needed.
        let before = self.word.fetch_or(Self::IN_CALL, Ordering::Acquire);
        if before & (Self::ARMED | Self::RETIRED) == Self::ARMED {
            return true;
        }
        // ORDERING: Relaxed — no call happened, nothing to publish; a
        // waiting `retire` only needs to see the bit clear.
        self.word.fetch_and(!Self::IN_CALL, Ordering::Relaxed);
        false
    }

    /// Dispatcher only: ends a call that [`enter`](Self::enter) began.
    pub fn exit(&self) {
        // ORDERING: Release — pairs with the Acquire in `retire`: the
        // call's effects happen-before `retire(true)` returns.
        self.word.fetch_and(!Self::IN_CALL, Ordering::Release);
    }

    /// Retires the gate: [`enter`](Self::enter) never lets a call through
    /// again. With `wait`, also waits until a call in progress has ended
    /// (spinning, then yielding, then sleeping ~50 µs at a time); after it
    /// returns the handler's state may be freed.
    ///
    /// A handler retiring its own gate from inside its call (that is, on
    /// the dispatcher thread between `enter` and `exit`) must pass
    /// `wait = false`: waiting there would never end.
    pub fn retire(&self, wait: bool) {
        // ORDERING: Acquire — if the last call already ended, this reads
        // (the release sequence of) its `exit`, so the call's effects are
        // visible; totally ordered with `enter`'s RMW (module docs).
        let before = self.word.fetch_or(Self::RETIRED, Ordering::Acquire);
        if !wait || before & Self::IN_CALL == 0 {
            return;
        }
        let mut backoff = Backoff::new();
        // ORDERING: Acquire — pairs with the Release in `exit`.
        while self.word.load(Ordering::Acquire) & Self::IN_CALL != 0 {
            backoff.snooze();
        }
    }

    /// Whether the gate is retired.
    pub fn is_retired(&self) -> bool {
        // ORDERING: Relaxed — a snapshot; nothing is read through it.
        self.word.load(Ordering::Relaxed) & Self::RETIRED != 0
    }

    /// Whether the gate is armed and not retired (whether `enter` would let
    /// a call through now).
    pub fn is_armed(&self) -> bool {
        // ORDERING: Relaxed — a snapshot; nothing is read through it.
        self.word.load(Ordering::Relaxed) & (Self::ARMED | Self::RETIRED) == Self::ARMED
    }

    /// The raw word, for diagnostics and tests.
    pub fn raw(&self) -> u32 {
        // ORDERING: Relaxed — a diagnostic snapshot.
        self.word.load(Ordering::Relaxed)
    }
}

impl Default for HandlerGate {
    fn default() -> Self {
        HandlerGate::new()
    }
}

impl fmt::Debug for HandlerGate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.raw();
        f.debug_struct("HandlerGate")
            .field("armed", &(w & Self::ARMED != 0))
            .field("retired", &(w & Self::RETIRED != 0))
            .field("in_call", &(w & Self::IN_CALL != 0))
            .finish()
    }
}

/// An escalating wait for short in-process waits (`gate.rs`,
/// `snapshot.rs`): spin with growing bursts, then yield, then sleep 50 µs
/// at a time. Under loom every step is a loom yield.
#[derive(Debug)]
pub(crate) struct Backoff {
    step: u32,
}

impl Backoff {
    /// Rounds of spinning (bursts of 1, 2, 4, ... 64 pause hints).
    #[cfg(not(loom))]
    const SPIN_ROUNDS: u32 = 7;
    /// Rounds of `yield_now` after the spinning.
    #[cfg(not(loom))]
    const YIELD_ROUNDS: u32 = 16;

    pub(crate) fn new() -> Self {
        Backoff { step: 0 }
    }

    /// One round of waiting.
    pub(crate) fn snooze(&mut self) {
        #[cfg(loom)]
        spin_loop();
        #[cfg(not(loom))]
        {
            if self.step < Self::SPIN_ROUNDS {
                for _ in 0..(1u32 << self.step) {
                    spin_loop();
                }
            } else if self.step < Self::SPIN_ROUNDS + Self::YIELD_ROUNDS {
                std::thread::yield_now();
            } else {
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        }
        self.step = self.step.saturating_add(1);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::{AtomicBool, AtomicU64};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    #[test]
    fn new_gate_refuses_until_armed() {
        let sut = HandlerGate::new();
        assert!(!sut.is_armed());
        assert!(!sut.enter());
        assert_eq!(sut.raw(), 0, "a refused enter clears IN_CALL");
        assert!(sut.arm());
        assert!(sut.arm(), "arming twice is harmless");
        assert!(sut.is_armed());
        assert!(sut.enter());
        assert_eq!(sut.raw(), HandlerGate::ARMED | HandlerGate::IN_CALL);
        sut.exit();
        assert_eq!(sut.raw(), HandlerGate::ARMED);
    }

    #[test]
    fn retired_gate_refuses_and_cannot_be_rearmed() {
        let sut = HandlerGate::new();
        sut.retire(true);
        assert!(sut.is_retired());
        assert!(!sut.arm());
        assert!(!sut.is_armed());
        assert!(!sut.enter());
        let armed = HandlerGate::new();
        assert!(armed.arm());
        armed.retire(false);
        assert!(!armed.is_armed() && armed.is_retired());
        assert!(!armed.enter());
        assert_eq!(armed.raw(), HandlerGate::ARMED | HandlerGate::RETIRED);
    }

    #[test]
    fn retire_without_wait_inside_the_call_returns_at_once() {
        let sut = HandlerGate::new();
        sut.arm();
        assert!(sut.enter());
        sut.retire(false); // the handler deregisters itself
        assert!(sut.is_retired());
        sut.exit();
        assert!(!sut.enter());
    }

    #[test]
    fn retire_waits_for_the_call_in_progress() {
        let sut = Arc::new(HandlerGate::new());
        sut.arm();
        assert!(sut.enter());
        let done = Arc::new(AtomicBool::new(false));
        let (g, d) = (sut.clone(), done.clone());
        let retirer = std::thread::spawn(move || {
            g.retire(true);
            // ORDERING: Relaxed — read after join.
            d.store(true, Ordering::Relaxed);
        });
        std::thread::sleep(Duration::from_millis(20));
        // ORDERING: Relaxed — a test probe; the retirer cannot have
        // returned while the call is open.
        assert!(!done.load(Ordering::Relaxed));
        sut.exit();
        retirer.join().unwrap();
        assert!(done.load(Ordering::Relaxed));
    }

    #[test]
    fn debug_shows_the_bits() {
        let sut = HandlerGate::default();
        sut.arm();
        let s = format!("{sut:?}");
        assert!(
            s.contains("armed: true") && s.contains("retired: false"),
            "{s}"
        );
    }

    /// A dispatcher calls through many gates in a loop while another
    /// thread retires them one by one; after each `retire(true)` returns, a
    /// call that started later would see the gate's `dead` flag.
    #[test]
    fn stress_no_call_after_retire_returns() {
        const GATES: usize = 200;
        struct Slot {
            gate: HandlerGate,
            dead: AtomicBool,
            calls: AtomicU64,
        }
        let slots: Arc<Vec<Slot>> = Arc::new(
            (0..GATES)
                .map(|_| Slot {
                    gate: HandlerGate::new(),
                    dead: AtomicBool::new(false),
                    calls: AtomicU64::new(0),
                })
                .collect(),
        );
        for s in slots.iter() {
            assert!(s.gate.arm());
        }
        let stop = Arc::new(AtomicBool::new(false));
        let (sl, st) = (slots.clone(), stop.clone());
        let dispatcher = std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(30);
            // ORDERING: Relaxed — only a stop signal.
            while !st.load(Ordering::Relaxed) && Instant::now() < deadline {
                for s in sl.iter() {
                    if s.gate.enter() {
                        // ORDERING: Relaxed — the gate orders it (exit
                        // Release / retire Acquire); see the module docs.
                        assert!(!s.dead.load(Ordering::Relaxed), "call after retire");
                        s.calls.fetch_add(1, Ordering::Relaxed);
                        s.gate.exit();
                    }
                }
            }
        });
        for s in slots.iter() {
            std::thread::yield_now();
            s.gate.retire(true);
            // ORDERING: Relaxed — ordered by the gate (see above).
            s.dead.store(true, Ordering::Relaxed);
        }
        stop.store(true, Ordering::Relaxed);
        dispatcher.join().unwrap();
        assert!(slots.iter().all(|s| !s.gate.enter()));
    }

    #[test]
    fn backoff_escalates_to_sleep() {
        let mut b = Backoff::new();
        let start = Instant::now();
        for _ in 0..(Backoff::SPIN_ROUNDS + Backoff::YIELD_ROUNDS + 2) {
            b.snooze();
        }
        assert!(start.elapsed() >= Duration::from_micros(100));
    }
}
