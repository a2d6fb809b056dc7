//! The job description a single-node host registers: every key of the
//! standard's job, node and proc levels that MPI reads, with the exact value
//! types Open MPI checks (`CAPI.md` §6.4: local rank `UINT16`, job size
//! `UINT32`, ranks `PROC_RANK`, …).

use pmix_core::attrs;
use pmix_core::{DataArray, Info, Nspace, Rank, Result, Value};

/// The scratch directories of a job (paths as registered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchDirs {
    /// `PMIX_TMPDIR`: the host's session directory.
    pub tmpdir: String,
    /// `PMIX_NSDIR`: the job's own directory, under `tmpdir`.
    pub nsdir: String,
}

/// A job of `size` ranks all on this node, one application.
#[derive(Clone, Debug)]
pub struct SingleNodeJob {
    /// The job's namespace.
    pub nspace: Nspace,
    /// Number of ranks.
    pub size: u32,
    /// This node's name.
    pub hostname: String,
    /// The job's scratch directories, registered as `PMIX_TMPDIR` and
    /// `PMIX_NSDIR` with `PMIX_TDIR_RMCLEAN` true: fresh directories of
    /// this job that the host removes when the job ends (see
    /// [`JobDirs`](crate::JobDirs)), never a shared directory such as
    /// `/tmp` (Open MPI removes what it is given). `None` (the default):
    /// no directory keys, the clients choose their own.
    pub dirs: Option<ScratchDirs>,
    /// Number of CPUs on the node (for the locality string).
    pub cpus: u32,
    /// The universe size (at least `size`).
    pub univ_size: u32,
}

impl SingleNodeJob {
    /// A job of `size` ranks in `nspace` on the node named `hostname`.
    pub fn new(nspace: Nspace, size: u32, hostname: impl Into<String>) -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        SingleNodeJob {
            nspace,
            size,
            hostname: hostname.into(),
            dirs: None,
            cpus,
            univ_size: size,
        }
    }

    /// The same job with scratch directories `tmpdir` (`PMIX_TMPDIR`) and
    /// `nsdir` (`PMIX_NSDIR`), which the host removes at the end of the
    /// job.
    pub fn with_dirs(mut self, tmpdir: impl Into<String>, nsdir: impl Into<String>) -> Self {
        self.dirs = Some(ScratchDirs {
            tmpdir: tmpdir.into(),
            nsdir: nsdir.into(),
        });
        self
    }

    /// The infos for [`Server::register_nspace`](crate::Server::register_nspace):
    /// job-level keys, then one `PMIX_PROC_DATA` array per rank.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` only if a key were invalid (never for the
    /// standard keys used here).
    pub fn infos(&self) -> Result<Vec<Info>> {
        let n = self.size;
        let ranks: Vec<String> = (0..n).map(|r| r.to_string()).collect();
        let peers = ranks.join(",");
        let locality = self.locality_string();
        let mut v = vec![
            Info::new(attrs::NSPACE, Value::String(self.nspace.as_str().into()))?,
            Info::new(attrs::JOBID, Value::String(self.nspace.as_str().into()))?,
            Info::new(attrs::JOB_SIZE, Value::Uint32(n))?,
            Info::new(attrs::MAX_PROCS, Value::Uint32(n))?,
            Info::new(attrs::UNIV_SIZE, Value::Uint32(self.univ_size.max(n)))?,
            Info::new(attrs::JOB_NUM_APPS, Value::Uint32(1))?,
            Info::new(attrs::APP_SIZE, Value::Uint32(n))?,
            Info::new(attrs::APPLDR, Value::Rank(Rank(0)))?,
            Info::new(attrs::NUM_NODES, Value::Uint32(1))?,
            Info::new(attrs::NODE_LIST, Value::String(self.hostname.clone()))?,
            Info::new(attrs::NODE_MAP, Value::String(self.hostname.clone()))?,
            Info::new(attrs::PROC_MAP, Value::String(peers.clone()))?,
            Info::new(attrs::NODEID, Value::Uint32(0))?,
            Info::new(attrs::NODE_SIZE, Value::Uint32(n))?,
            Info::new(attrs::LOCAL_SIZE, Value::Uint32(n))?,
            Info::new(attrs::LOCAL_PEERS, Value::String(peers))?,
            Info::new(
                attrs::LOCAL_PROCS,
                Value::DataArray(Box::new(DataArray::from_procs(
                    (0..n)
                        .map(|r| pmix_core::Proc::from_parts(self.nspace.clone(), Rank(r)))
                        .collect(),
                ))),
            )?,
            Info::new("pmix.lldr", Value::Rank(Rank(0)))?,
            Info::new(attrs::HOSTNAME, Value::String(self.hostname.clone()))?,
            // a single-node RM's cluster is its node (RFC0003's multi-cluster
            // names, `cluster:nspace`, are built from it)
            Info::new(attrs::CLUSTER_ID, Value::String(self.hostname.clone()))?,
        ];
        if let Some(d) = &self.dirs {
            v.push(Info::new(attrs::TMPDIR, Value::String(d.tmpdir.clone()))?);
            v.push(Info::new(attrs::NSDIR, Value::String(d.nsdir.clone()))?);
            v.push(Info::new(attrs::TDIR_RMCLEAN, Value::Bool(true))?);
        }
        for r in 0..n {
            let local = u16::try_from(r).unwrap_or(u16::MAX);
            let proc_data = vec![
                Info::new(attrs::RANK, Value::Rank(Rank(r)))?,
                Info::new(attrs::GLOBAL_RANK, Value::Rank(Rank(r)))?,
                Info::new(attrs::APP_RANK, Value::Rank(Rank(r)))?,
                Info::new(attrs::APPNUM, Value::Uint32(0))?,
                Info::new(attrs::LOCAL_RANK, Value::Uint16(local))?,
                Info::new(attrs::NODE_RANK, Value::Uint16(local))?,
                Info::new(attrs::NODEID, Value::Uint32(0))?,
                Info::new(attrs::HOSTNAME, Value::String(self.hostname.clone()))?,
                Info::new(attrs::LOCALITY_STRING, Value::String(locality.clone()))?,
            ];
            v.push(Info::new(
                attrs::PROC_DATA,
                Value::DataArray(Box::new(DataArray::from_infos(proc_data))),
            )?);
        }
        Ok(v)
    }

    /// An unbound process's locality: the whole node (OpenPMIx's format,
    /// `SK`/`CR`/`HT` ranges), so every pair of ranks shares everything.
    fn locality_string(&self) -> String {
        let last = self.cpus.saturating_sub(1);
        format!("SK0:L30:L20-{last}:L10-{last}:CR0-{last}:HT0-{last}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::DataType;

    fn job_level<'a>(infos: &'a [Info], key: &str) -> Option<&'a Value> {
        infos
            .iter()
            .find(|i| i.key.as_str() == key)
            .map(|i| &i.value)
    }

    #[test]
    fn directories_only_as_given() {
        let job = SingleNodeJob::new(Nspace::new("job").unwrap(), 1, "node0");
        let infos = job.infos().unwrap();
        for k in [attrs::TMPDIR, attrs::NSDIR, attrs::TDIR_RMCLEAN] {
            assert_eq!(job_level(&infos, k), None, "{k}");
        }
        let infos = job.with_dirs("/t/s", "/t/s/job").infos().unwrap();
        assert_eq!(
            job_level(&infos, attrs::TMPDIR),
            Some(&Value::String("/t/s".into()))
        );
        assert_eq!(
            job_level(&infos, attrs::NSDIR),
            Some(&Value::String("/t/s/job".into()))
        );
        assert_eq!(
            job_level(&infos, attrs::TDIR_RMCLEAN),
            Some(&Value::Bool(true))
        );
    }

    #[test]
    fn every_key_has_the_standard_type() {
        let job = SingleNodeJob::new(Nspace::new("job").unwrap(), 3, "node0")
            .with_dirs("/t/s", "/t/s/job");
        let infos = job.infos().unwrap();
        let mut per_rank = 0;
        for i in &infos {
            if i.key.as_str() == attrs::PROC_DATA {
                per_rank += 1;
                for inner in i.value.as_info_array().unwrap() {
                    let a = attrs::lookup(inner.key.as_str()).expect("standard key");
                    assert!(a.accepts(&inner.value), "{}", inner.key.as_str());
                }
            } else if let Some(a) = attrs::lookup(i.key.as_str()) {
                assert!(a.accepts(&i.value), "{}", i.key.as_str());
            }
        }
        assert_eq!(per_rank, 3);
        let lrank = infos
            .iter()
            .filter(|i| i.key.as_str() == attrs::PROC_DATA)
            .flat_map(|i| i.value.as_info_array().unwrap())
            .find(|i| i.key.as_str() == attrs::LOCAL_RANK)
            .unwrap();
        assert_eq!(lrank.value.data_type(), DataType::UINT16);
    }

    #[test]
    fn local_procs_lists_every_rank_as_procs() {
        let ns = Nspace::new("job").unwrap();
        let infos = SingleNodeJob::new(ns.clone(), 3, "node0").infos().unwrap();
        let Some(Value::DataArray(a)) = job_level(&infos, attrs::LOCAL_PROCS) else {
            panic!("no PMIX_LOCAL_PROCS");
        };
        let want: Vec<pmix_core::Proc> = (0..3)
            .map(|r| pmix_core::Proc::from_parts(ns.clone(), Rank(r)))
            .collect();
        assert_eq!(**a, DataArray::from_procs(want));
    }
}
