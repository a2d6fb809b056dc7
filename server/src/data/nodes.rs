//! Per-node job data (`PMIX_NODE_INFO_ARRAY` in a registration): one
//! array per node, naming it with `PMIX_NODEID` and/or `PMIX_HOSTNAME`.
//!
//! Every node's entries are stored at the job level under node-qualified
//! keys ([`qualified_key`] with that one qualifier), so `get` of
//! `PMIX_NODE_SIZE` or `PMIX_LOCAL_SIZE` with `PMIX_NODEID` (or
//! `PMIX_HOSTNAME`) reads any node's value, a remote one included
//! (`pmix_client`'s node-qualified get). This node's array also fills the
//! unqualified job level, where the registration's own top-level entries
//! win. Which array is this node's: the one naming the registration's
//! top-level `PMIX_NODEID`, else `PMIX_HOSTNAME`, else the server's host
//! name; when none does (a host that names no node), every array fills
//! the job level, as a one-node registration does.

use pmix_core::proto::group::qualified_key;
use pmix_core::{attrs, Info, Value};

/// `(key, value)` pairs of one level.
pub(crate) type Entries = Vec<(String, Value)>;

/// The two keys that name a node.
const NODE_NAMES: [&str; 2] = [attrs::NODEID, attrs::HOSTNAME];

fn find<'a>(entries: &'a [Info], key: &str) -> Option<&'a Value> {
    entries.iter().find(|i| i.is(key)).map(|i| &i.value)
}

fn same(a: &Value, b: &Value) -> bool {
    match (a.to_u64(), b.to_u64()) {
        (Ok(x), Ok(y)) => x == y,
        _ => matches!((a.as_str(), b.as_str()), (Ok(x), Ok(y)) if x == y),
    }
}

/// Whether `node` is the array of the node whose top level is `job` and
/// whose server runs on `own_host`.
fn is_this_node(node: &[Info], job: &[(String, Value)], own_host: &str) -> bool {
    let top = |k: &str| job.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    if let (Some(id), Some(mine)) = (find(node, attrs::NODEID), top(attrs::NODEID)) {
        return same(id, mine);
    }
    match find(node, attrs::HOSTNAME).and_then(|v| v.as_str().ok()) {
        Some(h) => match top(attrs::HOSTNAME).and_then(|v| v.as_str().ok()) {
            Some(mine) => h == mine,
            None => h == own_host,
        },
        None => false,
    }
}

/// Adds the node arrays `nodes` to `job`: this node's entries where `job`
/// has no value of its own, and every node's entries under its
/// node-qualified keys.
pub(crate) fn add_node_arrays(job: &mut Entries, nodes: &[Vec<Info>], own_host: &str) {
    let local: Vec<&Vec<Info>> = {
        let named: Vec<&Vec<Info>> = nodes
            .iter()
            .filter(|n| is_this_node(n, job, own_host))
            .collect();
        if named.is_empty() {
            nodes.iter().collect()
        } else {
            named
        }
    };
    let mut fill = Entries::new();
    for n in local {
        for i in n {
            let k = i.key.as_str();
            if !job.iter().any(|(key, _)| key == k) {
                fill.push((k.to_owned(), i.value.clone()));
            }
        }
    }
    let mut qualified = Entries::new();
    for n in nodes {
        for name in NODE_NAMES {
            let Some(v) = find(n, name) else { continue };
            for i in n.iter().filter(|i| !i.is(name)) {
                let q = qualified_key(i.key.as_str(), &[(name, v)]);
                qualified.push((q, i.value.clone()));
            }
        }
    }
    job.extend(fill);
    job.extend(qualified);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u32, host: &str, local: u32) -> Vec<Info> {
        vec![
            Info::new(attrs::NODEID, Value::Uint32(id)).unwrap(),
            Info::new(attrs::HOSTNAME, Value::String(host.into())).unwrap(),
            Info::new(attrs::LOCAL_SIZE, Value::Uint32(local)).unwrap(),
            Info::new(attrs::NODE_SIZE, Value::Uint32(local + 1)).unwrap(),
        ]
    }

    fn value<'a>(job: &'a Entries, key: &str) -> Option<&'a Value> {
        job.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    #[test]
    fn every_node_is_qualified_and_only_this_one_fills_the_job_level() {
        let mut job: Entries = vec![(attrs::NODEID.into(), Value::Uint32(0))];
        add_node_arrays(&mut job, &[node(0, "a", 2), node(1, "b", 5)], "elsewhere");
        assert_eq!(value(&job, attrs::LOCAL_SIZE), Some(&Value::Uint32(2)));
        assert_eq!(
            value(&job, attrs::HOSTNAME),
            Some(&Value::String("a".into()))
        );
        let by_id = qualified_key(attrs::NODE_SIZE, &[(attrs::NODEID, &Value::Uint32(1))]);
        assert_eq!(value(&job, &by_id), Some(&Value::Uint32(6)));
        let b = Value::String("b".into());
        let by_host = qualified_key(attrs::LOCAL_SIZE, &[(attrs::HOSTNAME, &b)]);
        assert_eq!(value(&job, &by_host), Some(&Value::Uint32(5)));
        // A node's host name by its id.
        let host_of_1 = qualified_key(attrs::HOSTNAME, &[(attrs::NODEID, &Value::Uint32(1))]);
        assert_eq!(value(&job, &host_of_1), Some(&b));
        // The qualifier is not stored under itself.
        let id_by_id = qualified_key(attrs::NODEID, &[(attrs::NODEID, &Value::Uint32(1))]);
        assert_eq!(value(&job, &id_by_id), None);
    }

    #[test]
    fn the_top_level_wins_and_the_host_name_finds_this_node() {
        let mut job: Entries = vec![(attrs::LOCAL_SIZE.into(), Value::Uint32(9))];
        add_node_arrays(&mut job, &[node(3, "x", 2), node(4, "me", 7)], "me");
        assert_eq!(value(&job, attrs::LOCAL_SIZE), Some(&Value::Uint32(9)));
        assert_eq!(value(&job, attrs::NODE_SIZE), Some(&Value::Uint32(8)));
        assert_eq!(value(&job, attrs::NODEID), Some(&Value::Uint32(4)));
    }

    #[test]
    fn an_unnamed_node_fills_the_job_level_as_before() {
        let mut job = Entries::new();
        let n = vec![Info::new(attrs::LOCAL_SIZE, Value::Uint32(3)).unwrap()];
        add_node_arrays(&mut job, &[n], "me");
        assert_eq!(job, vec![(attrs::LOCAL_SIZE.to_owned(), Value::Uint32(3))]);
    }
}
