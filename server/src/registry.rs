//! The registry: the namespaces and the local clients the host
//! registered, their client slots and barrier cells, and each client's
//! connection once it has one. Plain bookkeeping behind the server's state
//! lock (`inner.rs`); registering and deregistering (publishing into the
//! shared stores, events) is `data/registration.rs`.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use pmix_core::{Nspace, Proc, Rank};

use crate::link::Link;

/// What the server knows of a namespace.
#[derive(Debug)]
pub(crate) struct NsInfo {
    /// `register_nspace` has been called (else only clients were registered).
    pub(crate) registered: bool,
    /// Processes of the namespace on this node.
    pub(crate) nlocal: u32,
    /// Processes of the namespace in the whole job.
    pub(crate) job_size: u32,
    /// Its barrier cell.
    pub(crate) barrier: Option<u32>,
}

/// A registered local client.
#[derive(Debug)]
pub(crate) struct ClientRec {
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) slot: u32,
    /// What its hello must present (`secret.rs`).
    pub(crate) secret: String,
    /// Its pid, when the host told it (`Server::set_client_pid`): the
    /// socket's peer must then be that process.
    pub(crate) pid: Option<u32>,
    /// The live connection, once the handshake succeeded.
    pub(crate) link: Option<Arc<Link>>,
    pub(crate) finalized: bool,
    pub(crate) dead: bool,
}

impl ClientRec {
    /// Neither finalized nor dead.
    pub(crate) fn is_live(&self) -> bool {
        !self.finalized && !self.dead
    }
}

/// The local participants of a proc list, as a collective needs them.
#[derive(Debug, Default)]
pub(crate) struct Members {
    /// Registered local clients named by the list (a wildcard names every
    /// registered local rank of its namespace).
    pub(crate) local: BTreeSet<Proc>,
    /// Those of `local` that died.
    pub(crate) dead: BTreeSet<Proc>,
    /// Some member lives on another node (or in an unknown namespace).
    pub(crate) remote: bool,
}

/// Namespaces, clients and the free slots and barrier cells.
#[derive(Debug)]
pub(crate) struct Registry {
    pub(crate) nspaces: HashMap<Nspace, NsInfo>,
    pub(crate) clients: HashMap<Proc, ClientRec>,
    free_slots: Vec<u32>,
    free_barriers: Vec<u32>,
}

impl Registry {
    /// An empty registry with `max_clients` slots and `max_nspaces`
    /// barrier cells.
    pub(crate) fn new(max_clients: u32, max_nspaces: u32) -> Self {
        Registry {
            nspaces: HashMap::new(),
            clients: HashMap::new(),
            free_slots: (0..max_clients).rev().collect(),
            free_barriers: (0..max_nspaces).rev().collect(),
        }
    }

    pub(crate) fn take_slot(&mut self) -> Option<u32> {
        self.free_slots.pop()
    }

    pub(crate) fn free_slot(&mut self, slot: u32) {
        self.free_slots.push(slot);
    }

    pub(crate) fn take_barrier(&mut self) -> Option<u32> {
        self.free_barriers.pop()
    }

    pub(crate) fn free_barrier(&mut self, b: u32) {
        self.free_barriers.push(b);
    }

    /// The client slot of a registered proc.
    pub(crate) fn slot_of(&self, proc: &Proc) -> Option<u32> {
        self.clients.get(proc).map(|c| c.slot)
    }

    /// `(local count, job size)` of a registered namespace.
    pub(crate) fn sizes(&self, ns: &Nspace) -> Option<(u32, u32)> {
        self.nspaces
            .get(ns)
            .filter(|n| n.registered)
            .map(|n| (n.nlocal, n.job_size))
    }

    /// Ranks of the registered local clients of `ns`.
    pub(crate) fn local_ranks(&self, ns: &Nspace) -> BTreeSet<Rank> {
        self.clients
            .keys()
            .filter(|p| &p.nspace == ns)
            .map(|p| p.rank)
            .collect()
    }

    /// `p` is a registered local client.
    pub(crate) fn is_registered(&self, p: &Proc) -> bool {
        self.clients.contains_key(p)
    }

    /// Every registered namespace.
    pub(crate) fn registered_nspaces(&self) -> Vec<Nspace> {
        self.nspaces
            .iter()
            .filter(|(_, n)| n.registered)
            .map(|(ns, _)| ns.clone())
            .collect()
    }

    /// `ns` is registered and some of its local clients are not yet.
    pub(crate) fn incomplete(&self, ns: &Nspace) -> bool {
        self.sizes(ns)
            .is_some_and(|(nlocal, _)| (self.local_ranks(ns).len() as u64) < u64::from(nlocal))
    }

    /// `ns` has processes on other nodes (or is not known here).
    pub(crate) fn spans_nodes(&self, ns: &Nspace) -> bool {
        self.sizes(ns)
            .map_or(true, |(nlocal, job_size)| job_size > nlocal)
    }

    /// Who of `procs` is here: the registered local clients (a wildcard's
    /// namespace spans nodes when fewer of its ranks are registered here
    /// than its job size), and whether some member is elsewhere.
    pub(crate) fn members(&self, procs: &[Proc]) -> Members {
        let mut m = Members::default();
        for p in procs {
            let ns = self.nspaces.get(&p.nspace);
            if p.rank == Rank::WILDCARD {
                let locals = self.local_ranks(&p.nspace);
                let job_size = ns.map_or(0, |n| n.job_size);
                if ns.is_none() || (locals.len() as u64) < u64::from(job_size) {
                    m.remote = true;
                }
                for r in locals {
                    m.local.insert(Proc::from_parts(p.nspace.clone(), r));
                }
            } else if self.clients.contains_key(p) {
                m.local.insert(p.clone());
            } else {
                m.remote = true;
            }
        }
        m.dead = m
            .local
            .iter()
            .filter(|p| self.clients.get(*p).is_some_and(|c| c.dead))
            .cloned()
            .collect();
        m
    }
}

#[cfg(test)]
impl Registry {
    /// Registers namespace `ns` with `nlocal` local processes of `job_size`.
    pub(crate) fn add_nspace(&mut self, ns: &str, nlocal: u32, job_size: u32) {
        let info = NsInfo {
            registered: true,
            nlocal,
            job_size,
            barrier: None,
        };
        self.nspaces.insert(Nspace::new(ns).unwrap(), info);
    }

    /// Registers local client `p` (never connected).
    pub(crate) fn add_client(&mut self, p: &Proc) {
        let slot = self.take_slot().expect("a free slot");
        let rec = ClientRec {
            uid: 0,
            gid: 0,
            slot,
            secret: String::new(),
            pid: None,
            link: None,
            finalized: false,
            dead: false,
        };
        self.clients.insert(p.clone(), rec);
    }
}
