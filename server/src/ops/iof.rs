//! IO forwarding: the connections that pulled output (`IOF_PULL`,
//! `IOF_DEREGISTER`) and the delivery of a process's output chunk to
//! them and to the requestor of a job spawned with `PMIX_FWD_STDOUT` /
//! `PMIX_FWD_STDERR` ([`deliver`], called by the host through
//! [`Server::iof_deliver`](crate::Server::iof_deliver)).
//!
//! A pull names procs (a wildcard rank: the whole namespace) and channel
//! bits; it lives until its handler is deregistered or its connection
//! ends (dropped at the next delivery that finds it gone). Chunks travel
//! on the connection's socket as one-way `IOF_DELIVER` frames, queued
//! like replies: a tool that stops reading its socket is disconnected
//! once its queue passes `ServerConfig::max_outbound_bytes`.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

use pmix_core::proto::iof::IofChunk;
use pmix_core::proto::{msg, Reply};
use pmix_core::{Error, Proc, Rank, Status};

use crate::inner::Inner;
use crate::link::{Link, ReplyTo};

/// One `PMIx_IOF_pull` registration.
#[derive(Debug)]
pub(crate) struct Pull {
    /// The connection's proc.
    owner: Proc,
    /// The owner's handler id.
    id: u32,
    procs: Vec<Proc>,
    channels: u16,
}

impl Pull {
    fn wants(&self, source: &Proc, channel: u16) -> bool {
        self.channels & channel != 0
            && self.procs.iter().any(|p| {
                p.nspace == source.nspace && (p.rank == Rank::WILDCARD || p.rank == source.rank)
            })
    }
}

/// Every live pull of this server.
#[derive(Debug, Default)]
pub(crate) struct Pulls {
    pulls: Vec<Pull>,
}

/// `IOF_PULL`: records the pull of handler `id` of `to`'s connection.
pub(crate) fn pull(inner: &Inner, to: ReplyTo, id: u32, procs: Vec<Proc>, channels: u16) {
    if procs.is_empty() || channels == 0 {
        return to.send(&Reply::error(&Error::with_context(
            Status::ERR_BAD_PARAM,
            "IOF pull: no procs or no channel named",
        )));
    }
    let owner = to.proc().clone();
    {
        let mut st = inner.state.lock();
        st.iof.pulls.retain(|p| !(p.owner == owner && p.id == id));
        st.iof.pulls.push(Pull {
            owner,
            id,
            procs,
            channels,
        });
    }
    to.send_status(Ok(()));
}

/// `IOF_DEREGISTER`: drops the pull of handler `id` of `to`'s connection;
/// `PMIX_ERR_NOT_FOUND` when there is none.
pub(crate) fn deregister(inner: &Inner, to: ReplyTo, id: u32) {
    let owner = to.proc().clone();
    let found = {
        let mut st = inner.state.lock();
        let before = st.iof.pulls.len();
        st.iof.pulls.retain(|p| !(p.owner == owner && p.id == id));
        st.iof.pulls.len() != before
    };
    to.send_status(if found {
        Ok(())
    } else {
        Err(Error::with_context(
            Status::ERR_NOT_FOUND,
            format!("IOF deregister: no handler {id} on this connection"),
        ))
    });
}

/// Sends `data` (output of `source` on `channel`) to every connection
/// that pulled it and to `requestor` (the connection that spawned the
/// source with `PMIX_FWD_STDOUT`/`STDERR`). `true` when `requestor` is
/// connected and was sent the chunk (else the host shows it itself).
pub(crate) fn deliver(
    inner: &Inner,
    source: &Proc,
    channel: u16,
    data: &[u8],
    requestor: Option<&Proc>,
) -> bool {
    let mut to: BTreeMap<Proc, (Arc<Link>, Vec<u32>)> = BTreeMap::new();
    {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        if st.iof.pulls.is_empty() && requestor.is_none() {
            return false;
        }
        let clients = &st.registry.clients;
        let link_of = |p: &Proc| {
            clients
                .get(p)
                .filter(|c| c.is_live())
                .and_then(|c| c.link.clone())
                .filter(|l| l.ended().is_none())
        };
        st.iof.pulls.retain(|p| link_of(&p.owner).is_some());
        for p in st.iof.pulls.iter().filter(|p| p.wants(source, channel)) {
            if let Some(l) = link_of(&p.owner) {
                to.entry(p.owner.clone())
                    .or_insert((l, Vec::new()))
                    .1
                    .push(p.id);
            }
        }
        if let Some(r) = requestor {
            if let Some(l) = link_of(r) {
                to.entry(r.clone()).or_insert((l, Vec::new()));
            }
        }
    }
    let reached = requestor.is_some_and(|r| to.contains_key(r));
    for (_, (link, ids)) in to {
        let chunk = IofChunk {
            source: source.clone(),
            channel,
            ids,
            data: data.to_vec(),
        };
        link.push(msg::IOF_DELIVER, &chunk.encode());
    }
    reached
}

/// A handle for the host's output threads: [`IofSender::deliver`] is
/// [`Server::iof_deliver`](crate::Server::iof_deliver), and does nothing
/// once the server is gone.
#[derive(Clone, Debug)]
pub struct IofSender {
    pub(crate) inner: Weak<Inner>,
}

impl IofSender {
    /// As [`Server::iof_deliver`](crate::Server::iof_deliver); `false`
    /// once the server is gone.
    pub fn deliver(
        &self,
        source: &Proc,
        channel: u16,
        data: &[u8],
        requestor: Option<&Proc>,
    ) -> bool {
        self.inner
            .upgrade()
            .is_some_and(|i| deliver(&i, source, channel, data, requestor))
    }
}
