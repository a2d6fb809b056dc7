//! The events the connect machinery raises at the processes concerned
//! (CUSTOM range; those on other nodes through the host): `PMIX_CONNECT_REQUESTED` (NOTIFY_REQ),
//! `PMIX_PROC_HAS_CONNECTED` / `PROC_HAS_DISCONNECTED` (NOTIFY_EACH) and
//! `PMIX_ERR_PROC_TERM_WO_SYNC` (a member ended while connected).

use pmix_core::{attrs, DataArray, DataRange, Info, Nspace, Proc, Status, Value};

use super::groups::Group;
use std::sync::Arc;

use crate::inner::Inner;
use crate::ops::event::route::{elsewhere, host_notify};

/// Raises `status` from `source` at `targets`: the local ones here, and
/// those on other nodes through the host (`Host::notify_event`, range
/// CUSTOM naming only them), which passes it to their servers'
/// `Server::notify`.
fn raise(inner: &Arc<Inner>, status: Status, source: &Proc, targets: &[Proc], info: Vec<Info>) {
    if targets.is_empty() {
        return;
    }
    let with_range = |to: &[Proc]| {
        let mut info = info.clone();
        if let Ok(i) = Info::new(
            attrs::EVENT_CUSTOM_RANGE,
            Value::DataArray(Box::new(DataArray::from_procs(to.to_vec()))),
        ) {
            info.push(i);
        }
        info
    };
    if let Err(e) = host_notify(
        inner,
        status,
        Some(source),
        DataRange::CUSTOM,
        &with_range(targets),
    ) {
        inner.log(format_args!("connect: event {status} not raised: {e}"));
    }
    let remote: Vec<Proc> = {
        let st = inner.state.lock();
        targets
            .iter()
            .filter(|p| elsewhere(&st.registry, p))
            .cloned()
            .collect()
    };
    if remote.is_empty() {
        return;
    }
    let logger = inner.logger();
    inner.host.notify_event(
        status,
        source,
        DataRange::CUSTOM,
        &with_range(&remote),
        Box::new(move |r| {
            if let Err(e) = r {
                logger.log(format_args!(
                    "connect: event {status} not passed to the host for {} process(es) on \
                     other nodes: {e}",
                    remote.len()
                ));
            }
        }),
    );
}

fn affected(p: &Proc) -> Vec<Info> {
    Info::new(attrs::EVENT_AFFECTED_PROC, Value::Proc(p.clone()))
        .into_iter()
        .collect()
}

/// `PMIX_CONNECT_REQUESTED` from `initiator` to `targets`, with the
/// connect id when there is one.
pub(super) fn connect_requested(
    inner: &Arc<Inner>,
    initiator: &Proc,
    targets: &[Proc],
    info: &[Info],
) {
    let mut out = affected(initiator);
    if let Some(id) = pmix_core::info::find(info, attrs::CONNECT_ID) {
        out.push(id.clone());
    }
    raise(inner, Status::CONNECT_REQUESTED, initiator, targets, out);
}

/// `PMIX_PROC_HAS_CONNECTED`: `who` arrived at a connect over `set`.
pub(super) fn has_connected(inner: &Arc<Inner>, who: &Proc, set: &[Proc]) {
    raise(inner, Status::PROC_HAS_CONNECTED, who, set, affected(who));
}

/// `PROC_HAS_DISCONNECTED` (pmix-rs code): `who` disconnected from `ns`.
pub(super) fn has_disconnected(inner: &Arc<Inner>, who: &Proc, ns: &Nspace, others: &[Proc]) {
    let mut info = affected(who);
    if let Ok(i) = Info::new(attrs::GROUP_ID, ns.as_str()) {
        info.push(i);
    }
    raise(inner, Status::PROC_HAS_DISCONNECTED, who, others, info);
}

/// `PMIX_ERR_PROC_TERM_WO_SYNC`: member `gone` of group `ns` ended without
/// disconnecting.
pub(super) fn terminated_without_sync(inner: &Arc<Inner>, gone: &Proc, ns: &Nspace, g: &Group) {
    let others: Vec<Proc> = g.ranks.iter().filter(|p| *p != gone).cloned().collect();
    let mut info = affected(gone);
    if let Ok(i) = Info::new(attrs::GROUP_ID, ns.as_str()) {
        info.push(i);
    }
    raise(inner, Status::ERR_PROC_TERM_WO_SYNC, gone, &others, info);
}
