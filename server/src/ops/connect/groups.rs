//! The connected groups this server knows (namespaces made by a connect)
//! and the generation count of every connect set, from which the names it
//! mints follow.

use std::collections::BTreeMap;

use pmix_core::{Nspace, Proc};

/// One connected group.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    /// The canonical participant set of the connect that made it.
    pub(crate) canonical: Vec<Proc>,
    /// The real process of each new rank (index = new rank).
    pub(crate) ranks: Vec<Proc>,
    /// `PMIX_CONNECT_EARLY_TERM_ALLOWED`: a member may end without
    /// disconnecting.
    pub(crate) early_term: bool,
    /// `PMIX_CONNECT_NOTIFY_EACH`: disconnects raise
    /// `PROC_HAS_DISCONNECTED` at the other members.
    pub(crate) notify_each: bool,
}

impl Group {
    /// Whether `p` (a real process) is a member.
    pub(crate) fn has(&self, p: &Proc) -> bool {
        self.ranks.contains(p)
    }
}

/// Every live group and the generation of every connect set.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    /// Live groups by namespace.
    pub(crate) live: BTreeMap<Nspace, Group>,
    /// Connects completed so far per (canonical set, connect id).
    generations: BTreeMap<(Vec<Proc>, Option<String>), u64>,
}

impl Groups {
    /// The generation of the next connect of `(set, id)`; counts it.
    pub(crate) fn take_generation(&mut self, set: &[Proc], id: Option<&str>) -> u64 {
        let n = self
            .generations
            .entry((set.to_vec(), id.map(str::to_owned)))
            .or_insert(0);
        let g = *n;
        *n += 1;
        g
    }

    /// The live groups `p` is a member of.
    pub(crate) fn of(&self, p: &Proc) -> Vec<(Nspace, Group)> {
        self.live
            .iter()
            .filter(|(_, g)| g.has(p))
            .map(|(n, g)| (n.clone(), g.clone()))
            .collect()
    }
}
