//! `PMIx_Disconnect`: an episode of the collective tracker
//! ([`Kind::Disconnect`]) over the group's live members (a dead or
//! finalized member counts as done); when it completes the group leaves
//! the server's state, then the job store, and across nodes the host's
//! `disconnect` completes it first.

use std::sync::Arc;

use pmix_core::proto::Reply;
use pmix_core::{attrs, Error, Info, Nspace, Status};

use super::{complete, events, expire_at, finish, opening, refusal_error, register};
use crate::collective::{Contributed, Episode, Key, Kind};
use crate::directives;
use crate::inner::Inner;
use crate::link::ReplyTo;

/// A client's `DISCONNECT` from group `nspace`.
pub(crate) fn disconnect(inner: &Arc<Inner>, to: ReplyTo, nspace: String, info: Vec<Info>) {
    let me = to.proc().clone();
    let Ok(ns) = Nspace::new(&nspace) else {
        return to.send(&Reply::error(&Error::bad_param(format!(
            "disconnect: {nspace:?} is not a namespace name"
        ))));
    };
    let deadline = directives::deadline(&info);
    let (step, notify_others) = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let Some(g) = st.connects.live.get(&ns) else {
            drop(guard);
            return to.send(&Reply::error(&Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("disconnect: no connected group {nspace:?} (never made, or already disconnected)"),
            )));
        };
        if !g.has(&me) {
            drop(guard);
            return to.send(&Reply::error(&Error::with_context(
                Status::ERR_NOT_A_MEMBER,
                format!("disconnect: {me:?} is not a member of group {nspace:?}"),
            )));
        }
        let key = Key {
            kind: Kind::Disconnect(nspace.clone()),
            procs: g.canonical.clone(),
        };
        let ranks = g.ranks.clone();
        let notify =
            (g.notify_each || directives::flag(&info, attrs::CONNECT_NOTIFY_EACH)).then(|| {
                ranks
                    .iter()
                    .filter(|p| **p != me)
                    .cloned()
                    .collect::<Vec<_>>()
            });
        let registry = &st.registry;
        let step = st
            .collectives
            .contribute(key, me.clone(), to, deadline, |_| {
                opening(registry, &ranks, false, info.clone())
            });
        if let Contributed::Waiting(Some(due)) = &step {
            expire_at(&st.timer, inner, due.clone());
        }
        (step, notify)
    };
    if let (false, Some(others)) = (matches!(step, Contributed::Refused(..)), notify_others) {
        events::has_disconnected(inner, &me, &ns, &others);
    }
    match step {
        Contributed::Refused(to, why) => {
            to.send(&Reply::error(&refusal_error(inner, &why, to.proc())))
        }
        Contributed::Waiting(_) => {}
        Contributed::Complete(ep) => complete(inner, ep),
    }
}

/// Every live local member of a group disconnected.
pub(super) fn done(inner: &Arc<Inner>, ep: Episode<ReplyTo>, ns: String) {
    let Ok(ns) = Nspace::new(&ns) else { return };
    let end = |inner: &Inner, ns: &Nspace| {
        inner.state.lock().connects.live.remove(ns);
    };
    if !ep.remote {
        end(inner, &ns);
        finish(&ep, &Reply::status(Status::SUCCESS));
        return register::remove_group(inner, &ns);
    }
    let set = ep.key.procs.clone();
    let info = ep.directives.clone();
    let eid = ep.id;
    {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        if let Some(due) = st.collectives.await_host(ep) {
            expire_at(&st.timer, inner, due);
        }
    }
    let i = Arc::clone(inner);
    let ns2 = ns.clone();
    inner.host.disconnect(
        &ns,
        &set,
        &info,
        Box::new(move |r| {
            let Some(ep) = i.state.lock().collectives.host_answered(eid) else {
                return;
            };
            let ok = r.is_ok();
            if ok {
                end(&i, &ns2);
            }
            finish(
                &ep,
                &match r {
                    Ok(()) => Reply::status(Status::SUCCESS),
                    Err(e) => Reply::error(&e),
                },
            );
            if ok {
                register::remove_group(&i, &ns2);
            }
        }),
    );
}
