//! The PMIx groups this server knows: the live ones by id, the constructs
//! under way (each contributor's member order, group info and flags, kept
//! beside the collective tracker's episode under the group id), and the
//! server's context-id counter.

use std::collections::BTreeMap;

use pmix_core::{Info, Proc};

/// One live group.
#[derive(Clone, Debug)]
pub(crate) struct LiveGroup {
    /// The members (index = group rank).
    pub(crate) members: Vec<Proc>,
    /// `PMIX_GROUP_CONTEXT_ID`, when one was assigned.
    pub(crate) context_id: Option<u64>,
    /// `PMIX_GROUP_NOTIFY_TERMINATION` at construct: a dead member counts
    /// as done in a destruct (else the destruct fails).
    pub(crate) notify_termination: bool,
}

/// What one contributor brought to a construct.
#[derive(Clone, Debug, Default)]
pub(crate) struct Part {
    /// The members in this contributor's order (wildcards as given).
    pub(crate) order: Vec<Proc>,
    /// It declared itself `PMIX_GROUP_LEADER`.
    pub(crate) leader: bool,
    /// Its `PMIX_GROUP_INFO` entries.
    pub(crate) info: Vec<Info>,
}

/// A construct under way.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pending {
    /// The canonical member set (every contributor must give the same).
    pub(crate) set: Vec<Proc>,
    /// The contributions so far, by contributor.
    pub(crate) parts: BTreeMap<Proc, Part>,
    /// Some contributor asked `PMIX_GROUP_ASSIGN_CONTEXT_ID`.
    pub(crate) assign_context_id: bool,
    /// Some contributor asked `PMIX_GROUP_NOTIFY_TERMINATION`.
    pub(crate) notify_termination: bool,
    /// A participant that claimed the lead (after the leader died) before
    /// it called construct: its call makes it the leader.
    pub(crate) claimed: Option<Proc>,
    /// Across nodes: the job-level entries of the group's namespaces, by
    /// namespace (`jobinfo.rs`): this server's before the fence, every
    /// server's after it.
    pub(crate) jobs: BTreeMap<String, super::jobinfo::Entries>,
}

/// Every group and construct of this server.
#[derive(Debug)]
pub(crate) struct GroupTracker {
    /// Live groups by id.
    pub(crate) live: BTreeMap<String, LiveGroup>,
    /// Constructs under way by id.
    pub(crate) pending: BTreeMap<String, Pending>,
    /// Invitations under way by id (`invite.rs`).
    pub(crate) invites: BTreeMap<String, super::invite::Invitation>,
    /// Invitations led on other nodes to local processes, by id
    /// (`remote_invite.rs`).
    pub(crate) remote_invites: BTreeMap<String, super::remote_invite::RemoteInvite>,
    /// Constructs whose leader died, waiting for a claimant, by id
    /// (`election.rs`).
    pub(crate) elections: BTreeMap<String, super::election::Election>,
    /// The next context id this server assigns.
    next_context_id: u64,
    /// Names invitations for their timers.
    next_serial: u64,
}

impl Default for GroupTracker {
    fn default() -> Self {
        GroupTracker {
            live: BTreeMap::new(),
            pending: BTreeMap::new(),
            invites: BTreeMap::new(),
            remote_invites: BTreeMap::new(),
            elections: BTreeMap::new(),
            next_context_id: 1,
            next_serial: 0,
        }
    }
}

impl GroupTracker {
    /// A context id no live group of this server holds, at least `floor`
    /// (the largest proposal of every node when the construct spans
    /// nodes); the counter moves past it.
    pub(crate) fn take_context_id(&mut self, floor: u64) -> u64 {
        let mut c = self.next_context_id.max(floor);
        while self.live.values().any(|g| g.context_id == Some(c)) {
            c += 1;
        }
        self.next_context_id = c + 1;
        c
    }

    /// A number no other invitation of this server has.
    pub(crate) fn take_serial(&mut self) -> u64 {
        self.next_serial += 1;
        self.next_serial
    }

    /// The id this server proposes for a construct spanning nodes.
    pub(crate) fn context_id_proposal(&self) -> u64 {
        self.next_context_id
    }

    /// Forgets `who`'s part of construct `id` (its call was refused); the
    /// construct goes when nobody else is in it.
    pub(crate) fn withdraw(&mut self, id: &str, who: &Proc) {
        if let Some(p) = self.pending.get_mut(id) {
            p.parts.remove(who);
            if p.parts.is_empty() {
                self.pending.remove(id);
            }
        }
    }
}

/// One live group as the query operations report it
/// (`PMIX_QUERY_NUM_GROUPS`, `PMIX_QUERY_GROUP_NAMES`,
/// `PMIX_QUERY_GROUP_MEMBERSHIP`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupView {
    /// The group id.
    pub id: String,
    /// The members (index = group rank).
    pub members: Vec<Proc>,
    /// `PMIX_GROUP_CONTEXT_ID`, when assigned.
    pub context_id: Option<u64>,
}

impl GroupTracker {
    /// Every live group, by id.
    pub(crate) fn snapshot(&self) -> Vec<GroupView> {
        self.live
            .iter()
            .map(|(id, g)| GroupView {
                id: id.clone(),
                members: g.members.clone(),
                context_id: g.context_id,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_ids_skip_live_ones_and_follow_the_floor() {
        let mut t = GroupTracker::default();
        assert_eq!(t.take_context_id(0), 1);
        t.live.insert(
            "a".into(),
            LiveGroup {
                members: vec![],
                context_id: Some(2),
                notify_termination: false,
            },
        );
        assert_eq!(t.take_context_id(0), 3);
        assert_eq!(t.take_context_id(10), 10);
        assert_eq!(t.context_id_proposal(), 11);
    }
}
