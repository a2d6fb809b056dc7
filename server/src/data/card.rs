//! [`Card`]: what a local proc committed, as the server reads it (from its
//! modex store, or kept after it departed).

use pmix_core::{Scope, Value};

/// What a local proc committed, as the server reads it.
#[derive(Debug)]
pub(crate) struct Card {
    /// Every entry with the scope it was put with.
    pub(crate) entries: Vec<(String, Scope, Value)>,
    /// It committed since it was registered.
    pub(crate) committed: bool,
    /// It can commit no more: finalized, dead or deregistered.
    pub(crate) ended: bool,
}

impl Card {
    /// The entries a reader on another node (`remote`) or on this node sees.
    pub(crate) fn visible(&self, remote: bool) -> impl Iterator<Item = &(String, Scope, Value)> {
        self.entries.iter().filter(move |(_, scope, _)| {
            if remote {
                *scope != Scope::LOCAL
            } else {
                *scope != Scope::REMOTE
            }
        })
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _, _)| k == key)
    }
}
