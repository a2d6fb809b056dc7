//! Programming-model declarations (the hybrid-applications use case): a
//! library that calls `init` with `PMIX_PROGRAMMING_MODEL`,
//! `PMIX_MODEL_LIBRARY_NAME`, `PMIX_MODEL_LIBRARY_VERSION`,
//! `PMIX_THREADING_MODEL` or `PMIX_MODEL_AFFINITY_POLICY` declares
//! them: they join this process's card (under their `pmix.` keys, which no
//! user put can write), so another library of the same process and the
//! local peers read them with `get`, and `PMIX_MODEL_DECLARED` is raised
//! PROC_LOCAL (non-default) to this process's handlers.
//!
//! The card is committed at once when it holds nothing but declarations
//! (a library's `init` comes before its puts); otherwise the declaration
//! waits for the next `commit`, so no put is published before its owner
//! commits it.

use pmix_core::{attrs, Info, Proc, Result, Scope, Status, Value};

use crate::{data, Inner, PutEntry};

/// The keys a declaration carries.
pub(crate) const DECLARED_KEYS: &[&str] = &[
    attrs::PROGRAMMING_MODEL,
    attrs::MODEL_LIBRARY_NAME,
    attrs::MODEL_LIBRARY_VERSION,
    attrs::THREADING_MODEL,
    attrs::MODEL_AFFINITY_POLICY,
];

/// Whether `key` is one a declaration carries.
pub(crate) fn is_declared_key(key: &str) -> bool {
    DECLARED_KEYS.contains(&key)
}

/// The declaration entries of `info`.
pub(crate) fn declaration(info: &[Info]) -> Vec<Info> {
    info.iter()
        .filter(|i| is_declared_key(i.key.as_str()))
        .cloned()
        .collect()
}

/// Records `decl` in this process's card (scope GLOBAL: a remote peer's
/// direct modex finds it too) and commits when nothing else is pending.
pub(crate) fn record(inner: &Inner, decl: &[Info]) -> Result<()> {
    let only_declarations = {
        let mut puts = inner.puts.lock();
        for d in decl {
            puts.retain(|p| !d.is(&p.key));
            puts.push(PutEntry {
                key: d.key.as_str().to_owned(),
                scope: Scope::GLOBAL,
                value: d.value.clone(),
            });
        }
        puts.iter().all(|p| is_declared_key(&p.key))
    };
    if only_declarations {
        data::commit(inner)?;
    }
    Ok(())
}

/// This process's own declared value of `key`.
pub(crate) fn own(inner: &Inner, proc: &Proc, key: &str) -> Result<Value> {
    inner
        .puts
        .lock()
        .iter()
        .find(|p| p.key == key)
        .map(|p| p.value.clone())
        .ok_or_else(|| {
            pmix_core::Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("{key}: {proc} declared no programming model with it"),
            )
        })
}
