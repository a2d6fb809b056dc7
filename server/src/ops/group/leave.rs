//! `PMIx_Group_leave`: the caller leaves a live group at once (no
//! collective). The remaining members keep their order (group ranks are
//! renumbered without the leaver), the job store's copy is rewritten in
//! one update, and they hear `PMIX_GROUP_LEFT`; the last member's leave
//! ends the group. Refused while a construct of the id is under way
//! (`PMIX_ERR_BAD_PARAM`), for an unknown id (`PMIX_ERR_NOT_FOUND`) and for
//! a non-member (`PMIX_ERR_NOT_A_MEMBER`). Fences called with
//! `PMIX_GROUP_FT_COLLECTIVE` that wait for the leaver go on without it.

use std::sync::Arc;

use pmix_core::proto::Reply;
use pmix_core::{Error, Info, Status};

use super::{check_id, events, store};
use crate::inner::Inner;
use crate::link::ReplyTo;

/// A client's `GROUP_LEAVE` of group `id`.
pub(crate) fn leave(inner: &Arc<Inner>, to: ReplyTo, id: String, _info: Vec<Info>) {
    let me = to.proc().clone();
    if let Err(e) = check_id(&id) {
        return to.send(&Reply::error(&e));
    }
    let outcome = {
        let mut st = inner.state.lock();
        if st
            .groups
            .pending
            .get(&id)
            .is_some_and(|p| p.set.iter().any(|q| q.matches(&me)))
        {
            Err(Error::bad_param(format!(
                "group leave: the construct of {id:?} is under way; a member may leave only \
                 once it completed"
            )))
        } else {
            match st.groups.live.get_mut(&id) {
                None => Err(Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!("group leave: no group {id:?}"),
                )),
                Some(g) if !g.members.contains(&me) => Err(Error::with_context(
                    Status::ERR_NOT_A_MEMBER,
                    format!("group leave: {me:?} is not a member of group {id:?}"),
                )),
                Some(g) => {
                    g.members.retain(|p| *p != me);
                    let (rest, cid) = (g.members.clone(), g.context_id);
                    if rest.is_empty() {
                        st.groups.live.remove(&id);
                    }
                    Ok((rest, cid))
                }
            }
        }
    };
    let (rest, cid) = match outcome {
        Ok(x) => x,
        Err(e) => return to.send(&Reply::error(&e)),
    };
    let written = if rest.is_empty() {
        store::remove_group(inner, &id);
        Ok(())
    } else {
        store::write_group(inner, &id, &rest, cid, &[])
    };
    if let Err(e) = written {
        inner.log(format_args!(
            "group {id}: membership after a leave not written: {e}"
        ));
    }
    events::left(inner, &me, &id, &rest);
    crate::ops::fence::proc_left(inner, &me);
    to.send(&Reply::status(Status::SUCCESS));
}
