//! Why a shared-memory fence failed, in words a person can act on: which
//! ranks of the namespace died, or had not arrived when the fence timed
//! out, with the status the PMIx Standard has for it.
//!
//! | barrier outcome | status | message names |
//! |---|---|---|
//! | poisoned (a participant's connection closed without `PMIx_Finalize`) | `PMIX_ERR_LOST_CONNECTION` | the ranks whose peer cell says `DEAD` |
//! | this party's or another's `PMIX_TIMEOUT` ended the episode | `PMIX_ERR_TIMEOUT` | the ranks whose recorded episode is behind this one |
//! | the episode was over when this party arrived | `PMIX_ERR_TIMEOUT` | — (this party was the late one) |
//! | the server is gone | `PMIX_ERR_LOST_CONNECTION` | — |
//!
//! `PMIX_ERR_LOST_CONNECTION` for a participant that died is the code
//! OpenPMIx uses for a lost participant of a collective (Debian's 4.2
//! instead completes the fence among the survivors with
//! `PMIX_ERR_PARTIAL_SUCCESS`; a poisoned barrier cannot, so pmix-rs fails
//! at once: `docs/RELIABILITY.md`, "Fence failure: which status"); the
//! deprecated `PMIX_ERR_PROC_ABORTED` the server writes into the barrier's
//! poison word is never reported.

use pmix_core::proto::peer_state;
use pmix_core::{attrs, Error, Proc, Rank, Status};
use pmix_shm::barrier::BarrierWaitError;

use crate::{peers, Inner};

/// At most this many ranks are named in one message.
const MAX_NAMED: usize = 16;

/// The error of a shared-memory fence of this process's whole namespace
/// that ended with `e` in its `episode`.
pub(crate) fn shm_fence_error(inner: &Inner, e: BarrierWaitError, episode: u32) -> Error {
    use BarrierWaitError as E;
    let ns = inner.me.nspace.as_str();
    match e {
        E::Poisoned(s) => {
            let dead = ranks_where(inner, |slot| peers::state(inner, slot) == peer_state::DEAD);
            let who = if dead.is_empty() {
                format!("a participant is gone (the barrier was poisoned with status {s})")
            } else {
                format!(
                    "{} of namespace {ns} died: its connection to the server closed without \
                     PMIx_Finalize",
                    name_ranks(&dead)
                )
            };
            Error::with_context(
                Status::ERR_LOST_CONNECTION,
                format!("fence failed: {who}; no fence of this namespace can complete now"),
            )
        }
        E::Timeout | E::EpisodeTimedOut => {
            let missing = ranks_where(inner, |slot| {
                inner
                    .barriers
                    .peer(slot)
                    .is_some_and(|c| (c.arrived().wrapping_sub(episode) as i32) < 0)
            });
            let whose = if matches!(e, E::Timeout) {
                "this process's"
            } else {
                "another participant's"
            };
            let who = if missing.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} of namespace {ns} had not arrived)",
                    name_ranks(&missing)
                )
            };
            Error::with_context(
                Status::ERR_TIMEOUT,
                format!(
                    "fence timed out: {whose} PMIX_TIMEOUT passed before every participant \
                     arrived{who}; the fence episode is over for every participant"
                ),
            )
        }
        E::Late => Error::with_context(
            Status::ERR_TIMEOUT,
            "that fence episode already timed out: another participant's PMIX_TIMEOUT ended \
             it before this process entered it",
        ),
        E::Interrupted(_) => Error::with_context(
            Status::ERR_LOST_CONNECTION,
            "fence ended: the connection to the server is lost",
        ),
        e => Error::with_context(Error::from(e).status(), format!("fence failed: {e}")),
    }
}

/// The ranks of this process's namespace (other than itself) whose client
/// slot satisfies `pred`.
fn ranks_where(inner: &Inner, pred: impl Fn(u32) -> bool) -> Vec<u32> {
    let ns = &inner.me.nspace;
    let size = peers::job_u32(inner, ns.as_str(), attrs::JOB_SIZE).unwrap_or(0);
    (0..size)
        .filter(|&r| r != inner.me.rank.0)
        .filter(|&r| {
            peers::slot_of(inner, &Proc::from_parts(ns.clone(), Rank(r))).is_some_and(&pred)
        })
        .collect()
}

/// "rank 2", "ranks 1, 2, 5", at most [`MAX_NAMED`] of them.
fn name_ranks(ranks: &[u32]) -> String {
    let shown: Vec<String> = ranks.iter().take(MAX_NAMED).map(u32::to_string).collect();
    let more = ranks.len().saturating_sub(MAX_NAMED);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    if ranks.len() == 1 {
        format!("rank {}", shown[0])
    } else {
        format!("ranks {}{tail}", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::name_ranks;

    #[test]
    fn names_one_several_and_many_ranks() {
        assert_eq!(name_ranks(&[2]), "rank 2");
        assert_eq!(name_ranks(&[1, 2, 5]), "ranks 1, 2, 5");
        let many: Vec<u32> = (0..20).collect();
        assert!(name_ranks(&many).ends_with("15 and 4 more"));
    }
}
