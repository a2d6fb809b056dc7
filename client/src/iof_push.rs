//! `PMIx_IOF_push`: this process sends bytes to other processes' stdin
//! through its server, whose host owns their stdin (`pmixrun` holds a pipe
//! to the stdin of the ranks a spawn asked `PMIX_FWD_STDIN` for).

use pmix_core::proto::{caps, Request};
use pmix_core::{attrs, Error, Info, Proc, Result, Status};

use crate::Client;

impl Client {
    /// `PMIx_IOF_push`: writes `data` to the stdin of `targets` (a
    /// wildcard rank: every rank of its job), in the order of the calls;
    /// with `PMIX_IOF_COMPLETE` among `directives` their stdin is closed
    /// after `data` (which may be empty), so they read end-of-file.
    /// Returns once the host took the bytes.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` when the server does not forward stdin
    /// (capability `IOF_PUSH` not agreed, or a host without stdin
    /// forwarding), or for `PMIX_IOF_PUSH_STDIN` (collecting this
    /// process's own stdin: not done); `PMIX_ERR_BAD_PARAM` for no target;
    /// the host's status otherwise (`PMIX_ERR_NOT_FOUND` for a target whose
    /// stdin it does not hold).
    #[doc(alias = "PMIx_IOF_push")]
    pub fn iof_push(&self, targets: &[Proc], data: &[u8], directives: &[Info]) -> Result<()> {
        if self.inner.caps & caps::IOF_PUSH == 0 {
            return Err(Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                "IOF push: the server does not forward stdin (capability IOF_PUSH not agreed)",
            ));
        }
        if crate::flag(directives, attrs::IOF_PUSH_STDIN) {
            return Err(Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                "IOF push: PMIX_IOF_PUSH_STDIN (forwarding this process's own stdin) is not \
                 supported; read it and pass the bytes",
            ));
        }
        if targets.is_empty() {
            return Err(Error::bad_param("IOF push: no target named"));
        }
        let req = Request::IofPush {
            targets: targets.to_vec(),
            data: data.to_vec(),
            directives: directives.to_vec(),
        };
        self.inner
            .conn
            .request(&req, None)
            .and_then(|r| r.into_result())
            .map(|_| ())
    }
}
