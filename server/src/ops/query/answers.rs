//! The query keys the server answers from what it holds: the namespaces it
//! serves, their local processes, the process sets, the PMIx groups (the
//! group tracker, `ops/group`), what it supports.
//! Value types are those OpenPMIx 4.2 hands to a C caller: names as one
//! comma-separated string, proc tables as arrays of `pmix_proc_info_t` in
//! rank order, counts as `SIZE`.

use pmix_core::{
    attrs, DataArray, DataType, Error, Info, Nspace, Proc, ProcInfo, ProcState, Result, Value,
};

use super::support;
use crate::data::job::job_value;
use crate::inner::{Inner, State};

/// `PMIX_APP_ARGV`: the application's command line as registered; its
/// first word is a proc table's executable name.
const APP_ARGV: &str = "pmix.app.argv";

/// What the server can say about one key.
pub(crate) enum Answer {
    /// The value.
    Value(Value),
    /// The host (or the groups module) must answer.
    Elsewhere,
    /// The host answers when it can (it knows what it honours); else this.
    HostFirst(Value),
}

/// The string value of qualifier `key`.
fn qualifier<'a>(quals: &'a [Info], key: &str) -> Option<&'a str> {
    quals
        .iter()
        .find(|i| i.is(key))
        .and_then(|i| match &i.value {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        })
}

/// The namespace a key needs as its `PMIX_NSPACE` qualifier.
fn required_nspace(quals: &[Info], key: &str) -> Result<Nspace> {
    let ns = qualifier(quals, attrs::NSPACE)
        .ok_or_else(|| Error::bad_param(format!("query {key} needs a PMIX_NSPACE qualifier")))?;
    Nspace::new(ns)
}

/// Answers `key` with `quals` for `asker`, or says who must.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` when a required qualifier is missing.
pub(crate) fn answer(inner: &Inner, st: &State, key: &str, quals: &[Info]) -> Result<Answer> {
    let v = match key {
        attrs::QUERY_NAMESPACES => {
            let mut names: Vec<String> = st
                .registry
                .registered_nspaces()
                .iter()
                .map(|n| n.as_str().to_owned())
                .collect();
            names.sort();
            Value::String(names.join(","))
        }
        attrs::QUERY_NAMESPACE_INFO => namespace_info(inner, st),
        // A job's size (`PMIX_NSPACE` qualifier), as PRRTE answers tools.
        attrs::JOB_SIZE => {
            let ns = required_nspace(quals, key)?;
            match job_value(inner, &Proc::from_parts(ns, pmix_core::Rank::WILDCARD), key) {
                Some(v) => v,
                None => return Ok(Answer::Elsewhere),
            }
        }
        // This server's URI; another node's (a `PMIX_HOSTNAME` qualifier
        // naming it) only the host knows.
        attrs::SERVER_URI => match qualifier(quals, attrs::HOSTNAME) {
            Some(h) if h != crate::hostname() => return Ok(Answer::Elsewhere),
            _ => Value::String(pmix_core::proto::tool::format_uri(
                &inner.me,
                &inner.socket_path,
            )),
        },
        attrs::QUERY_LOCAL_PROC_TABLE => {
            let ns = required_nspace(quals, key)?;
            if st.registry.sizes(&ns).is_none() {
                return Ok(Answer::Elsewhere);
            }
            proc_table(inner, st, &ns)
        }
        attrs::QUERY_PROC_TABLE => {
            let ns = required_nspace(quals, key)?;
            // A job with processes elsewhere: only the host knows them all.
            if st.registry.sizes(&ns).is_none() || st.registry.spans_nodes(&ns) {
                return Ok(Answer::Elsewhere);
            }
            proc_table(inner, st, &ns)
        }
        attrs::QUERY_NUM_PSETS => Value::Size(st.psets.names().len() as u64),
        attrs::QUERY_PSET_NAMES => Value::String(st.psets.names().join(",")),
        attrs::QUERY_PSET_MEMBERSHIP => {
            let name = qualifier(quals, attrs::PSET_NAME).ok_or_else(|| {
                Error::bad_param(format!("query {key} needs a PMIX_PSET_NAME qualifier"))
            })?;
            match st.psets.members(name) {
                Some(m) => Value::DataArray(Box::new(DataArray::from_procs(m.to_vec()))),
                None => return Ok(Answer::Elsewhere),
            }
        }
        attrs::QUERY_NUM_GROUPS => Value::Size(st.groups.live.len() as u64),
        attrs::QUERY_GROUP_NAMES => Value::String(
            st.groups
                .live
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(","),
        ),
        attrs::QUERY_GROUP_MEMBERSHIP => {
            let id = qualifier(quals, attrs::GROUP_ID).ok_or_else(|| {
                Error::bad_param(format!("query {key} needs a PMIX_GROUP_ID qualifier"))
            })?;
            match st.groups.live.get(id) {
                Some(g) => Value::DataArray(Box::new(DataArray::from_procs(g.members.clone()))),
                None => return Ok(Answer::Elsewhere),
            }
        }
        attrs::QUERY_SPAWN_SUPPORT => {
            return Ok(Answer::HostFirst(Value::String(
                support::SPAWN_SUPPORT.join(","),
            )))
        }
        attrs::QUERY_DEBUG_SUPPORT => {
            return Ok(Answer::HostFirst(Value::String(
                support::DEBUG_SUPPORT.join(","),
            )))
        }
        attrs::QUERY_SUPPORTED_KEYS => Value::String(support::SERVER_KEYS.join(",")),
        attrs::QUERY_JOB_STATUS => {
            let ns = required_nspace(quals, key)?;
            if st.registry.sizes(&ns).is_none() || st.registry.spans_nodes(&ns) {
                return Ok(Answer::Elsewhere);
            }
            // A local job is running while the server serves it.
            Value::Status(pmix_core::Status::SUCCESS)
        }
        _ => return Ok(Answer::Elsewhere),
    };
    Ok(Answer::Value(v))
}

/// An array of infos, one per namespace, each keyed
/// `PMIX_QUERY_NAMESPACE_INFO` and holding an array of infos:
/// `PMIX_NSPACE` and, when registered, `PMIX_CMD_LINE` (the shape PRRTE
/// 3.0 gives OpenPMIx 4.2 tools, which walk it as infos of infos).
fn namespace_info(inner: &Inner, st: &State) -> Value {
    let mut names = st.registry.registered_nspaces();
    names.sort();
    let items = names
        .into_iter()
        .map(|ns| {
            let mut entry = vec![Info::new(attrs::NSPACE, Value::String(ns.as_str().into()))];
            let job = Proc::from_parts(ns.clone(), pmix_core::Rank::WILDCARD);
            if let Some(cmd) = job_value(inner, &job, attrs::CMD_LINE) {
                entry.push(Info::new(attrs::CMD_LINE, cmd));
            }
            let entry: Vec<Info> = entry.into_iter().filter_map(Result::ok).collect();
            Info::new(
                attrs::QUERY_NAMESPACE_INFO,
                Value::DataArray(Box::new(DataArray::from_infos(entry))),
            )
        })
        .filter_map(Result::ok)
        .collect();
    Value::DataArray(Box::new(DataArray::from_infos(items)))
}

/// The executable of process `pid`, for a proc table whose host
/// registered no `PMIX_APP_ARGV` (`pmixrun` does not): the path
/// `/proc/<pid>/exe` names, as PRRTE gives the application's absolute
/// path. Consumers read the field without a NULL check (OpenPMIx's
/// Python bindings crash on a NULL `executable_name`), so it is left
/// empty (NULL in C) only where no pid or no `/proc` entry is known.
fn executable_of(pid: u32) -> String {
    if pid == 0 {
        return String::new();
    }
    std::fs::read_link(format!("/proc/{pid}/exe"))
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The local processes of `ns` in rank order, as `pmix_proc_info_t`.
fn proc_table(inner: &Inner, st: &State, ns: &Nspace) -> Value {
    let items = st
        .registry
        .local_ranks(ns)
        .into_iter()
        .filter_map(|r| {
            let proc = Proc::from_parts(ns.clone(), r);
            let c = st.registry.clients.get(&proc)?;
            let connected_pid = inner.barriers.peer(c.slot).map_or(0, |p| p.pid());
            let pid = c.pid.unwrap_or(connected_pid);
            let state = if c.dead {
                ProcState::TERM_WO_SYNC
            } else if c.finalized {
                ProcState::TERMINATED
            } else if c.link.is_some() {
                ProcState::RUNNING
            } else {
                ProcState::LAUNCH_UNDERWAY
            };
            let job = Proc::from_parts(ns.clone(), pmix_core::Rank::WILDCARD);
            let executable_name = match job_value(inner, &proc, APP_ARGV)
                .or_else(|| job_value(inner, &job, APP_ARGV))
            {
                Some(Value::String(s)) => s.split_whitespace().next().unwrap_or("").to_owned(),
                _ => executable_of(pid),
            };
            Some(Value::ProcInfo(Box::new(ProcInfo {
                proc,
                hostname: inner.cfg.hostname.clone(),
                executable_name,
                pid: i32::try_from(pid).unwrap_or(0),
                exit_code: 0,
                state,
            })))
        })
        .collect();
    DataArray::new(DataType::PROC_INFO, items)
        .map(|a| Value::DataArray(Box::new(a)))
        .unwrap_or(Value::Undef)
}
