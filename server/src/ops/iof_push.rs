//! `PMIx_IOF_push`: bytes a client or tool sends to other processes'
//! stdin, handed to the host ([`Host::push_stdin`](crate::Host::push_stdin)),
//! which owns those processes' stdin; the caller gets the host's status.
//! The targets must be named (a wildcard rank: every rank of its job).

use pmix_core::proto::Reply;
use pmix_core::{Error, Info, Proc, Status};

use crate::inner::Inner;
use crate::link::ReplyTo;

pub(crate) fn push(
    inner: &Inner,
    to: ReplyTo,
    targets: Vec<Proc>,
    data: Vec<u8>,
    directives: Vec<Info>,
) {
    if targets.is_empty() {
        return to.send(&Reply::error(&Error::with_context(
            Status::ERR_BAD_PARAM,
            "IOF push: no target named",
        )));
    }
    let t = match inner.inflight.take(to.proc(), "IOF push") {
        Ok(t) => t,
        Err(e) => return to.send(&Reply::error(&e)),
    };
    let proc = to.proc().clone();
    let done = to.completion(move |()| {
        drop(t);
        Reply::status(Status::SUCCESS)
    });
    inner
        .host
        .push_stdin(&proc, &targets, &data, &directives, done);
}
