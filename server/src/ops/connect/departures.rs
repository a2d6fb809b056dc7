//! A participant's end as connect sees it: a finalize leaves pending
//! connects and disconnects and ends groups with no live local member; a
//! death (connection lost without finalize) raises
//! `PMIX_ERR_PROC_TERM_WO_SYNC` at the other members.

use std::sync::Arc;

use pmix_core::{Nspace, Proc};

use super::{events, register, settle};
use crate::collective::Kind;
use crate::inner::Inner;

/// `proc` finalized: it leaves every pending connect and disconnect (a
/// connect waiting for it fails, unless optional), and a group whose local
/// members all finalized or died is forgotten here (Open MPI never calls
/// `PMIx_Disconnect`: its groups end with the job). No event: finalizing
/// is not terminating without sync.
pub(crate) fn proc_finalized(inner: &Arc<Inner>, proc: &Proc) {
    let ended = inner
        .state
        .lock()
        .collectives
        .depart_from(proc, |k| !matches!(k, Kind::Fence));
    for e in ended {
        if crate::ops::group::owns(&e) {
            crate::ops::group::settle(inner, e);
        } else {
            settle(inner, e);
        }
    }
    crate::ops::group::proc_finalized(inner, proc);
    let ended_groups: Vec<Nspace> = {
        let mut st = inner.state.lock();
        let st = &mut *st;
        let reg = &st.registry;
        let done: Vec<Nspace> = st
            .connects
            .live
            .iter()
            .filter(|(_, g)| g.has(proc))
            .filter(|(_, g)| {
                g.ranks.iter().all(|p| match reg.clients.get(p) {
                    Some(c) => c.finalized || c.dead,
                    None => true, // not here
                })
            })
            .map(|(n, _)| n.clone())
            .collect();
        for n in &done {
            st.connects.live.remove(n);
        }
        done
    };
    for n in &ended_groups {
        register::remove_group(inner, n);
    }
}

/// `proc` is gone: the members of every live group it was in that does
/// not allow early termination hear `PMIX_ERR_PROC_TERM_WO_SYNC`.
/// (Its pending connects and disconnects are settled by the tracker's
/// departure, `fence::proc_lost`.)
pub(crate) fn proc_lost(inner: &Arc<Inner>, proc: &Proc) {
    let groups = inner.state.lock().connects.of(proc);
    for (ns, g) in groups {
        if !g.early_term {
            events::terminated_without_sync(inner, proc, &ns, &g);
        }
    }
}
