//! Process sets the host defined (`PMIx_server_define_process_set`):
//! name → members, behind the server's state lock. Queries read them
//! (`ops/query`); defining and deleting also notify the local clients.

use std::collections::BTreeMap;

use pmix_core::{Error, Proc, Result, Status};

/// The defined process sets, by name.
#[derive(Debug, Default)]
pub(crate) struct Psets {
    sets: BTreeMap<String, Vec<Proc>>,
}

impl Psets {
    /// Defines (or redefines) `name` with `members`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an empty name or no members.
    pub(crate) fn define(&mut self, name: &str, members: &[Proc]) -> Result<()> {
        if name.is_empty() {
            return Err(Error::bad_param("a process set needs a name"));
        }
        if members.is_empty() {
            return Err(Error::bad_param(format!(
                "process set {name:?} has no members"
            )));
        }
        self.sets.insert(name.to_owned(), members.to_vec());
        Ok(())
    }

    /// Deletes `name`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when no such set is defined.
    pub(crate) fn delete(&mut self, name: &str) -> Result<Vec<Proc>> {
        self.sets.remove(name).ok_or_else(|| {
            Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("no process set named {name:?}"),
            )
        })
    }

    /// The names, sorted.
    pub(crate) fn names(&self) -> Vec<String> {
        self.sets.keys().cloned().collect()
    }

    /// The members of `name`.
    pub(crate) fn members(&self, name: &str) -> Option<&[Proc]> {
        self.sets.get(name).map(Vec::as_slice)
    }

    /// The names of the sets `proc` belongs to (a member given with
    /// `PMIX_RANK_WILDCARD` holds every rank of its namespace).
    pub(crate) fn sets_of(&self, proc: &Proc) -> Vec<String> {
        self.sets
            .iter()
            .filter(|(_, m)| {
                m.iter().any(|p| {
                    p.nspace == proc.nspace
                        && (p.rank == proc.rank || p.rank == pmix_core::Rank::WILDCARD)
                })
            })
            .map(|(n, _)| n.clone())
            .collect()
    }
}
