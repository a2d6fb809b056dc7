//! `PMIx_Resolve_peers` and `PMIx_Resolve_nodes` from the job data the
//! host registered (nothing is asked of the server): the node's local
//! peers (`PMIX_LOCAL_PEERS`), the ranks' host names (`PMIX_HOSTNAME`), the
//! job's node map (`PMIX_NODE_MAP`, a plain comma list).

use pmix_core::{attrs, Error, Info, Nspace, Proc, Rank, Result, Status, Value};

use crate::Client;

fn not_found(what: String) -> Error {
    Error::with_context(Status::ERR_NOT_FOUND, what)
}

/// A comma list as its non-empty items.
fn items(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty())
}

impl Client {
    /// An optional string of `proc`'s job data.
    fn job_string(&self, proc: &Proc, key: &str) -> Option<String> {
        let optional = Info::flag(attrs::OPTIONAL).ok()?;
        match self.get(proc, key, &[optional]) {
            Ok(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// The name of this process's node.
    fn my_node(&self) -> Option<String> {
        self.job_string(self.proc(), attrs::HOSTNAME)
            .or_else(|| std::env::var(pmix_core::proto::env::HOSTNAME).ok())
    }

    /// `PMIx_Resolve_peers`: the procs of `nspace` on `node` (`None`: this
    /// node).
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when the job data names no such proc.
    pub fn resolve_peers(&self, node: Option<&str>, nspace: &Nspace) -> Result<Vec<Proc>> {
        let job = Proc::from_parts(nspace.clone(), Rank::WILDCARD);
        let mine = self.my_node();
        let here = node.is_none() || node == mine.as_deref();
        let mut out = Vec::new();
        if here {
            if let Some(peers) = self.job_string(&job, attrs::LOCAL_PEERS) {
                for r in items(&peers) {
                    let r = r
                        .parse::<u32>()
                        .map_err(|_| Error::bad_param(format!("bad local peer {r}")))?;
                    out.push(Proc::from_parts(nspace.clone(), Rank(r)));
                }
                return Ok(out);
            }
        }
        let node = node
            .map(str::to_owned)
            .or(mine)
            .ok_or_else(|| not_found("this node's name is not known".into()))?;
        let size = match self.get(&job, attrs::JOB_SIZE, &[]) {
            Ok(v) => v.to_u64().unwrap_or(0),
            Err(_) => 0,
        };
        for r in 0..u32::try_from(size).unwrap_or(0) {
            let p = Proc::from_parts(nspace.clone(), Rank(r));
            if self.job_string(&p, attrs::HOSTNAME).as_deref() == Some(node.as_str()) {
                out.push(p);
            }
        }
        if out.is_empty() {
            return Err(not_found(format!(
                "no proc of {} on node {node}",
                nspace.as_str()
            )));
        }
        Ok(out)
    }

    /// `PMIx_Resolve_nodes`: the comma-separated names of the nodes that
    /// host procs of `nspace`.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when the job data names none.
    pub fn resolve_nodes(&self, nspace: &Nspace) -> Result<String> {
        let job = Proc::from_parts(nspace.clone(), Rank::WILDCARD);
        if let Some(map) = self.job_string(&job, attrs::NODE_MAP) {
            let names: Vec<&str> = items(&map).collect();
            if !names.is_empty() && !map.contains('[') {
                return Ok(names.join(","));
            }
        }
        let size = self
            .get(&job, attrs::JOB_SIZE, &[])
            .ok()
            .and_then(|v| v.to_u64().ok())
            .unwrap_or(0);
        let mut names: Vec<String> = Vec::new();
        for r in 0..u32::try_from(size).unwrap_or(0) {
            let p = Proc::from_parts(nspace.clone(), Rank(r));
            if let Some(h) = self.job_string(&p, attrs::HOSTNAME) {
                if !names.contains(&h) {
                    names.push(h);
                }
            }
        }
        if names.is_empty() {
            return Err(not_found(format!(
                "no node is known for {}",
                nspace.as_str()
            )));
        }
        Ok(names.join(","))
    }
}
