//! Defining and deleting process sets (`PMIx_server_define_process_set`,
//! `PMIx_server_delete_process_set`): the set is recorded (queries read
//! it), every registered process's `PMIX_PSET_NAMES` in the job store is
//! rewritten (a `get` of it on the process itself answers the sets it
//! belongs to), and `PMIX_PROCESS_SET_DEFINE` / `PMIX_PROCESS_SET_DELETE`
//! is raised to the local clients with `PMIX_PSET_NAME` and
//! `PMIX_PSET_MEMBERS`. The event goes through the server's event cache,
//! so a client that connects later, and a handler registered after the
//! event arrived, each get it once.

use std::sync::Arc;

use pmix_core::{
    attrs, codec, DataArray, DataRange, DataType, Error, Info, Proc, Rank, Result, Status, Value,
};

use crate::inner::Inner;
use crate::ops::event::route::host_notify;

/// The infos of a define / delete event.
/// The infos of a define / delete event: the set's name and members, and
/// `PMIX_EVENT_NON_DEFAULT` — news for the handlers registered for these
/// codes, not an error for default handlers (an MPI library's default
/// handler aborts on what it receives, as Open MPI 5's does).
fn event_info(name: &str, members: &[Proc]) -> Result<Vec<Info>> {
    Ok(vec![
        Info::new(attrs::PSET_NAME, Value::String(name.to_owned()))?,
        Info::new(
            attrs::PSET_MEMBERS,
            Value::DataArray(Box::new(DataArray::from_procs(members.to_vec()))),
        )?,
        Info::new(attrs::EVENT_NON_DEFAULT, Value::Bool(true))?,
    ])
}

/// Rewrites `PMIX_PSET_NAMES` of every rank of every registered namespace
/// (an array of strings; the key is removed where a process belongs to no
/// set).
fn rewrite_names(inner: &Inner) -> Result<()> {
    let per_proc: Vec<(Proc, Vec<String>)> = {
        let st = inner.state.lock();
        let mut out = Vec::new();
        for ns in st.registry.registered_nspaces() {
            let size = st.registry.sizes(&ns).map_or(0, |(_, job)| job);
            for r in 0..size {
                let p = Proc::from_parts(ns.clone(), Rank(r));
                let sets = st.psets.sets_of(&p);
                out.push((p, sets));
            }
        }
        out
    };
    inner
        .store
        .lock()
        .update(|t| {
            for (p, sets) in &per_proc {
                let (ns, r) = (p.nspace.as_str(), p.rank.0);
                if sets.is_empty() {
                    t.remove(ns, r, attrs::PSET_NAMES);
                } else {
                    let items = sets.iter().cloned().map(Value::String).collect();
                    if let Ok(a) = DataArray::new(DataType::STRING, items) {
                        let v = Value::DataArray(Box::new(a));
                        t.insert(ns, r, attrs::PSET_NAMES, codec::encode_value(&v));
                    }
                }
            }
        })
        .map(|_| ())
        .map_err(Error::from)
}

/// A namespace was registered: its members' `PMIX_PSET_NAMES`, when some
/// set is defined.
pub(crate) fn names_for_new_nspace(inner: &Inner) -> Result<()> {
    if inner.state.lock().psets.names().is_empty() {
        return Ok(());
    }
    rewrite_names(inner)
}

/// Defines (or redefines) process set `name`.
pub(crate) fn define(inner: &Arc<Inner>, name: &str, members: &[Proc]) -> Result<()> {
    inner.state.lock().psets.define(name, members)?;
    rewrite_names(inner)?;
    host_notify(
        inner,
        Status::PROCESS_SET_DEFINE,
        None,
        DataRange::LOCAL,
        &event_info(name, members)?,
    )
}

/// Deletes process set `name`.
pub(crate) fn delete(inner: &Arc<Inner>, name: &str) -> Result<()> {
    let members = inner.state.lock().psets.delete(name)?;
    rewrite_names(inner)?;
    host_notify(
        inner,
        Status::PROCESS_SET_DELETE,
        None,
        DataRange::LOCAL,
        &event_info(name, &members)?,
    )
}
