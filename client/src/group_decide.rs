//! The library's part in group failure events: once the user's handler
//! chain for `PMIX_GROUP_LEADER_FAILED` ran (and for
//! `PMIX_GROUP_INVITE_FAILED`, `_ACCEPTED`, `_DECLINED`), the library tells
//! the server what the handlers decided
//! (`GROUP_DECIDE`), so that the handler's results act (the draft: "the
//! first participant whose handler returns `PMIX_GROUP_LEADER` becomes
//! leader"):
//! - a result `PMIX_GROUP_LEADER` (true): this process claims the lead;
//! - a handler status `PMIX_GROUP_CONSTRUCT_ABORT` (or a result holding
//!   that status): the construct is aborted for every participant;
//! - a result `PMIX_GROUP_OPTIONAL` (true), from the leader on
//!   `PMIX_GROUP_INVITE_FAILED`: go on without the failed member;
//! - otherwise: no decision (when every participant answers so, the
//!   construct fails at once instead of waiting).
//!
//! Runs on the progress thread: it only posts a request.

use std::sync::{Arc, Weak};

use pmix_core::event::{EventMsg, Outcome};
use pmix_core::proto::group::decision;
use pmix_core::proto::{caps, Request};
use pmix_core::{attrs, Info, Proc, Status, Value};

use crate::Inner;

/// What the chain's `results` decided.
pub(crate) fn decision_of(results: &[Info]) -> u8 {
    let claims = results
        .iter()
        .any(|i| i.key == attrs::GROUP_LEADER && i.value == Value::Bool(true));
    let aborts = results
        .iter()
        .any(|i| i.value == Value::Status(Status::GROUP_CONSTRUCT_ABORT));
    let goes_on = results
        .iter()
        .any(|i| i.key == attrs::GROUP_OPTIONAL && i.value == Value::Bool(true));
    if aborts {
        decision::ABORT
    } else if claims {
        decision::LEADER
    } else if goes_on {
        decision::CONTINUE
    } else {
        decision::NONE
    }
}

/// The replacements the inviting leader's handler asked for: the procs of
/// a `PMIX_GROUP_ADD_MEMBERS` result (an array of procs, or one proc) on
/// `PMIX_GROUP_INVITE_DECLINED` or `PMIX_GROUP_INVITE_FAILED`, when the
/// server takes them.
fn replacements(server_caps: u64, event: Status, results: &[Info]) -> Option<Vec<Proc>> {
    if server_caps & caps::GROUP_LEADER_ACTIONS == 0
        || (event != Status::GROUP_INVITE_DECLINED && event != Status::GROUP_INVITE_FAILED)
    {
        return None;
    }
    let procs: Vec<Proc> = results
        .iter()
        .filter(|i| i.key == attrs::GROUP_ADD_MEMBERS)
        .flat_map(|i| match &i.value {
            Value::DataArray(a) => a
                .procs()
                .map(|v| v.into_iter().cloned().collect())
                .unwrap_or_default(),
            Value::Proc(p) => vec![p.clone()],
            _ => Vec::new(),
        })
        .collect();
    (!procs.is_empty()).then_some(procs)
}

/// The leader of an invitation under way notified
/// `PMIX_GROUP_CONSTRUCT_ABORT` naming it (`PMIX_GROUP_ID`): the draft's
/// "the leader may elect to abort the procedure ... by generating an event
/// for the abort code". The library hands it to the server instead of
/// routing the event itself: the server ends the invitation (the invite
/// and every accepted join return `PMIX_GROUP_CONSTRUCT_ABORT`) and raises
/// the event at every invitee, whatever range the notify named. `true`
/// when it did so.
pub(crate) fn leader_abort(inner: &Inner, status: Status, info: &[Info]) -> bool {
    if status != Status::GROUP_CONSTRUCT_ABORT || inner.caps & caps::GROUP_LEADER_ACTIONS == 0 {
        return false;
    }
    let Some(id) = pmix_core::info::find(info, attrs::GROUP_ID)
        .and_then(|i| i.value.as_str().ok().map(str::to_owned))
    else {
        return false;
    };
    if !inner.led_invites.lock().contains(&id) {
        return false;
    }
    let req = Request::GroupDecide {
        id,
        event: status,
        decision: decision::ABORT,
    };
    inner.conn.post(&req).is_ok()
}

/// Installs the decision step of `inner`'s event machinery.
pub(crate) fn install(inner: &Arc<Inner>) {
    let Some(ev) = &inner.events else {
        return;
    };
    let weak: Weak<Inner> = Arc::downgrade(inner);
    ev.set_decider(Arc::new(move |msg: &EventMsg, o: &Outcome| {
        let Some(inner) = weak.upgrade() else {
            return;
        };
        let Some(id) = pmix_core::info::find(&msg.info, attrs::GROUP_ID)
            .and_then(|i| i.value.as_str().ok().map(str::to_owned))
        else {
            return;
        };
        if let Some(procs) = replacements(inner.caps, msg.status, &o.results) {
            // before the decision: the invitation must not complete first
            let req = Request::GroupReplace {
                id: id.clone(),
                procs,
            };
            inner.conn.send(&req, Box::new(|_| {}));
        }
        let req = Request::GroupDecide {
            id,
            event: msg.status,
            decision: decision_of(&o.results),
        };
        inner.conn.send(&req, Box::new(|_| {}));
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_wins_over_a_claim_and_nothing_is_none() {
        let claim = Info::new(attrs::GROUP_LEADER, Value::Bool(true)).unwrap();
        let no = Info::new(attrs::GROUP_LEADER, Value::Bool(false)).unwrap();
        let abort = Info::new("h", Value::Status(Status::GROUP_CONSTRUCT_ABORT)).unwrap();
        assert_eq!(decision_of(std::slice::from_ref(&claim)), decision::LEADER);
        assert_eq!(decision_of(&[no]), decision::NONE);
        assert_eq!(decision_of(&[claim, abort]), decision::ABORT);
        assert_eq!(decision_of(&[]), decision::NONE);
        let on = Info::new(attrs::GROUP_OPTIONAL, Value::Bool(true)).unwrap();
        assert_eq!(decision_of(&[on]), decision::CONTINUE);
    }
}
