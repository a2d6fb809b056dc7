//! `get` of a node's value: a `pmix.` key with `PMIX_NODEID` or
//! `PMIX_HOSTNAME` among the directives (qualifier-flagged or not, as C
//! callers pass them) reads that node's value, which the server stored
//! under the node-qualified key (`pmix_server`'s `data/nodes.rs`):
//! `PMIX_NODE_SIZE` or `PMIX_LOCAL_SIZE` of a remote node, say. This
//! node, when the host registered no node arrays, answers from the plain
//! job level; another node without registered data is `NOT_FOUND`.

use pmix_core::proto::group::qualified_key;
use pmix_core::{attrs, Error, Info, Proc, Rank, Result, Status, Value};

use crate::{peers, Inner};

/// The node a `get`'s directives name, if any.
fn node_named(info: &[Info]) -> Option<&Info> {
    info.iter()
        .find(|i| i.is(attrs::NODEID) || i.is(attrs::HOSTNAME))
}

fn same(a: &Value, b: &Value) -> bool {
    match (a.to_u64(), b.to_u64()) {
        (Ok(x), Ok(y)) => x == y,
        _ => matches!((a.as_str(), b.as_str()), (Ok(x), Ok(y)) if x == y),
    }
}

/// What a node-qualified `get` comes to.
pub(crate) enum NodeGet {
    /// The node's value, or why there is none.
    Answer(Result<Value>),
    /// The named node is this one and the job has no node-qualified
    /// value: read the plain job level with these directives (the node
    /// name left out).
    ThisNode(Vec<Info>),
}

/// The node-qualified `get` of `key` for `proc`'s job; `None` when the
/// directives name no node or `key` is not a `pmix.` key.
pub(crate) fn answer(inner: &Inner, proc: &Proc, key: &str, info: &[Info]) -> Option<NodeGet> {
    if !pmix_core::proc::is_reserved_key(key) {
        return None;
    }
    let node = node_named(info)?;
    let name = node.key.as_str();
    let ns = proc.nspace.as_str();
    let w = Rank::WILDCARD.0;
    let qkey = qualified_key(key, &[(name, &node.value)]);
    if let Some(v) = peers::job_value(inner, ns, w, &qkey) {
        return Some(NodeGet::Answer(Ok(v)));
    }
    let this_node =
        peers::job_value(inner, ns, w, name).is_some_and(|mine| same(&mine, &node.value));
    if this_node {
        let rest = info.iter().filter(|i| !i.is(name)).cloned().collect();
        return Some(NodeGet::ThisNode(rest));
    }
    Some(NodeGet::Answer(Err(Error::with_context(
        Status::ERR_NOT_FOUND,
        format!(
            "{key} of node {name}={:?} is not known to job {ns} (the host registered no \
             PMIX_NODE_INFO_ARRAY for that node)",
            node.value
        ),
    ))))
}
