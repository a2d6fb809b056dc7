//! The client's requests after the handshake, and published data
//! ([`PData`]) as lookups carry it.

use super::caps;
use super::msg;
use crate::codec::{Decoder, Encoder};
use crate::{Error, Info, Proc, Result, Status, Value};

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
        /// Client slots the sender pushes the event to itself (right after
        /// this message): the server does not deliver to them.
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
    /// `PMIx_Connect` (RFC0003): the participants as the caller gave them
    /// and the directives (`PMIX_CONNECT_ID`, `PMIX_TIMEOUT`, …). The reply's
    /// value carries the outcome (new namespace, rank, job info).
    Connect {
        /// Participants (never empty).
        procs: Vec<Proc>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `PMIx_Disconnect` from the namespace a connect made.
    Disconnect {
        /// The connected namespace.
        nspace: String,
        /// Directives (`PMIX_TIMEOUT`, `PMIX_CONNECT_NOTIFY_EACH`).
        info: Vec<Info>,
    },
    /// `PMIx_Group_construct`: the group id, the members in the caller's
    /// order (group addresses already translated) and the directives. The
    /// reply's value carries the outcome (`proto::group`).
    GroupConstruct {
        /// The group id.
        id: String,
        /// Members (never empty).
        procs: Vec<Proc>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `PMIx_Group_destruct`.
    GroupDestruct {
        /// The group id.
        id: String,
        /// Directives (`PMIX_TIMEOUT`).
        info: Vec<Info>,
    },
    /// `PMIx_Group_invite`: the caller (the leader) invites `procs`.
    GroupInvite {
        /// The group id.
        id: String,
        /// The invitees.
        procs: Vec<Proc>,
        /// Directives.
        info: Vec<Info>,
    },
    /// `PMIx_Group_join`: an invitee's answer.
    GroupJoin {
        /// The group id.
        id: String,
        /// The leader that invited (rank `WILDCARD`: whoever did).
        leader: Proc,
        /// Accept (else decline).
        accept: bool,
        /// Directives.
        info: Vec<Info>,
    },
    /// A participant's handler decision on a group failure event
    /// (`PMIX_GROUP_LEADER_FAILED`, `PMIX_GROUP_INVITE_FAILED`), sent by its
    /// library once its handler chain ran.
    GroupDecide {
        /// The group id.
        id: String,
        /// The event decided on.
        event: Status,
        /// [`group::decision`](super::group::decision).
        decision: u8,
    },
    /// The inviting leader's handler asked to invite replacements into
    /// its invitation (`PMIX_GROUP_ADD_MEMBERS` in the results of its
    /// `PMIX_GROUP_INVITE_DECLINED` or `_FAILED` handler), sent by its
    /// library before that event's [`GroupDecide`](Request::GroupDecide).
    GroupReplace {
        /// The group id.
        id: String,
        /// The processes to invite.
        procs: Vec<Proc>,
    },
    /// `PMIx_Group_leave`.
    GroupLeave {
        /// The group id.
        id: String,
        /// Directives.
        info: Vec<Info>,
    },
    /// `PMIx_Spawn`: start `apps` as a new job; the reply's value is the new
    /// namespace (`PMIX_STRING`).
    Spawn {
        /// Job-level directives (environment directives,
        /// `PMIX_NOTIFY_COMPLETION`, `PMIX_TIMEOUT`, …).
        job_info: Vec<Info>,
        /// The applications (never empty).
        apps: Vec<crate::App>,
    },
    /// `PMIx_Query_info`: the queries (or the keys of them) the client
    /// could not answer itself. The reply's status is `SUCCESS`,
    /// `PMIX_ERR_PARTIAL_SUCCESS` or an error; its value the answers
    /// ([`query::encode_results`](super::query::encode_results)).
    Query {
        /// The queries, keys and qualifiers as the caller gave them.
        queries: Vec<crate::Query>,
    },
    /// `PMIx_IOF_pull`: send this connection the output of `procs` (a
    /// wildcard rank: the whole namespace) on the `channels` bits
    /// (`PMIX_FWD_STDOUT_CHANNEL` 0x02, `PMIX_FWD_STDERR_CHANNEL` 0x04),
    /// as [`iof::IofChunk`](super::iof::IofChunk)s naming handler `id`.
    IofPull {
        /// The client's handler id (unique on this connection).
        id: u32,
        /// Whose output.
        procs: Vec<Proc>,
        /// Which channels.
        channels: u16,
    },
    /// `PMIx_IOF_deregister`: stop the pull of handler `id`.
    IofDeregister {
        /// The handler id given to `IofPull`.
        id: u32,
    },
    /// `PMIx_IOF_push`: `data` for the stdin of `targets` (a wildcard
    /// rank: every rank of its job); `PMIX_IOF_COMPLETE` among the
    /// directives closes their stdin after it.
    IofPush {
        /// Whose stdin.
        targets: Vec<Proc>,
        /// The bytes (may be empty).
        data: Vec<u8>,
        /// `PMIX_IOF_COMPLETE` and the like.
        directives: Vec<Info>,
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

/// Lookup results as one value for a [`Reply`](super::Reply): an array of infos keyed by
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
            Request::Connect { .. } => msg::CONNECT,
            Request::Disconnect { .. } => msg::DISCONNECT,
            Request::GroupConstruct { .. } => msg::GROUP_CONSTRUCT,
            Request::GroupDestruct { .. } => msg::GROUP_DESTRUCT,
            Request::GroupLeave { .. } => msg::GROUP_LEAVE,
            Request::GroupInvite { .. } => msg::GROUP_INVITE,
            Request::GroupJoin { .. } => msg::GROUP_JOIN,
            Request::GroupDecide { .. } => msg::GROUP_DECIDE,
            Request::GroupReplace { .. } => msg::GROUP_REPLACE,
            Request::Query { .. } => msg::QUERY,
            Request::Spawn { .. } => msg::SPAWN,
            Request::IofPull { .. } => msg::IOF_PULL,
            Request::IofDeregister { .. } => msg::IOF_DEREGISTER,
            Request::IofPush { .. } => msg::IOF_PUSH,
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
            Request::Connect { .. } | Request::Disconnect { .. } => Some(caps::CONNECT),
            Request::GroupConstruct { .. }
            | Request::GroupDestruct { .. }
            | Request::GroupLeave { .. }
            | Request::GroupInvite { .. }
            | Request::GroupJoin { .. }
            | Request::GroupDecide { .. } => Some(caps::GROUPS),
            Request::GroupReplace { .. } => Some(caps::GROUP_LEADER_ACTIONS),
            Request::Query { .. } => Some(caps::QUERY),
            Request::Spawn { .. } => Some(caps::SPAWN),
            Request::IofPull { .. } | Request::IofDeregister { .. } => Some(caps::TOOL),
            Request::IofPush { .. } => Some(caps::IOF_PUSH),
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
            Request::Connect { procs, info } => {
                e.put_procs(procs);
                e.put_infos(info);
            }
            Request::Disconnect { nspace, info } => {
                e.put_str(nspace);
                e.put_infos(info);
            }
            Request::GroupDecide {
                id,
                event,
                decision,
            } => {
                e.put_str(id);
                e.put_i32(event.0);
                e.put_u8(*decision);
            }
            Request::GroupReplace { id, procs } => {
                e.put_str(id);
                e.put_procs(procs);
            }
            Request::GroupJoin {
                id,
                leader,
                accept,
                info,
            } => {
                e.put_str(id);
                e.put_proc(leader);
                e.put_u8(u8::from(*accept));
                e.put_infos(info);
            }
            Request::GroupConstruct { id, procs, info }
            | Request::GroupInvite { id, procs, info } => {
                e.put_str(id);
                e.put_procs(procs);
                e.put_infos(info);
            }
            Request::GroupDestruct { id, info } | Request::GroupLeave { id, info } => {
                e.put_str(id);
                e.put_infos(info);
            }
            Request::Query { queries } => super::query::encode_queries(&mut e, queries),
            Request::Spawn { job_info, apps } => {
                e.put_infos(job_info);
                e.put_u32(u32::try_from(apps.len()).unwrap_or(u32::MAX));
                for a in apps {
                    e.put_value(&Value::App(Box::new(a.clone())));
                }
            }
            Request::IofPull {
                id,
                procs,
                channels,
            } => {
                e.put_u32(*id);
                e.put_procs(procs);
                e.put_u16(*channels);
            }
            Request::IofDeregister { id } => e.put_u32(*id),
            Request::IofPush {
                targets,
                data,
                directives,
            } => {
                e.put_procs(targets);
                e.put_bytes(data);
                e.put_infos(directives);
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
            msg::CONNECT => Request::Connect {
                procs: d.get_procs()?,
                info: d.get_infos()?,
            },
            msg::DISCONNECT => Request::Disconnect {
                nspace: d.get_str()?.to_owned(),
                info: d.get_infos()?,
            },
            msg::GROUP_CONSTRUCT => Request::GroupConstruct {
                id: d.get_str()?.to_owned(),
                procs: d.get_procs()?,
                info: d.get_infos()?,
            },
            msg::GROUP_DESTRUCT => Request::GroupDestruct {
                id: d.get_str()?.to_owned(),
                info: d.get_infos()?,
            },
            msg::GROUP_INVITE => Request::GroupInvite {
                id: d.get_str()?.to_owned(),
                procs: d.get_procs()?,
                info: d.get_infos()?,
            },
            msg::GROUP_JOIN => Request::GroupJoin {
                id: d.get_str()?.to_owned(),
                leader: d.get_proc()?,
                accept: d.get_u8()? != 0,
                info: d.get_infos()?,
            },
            msg::GROUP_DECIDE => Request::GroupDecide {
                id: d.get_str()?.to_owned(),
                event: Status(d.get_i32()?),
                decision: d.get_u8()?,
            },
            msg::GROUP_REPLACE => Request::GroupReplace {
                id: d.get_str()?.to_owned(),
                procs: d.get_procs()?,
            },
            msg::GROUP_LEAVE => Request::GroupLeave {
                id: d.get_str()?.to_owned(),
                info: d.get_infos()?,
            },
            msg::QUERY => Request::Query {
                queries: super::query::decode_queries(&mut d)?,
            },
            msg::SPAWN => {
                let job_info = d.get_infos()?;
                // each app is at least a type tag, a command and counts
                let n = d.get_count("app list", 16)?;
                let mut apps = Vec::with_capacity(n);
                for _ in 0..n {
                    match d.get_value()? {
                        Value::App(a) => apps.push(*a),
                        v => {
                            return Err(Error::with_context(
                                Status::ERR_UNPACK_FAILURE,
                                format!("spawn: an app list holds a {}", v.data_type()),
                            ))
                        }
                    }
                }
                Request::Spawn { job_info, apps }
            }
            msg::IOF_PULL => Request::IofPull {
                id: d.get_u32()?,
                procs: d.get_procs()?,
                channels: d.get_u16()?,
            },
            msg::IOF_DEREGISTER => Request::IofDeregister { id: d.get_u32()? },
            msg::IOF_PUSH => Request::IofPush {
                targets: d.get_procs()?,
                data: d.get_bytes()?.to_vec(),
                directives: d.get_infos()?,
            },
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
