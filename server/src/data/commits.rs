//! [`Commits`]: what the server remembers of local procs' commits beyond
//! their modex stores — each slot's store generation when its client was
//! registered (a later one means the client committed), the cards of
//! deregistered clients (until their namespace goes), and the `get` and
//! direct-modex requests held until a commit (`data/dmodex.rs` answers
//! them).

use std::collections::HashMap;
use std::time::Instant;

use parking_lot::Mutex;
use pmix_core::{Nspace, Proc, Scope, Value};

use crate::data::card::Card;

/// What a held request waits for.
#[derive(Clone, Debug)]
pub(crate) enum Want {
    /// This key in the proc's card.
    Key(String),
    /// Any commit of the proc (a remote server's request names no key).
    Commit,
}

/// How a held request ended.
pub(crate) enum Outcome {
    /// The proc's card, once it has what was wanted or can change no more.
    Card(Card),
    /// The proc is not (and was not) a client of this server.
    NotLocal,
    /// The request's `PMIX_TIMEOUT` passed.
    TimedOut,
    /// The server stopped.
    Stopped,
    /// The requester already has this many requests held (the per-client
    /// limit): this one was not held.
    TooMany(usize),
}

/// A request waiting for a local proc's commit.
pub(crate) struct Hold {
    /// The client that asked (`None`: the host, for another node).
    pub(crate) by: Option<Proc>,
    /// Whether the asking client's connection has ended (then nobody
    /// waits for the answer and the request is dropped).
    pub(crate) requester_gone: Option<Box<dyn Fn() -> bool + Send>>,
    pub(crate) proc: Proc,
    pub(crate) want: Want,
    pub(crate) deadline: Option<Instant>,
    pub(crate) done: Box<dyn FnOnce(Outcome) + Send>,
}

#[derive(Default)]
struct Book {
    /// Cards of deregistered clients: every entry with its scope.
    departed: HashMap<Proc, Vec<(String, Scope, Value)>>,
    /// Each slot's modex-store generation when its client was registered.
    baselines: HashMap<u32, u64>,
    holds: Vec<Hold>,
    /// The poller thread runs.
    poller: bool,
}

/// Held requests, departed cards and baselines. Its lock may be taken
/// under the server's state lock, never the other way round, and is never
/// held while a completion runs.
#[derive(Default)]
pub(crate) struct Commits {
    book: Mutex<Book>,
}

impl Commits {
    pub(crate) fn depart(&self, proc: &Proc, entries: Vec<(String, Scope, Value)>) {
        self.book.lock().departed.insert(proc.clone(), entries);
    }

    pub(crate) fn departed(&self, proc: &Proc) -> Option<Vec<(String, Scope, Value)>> {
        self.book.lock().departed.get(proc).cloned()
    }

    pub(crate) fn forget_nspace(&self, ns: &Nspace) {
        self.book.lock().departed.retain(|p, _| &p.nspace != ns);
    }

    pub(crate) fn set_baseline(&self, slot: u32, generation: u64) {
        self.book.lock().baselines.insert(slot, generation);
    }

    pub(crate) fn baseline(&self, slot: u32) -> u64 {
        self.book.lock().baselines.get(&slot).copied().unwrap_or(0)
    }

    /// Holds `h`; `true` when no poller runs yet (the caller starts one).
    /// A client's request is given back, with the count, when `limit` of
    /// that client's requests are held already.
    #[allow(clippy::result_large_err)]
    pub(crate) fn hold(&self, h: Hold, limit: usize) -> Result<bool, (Hold, usize)> {
        let mut b = self.book.lock();
        if let Some(by) = &h.by {
            let held = b.holds.iter().filter(|x| x.by.as_ref() == Some(by)).count();
            if held >= limit {
                return Err((h, held));
            }
        }
        b.holds.push(h);
        Ok(!std::mem::replace(&mut b.poller, true))
    }

    /// Requests held now.
    pub(crate) fn held(&self) -> usize {
        self.book.lock().holds.len()
    }

    /// Every held request, for the poller to check.
    pub(crate) fn take_held(&self) -> Vec<Hold> {
        std::mem::take(&mut self.book.lock().holds)
    }

    /// Holds `still` again; `true` when nothing is held any more (the
    /// poller ends).
    pub(crate) fn hold_again(&self, still: Vec<Hold>) -> bool {
        let mut b = self.book.lock();
        b.holds.extend(still);
        if b.holds.is_empty() {
            b.poller = false;
            true
        } else {
            false
        }
    }

    /// No poller could start: every held request, to answer now.
    pub(crate) fn give_up(&self) -> Vec<Hold> {
        let mut b = self.book.lock();
        b.poller = false;
        std::mem::take(&mut b.holds)
    }
}
