//! The events the group machinery raises at local members (CUSTOM range
//! to the processes concerned): `PMIX_GROUP_MEMBER_FAILED` when a member
//! of a group made with `PMIX_GROUP_NOTIFY_TERMINATION` dies,
//! `PMIX_GROUP_LEFT` when a member leaves, `PMIX_GROUP_INVITE_FAILED` when
//! a member is gone before a construct completed (to the leader, else to
//! every participant that called), `PMIX_GROUP_MEMBERSHIP_UPDATE` when an
//! optional construct completed without some members,
//! `PMIX_GROUP_LEADER_FAILED` when the declared leader of a construct is
//! gone first, `PMIX_GROUP_LEADER_SELECTED` when a participant claimed
//! the lead after that (`election.rs`).

use std::sync::Arc;

use pmix_core::{attrs, DataArray, DataRange, Info, Proc, Status, Value};

use crate::inner::Inner;
use crate::ops::event::route::host_notify;

/// `PMIX_GROUP_MEMBER_FAILED` from `gone` to the other `members` of group
/// `id`, with `PMIX_EVENT_AFFECTED_PROC` and `PMIX_GROUP_ID`.
pub(super) fn member_failed(inner: &Arc<Inner>, gone: &Proc, id: &str, members: &[Proc]) {
    about(inner, Status::GROUP_MEMBER_FAILED, gone, id, members);
}

/// `PMIX_GROUP_LEFT` from `who` to the remaining `members` of group `id`.
pub(super) fn left(inner: &Arc<Inner>, who: &Proc, id: &str, members: &[Proc]) {
    about(inner, Status::GROUP_LEFT, who, id, members);
}

/// `status` about `who` to the other `members` of group `id`.
fn about(inner: &Arc<Inner>, status: Status, gone: &Proc, id: &str, members: &[Proc]) {
    let others: Vec<Proc> = members.iter().filter(|p| *p != gone).cloned().collect();
    raise_to(inner, status, gone, id, others);
}

/// `status` about `gone` to `others`, in group `id`.
fn raise_to(inner: &Arc<Inner>, status: Status, gone: &Proc, id: &str, others: Vec<Proc>) {
    if others.is_empty() {
        return;
    }
    let info: Vec<Info> = [
        Info::new(attrs::EVENT_AFFECTED_PROC, Value::Proc(gone.clone())),
        Info::new(attrs::GROUP_ID, id),
        Info::new(
            attrs::EVENT_CUSTOM_RANGE,
            Value::DataArray(Box::new(DataArray::from_procs(others))),
        ),
    ]
    .into_iter()
    .filter_map(Result::ok)
    .collect();
    if let Err(e) = host_notify(inner, status, Some(gone), DataRange::CUSTOM, &info) {
        inner.log(format_args!("group {id}: event {status} not raised: {e}"));
    }
}

/// `PMIX_GROUP_INVITE_FAILED` about `gone` (it left before construct `id`
/// completed) to `targets`.
pub(super) fn invite_failed(inner: &Arc<Inner>, gone: &Proc, id: &str, targets: Vec<Proc>) {
    let mut all = targets;
    all.push(gone.clone());
    about(inner, Status::GROUP_INVITE_FAILED, gone, id, &all);
}

/// `PMIX_GROUP_MEMBERSHIP_UPDATE` with the final `members` of group `id`,
/// to them.
pub(super) fn membership_update(inner: &Arc<Inner>, id: &str, members: &[Proc]) {
    let Some(first) = members.first() else {
        return;
    };
    let info: Vec<Info> = [
        Info::new(attrs::GROUP_ID, id),
        Info::new(
            attrs::GROUP_MEMBERSHIP,
            Value::DataArray(Box::new(DataArray::from_procs(members.to_vec()))),
        ),
        Info::new(
            attrs::EVENT_CUSTOM_RANGE,
            Value::DataArray(Box::new(DataArray::from_procs(members.to_vec()))),
        ),
    ]
    .into_iter()
    .filter_map(Result::ok)
    .collect();
    let status = Status::GROUP_MEMBERSHIP_UPDATE;
    if let Err(e) = host_notify(inner, status, Some(first), DataRange::CUSTOM, &info) {
        inner.log(format_args!("group {id}: event {status} not raised: {e}"));
    }
}

/// `PMIX_GROUP_LEADER_FAILED` about the declared leader `gone` of
/// construct `id`, to the other `participants` (every local one, whether
/// it called construct yet or not).
pub(super) fn leader_failed(inner: &Arc<Inner>, gone: &Proc, id: &str, participants: Vec<Proc>) {
    about(inner, Status::GROUP_LEADER_FAILED, gone, id, &participants);
}

/// `PMIX_GROUP_LEADER_SELECTED` naming the new `leader` of construct `id`
/// (`PMIX_EVENT_AFFECTED_PROC`), to every participant, the leader too.
pub(super) fn leader_selected(
    inner: &Arc<Inner>,
    leader: &Proc,
    id: &str,
    participants: Vec<Proc>,
) {
    raise_to(
        inner,
        Status::GROUP_LEADER_SELECTED,
        leader,
        id,
        participants,
    );
}

/// `PMIX_GROUP_LEADER_SELECTED` with no leader: nobody claimed the lead of
/// construct or invitation `id` after its leader died. The event names no
/// `PMIX_EVENT_AFFECTED_PROC`; its `PMIX_LOCAL_COLLECTIVE_STATUS` carries
/// the error the operation ends with (`why`), with a text message.
pub(super) fn no_leader_selected(
    inner: &Arc<Inner>,
    id: &str,
    why: &pmix_core::Error,
    participants: Vec<Proc>,
) {
    if participants.is_empty() {
        return;
    }
    let info: Vec<Info> = [
        Info::new(attrs::GROUP_ID, id),
        Info::new(attrs::LOCAL_COLLECTIVE_STATUS, Value::Status(why.status())),
        Info::new(attrs::EVENT_TEXT_MESSAGE, why.to_string().as_str()),
        Info::new(
            attrs::EVENT_CUSTOM_RANGE,
            Value::DataArray(Box::new(DataArray::from_procs(participants))),
        ),
    ]
    .into_iter()
    .filter_map(Result::ok)
    .collect();
    let status = Status::GROUP_LEADER_SELECTED;
    if let Err(e) = host_notify(inner, status, None, DataRange::CUSTOM, &info) {
        inner.log(format_args!("group {id}: event {status} not raised: {e}"));
    }
}

/// `PMIX_GROUP_CONSTRUCT_ABORT` from `by` (its handler aborted construct
/// `id`), to every participant, `by` too.
pub(super) fn construct_abort(inner: &Arc<Inner>, by: &Proc, id: &str, participants: Vec<Proc>) {
    raise_to(inner, Status::GROUP_CONSTRUCT_ABORT, by, id, participants);
}
