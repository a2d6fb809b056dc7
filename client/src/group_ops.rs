//! `PMIx_Group_construct` / `PMIx_Group_destruct` as
//! [`Client::group_construct`] / [`Client::group_destruct`] (and their
//! `_nb` forms): requests to the server, which tracks the group
//! (`server/src/ops/group`). Once constructed, the group is addressed by
//! its id like a connected group (`group.rs`): the server registered it in
//! the job store before it answered.
//!
//! A blocking call from an event handler or a completion callback fails
//! at once with `PMIX_ERR_WOULD_BLOCK` (its answer would be delivered by
//! the very thread it blocks).

use std::time::Duration;

use pmix_core::proto::group::{decode_outcome, Outcome};
use pmix_core::proto::{caps, Reply, Request};
use pmix_core::{attrs, DataArray, Error, Info, Proc, Result, Status, Value};

use crate::{deadline_from, group, Client, Inner};

/// How much longer than its `PMIX_TIMEOUT` a blocking call waits for the
/// server, which times the operation out itself.
const SERVER_GRACE: Duration = Duration::from_secs(1);

/// What a completed construct returns.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupConstructed {
    /// `PMIX_SUCCESS`, or `PMIX_ERR_PARTIAL_SUCCESS` when members were
    /// dropped (`PMIX_GROUP_OPTIONAL`).
    pub status: Status,
    /// `PMIX_GROUP_ID`, `PMIX_GROUP_MEMBERSHIP` (array of procs, index =
    /// group rank), `PMIX_RANK` (the caller's group rank) and, when
    /// `PMIX_GROUP_ASSIGN_CONTEXT_ID` asked, `PMIX_GROUP_CONTEXT_ID`.
    pub results: Vec<Info>,
}

fn check_caps(inner: &Inner, what: &str) -> Result<()> {
    if inner.caps & caps::GROUPS == 0 {
        return Err(Error::with_context(
            Status::ERR_NOT_SUPPORTED,
            format!("the server does not offer {what} (protocol version < 5)"),
        ));
    }
    Ok(())
}

fn check_id(id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Error::bad_param("group: the group id is empty"));
    }
    pmix_core::Nspace::new(id).map(|_| ()).map_err(|_| {
        Error::bad_param(format!(
            "group: the id {id:?} is not a valid group id (at most 255 bytes, no NUL)"
        ))
    })
}

fn check_construct(inner: &Inner, id: &str, procs: &[Proc]) -> Result<()> {
    check_caps(inner, "groups")?;
    check_id(id)?;
    if procs.is_empty() {
        return Err(Error::bad_param("group construct: no members"));
    }
    if !procs.iter().any(|p| p.matches(&inner.me)) {
        return Err(Error::with_context(
            Status::ERR_NOT_A_MEMBER,
            format!(
                "group construct: the caller {:?} is not among the members",
                inner.me
            ),
        ));
    }
    Ok(())
}

/// Refuses a blocking call on a thread that delivers replies.
fn check_may_block(inner: &Inner, what: &str) -> Result<()> {
    let on_progress = inner
        .events
        .as_ref()
        .is_some_and(|e| e.on_progress_thread());
    if on_progress || inner.conn.on_reader_thread() {
        return Err(Error::with_context(
            Status::ERR_WOULD_BLOCK,
            format!(
                "a blocking {what} from an event handler or a completion callback would wait \
                 for ever (that thread delivers its answer); use the _nb form"
            ),
        ));
    }
    Ok(())
}

/// The caller's view of a `GROUP_CONSTRUCT` reply.
fn constructed(inner: &Inner, id: &str, r: Reply) -> Result<GroupConstructed> {
    let v = r.into_result()?.ok_or_else(|| {
        Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            "group construct reply without outcome",
        )
    })?;
    let Outcome {
        partial,
        context_id,
        members,
    } = decode_outcome(&v)?;
    // The context id first: OpenPMIx returns it as the only result, and
    // programs written against it read `results[0]` (its group_lcl_cid
    // example does).
    let mut results = Vec::with_capacity(4);
    if let Some(c) = context_id {
        results.push(Info::new(attrs::GROUP_CONTEXT_ID, Value::Size(c))?);
    }
    results.push(Info::new(attrs::GROUP_ID, id)?);
    if let Some(rank) = members.iter().position(|p| p == &inner.me) {
        let rank = u32::try_from(rank).unwrap_or(u32::MAX);
        results.push(Info::new(attrs::RANK, Value::Rank(pmix_core::Rank(rank)))?);
    }
    results.push(Info::new(
        attrs::GROUP_MEMBERSHIP,
        Value::DataArray(Box::new(DataArray::from_procs(members))),
    )?);
    Ok(GroupConstructed {
        status: if partial {
            Status::ERR_PARTIAL_SUCCESS
        } else {
            Status::SUCCESS
        },
        results,
    })
}

fn construct_request(inner: &Inner, id: &str, procs: &[Proc], info: &[Info]) -> Request {
    Request::GroupConstruct {
        id: id.to_owned(),
        procs: group::translate(inner, procs),
        info: info.to_vec(),
    }
}

impl Client {
    /// `PMIx_Group_construct_nb`: constructs group `id` of `procs` (a
    /// wildcard stands for a whole namespace, a group address for its
    /// members); `done` gets the results once every member called.
    /// `info`: `PMIX_TIMEOUT`, `PMIX_GROUP_LEADER`, `PMIX_GROUP_OPTIONAL`,
    /// `PMIX_GROUP_NOTIFY_TERMINATION`, `PMIX_GROUP_ASSIGN_CONTEXT_ID`,
    /// `PMIX_GROUP_INFO` (values readable afterwards with a `get` of the
    /// contributor qualified by `PMIX_GROUP_CONTEXT_ID` or `PMIX_GROUP_ID`).
    pub fn group_construct_nb(
        &self,
        id: &str,
        procs: &[Proc],
        info: &[Info],
        done: impl FnOnce(Result<GroupConstructed>) + Send + 'static,
    ) {
        if let Err(e) = check_construct(&self.inner, id, procs) {
            return done(Err(e));
        }
        let req = construct_request(&self.inner, id, procs, info);
        let inner = std::sync::Arc::clone(&self.inner);
        let id = id.to_owned();
        self.inner
            .conn
            .send(&req, Box::new(move |r| done(constructed(&inner, &id, r))));
    }

    /// `PMIx_Group_construct`: [`group_construct_nb`](Self::group_construct_nb),
    /// waiting.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an empty, too long or namespace-named id,
    /// or no procs; `PMIX_ERR_NOT_A_MEMBER` when the caller is not among
    /// them; `PMIX_ERR_EXISTS` for the id of a live group;
    /// `PMIX_ERR_TIMEOUT`; `PMIX_ERR_LOST_CONNECTION` when a member died
    /// first; `PMIX_ERR_WOULD_BLOCK` from an event handler.
    pub fn group_construct(
        &self,
        id: &str,
        procs: &[Proc],
        info: &[Info],
    ) -> Result<GroupConstructed> {
        check_construct(&self.inner, id, procs)?;
        check_may_block(&self.inner, "group construct")?;
        let deadline = deadline_from(info)?;
        let req = construct_request(&self.inner, id, procs, info);
        let r = self
            .inner
            .conn
            .request(&req, deadline.map(|d| d + SERVER_GRACE))?;
        constructed(&self.inner, id, r)
    }

    /// `PMIx_Group_destruct_nb`: ends group `id` once every member called.
    pub fn group_destruct_nb(
        &self,
        id: &str,
        info: &[Info],
        done: impl FnOnce(Result<()>) + Send + 'static,
    ) {
        if let Err(e) = check_caps(&self.inner, "groups").and_then(|()| check_id(id)) {
            return done(Err(e));
        }
        let req = Request::GroupDestruct {
            id: id.to_owned(),
            info: info.to_vec(),
        };
        self.inner
            .conn
            .send(&req, Box::new(move |r| done(r.into_result().map(|_| ()))));
    }

    /// `PMIx_Group_destruct`: [`group_destruct_nb`](Self::group_destruct_nb),
    /// waiting.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for no such group; `PMIX_ERR_NOT_A_MEMBER`;
    /// `PMIX_ERR_TIMEOUT`; `PMIX_ERR_LOST_CONNECTION` when a member is gone
    /// (unless the group was made with `PMIX_GROUP_NOTIFY_TERMINATION`);
    /// `PMIX_ERR_WOULD_BLOCK` from an event handler.
    pub fn group_destruct(&self, id: &str, info: &[Info]) -> Result<()> {
        check_caps(&self.inner, "groups")?;
        check_id(id)?;
        check_may_block(&self.inner, "group destruct")?;
        let deadline = deadline_from(info)?;
        let req = Request::GroupDestruct {
            id: id.to_owned(),
            info: info.to_vec(),
        };
        self.inner
            .conn
            .request(&req, deadline.map(|d| d + SERVER_GRACE))?
            .into_result()
            .map(|_| ())
    }

    /// `PMIx_Group_leave_nb`: leaves group `id` at once; the remaining
    /// members hear `PMIX_GROUP_LEFT`.
    pub fn group_leave_nb(
        &self,
        id: &str,
        info: &[Info],
        done: impl FnOnce(Result<()>) + Send + 'static,
    ) {
        if let Err(e) = check_caps(&self.inner, "groups").and_then(|()| check_id(id)) {
            return done(Err(e));
        }
        let req = Request::GroupLeave {
            id: id.to_owned(),
            info: info.to_vec(),
        };
        self.inner
            .conn
            .send(&req, Box::new(move |r| done(r.into_result().map(|_| ()))));
    }

    /// `PMIx_Group_leave`: [`group_leave_nb`](Self::group_leave_nb), waiting.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for no such group; `PMIX_ERR_NOT_A_MEMBER`;
    /// `PMIX_ERR_BAD_PARAM` while its construct is under way;
    /// `PMIX_ERR_WOULD_BLOCK` from an event handler.
    pub fn group_leave(&self, id: &str, info: &[Info]) -> Result<()> {
        check_caps(&self.inner, "groups")?;
        check_id(id)?;
        check_may_block(&self.inner, "group leave")?;
        let req = Request::GroupLeave {
            id: id.to_owned(),
            info: info.to_vec(),
        };
        self.inner
            .conn
            .request(&req, None)?
            .into_result()
            .map(|_| ())
    }

    /// `PMIx_Group_invite_nb`: the caller leads group `id` and invites
    /// `procs` (they hear `PMIX_GROUP_INVITED`); `done` gets the results
    /// once every invitee answered (`PMIX_ERR_PARTIAL_SUCCESS` when some
    /// declined or failed: they are dropped).
    pub fn group_invite_nb(
        &self,
        id: &str,
        procs: &[Proc],
        info: &[Info],
        done: impl FnOnce(Result<GroupConstructed>) + Send + 'static,
    ) {
        if let Err(e) = check_invite(&self.inner, id, procs) {
            return done(Err(e));
        }
        let req = Request::GroupInvite {
            id: id.to_owned(),
            procs: group::translate(&self.inner, procs),
            info: info.to_vec(),
        };
        let inner = std::sync::Arc::clone(&self.inner);
        let id = id.to_owned();
        leading(&self.inner, &id, true);
        self.inner.conn.send(
            &req,
            Box::new(move |r| {
                leading(&inner, &id, false);
                done(constructed(&inner, &id, r));
            }),
        );
    }

    /// `PMIx_Group_invite`: [`group_invite_nb`](Self::group_invite_nb),
    /// waiting.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a bad id or no invitees; `PMIX_ERR_EXISTS`
    /// for an id in use; `PMIX_ERR_TIMEOUT`; `PMIX_ERR_WOULD_BLOCK` from an
    /// event handler.
    pub fn group_invite(
        &self,
        id: &str,
        procs: &[Proc],
        info: &[Info],
    ) -> Result<GroupConstructed> {
        check_invite(&self.inner, id, procs)?;
        check_may_block(&self.inner, "group invite")?;
        let deadline = deadline_from(info)?;
        let req = Request::GroupInvite {
            id: id.to_owned(),
            procs: group::translate(&self.inner, procs),
            info: info.to_vec(),
        };
        leading(&self.inner, id, true);
        let r = self
            .inner
            .conn
            .request(&req, deadline.map(|d| d + SERVER_GRACE));
        leading(&self.inner, id, false);
        constructed(&self.inner, id, r?)
    }

    /// `PMIx_Group_join_nb`: answers the invitation to group `id` from
    /// `leader` (rank `WILDCARD`: whoever leads it). An accept completes
    /// with the group's results once every invitee answered; a decline at
    /// once, with no results.
    pub fn group_join_nb(
        &self,
        id: &str,
        leader: &Proc,
        accept: bool,
        info: &[Info],
        done: impl FnOnce(Result<GroupConstructed>) + Send + 'static,
    ) {
        if let Err(e) = check_caps(&self.inner, "groups").and_then(|()| check_id(id)) {
            return done(Err(e));
        }
        let req = join_request(id, leader, accept, info);
        let inner = std::sync::Arc::clone(&self.inner);
        let id = id.to_owned();
        self.inner.conn.send(
            &req,
            Box::new(move |r| done(joined(&inner, &id, accept, r))),
        );
    }

    /// `PMIx_Group_join`: [`group_join_nb`](Self::group_join_nb), waiting.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` without an invitation to `id`;
    /// `PMIX_ERR_NOT_A_MEMBER` when the caller was not invited;
    /// `PMIX_ERR_TIMEOUT`; `PMIX_ERR_LOST_CONNECTION` when the leader died;
    /// `PMIX_ERR_WOULD_BLOCK` from an event handler (answer from the
    /// handler with the `_nb` form).
    pub fn group_join(
        &self,
        id: &str,
        leader: &Proc,
        accept: bool,
        info: &[Info],
    ) -> Result<GroupConstructed> {
        check_caps(&self.inner, "groups")?;
        check_id(id)?;
        check_may_block(&self.inner, "group join")?;
        let deadline = deadline_from(info)?;
        let req = join_request(id, leader, accept, info);
        let r = self
            .inner
            .conn
            .request(&req, deadline.map(|d| d + SERVER_GRACE))?;
        joined(&self.inner, id, accept, r)
    }
}

/// Records (`on`) or forgets that this process leads invitation `id`.
fn leading(inner: &Inner, id: &str, on: bool) {
    let mut led = inner.led_invites.lock();
    if on {
        led.push(id.to_owned());
    } else if let Some(i) = led.iter().position(|l| l == id) {
        led.swap_remove(i);
    }
}

fn check_invite(inner: &Inner, id: &str, procs: &[Proc]) -> Result<()> {
    check_caps(inner, "groups")?;
    check_id(id)?;
    if procs.is_empty() {
        return Err(Error::bad_param("group invite: no invitees"));
    }
    Ok(())
}

fn join_request(id: &str, leader: &Proc, accept: bool, info: &[Info]) -> Request {
    Request::GroupJoin {
        id: id.to_owned(),
        leader: leader.clone(),
        accept,
        info: info.to_vec(),
    }
}

/// A join's reply: an accept carries the group's outcome, a decline only
/// a status.
fn joined(inner: &Inner, id: &str, accept: bool, r: Reply) -> Result<GroupConstructed> {
    if accept {
        return constructed(inner, id, r);
    }
    r.into_result().map(|_| GroupConstructed {
        status: Status::SUCCESS,
        results: Vec::new(),
    })
}
