//! The ids of the events received lately, so that a second copy of one is
//! dropped (the server may deliver an event that a peer also pushed into
//! this client's ring).
//!
//! Checked once per event from another process, so it is kept cheap
//! (issue 18): the table hashes an [`EventId`] with a keyed multiply-xor
//! mix instead of SipHash (two 64-bit words; the keys are drawn per
//! process, so another process cannot aim ids at one bucket), and its
//! capacity is set so that the steady state (a bounded number of live
//! ids, inserts and removals leaving tombstones) rehashes in place and
//! never allocates.

use std::collections::hash_map::RandomState;
use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasher, Hasher};

use pmix_core::event::EventId;

/// A keyed hasher for the two words of an [`EventId`].
#[derive(Clone, Copy)]
pub(crate) struct IdHashKeys {
    k0: u64,
    k1: u64,
}

impl IdHashKeys {
    /// Keys drawn from the standard library's per-process random state.
    fn random() -> Self {
        let s = RandomState::new();
        let draw = |salt: u64| {
            let mut h = s.build_hasher();
            h.write_u64(salt);
            h.finish() | 1
        };
        IdHashKeys {
            k0: draw(0x7069_6d78),
            k1: draw(0x7273_6964),
        }
    }
}

impl BuildHasher for IdHashKeys {
    type Hasher = IdHasher;

    fn build_hasher(&self) -> IdHasher {
        IdHasher {
            state: self.k0,
            mul: self.k1,
        }
    }
}

/// The state of one hash: each word is mixed in by xor, a multiply by an
/// odd key and a rotation; `finish` folds the high half down.
pub(crate) struct IdHasher {
    state: u64,
    mul: u64,
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // not reached for `EventId` (two `u64` fields): fold bytes in
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.state = (self.state ^ x).wrapping_mul(self.mul).rotate_left(29);
    }

    fn finish(&self) -> u64 {
        let h = self.state.wrapping_mul(self.mul);
        h ^ (h >> 32)
    }
}

/// The last `keep` event ids received, oldest first out.
pub(crate) struct SeenIds {
    set: HashSet<EventId, IdHashKeys>,
    order: VecDeque<EventId>,
    keep: usize,
}

impl SeenIds {
    /// Remembers up to `keep` ids.
    pub(crate) fn new(keep: usize) -> Self {
        SeenIds {
            // room for the live ids and the tombstones of the removed ones
            set: HashSet::with_capacity_and_hasher(4 * keep, IdHashKeys::random()),
            order: VecDeque::with_capacity(keep + 1),
            keep,
        }
    }

    /// `false` if `id` was already received (a second copy); else
    /// remembers it, forgetting the oldest beyond `keep`.
    pub(crate) fn first_sight(&mut self, id: EventId) -> bool {
        if !self.set.insert(id) {
            return false;
        }
        self.order.push_back(id);
        if self.order.len() > self.keep {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(origin: u64, seq: u64) -> EventId {
        EventId { origin, seq }
    }

    #[test]
    fn a_second_copy_is_refused_until_the_id_is_forgotten() {
        let mut s = SeenIds::new(3);
        assert!(s.first_sight(id(2, 1)));
        assert!(!s.first_sight(id(2, 1)));
        assert!(s.first_sight(id(3, 1)), "another origin, same seq");
        assert!(s.first_sight(id(2, 2)));
        assert!(s.first_sight(id(2, 3)), "forgets (2, 1)");
        assert!(s.first_sight(id(2, 1)), "forgotten, so new again");
        assert!(!s.first_sight(id(2, 3)));
    }

    #[test]
    fn the_hash_spreads_sequential_ids_and_depends_on_both_words() {
        let k = IdHashKeys::random();
        let h = |i: EventId| k.hash_one(i);
        assert_ne!(h(id(1, 2)), h(id(2, 1)));
        assert_ne!(h(id(1, 0)), h(id(1, 1)));
        // sequential ids land in many buckets of a small table
        let buckets: HashSet<u64> = (0..1024).map(|s| h(id(7, s)) & 1023).collect();
        assert!(buckets.len() > 500, "{} buckets of 1024", buckets.len());
    }

    #[test]
    fn the_steady_state_keeps_its_memory() {
        let mut s = SeenIds::new(64);
        for i in 0..10_000 {
            assert!(s.first_sight(id(1, i)));
        }
        let cap = s.set.capacity();
        for i in 10_000..50_000 {
            assert!(s.first_sight(id(1, i)));
        }
        assert_eq!(s.set.capacity(), cap);
        assert_eq!(s.set.len(), 64);
    }
}
