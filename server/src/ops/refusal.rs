//! The errors of a refused or failed contribution to a collective that
//! names its participants (connect, group operations), in one wording per
//! operation: a late arrival, a non-participant, a second contribution, a
//! participant gone (died or finalized) and the per-client cap. (The fence
//! has its own: `fence.rs`.)

use pmix_core::{Error, Proc, Status};

use crate::collective::Refusal;
use crate::inner::Inner;

/// How an operation names itself and its participants in messages.
pub(crate) struct Wording {
    /// "connect", "group operation".
    pub(crate) op: &'static str,
    /// "participant", "member".
    pub(crate) who: &'static str,
    /// What to do about a second contribution to the same operation.
    pub(crate) twice_hint: &'static str,
}

/// The error for `me`'s contribution refused with `why`.
pub(crate) fn refusal_error(inner: &Inner, why: &Refusal, me: &Proc, w: &Wording) -> Error {
    match why {
        Refusal::Late => Error::with_context(
            Status::ERR_TIMEOUT,
            format!(
                "that {} already timed out: another {}'s PMIX_TIMEOUT ended it before this \
                 process arrived",
                w.op, w.who
            ),
        ),
        Refusal::NotParticipant => Error::with_context(
            Status::ERR_NOT_A_MEMBER,
            format!("{me:?} is not a {} of this {}", w.who, w.op),
        ),
        Refusal::Twice => Error::bad_param(format!(
            "{me:?} is already in this {}; {}",
            w.op, w.twice_hint
        )),
        Refusal::Departed(gone) => gone_error(inner, gone, w),
        Refusal::TooMany(n) => Error::with_context(
            Status::ERR_OUT_OF_RESOURCE,
            format!(
                "{me:?} already takes part in {n} pending collectives, the server's limit per \
                 client; wait for some to complete"
            ),
        ),
    }
}

/// A participant left before the operation completed: it died (its
/// connection closed without `PMIx_Finalize`: `PMIX_ERR_LOST_CONNECTION`,
/// as a fence says it) or it finalized without taking part
/// (`PMIX_ERR_PROC_TERM_WO_SYNC`).
pub(crate) fn gone_error(inner: &Inner, gone: &Proc, w: &Wording) -> Error {
    let finalized = inner
        .state
        .lock()
        .registry
        .clients
        .get(gone)
        .is_some_and(|c| c.finalized && !c.dead);
    let (status, how) = if finalized {
        (
            Status::ERR_PROC_TERM_WO_SYNC,
            "called PMIx_Finalize without taking part",
        )
    } else {
        (
            Status::ERR_LOST_CONNECTION,
            "died: its connection to the server closed without PMIx_Finalize",
        )
    };
    Error::with_context(
        status,
        format!(
            "{} failed: {} rank {} of namespace {} {how}",
            w.op, w.who, gone.rank.0, gone.nspace
        ),
    )
}
