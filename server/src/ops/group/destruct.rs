//! `PMIx_Group_destruct`: an episode of the collective tracker
//! ([`Kind::GroupDestruct`]) over the group's current members. A member
//! that is gone fails it (`PMIX_ERR_LOST_CONNECTION`) unless the group was
//! made with `PMIX_GROUP_NOTIFY_TERMINATION`, when it counts as done. On
//! completion the group leaves the server's state and the job store, and
//! its id is free again; across nodes the host's fence completes it first.

use std::sync::Arc;

use pmix_core::proto::Reply;
use pmix_core::{Error, Info, Status};

use super::{check_id, complete, expire_at, finish, refusal_error, store};
use crate::collective::{Contributed, Episode, Key, Kind};
use crate::directives;
use crate::inner::Inner;
use crate::link::ReplyTo;
use crate::ops::connect::opening;

/// A client's `GROUP_DESTRUCT` of group `id`.
pub(crate) fn destruct(inner: &Arc<Inner>, to: ReplyTo, id: String, info: Vec<Info>) {
    let me = to.proc().clone();
    if let Err(e) = check_id(&id) {
        return to.send(&Reply::error(&e));
    }
    let deadline = directives::deadline(&info);
    let step = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let Some(g) = st.groups.live.get(&id) else {
            drop(guard);
            return to.send(&Reply::error(&Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("group destruct: no group {id:?} (never constructed, or destructed)"),
            )));
        };
        if !g.members.contains(&me) {
            drop(guard);
            return to.send(&Reply::error(&Error::with_context(
                Status::ERR_NOT_A_MEMBER,
                format!("group destruct: {me:?} is not a member of group {id:?}"),
            )));
        }
        let members = g.members.clone();
        let fails = !g.notify_termination;
        let key = Key {
            kind: Kind::GroupDestruct(id.clone()),
            procs: pmix_core::proto::canonical_procs(members.clone()),
        };
        let registry = &st.registry;
        let step = st
            .collectives
            .contribute(key, me.clone(), to, deadline, |_| {
                opening(registry, &members, fails, info.clone())
            });
        if let Contributed::Waiting(Some(due)) = &step {
            expire_at(&st.timer, inner, due.clone());
        }
        step
    };
    match step {
        Contributed::Refused(to, why) => {
            to.send(&Reply::error(&refusal_error(inner, &why, to.proc())))
        }
        Contributed::Waiting(_) => {}
        Contributed::Complete(ep) => complete(inner, ep),
    }
}

/// The group leaves the server's state, every member is answered, then
/// its job-store copy goes (off the members' path) unless a new group of
/// that id was made meanwhile (checked under the state lock, which a new
/// construct holds to register itself).
fn end(inner: &Inner, id: &str, ep: &Episode<ReplyTo>) {
    inner.state.lock().groups.live.remove(id);
    finish(ep, &Reply::status(Status::SUCCESS));
    let st = inner.state.lock();
    if !st.groups.live.contains_key(id) {
        store::remove_group(inner, id);
    }
    drop(st);
}

/// Every live local member destructed.
pub(super) fn done(inner: &Arc<Inner>, ep: Episode<ReplyTo>, id: String) {
    if !ep.remote {
        return end(inner, &id, &ep);
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
    inner.host.fence_nb(
        &set,
        &info,
        Vec::new(),
        Box::new(move |r| {
            let Some(ep) = i.state.lock().collectives.host_answered(eid) else {
                return;
            };
            match r {
                Ok(_) => end(&i, &id, &ep),
                Err(e) => finish(&ep, &Reply::error(&e)),
            }
        }),
    );
}
