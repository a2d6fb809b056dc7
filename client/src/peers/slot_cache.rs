//! Each thread's last answers of the peer lookups a notify makes — a
//! proc's client slot ([`slot_of`](super::slot_of)) and a namespace's
//! local ranks ([`local_ranks`](super::local_ranks)) — so that a notify to
//! the same peers does not search the job store every time (issue 18: a
//! per-target lookup kept).
//!
//! Both are job data: they change only with a new version of the job
//! store, whose generations never repeat. A cache is keyed by the client
//! ([`Inner::serial`]) and the generation it was filled under, and starts
//! over when either differs.

use std::cell::RefCell;
use std::sync::Arc;

use pmix_core::{Nspace, Proc};

use crate::Inner;

/// Answers a thread keeps, per kind.
const KEPT: usize = 16;

/// Up to [`KEPT`] answers filled under one client and job-store version.
struct Kept<K, V> {
    serial: u64,
    generation: u64,
    /// Replaced oldest first.
    entries: Vec<(K, V)>,
    next: usize,
}

impl<K, V: Clone> Kept<K, V> {
    const fn new() -> Self {
        Kept {
            serial: 0,
            generation: 0,
            entries: Vec::new(),
            next: 0,
        }
    }

    /// The answer kept for a key `is` accepts, if still current.
    fn get(&mut self, serial: u64, generation: u64, is: impl Fn(&K) -> bool) -> Option<V> {
        if self.serial != serial || self.generation != generation {
            self.entries.clear();
            self.next = 0;
            self.serial = serial;
            self.generation = generation;
            return None;
        }
        self.entries
            .iter()
            .find(|(k, _)| is(k))
            .map(|(_, v)| v.clone())
    }

    fn put(&mut self, serial: u64, generation: u64, key: K, value: V) {
        if self.serial != serial || self.generation != generation {
            return;
        }
        if self.entries.capacity() == 0 {
            self.entries.reserve_exact(KEPT);
        }
        if self.entries.len() < KEPT {
            self.entries.push((key, value));
        } else {
            let i = self.next;
            self.entries[i] = (key, value);
            self.next = (i + 1) % KEPT;
        }
    }
}

/// The local ranks of a namespace and their slots, as the job store says.
#[derive(Debug, Default)]
pub(crate) struct LocalRanks {
    /// Each local rank's slot (`None`: not registered).
    pub(crate) slots: Vec<Option<u32>>,
    /// Some of the namespace's ranks are not on this node, or its sizes
    /// are unknown.
    pub(crate) elsewhere: bool,
}

thread_local! {
    static SLOTS: RefCell<Kept<Proc, Option<u32>>> = const { RefCell::new(Kept::new()) };
    static NSPACES: RefCell<Kept<Nspace, Option<Arc<LocalRanks>>>> =
        const { RefCell::new(Kept::new()) };
}

/// `find()` through `cache`, keyed by `key` (a thread inside a lookup of
/// its own, or one whose cache is gone, just asks `find`).
fn through<K: Clone, V: Clone>(
    cache: &'static std::thread::LocalKey<RefCell<Kept<K, V>>>,
    inner: &Inner,
    key: &K,
    is: impl Fn(&K) -> bool,
    find: impl FnOnce() -> V,
) -> V {
    let generation = inner.job.generation();
    let kept = cache.try_with(|c| {
        c.try_borrow_mut()
            .ok()
            .and_then(|mut c| c.get(inner.serial, generation, &is))
    });
    if let Ok(Some(v)) = kept {
        return v;
    }
    let v = find();
    // Kept only if the store did not move meanwhile (the answer may be
    // from the newer version).
    if inner.job.generation() == generation {
        let _ = cache.try_with(|c| {
            if let Ok(mut c) = c.try_borrow_mut() {
                c.put(inner.serial, generation, key.clone(), v.clone());
            }
        });
    }
    v
}

/// The slot of `proc`, kept per thread (see the module docs).
pub(super) fn slot(inner: &Inner, proc: &Proc, find: impl FnOnce() -> Option<u32>) -> Option<u32> {
    let is = |p: &Proc| p.rank == proc.rank && p.nspace == proc.nspace;
    through(&SLOTS, inner, proc, is, find)
}

/// The local ranks of `ns`, kept per thread (see the module docs).
pub(super) fn local_ranks(
    inner: &Inner,
    ns: &Nspace,
    find: impl FnOnce() -> Option<Arc<LocalRanks>>,
) -> Option<Arc<LocalRanks>> {
    through(&NSPACES, inner, ns, |n| n == ns, find)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_kept_for_one_client_and_generation_only() {
        let mut k: Kept<u32, u32> = Kept::new();
        assert_eq!(k.get(1, 5, |&x| x == 7), None);
        k.put(1, 5, 7, 70);
        assert_eq!(k.get(1, 5, |&x| x == 7), Some(70));
        assert_eq!(k.get(1, 6, |&x| x == 7), None, "a new job-store version");
        k.put(1, 5, 7, 71);
        assert_eq!(
            k.get(1, 6, |&x| x == 7),
            None,
            "filled under an old version"
        );
        k.put(1, 6, 7, 72);
        assert_eq!(k.get(2, 6, |&x| x == 7), None, "another client");
    }

    #[test]
    fn the_oldest_answer_goes_first() {
        let mut k: Kept<usize, usize> = Kept::new();
        let _ = k.get(1, 1, |_| false);
        for i in 0..KEPT + 1 {
            k.put(1, 1, i, i);
        }
        assert_eq!(k.get(1, 1, |&x| x == 0), None);
        assert_eq!(k.get(1, 1, |&x| x == 1), Some(1));
        assert_eq!(k.get(1, 1, |&x| x == KEPT), Some(KEPT));
        assert_eq!(k.entries.len(), KEPT);
    }
}
