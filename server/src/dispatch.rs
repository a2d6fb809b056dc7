//! A client's request, from its frame to the operation that answers it:
//! decode, check the capability it needs, and route it (`data/` for the
//! data path, `ops/` for everything else).

use std::sync::Arc;

use pmix_core::codec::frame::Frame;
use pmix_core::proto::{msg, Reply, Request};
use pmix_core::{Error, Status};

use crate::data::{dmodex, modex};
use crate::inner::Inner;
use crate::link::{Link, ReplyTo};
use crate::ops::event::{host_calls, route, server_errors};
use crate::ops::{connect, fence, group, iof, iof_push, lifecycle, log, pubsub, query, spawn};

/// Serves one request frame of `link`'s client.
pub(crate) fn dispatch(inner: &Arc<Inner>, link: &Arc<Link>, f: Frame) {
    let (t, tag) = (f.header.msg_type, f.header.tag);
    let req = match Request::decode(t, &f.body) {
        Ok(r) => r,
        Err(e) if tag == 0 => {
            // One-way: nobody waits for an answer; say it in the log.
            let what = format!("one-way message type {t} refused: {e}");
            inner.log(format_args!("{:?}: {what}", link.proc));
            server_errors::report(inner, e.status(), Some(&link.proc), &what);
            return;
        }
        Err(e) => {
            let what = format!("message type {t} cannot be decoded: {e}");
            server_errors::report(inner, e.status(), Some(&link.proc), &what);
            link.reply(t, tag, &Reply::error(&e));
            return;
        }
    };
    // One-way messages (tag 0) never get a reply.
    let one_way = tag == 0 && matches!(req, Request::Notify { .. } | Request::EventInterest { .. });
    if let Some(cap) = req.needs_cap() {
        if link.caps & cap == 0 {
            let e = Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                format!("request type {t} needs capability {cap:#x}, not agreed with this client"),
            );
            if one_way {
                inner.log(format_args!("{:?}: {e}", link.proc));
                server_errors::report(inner, e.status(), Some(&link.proc), &e.to_string());
            } else {
                link.reply(t, tag, &Reply::error(&e));
            }
            return;
        }
    }
    let to = |msg_type: u16| ReplyTo::new(link, msg_type, tag);
    match req {
        Request::Finalize => lifecycle::finalize(inner, to(msg::FINALIZE)),
        Request::Abort {
            status,
            message,
            procs,
        } => lifecycle::abort(inner, to(msg::ABORT), status, &message, &procs),
        Request::Fence { procs, info } => fence::arrive(inner, to(msg::FENCE), procs, info),
        Request::Get { proc, key, info } => dmodex::get(inner, to(msg::GET), proc, key, info),
        Request::Commit { entries } => {
            to(msg::COMMIT).send_status(modex::socket_commit(inner, &link.proc, &entries));
        }
        Request::Notify { event, delivered } => {
            route::client_notify(inner, link, tag, event, delivered);
        }
        Request::EventInterest { codes, default } => {
            host_calls::set_interest(inner, &link.proc, &codes, default);
            if !one_way {
                link.reply(msg::EVENT_INTEREST, tag, &Reply::status(Status::SUCCESS));
            }
        }
        Request::Log { data, directives } => log::log(inner, to(msg::LOG), data, directives),
        Request::Publish { info } => pubsub::publish(inner, to(msg::PUBLISH), info),
        Request::Lookup { keys, info } => pubsub::lookup(inner, to(msg::LOOKUP), keys, info),
        Request::Unpublish { keys, info } => {
            pubsub::unpublish(inner, to(msg::UNPUBLISH), keys, info);
        }
        Request::Connect { procs, info } => connect::connect(inner, to(msg::CONNECT), procs, info),
        Request::Disconnect { nspace, info } => {
            connect::disconnect(inner, to(msg::DISCONNECT), nspace, info);
        }
        Request::GroupConstruct { id, procs, info } => {
            group::construct(inner, to(msg::GROUP_CONSTRUCT), id, procs, info);
        }
        Request::GroupDestruct { id, info } => {
            group::destruct(inner, to(msg::GROUP_DESTRUCT), id, info);
        }
        Request::GroupLeave { id, info } => group::leave(inner, to(msg::GROUP_LEAVE), id, info),
        Request::GroupInvite { id, procs, info } => {
            group::invite(inner, to(msg::GROUP_INVITE), id, procs, info);
        }
        Request::GroupJoin {
            id,
            leader,
            accept,
            info,
        } => group::join(inner, to(msg::GROUP_JOIN), id, leader, accept, info),
        Request::GroupDecide {
            id,
            event,
            decision,
        } => group::decide(inner, to(msg::GROUP_DECIDE), id, event, decision),
        Request::GroupReplace { id, procs } => {
            group::replace(inner, to(msg::GROUP_REPLACE), id, procs);
        }
        Request::Query { queries } => query::query(inner, to(msg::QUERY), queries),
        Request::Spawn { job_info, apps } => spawn::spawn(inner, to(msg::SPAWN), job_info, apps),
        Request::IofPull {
            id,
            procs,
            channels,
        } => iof::pull(inner, to(msg::IOF_PULL), id, procs, channels),
        Request::IofDeregister { id } => iof::deregister(inner, to(msg::IOF_DEREGISTER), id),
        Request::IofPush {
            targets,
            data,
            directives,
        } => iof_push::push(inner, to(msg::IOF_PUSH), targets, data, directives),
    }
}
