//! Requests the server hands to its host: `PMIx_Log`, `PMIx_Publish`,
//! `PMIx_Lookup` and `PMIx_Unpublish` (protocol version 4). Each has a
//! blocking form and one completing through a callback on the client's
//! reader thread; none waits longer than the host holds it (a lookup with
//! `PMIX_WAIT` ends when the keys appear, at the host's `PMIX_TIMEOUT`, or
//! when the connection is lost).

use pmix_core::proto::{self, caps, PData, Reply, Request};
use pmix_core::{Error, Info, Result, Status};

use crate::Client;

/// A callback receiving an outcome.
type Done<T> = Box<dyn FnOnce(Result<T>) + Send + 'static>;

fn check_keys(keys: &[String]) -> Result<()> {
    for k in keys {
        pmix_core::Key::new_data_key(k)?;
    }
    Ok(())
}

/// The data entries of a publish request: at least one key outside the
/// reserved `pmix.` space.
fn check_publish(info: &[Info]) -> Result<()> {
    if info
        .iter()
        .all(|i| pmix_core::proc::is_reserved_key(i.key.as_str()))
    {
        let keys: Vec<&str> = info.iter().map(|i| i.key.as_str()).collect();
        return Err(Error::bad_param(format!(
            "publish: no data (every key is a pmix. directive: {keys:?})"
        )));
    }
    Ok(())
}

fn status_of(r: Reply) -> Result<()> {
    r.into_result().map(|_| ())
}

fn found_of(r: Reply) -> Result<Vec<PData>> {
    match r.into_result()? {
        Some(v) => proto::pdata_from_value(&v),
        None => Err(Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            "lookup reply without data",
        )),
    }
}

impl Client {
    /// Sends `req` (after checking the server offers `cap`) and hands the
    /// converted reply to `done` on the reader thread.
    pub(crate) fn host_request<T: 'static>(
        &self,
        cap: u64,
        what: &str,
        req: Result<Request>,
        convert: fn(Reply) -> Result<T>,
        done: Done<T>,
    ) {
        if self.inner.caps & cap == 0 {
            return done(Err(Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                format!("the server does not offer {what} (protocol version < 4)"),
            )));
        }
        match req {
            Ok(req) => self
                .inner
                .conn
                .send(&req, Box::new(move |r| done(convert(r)))),
            Err(e) => done(Err(e)),
        }
    }

    /// Runs a callback-form request and waits for its outcome.
    pub(crate) fn wait_for<T: Send + 'static>(start: impl FnOnce(Done<T>)) -> Result<T> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        start(Box::new(move |r| {
            let _ = tx.send(r);
        }));
        rx.recv().unwrap_or_else(|_| {
            Err(Error::with_context(
                Status::ERR_LOST_CONNECTION,
                "no answer from the server",
            ))
        })
    }

    /// `PMIx_Log_nb`: hands `data` (keyed by channel) and `directives` to
    /// the host through the server.
    pub fn log_nb(
        &self,
        data: &[Info],
        directives: &[Info],
        done: impl FnOnce(Result<()>) + Send + 'static,
    ) {
        let req = if data.is_empty() {
            Err(Error::bad_param("nothing to log"))
        } else {
            Ok(Request::Log {
                data: data.to_vec(),
                directives: directives.to_vec(),
            })
        };
        self.host_request(caps::LOG, "logging", req, status_of, Box::new(done));
    }

    /// `PMIx_Log`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for no data; the host's status
    /// (`PMIX_ERR_NOT_SUPPORTED` when it does not log).
    pub fn log(&self, data: &[Info], directives: &[Info]) -> Result<()> {
        Self::wait_for(|d| self.log_nb(data, directives, d))
    }

    /// `PMIx_Publish_nb`: publishes the non-`pmix.` entries of `info` with
    /// its directives (`PMIX_RANGE`, `PMIX_PERSISTENCE`).
    pub fn publish_nb(&self, info: &[Info], done: impl FnOnce(Result<()>) + Send + 'static) {
        let req = check_publish(info).map(|()| Request::Publish {
            info: info.to_vec(),
        });
        self.host_request(caps::PUBSUB, "publish", req, status_of, Box::new(done));
    }

    /// `PMIx_Publish`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when `info` holds no data; the host's status
    /// (`PMIX_ERR_DUPLICATE_KEY` for a key already published).
    pub fn publish(&self, info: &[Info]) -> Result<()> {
        Self::wait_for(|d| self.publish_nb(info, d))
    }

    /// `PMIx_Lookup_nb`: the published data for `keys`.
    pub fn lookup_nb(
        &self,
        keys: &[String],
        info: &[Info],
        done: impl FnOnce(Result<Vec<PData>>) + Send + 'static,
    ) {
        let req = if keys.is_empty() {
            Err(Error::bad_param("lookup: no keys"))
        } else {
            check_keys(keys).map(|()| Request::Lookup {
                keys: keys.to_vec(),
                info: info.to_vec(),
            })
        };
        self.host_request(caps::PUBSUB, "lookup", req, found_of, Box::new(done));
    }

    /// `PMIx_Lookup`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for no or bad keys; `PMIX_ERR_NOT_FOUND` when
    /// none was found; the host's status.
    pub fn lookup(&self, keys: &[String], info: &[Info]) -> Result<Vec<PData>> {
        Self::wait_for(|d| self.lookup_nb(keys, info, d))
    }

    /// `PMIx_Unpublish_nb`: removes `keys` this process published (none:
    /// all of them).
    pub fn unpublish_nb(
        &self,
        keys: &[String],
        info: &[Info],
        done: impl FnOnce(Result<()>) + Send + 'static,
    ) {
        let req = check_keys(keys).map(|()| Request::Unpublish {
            keys: keys.to_vec(),
            info: info.to_vec(),
        });
        self.host_request(caps::PUBSUB, "unpublish", req, status_of, Box::new(done));
    }

    /// `PMIx_Unpublish`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for a bad key; the host's status.
    pub fn unpublish(&self, keys: &[String], info: &[Info]) -> Result<()> {
        Self::wait_for(|d| self.unpublish_nb(keys, info, d))
    }
}
