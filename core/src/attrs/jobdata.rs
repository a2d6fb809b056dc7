//! Reserved keys: job-, app-, node- and process-level data the host registers
//! and clients read with `PMIx_Get` (the business-card use case), and the
//! info arrays that carry them in `register_nspace`.
//!
//! Types are the exact ones Open MPI checks on `PMIx_Get` (`CAPI.md` §6.4):
//! `pmix.lrank`/`pmix.nrank` are `PMIX_UINT16`, sizes `PMIX_UINT32`, ranks
//! `PMIX_PROC_RANK`.

attributes! {
    // Identity.
    Standard NSPACE = "pmix.nspace": STRING
        => "Namespace of a job.";
    Standard JOBID = "pmix.jobid": STRING
        => "Job identifier the scheduler assigned (ORTE writes it as `[15500,1]`).";
    Standard RANK = "pmix.rank": PROC_RANK
        => "Rank of the process within its job.";
    Standard PROCID = "pmix.procid": PROC
        => "Full identifier (nspace and rank) of a process.";
    Standard APPNUM = "pmix.appnum": UINT32
        => "Number of the application within the job the process belongs to.";
    Standard GLOBAL_RANK = "pmix.grank": PROC_RANK
        => "Rank of the process across all jobs of the session.";
    Standard APP_RANK = "pmix.apprank": PROC_RANK
        => "Rank of the process within its application.";
    Standard NPROC_OFFSET = "pmix.offset": PROC_RANK | UINT32
        => "First global rank of this job; ORTE registers it as a PMIX_UINT32.";
    Standard LOCAL_RANK = "pmix.lrank": UINT16
        => "Rank of the process among the job's processes on its node (Open MPI requires it).";
    Standard NODE_RANK = "pmix.nrank": UINT16
        => "Rank of the process among all processes on its node, every job included (Open MPI requires it).";
    Standard LOCALLDR = "pmix.lldr": PROC_RANK
        => "Lowest rank of the job on this node.";
    Standard APPLDR = "pmix.aldr": PROC_RANK
        => "Lowest rank of this application within the job.";
    Standard PROC_PID = "pmix.ppid": PID
        => "Operating-system pid of the process.";
    Standard SESSION_ID = "pmix.session.id": UINT32
        => "Identifier of the session (allocation).";
    Standard PARENT_ID = "pmix.parent": PROC
        => "The process whose PMIx_Spawn started this process's job.";
    Standard SPAWNED = "pmix.spawned": BOOL
        => "The process was started by PMIx_Spawn.";
    Standard EXIT_CODE = "pmix.exit.code": INT
        => "Exit code of a terminated process.";
    Standard PROC_TERM_STATUS = "pmix.proc.term.status": STATUS
        => "Status reported when a process terminated.";
    Standard JOB_TERM_STATUS = "pmix.job.term.status": STATUS
        => "Status reported when a job terminated (ORTE passes it with job-end events).";
    Standard PROC_STATE_STATUS = "pmix.proc.state": PROC_STATE
        => "State of a process.";

    // Sizes.
    Standard UNIV_SIZE = "pmix.univ.size": UINT32
        => "Number of slots in the session (MPI universe size).";
    Standard JOB_SIZE = "pmix.job.size": UINT32
        => "Number of processes in the job (Open MPI requires it).";
    Standard JOB_NUM_APPS = "pmix.job.napps": UINT32
        => "Number of applications in the job.";
    Standard APP_SIZE = "pmix.app.size": UINT32
        => "Number of processes in the application.";
    Standard LOCAL_SIZE = "pmix.local.size": UINT32
        => "Number of the job's processes on this node.";
    Standard NODE_SIZE = "pmix.node.size": UINT32
        => "Number of processes on this node, every job included.";
    Standard MAX_PROCS = "pmix.max.size": UINT32
        => "Most processes the job may have (Open MPI requires it).";
    Standard NUM_SLOTS = "pmix.num.slots": UINT32
        => "Number of slots allocated.";
    Standard NUM_NODES = "pmix.num.nodes": UINT32
        => "Number of nodes hosting processes of the job.";
    Standard NUM_ALLOCATED_NODES = "pmix.num.anodes": UINT32
        => "Number of nodes in the allocation, hosting processes or not.";
    Standard AVAIL_PHYS_MEMORY = "pmix.pmem": UINT64
        => "Physical memory available on the node, in bytes.";

    // Placement.
    Standard NODE_LIST = "pmix.nlist": STRING
        => "Comma-separated nodes hosting processes of the job.";
    Standard ALLOCATED_NODELIST = "pmix.alist": STRING
        => "Comma-separated nodes of the allocation, hosting processes or not.";
    Standard HOSTNAME = "pmix.hname": STRING
        => "Name of the node the process runs on.";
    Standard NODEID = "pmix.nodeid": UINT32
        => "Identifier of the node the process runs on.";
    Standard LOCAL_PEERS = "pmix.lpeers": STRING
        => "Comma-separated ranks of the job on this node (e.g. \"0,1\").";
    Standard LOCAL_PROCS = "pmix.lprocs": DATA_ARRAY
        => "Array of pmix_proc_t running on the node.";
    Standard LOCAL_CPUSETS = "pmix.lcpus": STRING
        => "Colon-separated cpusets of the job's processes on this node.";
    Standard CPUSET = "pmix.cpuset": STRING
        => "The process's binding, as a bitmap string.";
    Standard LOCALITY_STRING = "pmix.locstr": STRING
        => "Where the process is bound in the node's topology (e.g. \"SK0:L30:CR0:HT0\"); may be absent when unbound.";
    Standard NODE_OVERSUBSCRIBED = "pmix.ndosub": BOOL
        => "The job has more processes on this node than slots.";
    Standard NODE_MAP = "pmix.nmap": STRING | REGEX
        => "Nodes of the job, as PMIx_generate_regex output.";
    Standard PROC_MAP = "pmix.pmap": STRING | REGEX
        => "Ranks on each node of the job, as PMIx_generate_ppn output.";
    Deprecated LOCALITY = "pmix.loc": UINT16 | LOCTYPE
        => "Locality of a peer relative to this process; Open MPI stores and reads it as a PMIX_UINT16.";
    Deprecated TOPOLOGY_SIGNATURE = "pmix.toposig": STRING
        => "Signature of the node's hardware topology.";
    Deprecated LOCAL_TOPO = "pmix.ltopo": STRING
        => "XML of the local node's topology.";
    Deprecated HWLOC_SHMEM_FILE = "pmix.hwlocfile": STRING
        => "File holding the shared-memory copy of the hwloc topology.";
    Deprecated HWLOC_SHMEM_ADDR = "pmix.hwlocaddr": SIZE
        => "Address at which the shared-memory hwloc topology is mapped.";
    Deprecated HWLOC_SHMEM_SIZE = "pmix.hwlocsize": SIZE
        => "Size of the shared-memory hwloc topology.";
    Deprecated HWLOC_XML_V1 = "pmix.hwlocxml1": STRING
        => "Topology as hwloc v1 XML.";
    Deprecated HWLOC_XML_V2 = "pmix.hwlocxml2": STRING
        => "Topology as hwloc v2 XML.";

    // Scratch directories.
    Standard TMPDIR = "pmix.tmpdir": STRING
        => "Top-level scratch directory of the session. Open MPI launched directly removes it recursively: pmixrun and the C server API give a fresh 0700 directory of their own, never the system temp dir.";
    Standard NSDIR = "pmix.nsdir": STRING
        => "Scratch directory of the namespace, under TMPDIR. pmixrun and the C server API (when the host gives none) create a fresh 0700 one per namespace and remove it at the job's end.";
    Standard PROCDIR = "pmix.pdir": STRING
        => "Scratch directory of the process, under NSDIR.";
    Standard TDIR_RMCLEAN = "pmix.tdir.rmclean": BOOL
        => "The RM removes the scratch directories itself; pmixrun sets it, and so does the C server API when it supplied both directories.";

    // Who is asking.
    Standard USERID = "pmix.euid": UINT32
        => "Effective uid of the requester; the server adds it to publish/lookup/unpublish for ORTE.";
    Standard GRPID = "pmix.egid": UINT32
        => "Effective gid of the requester.";

    // Info arrays of register_nspace.
    Standard REGISTER_NODATA = "pmix.reg.nodata": BOOL
        => "register_nspace: register the nspace only, with no job data.";
    Standard SESSION_INFO_ARRAY = "pmix.ssn.arr": DATA_ARRAY
        => "Array of pmix_info_t of session-level data (must include PMIX_SESSION_ID).";
    Standard JOB_INFO_ARRAY = "pmix.job.arr": DATA_ARRAY
        => "Array of pmix_info_t of job-level data.";
    Standard APP_INFO_ARRAY = "pmix.app.arr": DATA_ARRAY
        => "Array of pmix_info_t of one application's data (must include PMIX_APPNUM).";
    Standard PROC_INFO_ARRAY = "pmix.pdata": DATA_ARRAY
        => "Array of pmix_info_t of one process's data, PMIX_RANK first (ORTE registers one per rank).";
    Standard NODE_INFO_ARRAY = "pmix.node.arr": DATA_ARRAY
        => "Array of pmix_info_t of one node's data (must include PMIX_NODEID or PMIX_HOSTNAME).";
}
