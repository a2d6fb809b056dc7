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
use pmix_core::proto::Request;
use pmix_core::{attrs, Info, Status, Value};

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
