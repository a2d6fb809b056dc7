//! The server's collective operations as one pure state machine: which
//! local participants an operation waits for, who contributed, who
//! departed, its deadline, and the hand-over to the host when it spans
//! nodes. No sockets, locks, threads or clocks inside: the caller feeds it
//! contributions, departures, timer expiries and the host's answer, and
//! does what each call returns (answer these waiters with this outcome,
//! arm the timer for this [`Due`], hand this [`Episode`] to the host).
//! The server keeps one [`Collectives`] behind its state lock.
//!
//! # Keys and episodes
//!
//! A collective is named by a [`Key`]: its [`Kind`] and its canonical
//! participant list (`proto::canonical_procs`, wildcards included). One
//! *episode* of a key is open at a time; each gets an id (its generation)
//! that the timer and the host's answer name. The caller works out the
//! episode's [`Opening`] (the local participants, those already gone,
//! whether the operation leaves the node) when the first contribution
//! arrives. The local part is done when contributed ∪ departed ⊇
//! expected.
//!
//! A departure (a participant died) either fails every open episode that
//! expects it at once (`departure_fails`, the fence: `PMIX_ERR_LOST_CONNECTION`)
//! or counts as that participant's part (group operations may choose so).
//!
//! # Timeouts
//!
//! An episode's deadline is the earliest of its contributions' deadlines
//! (`PMIX_TIMEOUT`, counted from each contribution). When it passes first
//! the episode ends for every contributor, and the key's episode counts are
//! kept ([`Episodes`]): a participant that arrives for an episode that
//! already ended is refused at once ([`Refusal::Late`]) and is not counted
//! in the next one, so the next episode of every participant works. The
//! counts are dropped once every participant is in step again, or when one
//! of them departs.
//!
//! # The host's part
//!
//! An episode whose participants are not all local is handed to the host
//! once its local part is done ([`Collectives::await_host`]); whichever
//! comes first of the host's answer ([`Collectives::host_answered`]) and
//! the deadline ([`Collectives::expire`]) takes it, the other finds
//! nothing. A departure no longer concerns it then: the host reports the
//! other nodes' outcome.
//!
//! `connect` and `disconnect` are [`Kind`]s here too (the connect id is part
//! of the kind); group construct / destruct are meant to add theirs, with
//! their own per-episode data kept by the caller under the episode's id.

use std::collections::btree_map::Entry as MapEntry;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use pmix_core::{Info, Proc};

/// Which collective operation.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    /// `PMIx_Fence`.
    Fence,
    /// `PMIx_Connect` (`ops/connect`): calls with another `PMIX_CONNECT_ID`
    /// or another `PMIX_CONNECT_XCHG_ONLY` are another operation.
    Connect {
        /// `PMIX_CONNECT_ID`, when given.
        id: Option<String>,
        /// `PMIX_CONNECT_XCHG_ONLY`.
        xchg_only: bool,
    },
    /// `PMIx_Disconnect` from the group namespace named here.
    Disconnect(String),
    /// `PMIx_Group_construct` of the group id named here (`ops/group`).
    GroupConstruct(String),
    /// `PMIx_Group_destruct` of the group id named here.
    GroupDestruct(String),
}

/// Names one collective operation: its kind and its canonical participant
/// list.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    pub(crate) kind: Kind,
    pub(crate) procs: Vec<Proc>,
}

/// What the caller works out when a contribution opens an episode.
#[derive(Debug, Default)]
pub(crate) struct Opening {
    /// The local participants that must contribute.
    pub(crate) expected: BTreeSet<Proc>,
    /// Those of `expected` already gone.
    pub(crate) departed: BTreeSet<Proc>,
    /// Some participant is not on this node: the host completes the
    /// operation.
    pub(crate) remote: bool,
    /// A departure fails the episode (else it counts as the departed
    /// participant's contribution).
    pub(crate) departure_fails: bool,
    /// The directives of the contribution that opened the episode.
    pub(crate) directives: Vec<Info>,
}

/// One episode of a collective, with its contributors' waiters `W`.
#[derive(Debug)]
pub(crate) struct Episode<W> {
    pub(crate) key: Key,
    /// Names this episode for the timer and the host's answer.
    pub(crate) id: u64,
    /// The local participants.
    pub(crate) expected: BTreeSet<Proc>,
    /// Participants that departed (counted as done).
    pub(crate) departed: BTreeSet<Proc>,
    /// Who contributed, in arrival order, with their waiters.
    pub(crate) contributed: Vec<(Proc, W)>,
    /// The directives of the first contribution.
    pub(crate) directives: Vec<Info>,
    /// Some participant is not on this node.
    pub(crate) remote: bool,
    /// The earliest of the contributions' deadlines.
    pub(crate) deadline: Option<Instant>,
    departure_fails: bool,
}

impl<W> Episode<W> {
    /// Every local participant contributed or departed. (Contributions
    /// and departures are distinct members of `expected`.)
    fn is_whole(&self) -> bool {
        self.contributed.len() + self.departed.len() >= self.expected.len()
    }

    fn has_part_of(&self, p: &Proc) -> bool {
        self.departed.contains(p) || self.contributed.iter().any(|(q, _)| q == p)
    }

    /// The contributors' waiters.
    pub(crate) fn waiters(&self) -> impl Iterator<Item = &W> {
        self.contributed.iter().map(|(_, w)| w)
    }
}

/// When the timer must call [`Collectives::expire`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Due {
    pub(crate) key: Key,
    pub(crate) id: u64,
    pub(crate) at: Instant,
}

/// Why a contribution is answered at once, without joining an episode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Its episode already ended without it (it timed out).
    Late,
    /// The contributor is not one of the local participants.
    NotParticipant,
    /// The contributor is already in the open episode.
    Twice,
    /// This participant is gone, and departures fail the operation.
    Departed(Proc),
    /// The contributor already takes part in this many pending episodes
    /// (the per-client limit, [`Collectives::with_limit`]).
    TooMany(usize),
}

/// What became of a contribution.
#[derive(Debug)]
pub(crate) enum Contributed<W> {
    /// Answer the contributor now.
    Refused(W, Refusal),
    /// It waits; with a [`Due`], the episode's deadline moved earlier:
    /// have the timer expire it then.
    Waiting(Option<Due>),
    /// Every local participant is in: the episode's local part is done
    /// (and it is no longer tracked).
    Complete(Episode<W>),
}

/// How an episode ended other than by its last contribution.
#[derive(Debug)]
pub(crate) enum Ended<W> {
    /// Its deadline passed before every local participant contributed.
    TimedOut(Episode<W>),
    /// Its deadline passed while the host had it.
    HostTimedOut(Episode<W>),
    /// This participant departed, and departures fail it.
    Aborted(Episode<W>, Proc),
    /// With the departure counted, every local participant is in.
    Complete(Episode<W>),
}

impl<W> Ended<W> {
    /// The episode that ended.
    pub(crate) fn episode(&self) -> &Episode<W> {
        match self {
            Ended::TimedOut(ep)
            | Ended::HostTimedOut(ep)
            | Ended::Aborted(ep, _)
            | Ended::Complete(ep) => ep,
        }
    }
}

/// The episodes of one participant set since one of them timed out: how
/// many ended, and how many each local participant entered, so that a
/// participant arriving for an episode that already ended is told so at
/// once and is not counted in the next one. Dropped once every participant
/// is in step again (entered = ended), when counting from 0 says the same.
#[derive(Debug)]
struct Episodes {
    /// The local participants.
    expected: BTreeSet<Proc>,
    /// Episodes ended since the first timeout.
    ended: u64,
    /// Episodes each participant entered since then (absent: none).
    entered: BTreeMap<Proc, u64>,
}

/// What an arrival is, by the participant's own count of its episodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    /// Its episode already ended (without it: it timed out).
    Late,
    /// It enters the open episode.
    Open,
    /// It is already in the open episode.
    Again,
}

impl Episodes {
    /// Counts an arrival of `p` (unless it is `Again`).
    fn enter(&mut self, p: &Proc) -> Entry {
        let entered = self.entered.entry(p.clone()).or_insert(0);
        if *entered > self.ended {
            return Entry::Again;
        }
        *entered += 1;
        if *entered <= self.ended {
            Entry::Late
        } else {
            Entry::Open
        }
    }

    /// Whether every participant has entered exactly the ended episodes.
    fn in_step(&self) -> bool {
        self.expected
            .iter()
            .all(|p| self.entered.get(p).copied().unwrap_or(0) == self.ended)
    }
}

/// What [`Collectives::reopen`] did with an episode.
#[derive(Debug)]
pub(crate) enum Reopened<W> {
    /// Open again, waiting for the rest.
    Waiting,
    /// Whole already: the caller completes it.
    Whole(Episode<W>),
    /// Another episode of its key is open: given back.
    Taken(Episode<W>),
}

/// Every collective the server tracks (see the module docs).
#[derive(Debug)]
pub(crate) struct Collectives<W> {
    /// The open episode of each key.
    open: BTreeMap<Key, Episode<W>>,
    /// Keys out of step since an episode of theirs timed out.
    behind: BTreeMap<Key, Episodes>,
    /// Episodes the host completes, by id.
    with_host: BTreeMap<u64, Episode<W>>,
    next_id: u64,
    /// Most pending episodes one contributor may take part in.
    limit: usize,
}

impl<W> Default for Collectives<W> {
    fn default() -> Self {
        Collectives::with_limit(usize::MAX)
    }
}

impl<W> Collectives<W> {
    /// A tracker refusing a contribution that would open an episode when
    /// its contributor already takes part in `limit` pending ones
    /// ([`Collectives::pending_of`]).
    pub(crate) fn with_limit(limit: usize) -> Self {
        Collectives {
            open: BTreeMap::new(),
            behind: BTreeMap::new(),
            with_host: BTreeMap::new(),
            next_id: 0,
            limit,
        }
    }

    /// Everything tracked: open episodes, episodes with the host, and
    /// participant sets out of step. 0 once every episode ended and every
    /// set is in step again (or lost a participant).
    pub(crate) fn tracked(&self) -> usize {
        self.open.len() + self.with_host.len() + self.behind.len()
    }

    /// How much `who` holds: the open episodes and those with the host it
    /// contributed to, and the sets out of step whose episodes it entered.
    pub(crate) fn pending_of(&self, who: &Proc) -> usize {
        let in_ep = |ep: &Episode<W>| ep.contributed.iter().any(|(p, _)| p == who);
        self.open.values().filter(|ep| in_ep(ep)).count()
            + self.with_host.values().filter(|ep| in_ep(ep)).count()
            + self
                .behind
                .values()
                .filter(|h| h.entered.get(who).is_some_and(|n| *n > 0))
                .count()
    }

    /// `who` contributes to `key`, answered through `waiter`, willing to
    /// wait until `deadline`. `open` is asked for the episode's
    /// [`Opening`] when no episode of `key` is open.
    pub(crate) fn contribute(
        &mut self,
        key: Key,
        who: Proc,
        waiter: W,
        deadline: Option<Instant>,
        open: impl FnOnce(&Key) -> Opening,
    ) -> Contributed<W> {
        if let Some(h) = self.behind.get_mut(&key) {
            if h.expected.contains(&who) && h.enter(&who) == Entry::Late {
                if h.in_step() {
                    self.behind.remove(&key);
                }
                return Contributed::Refused(waiter, Refusal::Late);
            }
        }
        if !self.open.contains_key(&key) {
            let o = open(&key);
            // Nothing is stored for a contribution refused here.
            if !o.expected.contains(&who) {
                return Contributed::Refused(waiter, Refusal::NotParticipant);
            }
            if o.departure_fails {
                if let Some(gone) = o.departed.first() {
                    return Contributed::Refused(waiter, Refusal::Departed(gone.clone()));
                }
            }
            if self.limit != usize::MAX {
                // Counted only when opening: joining an open episode stores
                // one waiter, at most once per episode.
                let held = self.pending_of(&who);
                if held >= self.limit {
                    return Contributed::Refused(waiter, Refusal::TooMany(held));
                }
            }
            let id = self.next_id;
            self.next_id += 1;
            let departed = o.departed.intersection(&o.expected).cloned().collect();
            let ep = Episode {
                key: key.clone(),
                id,
                expected: o.expected,
                departed,
                contributed: Vec::new(),
                directives: o.directives,
                remote: o.remote,
                deadline: None,
                departure_fails: o.departure_fails,
            };
            self.open.insert(key.clone(), ep);
        }
        let Some(ep) = self.open.get_mut(&key) else {
            unreachable!("opened above")
        };
        if !ep.expected.contains(&who) {
            return Contributed::Refused(waiter, Refusal::NotParticipant);
        }
        if ep.has_part_of(&who) {
            return Contributed::Refused(waiter, Refusal::Twice);
        }
        ep.contributed.push((who, waiter));
        let earlier = deadline.filter(|d| ep.deadline.map_or(true, |old| *d < old));
        if earlier.is_some() {
            ep.deadline = earlier;
        }
        if ep.is_whole() {
            let key = ep.key.clone();
            return Contributed::Complete(self.close(&key));
        }
        Contributed::Waiting(earlier.map(|at| Due {
            key: ep.key.clone(),
            id: ep.id,
            at,
        }))
    }

    /// Removes the whole open episode of `key` (it must be there) and
    /// counts it as ended.
    fn close(&mut self, key: &Key) -> Episode<W> {
        let ep = self
            .open
            .remove(key)
            .expect("close is called for an open episode");
        if let Some(h) = self.behind.get_mut(key) {
            h.ended += 1;
            if h.in_step() {
                self.behind.remove(key);
            }
        }
        ep
    }

    /// The timer's call for `due`, at `now`: the episode it names ends as
    /// timed out if it is still pending (here or with the host) and its
    /// deadline has come.
    pub(crate) fn expire(&mut self, due: &Due, now: Instant) -> Option<Ended<W>> {
        let is_due = |ep: &Episode<W>| ep.id == due.id && ep.deadline.is_some_and(|d| d <= now);
        if self.open.get(&due.key).is_some_and(is_due) {
            let ep = self.open.remove(&due.key)?;
            self.timed_out(&ep);
            return Some(Ended::TimedOut(ep));
        }
        if self.with_host.get(&due.id).is_some_and(is_due) {
            return self.with_host.remove(&due.id).map(Ended::HostTimedOut);
        }
        None
    }

    /// Bookkeeping of an episode that timed out: the participants that did
    /// not arrive are now one episode behind.
    fn timed_out(&mut self, ep: &Episode<W>) {
        let h = match self.behind.entry(ep.key.clone()) {
            // Its arrivals were counted as they came.
            MapEntry::Occupied(e) => {
                let h = e.into_mut();
                h.ended += 1;
                h
            }
            MapEntry::Vacant(e) => e.insert(Episodes {
                expected: ep.expected.clone(),
                ended: 1,
                entered: ep.contributed.iter().map(|(p, _)| (p.clone(), 1)).collect(),
            }),
        };
        if h.in_step() {
            self.behind.remove(&ep.key);
        }
    }

    /// `who` is gone: its keys' episode counts are forgotten, and every
    /// open episode that expects it fails or counts it (by its
    /// `departure_fails`), in key order.
    pub(crate) fn depart(&mut self, who: &Proc) -> Vec<Ended<W>> {
        self.depart_from(who, |_| true)
    }

    /// As [`depart`](Self::depart), for the keys whose kind `which`
    /// accepts only (a finalized client leaves connects, never fences).
    pub(crate) fn depart_from(
        &mut self,
        who: &Proc,
        which: impl Fn(&Kind) -> bool,
    ) -> Vec<Ended<W>> {
        self.behind
            .retain(|k, h| !(which(&k.kind) && h.expected.contains(who)));
        let keys: Vec<Key> = self
            .open
            .iter()
            .filter(|(k, ep)| which(&k.kind) && ep.expected.contains(who))
            .map(|(k, _)| k.clone())
            .collect();
        let mut ended = Vec::new();
        for key in keys {
            let Some(ep) = self.open.get_mut(&key) else {
                continue;
            };
            if ep.departure_fails {
                if let Some(ep) = self.open.remove(&key) {
                    ended.push(Ended::Aborted(ep, who.clone()));
                }
            } else if !ep.has_part_of(who) {
                ep.departed.insert(who.clone());
                if ep.is_whole() {
                    ended.push(Ended::Complete(self.close(&key)));
                }
            }
        }
        ended
    }

    /// Opens again an episode that [`depart`](Self::depart) aborted for
    /// `gone`, now counting `gone` as departed (a group construct whose
    /// leader died and a participant claimed the lead). The episode when
    /// it is whole already (the caller completes it), or back when another
    /// episode of its key opened meanwhile.
    pub(crate) fn reopen(&mut self, mut ep: Episode<W>, gone: Proc) -> Reopened<W> {
        if self.open.contains_key(&ep.key) {
            return Reopened::Taken(ep);
        }
        ep.contributed.retain(|(p, _)| *p != gone);
        ep.departed.insert(gone);
        if ep.is_whole() {
            return Reopened::Whole(ep);
        }
        self.open.insert(ep.key.clone(), ep);
        Reopened::Waiting
    }

    /// `who` left a group while alive: every open fence that counts
    /// departures as arrivals (`PMIX_GROUP_FT_COLLECTIVE`) and still
    /// expects it counts it as departed. Those now whole end.
    pub(crate) fn leave_lenient(&mut self, who: &Proc) -> Vec<Ended<W>> {
        let keys: Vec<Key> = self
            .open
            .iter()
            .filter(|(k, ep)| {
                k.kind == Kind::Fence
                    && !ep.departure_fails
                    && ep.expected.contains(who)
                    && !ep.has_part_of(who)
            })
            .map(|(k, _)| k.clone())
            .collect();
        let mut ended = Vec::new();
        for key in keys {
            if let Some(ep) = self.open.get_mut(&key) {
                ep.departed.insert(who.clone());
                if ep.is_whole() {
                    ended.push(Ended::Complete(self.close(&key)));
                }
            }
        }
        ended
    }

    /// Keeps an episode whose local part is done until the host answers
    /// (or its deadline passes: the returned [`Due`]).
    pub(crate) fn await_host(&mut self, ep: Episode<W>) -> Option<Due> {
        let due = ep.deadline.map(|at| Due {
            key: ep.key.clone(),
            id: ep.id,
            at,
        });
        self.with_host.insert(ep.id, ep);
        due
    }

    /// The host answered episode `id`: the episode, unless its deadline
    /// already ended it.
    pub(crate) fn host_answered(&mut self, id: u64) -> Option<Episode<W>> {
        self.with_host.remove(&id)
    }
}

#[cfg(test)]
mod tests;
