//! Debugger directives and `PMIx_Query_info` keys and qualifiers (the
//! debugging, MPI Sessions and cross-version use cases).
//!
//! A query key's type is the type of the value the query returns.

attributes! {
    // Debugger directives.
    Standard DEBUG_STOP_ON_EXEC = "pmix.dbg.exec": BOOL | PROC_RANK | DATA_ARRAY
        => "Stop the given rank(s) at exec and raise ready-for-debug: true for all, one rank, or an array of procs.";
    Standard DEBUG_STOP_IN_INIT = "pmix.dbg.init": BOOL | PROC_RANK | DATA_ARRAY
        => "Stop the given rank(s) in PMIx_Init and raise ready-for-debug: true for all, one rank, or an array of procs.";
    Standard DEBUG_STOP_IN_APP = "pmix.dbg.notify": BOOL | PROC_RANK | DATA_ARRAY
        => "Stop the given rank(s) at an application-chosen point and raise ready-for-debug: true, one rank, or an array.";
    Standard BREAKPOINT = "pmix.brkpnt": STRING
        => "Identifier of the breakpoint where the processes wait.";
    Standard DEBUG_TARGET = "pmix.dbg.tgt": PROC
        => "Process(es) to debug (rank wildcard: the whole nspace); passed to debugger daemons as job data.";
    Standard DEBUG_DAEMONS_PER_PROC = "pmix.dbg.dpproc": UINT16
        => "Debugger daemons to start per target process.";
    Standard DEBUG_DAEMONS_PER_NODE = "pmix.dbg.dpnd": UINT16
        => "Debugger daemons to start on each node of the target job.";
    Deprecated DEBUG_JOB = "pmix.dbg.job": STRING
        => "Nspace of the job a debugger daemon is to debug.";
    Deprecated DEBUG_JOB_DIRECTIVES = "pmix.dbg.jdirs": DATA_ARRAY
        => "Array of pmix_info_t of job-level directives for the debugger.";
    Deprecated DEBUG_APP_DIRECTIVES = "pmix.dbg.adirs": DATA_ARRAY
        => "Array of pmix_info_t of app-level directives for the debugger.";

    // Query keys.
    Standard QUERY_SUPPORTED_KEYS = "pmix.qry.keys": STRING
        => "Comma-separated keys the query function supports.";
    Standard QUERY_NAMESPACES = "pmix.qry.ns": STRING
        => "Comma-separated active nspaces.";
    Standard QUERY_NAMESPACE_INFO = "pmix.qry.nsinfo": DATA_ARRAY
        => "Per active nspace, an array with the nspace and its command line.";
    Standard QUERY_JOB_STATUS = "pmix.qry.jst": STATUS
        => "Status of the job named by a PMIX_NSPACE qualifier.";
    Standard QUERY_QUEUE_LIST = "pmix.qry.qlst": STRING
        => "Comma-separated scheduler queues.";
    Standard QUERY_QUEUE_STATUS = "pmix.qry.qst": DATA_ARRAY
        => "Name and status of each scheduler queue.";
    Standard QUERY_PROC_TABLE = "pmix.qry.ptable": DATA_ARRAY
        => "Array of pmix_proc_info_t of the job named by a PMIX_NSPACE qualifier (process acquisition).";
    Standard QUERY_LOCAL_PROC_TABLE = "pmix.qry.lptable": DATA_ARRAY
        => "Array of pmix_proc_info_t of that job's processes on the local node.";
    Standard QUERY_AUTHORIZATIONS = "pmix.qry.auths": DATA_ARRAY
        => "Operations the tool is authorised to perform.";
    Standard QUERY_SPAWN_SUPPORT = "pmix.qry.spawn": STRING
        => "Comma-separated spawn attributes supported.";
    Standard QUERY_DEBUG_SUPPORT = "pmix.qry.debug": STRING
        => "Comma-separated debugger attributes supported.";
    Standard QUERY_MEMORY_USAGE = "pmix.qry.mem": DATA_ARRAY
        => "Memory usage of the processes named by the qualifiers.";
    Standard QUERY_ALLOC_STATUS = "pmix.query.alloc": STRING
        => "Status of an allocation request.";
    Standard TIME_REMAINING = "pmix.time.remaining": UINT32
        => "Seconds left in the allocation.";
    Standard QUERY_NUM_PSETS = "pmix.qry.psetnum": SIZE
        => "Number of process sets defined.";
    Standard QUERY_PSET_NAMES = "pmix.qry.psets": STRING
        => "Comma-separated names of the process sets defined.";
    Standard QUERY_PSET_MEMBERSHIP = "pmix.qry.pmems": DATA_ARRAY
        => "Array of pmix_proc_t: members of the named process set.";
    Standard QUERY_NUM_GROUPS = "pmix.qry.pgrpnum": SIZE
        => "Number of process groups defined.";
    Standard QUERY_GROUP_NAMES = "pmix.qry.pgrp": DATA_ARRAY
        => "Array of the names of the process groups defined.";
    Standard QUERY_GROUP_MEMBERSHIP = "pmix.qry.pgrpmems": DATA_ARRAY
        => "Array of pmix_proc_t: members of the group named by a PMIX_GROUP_ID qualifier.";
    Standard QUERY_ATTRIBUTE_SUPPORT = "pmix.qry.attrs": DATA_ARRAY
        => "Per function, the attributes it supports (pmix_regattr_t arrays).";
    Standard QUERY_AVAIL_SERVERS = "pmix.qry.asrvrs": DATA_ARRAY
        => "Servers on this node the caller could connect to.";
    Standard QUERY_STABLE_ABI_VERSION = "pmix.qry.stabiver": STRING
        => "Stable ABI version the library implements.";
    Standard QUERY_PROVISIONAL_ABI_VERSION = "pmix.qry.prabiver": STRING
        => "Provisional ABI version the library implements.";
    Standard QUERY_QUALIFIERS = "pmix.qry.quals": DATA_ARRAY
        => "Result only: the qualifiers of the query that produced these results.";
    Standard QUERY_RESULTS = "pmix.qry.res": DATA_ARRAY
        => "Result only: the answers to one pmix_query_t, its qualifiers first.";

    // Attribute-support qualifiers and keys (PMIX_QUERY_ATTRIBUTE_SUPPORT).
    Standard CLIENT_FUNCTIONS = "pmix.client.fns": BOOL
        => "Attribute-support qualifier: report the client functions supported (comma-separated).";
    Standard SERVER_FUNCTIONS = "pmix.srvr.fns": BOOL
        => "Attribute-support qualifier: report the server functions supported (comma-separated).";
    Standard TOOL_FUNCTIONS = "pmix.tool.fns": BOOL
        => "Attribute-support qualifier: report the tool functions supported (comma-separated).";
    Standard HOST_FUNCTIONS = "pmix.host.fns": BOOL
        => "Attribute-support qualifier: report the host functions supported (comma-separated).";
    Standard CLIENT_ATTRIBUTES = "pmix.client.attrs": STRING
        => "Attribute-support qualifier: comma-separated client functions whose supported attributes to report.";
    Standard SERVER_ATTRIBUTES = "pmix.srvr.attrs": STRING
        => "Attribute-support qualifier: comma-separated server functions whose supported attributes to report.";
    Standard TOOL_ATTRIBUTES = "pmix.tool.attrs": STRING
        => "Attribute-support qualifier: comma-separated tool functions whose supported attributes to report.";
    Standard HOST_ATTRIBUTES = "pmix.host.attrs": STRING
        => "Attribute-support qualifier: comma-separated host functions whose supported attributes to report.";

    // Query qualifiers.
    Standard QUERY_REFRESH_CACHE = "pmix.qry.rfsh": BOOL
        => "Fetch fresh data from the server instead of the local cache.";
    Standard QUERY_LOCAL_ONLY = "pmix.qry.local": BOOL
        => "Answer from local information only.";
    Standard QUERY_REPORT_AVG = "pmix.qry.avg": BOOL
        => "Report averages.";
    Standard QUERY_REPORT_MINMAX = "pmix.qry.minmax": BOOL
        => "Report minimum and maximum.";
}
