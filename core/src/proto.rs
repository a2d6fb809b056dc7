//! Control-plane messages between a client and its server (the Unix socket).
//!
//! Every message travels in one [`frame`](crate::codec::frame): the frame's
//! `msg_type` names the message, its `tag` pairs a reply with its request,
//! and its `version` is the protocol version the sender speaks on this
//! connection. The byte layout is in `docs/PROTOCOL.md`.
//!
//! The connection opens with a handshake: the client sends [`Hello`]
//! (the versions and [capabilities](caps) it speaks), the server answers
//! [`Welcome`] with the agreed version (the highest both speak), the agreed
//! capabilities (the intersection) and, on success, the shared segment's file
//! descriptor in the same `sendmsg`. A request that needs a capability the
//! peer did not announce is answered with `PMIX_ERR_NOT_SUPPORTED`.
//!
//! Decoders here read untrusted bytes: every count is bounded by the bytes
//! left, nothing panics (fuzzed by `fuzz/fuzz_targets/proto_decode.rs`).

use crate::codec::{Decoder, Encoder};
use crate::{Error, Info, Proc, Result, Status, Value};

/// Magic word opening a [`Hello`] body.
pub const HELLO_MAGIC: [u8; 4] = *b"PXHI";

/// The newest protocol version this build speaks.
pub const PROTOCOL_VERSION: u16 = 4;

/// The oldest protocol version this build still serves.
pub const MIN_PROTOCOL_VERSION: u16 = 1;

/// Capability bits announced in the handshake.
pub mod caps {
    /// Job-level and proc-level job data is read from the shared store.
    pub const SHM_STORE: u64 = 1 << 0;
    /// The client writes its committed data into its own shared modex store.
    pub const SHM_MODEX: u64 = 1 << 1;
    /// Fences among local procs of one fully local namespace are a
    /// shared-memory barrier.
    pub const SHM_FENCE: u64 = 1 << 2;
    /// Fences whose participants span several namespaces.
    pub const MULTI_NSPACE_FENCE: u64 = 1 << 3;
    /// `get` of data not present locally is served by the server
    /// (direct modex).
    pub const DIRECT_MODEX: u64 = 1 << 4;
    /// Commit over the socket (the server writes the client's modex store).
    pub const SOCKET_COMMIT: u64 = 1 << 5;
    /// Event notification (protocol version 3): the client consumes its
    /// inbound event ring in the segment, pushes events straight into its
    /// local peers' rings, and sends [`NOTIFY`](super::msg::NOTIFY) and
    /// [`EVENT_INTEREST`](super::msg::EVENT_INTEREST) to the server.
    pub const EVENTS: u64 = 1 << 6;
    /// `PMIx_Log` goes to the host (protocol version 4):
    /// [`LOG`](super::msg::LOG).
    pub const LOG: u64 = 1 << 7;
    /// Publish / lookup / unpublish through the host (protocol version 4):
    /// [`PUBLISH`](super::msg::PUBLISH), [`LOOKUP`](super::msg::LOOKUP),
    /// [`UNPUBLISH`](super::msg::UNPUBLISH).
    pub const PUBSUB: u64 = 1 << 8;

    /// Everything protocol version 1 offered.
    pub const V1: u64 = SHM_STORE | SHM_MODEX | SHM_FENCE | DIRECT_MODEX | SOCKET_COMMIT;
    /// Everything protocol version 2 offered.
    pub const V2: u64 = V1 | MULTI_NSPACE_FENCE;
    /// Everything protocol version 3 offered.
    pub const V3: u64 = V2 | EVENTS;
    /// Everything this build offers.
    pub const ALL: u64 = V3 | LOG | PUBSUB;

    /// Capabilities that appeared in `version`; a peer speaking an older
    /// version cannot have them.
    pub const fn for_version(version: u16) -> u64 {
        if version >= 4 {
            ALL
        } else if version >= 3 {
            V3
        } else if version >= 2 {
            V2
        } else {
            V1
        }
    }
}

/// Message types (`msg_type` of the frame).
pub mod msg {
    /// Client → server: [`Hello`](super::Hello).
    pub const HELLO: u16 = 1;
    /// Server → client: [`Welcome`](super::Welcome).
    pub const WELCOME: u16 = 2;
    /// Client → server: the client is finalizing; reply when the host knows.
    pub const FINALIZE: u16 = 10;
    /// Client → server: abort (status, message, procs).
    pub const ABORT: u16 = 11;
    /// Client → server: fence (procs, infos).
    pub const FENCE: u16 = 12;
    /// Client → server: get (proc, key, infos).
    pub const GET: u16 = 13;
    /// Client → server: commit a modex card over the socket.
    pub const COMMIT: u16 = 14;
    /// Client → server, one-way (tag 0, no reply): an event the server must
    /// cache, hold for clients not yet connected, deliver to local clients
    /// the sender could not reach, or pass to the host.
    pub const NOTIFY: u16 = 15;
    /// Client → server, one-way: the status codes this client's handlers
    /// want (the server registers with the host for environment events
    /// only when some client wants them).
    pub const EVENT_INTEREST: u16 = 16;
    /// Client → server: data to log (`PMIx_Log`), handed to the host.
    pub const LOG: u16 = 17;
    /// Client → server: data to publish, handed to the host with the
    /// client's effective uid.
    pub const PUBLISH: u16 = 18;
    /// Client → server: keys to look up; the reply carries the found data.
    pub const LOOKUP: u16 = 19;
    /// Client → server: keys to unpublish.
    pub const UNPUBLISH: u16 = 20;
    /// Bit set in a reply's type: the reply to request type `t` is
    /// `REPLY | t`.
    pub const REPLY: u16 = 0x8000;
}

/// Environment variables [`setup_fork`] hands to a child, read by the
/// client's `init`.
///
/// [`setup_fork`]: https://docs.rs/pmix-server
pub mod env {
    /// The child's namespace (the standard name; Open MPI reads it too).
    pub const NAMESPACE: &str = "PMIX_NAMESPACE";
    /// The child's rank.
    pub const RANK: &str = "PMIX_RANK";
    /// Path of the server's Unix socket.
    pub const SERVER_SOCKET: &str = "PMIXRS_SERVER_SOCKET";
    /// The server's namespace and rank, `"<nspace>.<rank>"`.
    pub const SERVER_ID: &str = "PMIXRS_SERVER_ID";
    /// The server's temporary directory.
    pub const SERVER_TMPDIR: &str = "PMIX_SERVER_TMPDIR";
    /// The node's name as the server knows it.
    pub const HOSTNAME: &str = "PMIX_HOSTNAME";
    /// The library version string.
    pub const VERSION: &str = "PMIX_VERSION";
    /// The client's own secret, made by the server at registration and
    /// handed out by `setup_fork`: its hello must present it.
    pub const CLIENT_SECRET: &str = "PMIXRS_CLIENT_SECRET";
    /// Newest protocol version a client announces (tests of older clients).
    pub const PROTOCOL_MAX: &str = "PMIXRS_PROTOCOL_MAX";
    /// Capability mask a client announces (tests of older clients).
    pub const CAPS: &str = "PMIXRS_CAPS";
    /// How long a client's progress thread spins for work before it
    /// sleeps, in microseconds (default 2).
    pub const PROGRESS_SPIN_US: &str = "PMIXRS_PROGRESS_SPIN_US";
}

/// Keys the server publishes for clients' internal use in the job store.
/// They start with `pmixrs.`, outside the reserved `pmix.` space.
pub mod keys {
    /// Per local proc: its client slot (`UINT32`).
    pub const SLOT: &str = "pmixrs.slot";
    /// Per namespace (rank `WILDCARD`): index of its barrier cell (`UINT32`).
    pub const BARRIER: &str = "pmixrs.barrier";
}

/// Values of a client slot's peer cell (`pmix_shm::barrier::PeerCell`).
pub mod peer_state {
    /// Unused slot.
    pub const FREE: u32 = 0;
    /// Registered by the host, not connected yet.
    pub const REGISTERED: u32 = 1;
    /// Connected (handshake done).
    pub const CONNECTED: u32 = 2;
    /// Finalized cleanly.
    pub const FINALIZED: u32 = 3;
    /// The connection dropped without finalize.
    pub const DEAD: u32 = 4;
}

/// Encodes one modex-store entry: the put's scope, then the value.
pub fn encode_modex_value(scope: crate::Scope, value: &Value) -> Vec<u8> {
    let mut e = Encoder::new();
    e.put_u8(scope.0);
    e.put_value(value);
    e.finish()
}

/// Decodes a modex-store entry.
///
/// # Errors
/// The decoder's errors.
pub fn decode_modex_value(bytes: &[u8]) -> Result<(crate::Scope, Value)> {
    let mut d = Decoder::new(bytes);
    let scope = crate::Scope(d.get_u8()?);
    let v = d.get_value()?;
    d.expect_end()?;
    Ok((scope, v))
}

/// The canonical form of a fence's participant list, which client and
/// server must agree on: sorted, deduplicated, and explicit ranks of a
/// namespace folded into that namespace's `PMIX_RANK_WILDCARD` when it is
/// present.
pub fn canonical_procs(mut procs: Vec<Proc>) -> Vec<Proc> {
    procs.sort();
    procs.dedup();
    let wild: std::collections::BTreeSet<_> = procs
        .iter()
        .filter(|p| p.rank == crate::Rank::WILDCARD)
        .map(|p| p.nspace.clone())
        .collect();
    procs.retain(|p| p.rank == crate::Rank::WILDCARD || !wild.contains(&p.nspace));
    procs
}

/// The client's opening message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Oldest protocol version the client speaks.
    pub min_version: u16,
    /// Newest protocol version the client speaks.
    pub max_version: u16,
    /// Capabilities the client supports.
    pub caps: u64,
    /// The proc the client claims to be (checked against the registration
    /// and the socket's peer credentials).
    pub proc: Proc,
    /// The client's pid as it sees it (informational; the server trusts
    /// `SO_PEERCRED`).
    pub pid: u32,
    /// The secret `setup_fork` gave this client ([`env::CLIENT_SECRET`]):
    /// the proof that the process is the one the server's host launched
    /// as `proc`, not another process of the same user. Encoded after
    /// `pid` only when present, so a hello without one is what older
    /// clients sent.
    pub secret: Option<String>,
}

impl Hello {
    /// Encodes the body.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.put_raw(&HELLO_MAGIC);
        e.put_u16(self.min_version);
        e.put_u16(self.max_version);
        e.put_u64(self.caps);
        e.put_proc(&self.proc);
        e.put_u32(self.pid);
        if let Some(secret) = &self.secret {
            e.put_str(secret);
        }
        e.finish()
    }

    /// Decodes a body.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_FAILURE` for a bad magic or version range, the
    /// decoder's errors for truncated bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        if d.get_raw(4)? != HELLO_MAGIC {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                "handshake: bad magic",
            ));
        }
        let min_version = d.get_u16()?;
        let max_version = d.get_u16()?;
        if min_version == 0 || min_version > max_version {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                format!("handshake: bad version range {min_version}..={max_version}"),
            ));
        }
        let caps = d.get_u64()?;
        let proc = d.get_proc()?;
        let pid = d.get_u32()?;
        let secret = if d.remaining() > 0 {
            Some(d.get_str()?.to_owned())
        } else {
            None
        };
        d.expect_end()?;
        Ok(Hello {
            min_version,
            max_version,
            caps,
            proc,
            pid,
            secret,
        })
    }
}

/// The version both sides speak, or `None` when the ranges do not meet.
///
/// A client newer than the server is served at the server's version.
///
/// ```
/// use pmix_core::proto::agree_version;
/// assert_eq!(agree_version((1, 9), (1, 2)), Some(2));
/// assert_eq!(agree_version((1, 1), (1, 2)), Some(1));
/// assert_eq!(agree_version((3, 4), (1, 2)), None);
/// ```
pub fn agree_version(client: (u16, u16), server: (u16, u16)) -> Option<u16> {
    let v = client.1.min(server.1);
    (v >= client.0.max(server.0)).then_some(v)
}

/// The server's answer to [`Hello`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Welcome {
    /// `SUCCESS`, or why the client is refused (then no descriptor follows
    /// and the server closes the socket).
    pub status: Status,
    /// The agreed protocol version.
    pub version: u16,
    /// The agreed capabilities.
    pub caps: u64,
    /// The client's slot: its modex store and its peer cell.
    pub client_slot: u32,
    /// The server's own proc (nspace and rank).
    pub server: Proc,
    /// Why the client was refused (empty on success).
    pub message: String,
}

impl Welcome {
    /// A refusal.
    pub fn refuse(status: Status, server: Proc, message: impl Into<String>) -> Self {
        Welcome {
            status,
            version: 0,
            caps: 0,
            client_slot: u32::MAX,
            server,
            message: message.into(),
        }
    }

    /// Encodes the body.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.put_i32(self.status.0);
        e.put_u16(self.version);
        e.put_u64(self.caps);
        e.put_u32(self.client_slot);
        e.put_proc(&self.server);
        e.put_str(&self.message);
        e.finish()
    }

    /// Decodes a body.
    ///
    /// # Errors
    /// The decoder's errors.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        let status = Status(d.get_i32()?);
        let version = d.get_u16()?;
        let caps = d.get_u64()?;
        let client_slot = d.get_u32()?;
        let server = d.get_proc()?;
        let message = d.get_str()?.to_owned();
        d.expect_end()?;
        Ok(Welcome {
            status,
            version,
            caps,
            client_slot,
            server,
            message,
        })
    }
}

/// A client request after the handshake.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// The client finalizes; the reply comes after the host acknowledged.
    Finalize,
    /// Abort `procs` (empty: the whole job) with `status` and `message`.
    Abort {
        /// Exit status requested.
        status: Status,
        /// Message for the user.
        message: String,
        /// Procs to abort; empty means the caller's whole namespace.
        procs: Vec<Proc>,
    },
    /// A fence over `procs` with directives `info`.
    Fence {
        /// Participants (already normalised by the client: never empty).
        procs: Vec<Proc>,
        /// Directives (`PMIX_COLLECT_DATA`, `PMIX_TIMEOUT`, …).
        info: Vec<Info>,
    },
    /// A get the client could not answer from shared memory.
    Get {
        /// Whose data.
        proc: Proc,
        /// Which key.
        key: String,
        /// Directives (`PMIX_TIMEOUT`, …).
        info: Vec<Info>,
    },
    /// The client's committed data, for a client without `SHM_MODEX`: the
    /// server writes it into the client's modex store.
    Commit {
        /// `(key, scope, value)` triples.
        entries: Vec<(String, u8, Value)>,
    },
    /// An event for the server (one-way). The server replaces the source
    /// with the connection's proc.
    Notify {
        /// The event.
        event: crate::event::EventMsg,
        /// Client slots the sender already pushed the event to.
        delivered: Vec<u32>,
    },
    /// The codes this client's handlers are registered for (one-way; the
    /// whole set each time, replacing the previous one).
    EventInterest {
        /// Codes of single- and multi-code handlers.
        codes: Vec<Status>,
        /// Whether the client has a default handler (it wants every code).
        default: bool,
    },
    /// `PMIx_Log`: `data` to log (channels as keys) with `directives`.
    Log {
        /// What to log (`PMIX_LOG_MSG`, `PMIX_LOG_STDERR`, …).
        data: Vec<Info>,
        /// How (`PMIX_LOG_ONCE`, timestamps, …).
        directives: Vec<Info>,
    },
    /// `PMIx_Publish`: each info is a key to publish with its value, plus
    /// directives (`PMIX_RANGE`, `PMIX_PERSISTENCE`, …).
    Publish {
        /// Data and directives, as the caller gave them.
        info: Vec<Info>,
    },
    /// `PMIx_Lookup`: the keys wanted, with directives (`PMIX_WAIT`,
    /// `PMIX_TIMEOUT`, `PMIX_RANGE`); the reply's value is
    /// [`pdata_to_value`] of what was found.
    Lookup {
        /// Keys to find.
        keys: Vec<String>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `PMIx_Unpublish`: keys to remove (none: all this proc published).
    Unpublish {
        /// Keys to remove.
        keys: Vec<String>,
        /// Directives (`PMIX_RANGE`).
        info: Vec<Info>,
    },
}

/// One published datum (`pmix_pdata_t`): who published `key` and its value.
#[derive(Clone, Debug, PartialEq)]
#[doc(alias = "pmix_pdata_t")]
pub struct PData {
    /// The publisher.
    pub proc: Proc,
    /// The key.
    pub key: String,
    /// The value.
    pub value: Value,
}

/// Info key of the publisher inside a [`pdata_to_value`] element.
const PDATA_PROC: &str = "pmixrs.pdata.proc";
/// Info key of the value inside a [`pdata_to_value`] element.
const PDATA_VALUE: &str = "pmixrs.pdata.value";

/// Lookup results as one value for a [`Reply`]: an array of infos keyed by
/// the published key, each holding the publisher and the value.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a key the data model refuses.
pub fn pdata_to_value(found: &[PData]) -> Result<Value> {
    let mut out = Vec::with_capacity(found.len());
    for d in found {
        let inner = vec![
            Info::new(PDATA_PROC, Value::Proc(d.proc.clone()))?,
            Info::new(PDATA_VALUE, d.value.clone())?,
        ];
        out.push(Info::new(
            d.key.as_str(),
            Value::DataArray(Box::new(crate::DataArray::from_infos(inner))),
        )?);
    }
    Ok(Value::DataArray(Box::new(crate::DataArray::from_infos(
        out,
    ))))
}

/// The inverse of [`pdata_to_value`].
///
/// # Errors
/// `PMIX_ERR_UNPACK_FAILURE` when `v` does not have that shape.
pub fn pdata_from_value(v: &Value) -> Result<Vec<PData>> {
    let bad = || Error::with_context(Status::ERR_UNPACK_FAILURE, "malformed lookup reply");
    let mut out = Vec::new();
    for i in v.as_info_array().map_err(|_| bad())? {
        let inner = i.value.as_info_array().map_err(|_| bad())?;
        let proc = match inner.iter().find(|x| x.is(PDATA_PROC)).map(|x| &x.value) {
            Some(Value::Proc(p)) => p.clone(),
            _ => return Err(bad()),
        };
        let value = inner
            .iter()
            .find(|x| x.is(PDATA_VALUE))
            .map(|x| x.value.clone())
            .ok_or_else(bad)?;
        out.push(PData {
            proc,
            key: i.key.as_str().to_owned(),
            value,
        });
    }
    Ok(out)
}

impl Request {
    /// The message type of this request.
    pub fn msg_type(&self) -> u16 {
        match self {
            Request::Finalize => msg::FINALIZE,
            Request::Abort { .. } => msg::ABORT,
            Request::Fence { .. } => msg::FENCE,
            Request::Get { .. } => msg::GET,
            Request::Commit { .. } => msg::COMMIT,
            Request::Notify { .. } => msg::NOTIFY,
            Request::EventInterest { .. } => msg::EVENT_INTEREST,
            Request::Log { .. } => msg::LOG,
            Request::Publish { .. } => msg::PUBLISH,
            Request::Lookup { .. } => msg::LOOKUP,
            Request::Unpublish { .. } => msg::UNPUBLISH,
        }
    }

    /// The capability the request needs, if any.
    pub fn needs_cap(&self) -> Option<u64> {
        match self {
            Request::Commit { .. } => Some(caps::SOCKET_COMMIT),
            Request::Get { .. } => Some(caps::DIRECT_MODEX),
            Request::Notify { .. } | Request::EventInterest { .. } => Some(caps::EVENTS),
            Request::Log { .. } => Some(caps::LOG),
            Request::Publish { .. } | Request::Lookup { .. } | Request::Unpublish { .. } => {
                Some(caps::PUBSUB)
            }
            Request::Fence { procs, .. } => {
                let first = procs.first().map(|p| &p.nspace);
                procs
                    .iter()
                    .any(|p| Some(&p.nspace) != first)
                    .then_some(caps::MULTI_NSPACE_FENCE)
            }
            _ => None,
        }
    }

    /// Encodes the body.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        match self {
            Request::Finalize => {}
            Request::Abort {
                status,
                message,
                procs,
            } => {
                e.put_i32(status.0);
                e.put_str(message);
                e.put_procs(procs);
            }
            Request::Fence { procs, info } => {
                e.put_procs(procs);
                e.put_infos(info);
            }
            Request::Get { proc, key, info } => {
                e.put_proc(proc);
                e.put_str(key);
                e.put_infos(info);
            }
            Request::Commit { entries } => {
                e.put_u32(u32::try_from(entries.len()).unwrap_or(u32::MAX));
                for (k, scope, v) in entries {
                    e.put_str(k);
                    e.put_u8(*scope);
                    e.put_value(v);
                }
            }
            Request::Notify { event, delivered } => {
                event.encode_into(&mut e);
                e.put_u32(u32::try_from(delivered.len()).unwrap_or(u32::MAX));
                for s in delivered {
                    e.put_u32(*s);
                }
            }
            Request::EventInterest { codes, default } => {
                e.put_u32(u32::try_from(codes.len()).unwrap_or(u32::MAX));
                for c in codes {
                    e.put_i32(c.0);
                }
                e.put_u8(u8::from(*default));
            }
            Request::Log { data, directives } => {
                e.put_infos(data);
                e.put_infos(directives);
            }
            Request::Publish { info } => e.put_infos(info),
            Request::Lookup { keys, info } | Request::Unpublish { keys, info } => {
                e.put_u32(u32::try_from(keys.len()).unwrap_or(u32::MAX));
                for k in keys {
                    e.put_str(k);
                }
                e.put_infos(info);
            }
        }
        e.finish()
    }

    /// Decodes the body of a request of type `msg_type`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_SUPPORTED` for an unknown type (the server answers
    /// with it); the decoder's errors for malformed bodies.
    pub fn decode(msg_type: u16, bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        let r = match msg_type {
            msg::FINALIZE => Request::Finalize,
            msg::ABORT => Request::Abort {
                status: Status(d.get_i32()?),
                message: d.get_str()?.to_owned(),
                procs: d.get_procs()?,
            },
            msg::FENCE => Request::Fence {
                procs: d.get_procs()?,
                info: d.get_infos()?,
            },
            msg::GET => Request::Get {
                proc: d.get_proc()?,
                key: d.get_str()?.to_owned(),
                info: d.get_infos()?,
            },
            msg::COMMIT => {
                let n = d.get_u32()? as usize;
                // each entry holds at least a key length, a scope and a type
                if n.saturating_mul(7) > d.remaining() {
                    return Err(Error::with_context(
                        Status::ERR_UNPACK_FAILURE,
                        format!("commit count {n} exceeds the message"),
                    ));
                }
                let mut entries = Vec::with_capacity(n);
                for _ in 0..n {
                    let k = d.get_str()?.to_owned();
                    let s = d.get_u8()?;
                    entries.push((k, s, d.get_value()?));
                }
                Request::Commit { entries }
            }
            msg::NOTIFY => {
                let event = crate::event::EventMsg::decode_from(&mut d)?;
                let n = d.get_count("slot list", 4)?;
                let delivered = (0..n).map(|_| d.get_u32()).collect::<Result<_>>()?;
                Request::Notify { event, delivered }
            }
            msg::EVENT_INTEREST => {
                let n = d.get_count("code list", 4)?;
                let codes = (0..n)
                    .map(|_| d.get_i32().map(Status))
                    .collect::<Result<_>>()?;
                let default = match d.get_u8()? {
                    0 => false,
                    1 => true,
                    b => {
                        return Err(Error::with_context(
                            Status::ERR_UNPACK_FAILURE,
                            format!("bad default flag {b}"),
                        ))
                    }
                };
                Request::EventInterest { codes, default }
            }
            msg::LOG => Request::Log {
                data: d.get_infos()?,
                directives: d.get_infos()?,
            },
            msg::PUBLISH => Request::Publish {
                info: d.get_infos()?,
            },
            msg::LOOKUP | msg::UNPUBLISH => {
                let n = d.get_count("key list", 4)?;
                let keys = (0..n)
                    .map(|_| d.get_str().map(str::to_owned))
                    .collect::<Result<Vec<_>>>()?;
                let info = d.get_infos()?;
                if msg_type == msg::LOOKUP {
                    Request::Lookup { keys, info }
                } else {
                    Request::Unpublish { keys, info }
                }
            }
            t => {
                return Err(Error::with_context(
                    Status::ERR_NOT_SUPPORTED,
                    format!("unknown request type {t}"),
                ))
            }
        };
        d.expect_end()?;
        Ok(r)
    }
}

/// A reply: a status and, for `Get`, the value.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The outcome.
    pub status: Status,
    /// The value of a successful `Get`.
    pub value: Option<Value>,
    /// A human-readable reason for a failure (may be empty).
    pub message: String,
}

impl Reply {
    /// A reply carrying only `status`.
    pub fn status(status: Status) -> Self {
        Reply {
            status,
            value: None,
            message: String::new(),
        }
    }

    /// A failure reply made from `err`.
    pub fn error(err: &Error) -> Self {
        Reply {
            status: err.status(),
            value: None,
            message: err.context().unwrap_or_default().to_owned(),
        }
    }

    /// This reply as a result.
    ///
    /// # Errors
    /// The carried status when it is not a success.
    pub fn into_result(self) -> Result<Option<Value>> {
        if self.status.is_success() {
            Ok(self.value)
        } else if self.message.is_empty() {
            Err(Error::new(self.status))
        } else {
            Err(Error::with_context(self.status, self.message))
        }
    }

    /// Encodes the body.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.put_i32(self.status.0);
        e.put_str(&self.message);
        match &self.value {
            None => e.put_u8(0),
            Some(v) => {
                e.put_u8(1);
                e.put_value(v);
            }
        }
        e.finish()
    }

    /// Decodes a body.
    ///
    /// # Errors
    /// The decoder's errors.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        let status = Status(d.get_i32()?);
        let message = d.get_str()?.to_owned();
        let value = match d.get_u8()? {
            0 => None,
            1 => Some(d.get_value()?),
            b => {
                return Err(Error::with_context(
                    Status::ERR_UNPACK_FAILURE,
                    format!("reply: bad value flag {b}"),
                ))
            }
        };
        d.expect_end()?;
        Ok(Reply {
            status,
            value,
            message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rank;

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(ns, Rank(r)).unwrap()
    }

    #[test]
    fn hello_round_trip_and_refusals() {
        let h = Hello {
            min_version: 1,
            max_version: 7,
            caps: caps::ALL,
            proc: p("job", 3),
            pid: 42,
            secret: None,
        };
        assert_eq!(Hello::decode(&h.encode()).unwrap(), h);
        let with_secret = Hello {
            secret: Some("0123abcd".into()),
            ..h.clone()
        };
        assert_eq!(Hello::decode(&with_secret.encode()).unwrap(), with_secret);
        let mut bad = h.encode();
        bad[0] = b'X';
        assert_eq!(
            Hello::decode(&bad).unwrap_err().status(),
            Status::ERR_UNPACK_FAILURE
        );
        let inverted = Hello {
            min_version: 3,
            max_version: 2,
            ..h.clone()
        };
        assert!(Hello::decode(&inverted.encode()).is_err());
        let enc = h.encode();
        for cut in 0..enc.len() {
            assert!(Hello::decode(&enc[..cut]).is_err());
        }
    }

    #[test]
    fn requests_round_trip() {
        let reqs = vec![
            Request::Finalize,
            Request::Abort {
                status: Status(7),
                message: "bye".into(),
                procs: vec![p("a", 0)],
            },
            Request::Fence {
                procs: vec![p("a", Rank::WILDCARD.0), p("b", 1)],
                info: vec![Info::new("pmix.collect", Value::Bool(true)).unwrap()],
            },
            Request::Get {
                proc: p("a", 1),
                key: "btl.tcp".into(),
                info: vec![],
            },
            Request::Commit {
                entries: vec![("k".into(), 3, Value::Uint32(5))],
            },
            Request::Notify {
                event: crate::event::EventMsg::new(Status(-3001), crate::DataRange::LOCAL),
                delivered: vec![1, 7],
            },
            Request::EventInterest {
                codes: vec![Status(-3001), Status::ERR_LOST_CONNECTION],
                default: true,
            },
            Request::Log {
                data: vec![Info::new("pmix.log.msg", "x").unwrap()],
                directives: vec![],
            },
            Request::Publish {
                info: vec![Info::new("svc", "port").unwrap()],
            },
            Request::Lookup {
                keys: vec!["svc".into(), "b".into()],
                info: vec![Info::new("pmix.wait", true).unwrap()],
            },
            Request::Unpublish {
                keys: vec![],
                info: vec![],
            },
        ];
        for r in reqs {
            let enc = r.encode();
            assert_eq!(Request::decode(r.msg_type(), &enc).unwrap(), r);
            for cut in 0..enc.len() {
                let _ = Request::decode(r.msg_type(), &enc[..cut]);
            }
        }
        assert_eq!(
            Request::decode(999, &[]).unwrap_err().status(),
            Status::ERR_NOT_SUPPORTED
        );
    }

    #[test]
    fn multi_nspace_fence_needs_its_capability() {
        let one = Request::Fence {
            procs: vec![p("a", 0), p("a", 1)],
            info: vec![],
        };
        assert_eq!(one.needs_cap(), None);
        let two = Request::Fence {
            procs: vec![p("a", 0), p("b", 1)],
            info: vec![],
        };
        assert_eq!(two.needs_cap(), Some(caps::MULTI_NSPACE_FENCE));
    }

    #[test]
    fn lookup_results_round_trip_through_a_value() {
        let found = vec![
            PData {
                proc: p("a", 2),
                key: "svc".into(),
                value: Value::String("port".into()),
            },
            PData {
                proc: p("b", 0),
                key: "n".into(),
                value: Value::Uint32(7),
            },
        ];
        let v = pdata_to_value(&found).unwrap();
        assert_eq!(pdata_from_value(&v).unwrap(), found);
        assert!(pdata_from_value(&Value::Uint32(1)).is_err());
    }

    #[test]
    fn reply_round_trip() {
        let r = Reply {
            status: Status::SUCCESS,
            value: Some(Value::String("x".into())),
            message: String::new(),
        };
        assert_eq!(Reply::decode(&r.encode()).unwrap(), r);
        let e = Reply::status(Status::ERR_NOT_FOUND);
        assert_eq!(
            e.clone().into_result().unwrap_err().status(),
            Status::ERR_NOT_FOUND
        );
        assert_eq!(Reply::decode(&e.encode()).unwrap(), e);
    }

    #[test]
    fn version_agreement() {
        assert_eq!(agree_version((1, 2), (1, 2)), Some(2));
        assert_eq!(agree_version((1, 40), (1, 2)), Some(2));
        assert_eq!(agree_version((1, 1), (1, 2)), Some(1));
        assert_eq!(agree_version((5, 6), (1, 2)), None);
    }
}
