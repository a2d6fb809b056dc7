//! A resource manager spanning several `pmix_server::Server`s ("nodes")
//! in one process, doing between them what a real one does between its
//! nodes: it completes a connect once the part of every node involved
//! arrived (one outcome for all), completes a fence the same way (every
//! node involved gets the concatenation of their blobs), relays
//! `notify_event` to the other nodes' `Server::notify`, and keeps one
//! publish store for all of them.
//!
//! Every node belongs to a cluster. The RM names every process by its
//! cluster-qualified name (`cluster:nspace`, RFC0003's multi-cluster
//! names) and gives each node names in its own terms: its own cluster's
//! namespaces plain, others' qualified. A publish is visible to the other
//! clusters only with `PMIX_RANGE_GLOBAL` (the default range, SESSION,
//! stays in the publisher's cluster).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

use pmix_core::cluster::{multicluster_nspace, split_multicluster};
use pmix_core::proto::{canonical_procs, PData};
use pmix_core::{attrs, DataArray, DataRange, Error, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::{Completion, ConnectOutcome, Host, Server, ServerConfig};

struct Node {
    cluster: String,
    server: Weak<Server>,
}

/// The nodes' parts of one connect that wait for the others.
type Pending = Vec<(usize, Completion<ConnectOutcome>)>;
/// One node's part of a fence: the node, its blob, its completion.
type FencePart = (usize, Vec<u8>, Completion<Vec<u8>>);
/// A connect across nodes: the qualified participant set and the id.
type ConnectKey = (Vec<Proc>, Option<String>);

/// The resource manager.
#[derive(Default)]
pub struct Rm {
    nodes: Mutex<Vec<Node>>,
    /// Qualified namespace → (node, size).
    jobs: Mutex<BTreeMap<String, (usize, u32)>>,
    /// Connects waiting for other nodes, by (qualified set, connect id).
    pending: Mutex<BTreeMap<ConnectKey, Pending>>,
    /// Fences waiting for other nodes, by qualified participant set.
    fences: Mutex<BTreeMap<Vec<Proc>, Vec<FencePart>>>,
    groups: Mutex<u32>,
    /// (qualified publisher, key, value, range).
    published: Mutex<Vec<(Proc, String, Value, DataRange)>>,
    /// Events relayed: (from node, code, to node).
    pub relayed: Mutex<Vec<(usize, Status, usize)>>,
}

/// The host of one node: the RM seen from that node.
struct NodeHost {
    rm: Arc<Rm>,
    node: usize,
}

impl Rm {
    pub fn new() -> Arc<Rm> {
        Arc::new(Rm::default())
    }

    /// Starts node `cluster` (its server under `dir`, a directory the test
    /// made) and returns its index and server.
    pub fn add_node(self: &Arc<Self>, cluster: &str, dir: &Path) -> (usize, Arc<Server>) {
        let node = self.nodes.lock().unwrap().len();
        let mut cfg = ServerConfig::new(Nspace::new(format!("srv-{node}")).unwrap());
        cfg.tmpdir = dir.to_path_buf();
        cfg.max_clients = 8;
        cfg.log = std::env::var_os("PMIXRS_RM_TEST_LOG").is_some();
        let host = Arc::new(NodeHost {
            rm: Arc::clone(self),
            node,
        });
        let server = Arc::new(Server::init(cfg, host).unwrap());
        self.nodes.lock().unwrap().push(Node {
            cluster: cluster.to_owned(),
            server: Arc::downgrade(&server),
        });
        (node, server)
    }

    /// Registers job `ns` of `size` ranks, all on `node`, with the node's
    /// cluster as `PMIX_CLUSTER_ID`.
    pub fn add_job(&self, node: usize, server: &Server, ns: &str, size: u32) {
        self.add_job_with(node, server, ns, size, &[]);
    }

    /// [`add_job`](Self::add_job) with more job-level `extra` info.
    pub fn add_job_with(&self, node: usize, server: &Server, ns: &str, size: u32, extra: &[Info]) {
        let cluster = self.cluster(node);
        let mut info = vec![
            Info::new(attrs::JOB_SIZE, Value::Uint32(size)).unwrap(),
            Info::new(attrs::CLUSTER_ID, Value::String(cluster.clone())).unwrap(),
        ];
        info.extend(extra.iter().cloned());
        server
            .register_nspace(&Nspace::new(ns).unwrap(), size, &info)
            .unwrap();
        let m = std::fs::metadata("/proc/self").unwrap();
        for r in 0..size {
            server
                .register_client(&Proc::new(ns, Rank(r)).unwrap(), m.uid(), m.gid())
                .unwrap();
        }
        self.jobs
            .lock()
            .unwrap()
            .insert(format!("{cluster}:{ns}"), (node, size));
    }

    fn cluster(&self, node: usize) -> String {
        self.nodes.lock().unwrap()[node].cluster.clone()
    }

    /// `proc` as `node` names it → its qualified name.
    fn qualify(&self, node: usize, proc: &Proc) -> Proc {
        match split_multicluster(proc.nspace.as_str()) {
            (Some(_), _) => proc.clone(),
            (None, ns) => Proc::from_parts(
                multicluster_nspace(&self.cluster(node), ns).unwrap(),
                proc.rank,
            ),
        }
    }

    /// A qualified name → as `node` names it.
    fn localize(&self, node: usize, proc: &Proc) -> Proc {
        Proc::from_parts(self.localize_ns(node, proc.nspace.as_str()), proc.rank)
    }

    fn localize_ns(&self, node: usize, ns: &str) -> Nspace {
        match split_multicluster(ns) {
            (Some(c), plain) if c == self.cluster(node) => Nspace::new(plain).unwrap(),
            _ => Nspace::new(ns).unwrap(),
        }
    }

    fn connect(
        &self,
        node: usize,
        procs: &[Proc],
        info: &[Info],
        done: Completion<ConnectOutcome>,
    ) {
        let set = canonical_procs(procs.iter().map(|p| self.qualify(node, p)).collect());
        let id = pmix_core::info::find(info, attrs::CONNECT_ID)
            .and_then(|i| i.value.as_str().ok().map(str::to_owned));
        let jobs = self.jobs.lock().unwrap().clone();
        let mut needed: Vec<usize> = Vec::new();
        for p in &set {
            match jobs.get(p.nspace.as_str()) {
                Some((n, _)) if !needed.contains(n) => needed.push(*n),
                Some(_) => {}
                None => {
                    return done(Err(Error::with_context(
                        Status::ERR_NOT_FOUND,
                        format!("no job {} in this RM", p.nspace),
                    )))
                }
            }
        }
        let ready = {
            let mut pending = self.pending.lock().unwrap();
            let key = (set.clone(), id);
            let waiting = pending.entry(key.clone()).or_default();
            waiting.push((node, done));
            if needed.iter().all(|n| waiting.iter().any(|(w, _)| w == n)) {
                pending.remove(&key).unwrap()
            } else {
                return;
            }
        };
        let mut ranks = Vec::new();
        for p in &set {
            if p.rank == Rank::WILDCARD {
                let size = jobs[p.nspace.as_str()].1;
                ranks.extend((0..size).map(|r| Proc::from_parts(p.nspace.clone(), Rank(r))));
            } else {
                ranks.push(p.clone());
            }
        }
        let nspace = {
            let mut g = self.groups.lock().unwrap();
            *g += 1;
            Nspace::new(format!("rm-group-{g}")).unwrap()
        };
        for (n, done) in ready {
            let job_info = set
                .iter()
                .map(|p| {
                    let (_, size) = jobs[p.nspace.as_str()];
                    let (cluster, _) = split_multicluster(p.nspace.as_str());
                    let info = vec![
                        Info::new(attrs::JOB_SIZE, Value::Uint32(size)).unwrap(),
                        Info::new(attrs::CLUSTER_ID, cluster.unwrap_or_default()).unwrap(),
                    ];
                    (self.localize_ns(n, p.nspace.as_str()), info)
                })
                .collect();
            done(Ok(ConnectOutcome {
                nspace: Some(nspace.clone()),
                ranks: ranks.iter().map(|p| self.localize(n, p)).collect(),
                job_info,
            }));
        }
    }

    /// A fence: once every node hosting a participant's namespace gave
    /// its blob, each gets their concatenation.
    fn fence(&self, node: usize, procs: &[Proc], data: Vec<u8>, done: Completion<Vec<u8>>) {
        let set = canonical_procs(procs.iter().map(|p| self.qualify(node, p)).collect());
        let jobs = self.jobs.lock().unwrap().clone();
        let mut needed: Vec<usize> = Vec::new();
        for p in &set {
            match jobs.get(p.nspace.as_str()) {
                Some((n, _)) if !needed.contains(n) => needed.push(*n),
                Some(_) => {}
                None => {
                    return done(Err(Error::with_context(
                        Status::ERR_NOT_FOUND,
                        format!("no job {} in this RM", p.nspace),
                    )))
                }
            }
        }
        let ready = {
            let mut fences = self.fences.lock().unwrap();
            let waiting = fences.entry(set.clone()).or_default();
            waiting.push((node, data, done));
            if needed
                .iter()
                .all(|n| waiting.iter().any(|(w, _, _)| w == n))
            {
                fences.remove(&set).unwrap()
            } else {
                return;
            }
        };
        let all: Vec<u8> = ready.iter().flat_map(|(_, d, _)| d.clone()).collect();
        for (_, _, done) in ready {
            done(Ok(all.clone()));
        }
    }

    fn notify(&self, node: usize, status: Status, source: &Proc, range: DataRange, info: &[Info]) {
        let source = self.qualify(node, source);
        let targets: Vec<(usize, Arc<Server>)> = {
            let nodes = self.nodes.lock().unwrap();
            (0..nodes.len())
                .filter(|n| *n != node)
                .filter_map(|n| nodes[n].server.upgrade().map(|s| (n, s)))
                .collect()
        };
        for (n, server) in targets {
            // the custom range, in the receiving node's terms
            let info: Vec<Info> = info
                .iter()
                .map(|i| match (i.is(attrs::EVENT_CUSTOM_RANGE), &i.value) {
                    (true, Value::DataArray(a)) => {
                        let procs = a
                            .procs()
                            .unwrap()
                            .into_iter()
                            .map(|p| self.localize(n, &self.qualify(node, p)))
                            .collect();
                        Info::new(
                            attrs::EVENT_CUSTOM_RANGE,
                            Value::DataArray(Box::new(DataArray::from_procs(procs))),
                        )
                        .unwrap()
                    }
                    _ => i.clone(),
                })
                .collect();
            let src = self.localize(n, &source);
            // Recorded first: the test reads the record as soon as the
            // event has been delivered.
            self.relayed.lock().unwrap().push((node, status, n));
            server.notify(status, Some(&src), range, &info).unwrap();
        }
    }

    fn publish(&self, node: usize, proc: &Proc, info: &[Info]) -> pmix_core::Result<()> {
        let range = pmix_core::info::find(info, attrs::RANGE)
            .and_then(|i| match i.value {
                Value::DataRange(r) => Some(r),
                _ => None,
            })
            .unwrap_or(DataRange::SESSION);
        let who = self.qualify(node, proc);
        let mut published = self.published.lock().unwrap();
        for i in info.iter().filter(|i| !i.key.as_str().starts_with("pmix.")) {
            if published.iter().any(|(_, k, _, _)| k == i.key.as_str()) {
                return Err(Error::with_context(
                    Status::ERR_DUPLICATE_KEY,
                    format!("{} is published already", i.key.as_str()),
                ));
            }
            published.push((
                who.clone(),
                i.key.as_str().to_owned(),
                i.value.clone(),
                range,
            ));
        }
        Ok(())
    }

    fn lookup(&self, node: usize, keys: &[String]) -> pmix_core::Result<Vec<PData>> {
        let cluster = self.cluster(node);
        let found: Vec<PData> = self
            .published
            .lock()
            .unwrap()
            .iter()
            .filter(|(who, k, _, range)| {
                keys.contains(k)
                    && (*range == DataRange::GLOBAL
                        || split_multicluster(who.nspace.as_str()).0 == Some(cluster.as_str()))
            })
            .map(|(who, k, v, _)| PData {
                proc: self.localize(node, who),
                key: k.clone(),
                value: v.clone(),
            })
            .collect();
        if found.is_empty() {
            Err(Error::with_context(Status::ERR_NOT_FOUND, "not published"))
        } else {
            Ok(found)
        }
    }
}

impl Host for NodeHost {
    fn connect(&self, procs: &[Proc], info: &[Info], done: Completion<ConnectOutcome>) {
        self.rm.connect(self.node, procs, info, done);
    }

    fn fence_nb(&self, procs: &[Proc], _info: &[Info], data: Vec<u8>, done: Completion<Vec<u8>>) {
        self.rm.fence(self.node, procs, data, done);
    }

    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: DataRange,
        info: &[Info],
        done: Completion<()>,
    ) {
        self.rm.notify(self.node, status, source, range, info);
        done(Ok(()));
    }

    fn publish(&self, proc: &Proc, info: &[Info], done: Completion<()>) {
        done(self.rm.publish(self.node, proc, info));
    }

    fn lookup(&self, _proc: &Proc, keys: &[String], _info: &[Info], done: Completion<Vec<PData>>) {
        done(self.rm.lookup(self.node, keys));
    }
}
