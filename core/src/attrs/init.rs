//! Attributes of `PMIx_Init`, `PMIx_server_init` and `PMIx_tool_init`:
//! server identity and listeners, tool connection, and the programming-model
//! declarations of hybrid applications.

attributes! {
    // PMIx_server_init.
    Standard SERVER_TOOL_SUPPORT = "pmix.srvr.tool": BOOL
        => "The host accepts tool connections (rendezvous files readable by its user only).";
    Standard SERVER_REMOTE_CONNECTIONS = "pmix.srvr.remote": BOOL
        => "Accept connections from remote tools (listen beyond loopback).";
    Standard SERVER_SYSTEM_SUPPORT = "pmix.srvr.sys": BOOL
        => "The host is the node's system-level PMIx server.";
    Standard SERVER_SESSION_SUPPORT = "pmix.srvr.sess": BOOL
        => "The host is the session-level PMIx server.";
    Standard SERVER_TMPDIR = "pmix.srvr.tmpdir": STRING
        => "Directory where the server puts client rendezvous and contact files (ORTE: its session dir).";
    Standard SYSTEM_TMPDIR = "pmix.sys.tmpdir": STRING
        => "System-wide directory where the server puts tool rendezvous files.";
    Standard SERVER_ENABLE_MONITORING = "pmix.srv.monitor": BOOL
        => "Enable the server's internal monitoring.";
    Standard SERVER_NSPACE = "pmix.srv.nspace": STRING
        => "Nspace the server itself uses (ORTE: its jobid in decimal).";
    Standard SERVER_RANK = "pmix.srv.rank": PROC_RANK | UINT32
        => "Rank the server itself uses; ORTE passes PMIX_PROC_RANK to server_init but PMIX_UINT32 in register_nspace.";
    Standard SINGLETON = "pmix.singleton": STRING
        => "\"nspace.rank\" of the singleton the server was started for.";
    Deprecated SINGLE_LISTENER = "pmix.sing.listnr": BOOL
        => "Open a single listener socket (ORTE passes it to server_init).";

    // PMIx_tool_init and tool connections.
    Standard TOOL_NSPACE = "pmix.tool.nspace": STRING
        => "Nspace the tool asks to use.";
    Standard TOOL_RANK = "pmix.tool.rank": UINT32 | PROC_RANK
        => "Rank the tool asks to use.";
    Standard SERVER_PIDINFO = "pmix.srvr.pidinfo": PID
        => "Pid of the server the tool is to connect to.";
    Standard CONNECT_TO_SYSTEM = "pmix.cnct.sys": BOOL
        => "Connect only to the node's system-level server.";
    Standard CONNECT_SYSTEM_FIRST = "pmix.cnct.sys.first": BOOL
        => "Try the system-level server first, then any other.";
    Standard SERVER_URI = "pmix.srvr.uri": STRING
        => "URI of the server to connect to.";
    Standard MYSERVER_URI = "pmix.mysrvr.uri": STRING
        => "URI of this process's own listener.";
    Standard SERVER_HOSTNAME = "pmix.srvr.host": STRING
        => "Node where the server to connect to runs.";
    Standard TOOL_DO_NOT_CONNECT = "pmix.tool.nocon": BOOL
        => "Initialise the tool library without connecting to any server.";
    Standard TOOL_CONNECT_OPTIONAL = "pmix.tool.conopt": BOOL
        => "Connect if a server is found, else run unconnected.";
    Standard LAUNCHER = "pmix.tool.launcher": BOOL
        => "The tool is a launcher and needs rendezvous files of its own.";
    Standard LAUNCHER_RENDEZVOUS_FILE = "pmix.tool.lncrnd": STRING
        => "File where a launcher writes its contact information.";
    Standard TOOL_ATTACHMENT_FILE = "pmix.tool.attach": STRING
        => "File holding the contact information to attach with.";
    Standard VERSION_INFO = "pmix.version": STRING
        => "PMIx version of the connecting process.";
    Standard REQUESTOR_IS_TOOL = "pmix.req.tool": BOOL
        => "The requesting process is a tool.";
    Standard REQUESTOR_IS_CLIENT = "pmix.req.client": BOOL
        => "The requesting process is a client.";

    // Programming-model declarations (hybrid use case, given to PMIx_Init).
    Standard PROGRAMMING_MODEL = "pmix.pgm.model": STRING
        => "Programming model being initialised (e.g. \"MPI\", \"OpenMP\").";
    Standard MODEL_LIBRARY_NAME = "pmix.mdl.name": STRING
        => "Implementation of the model (e.g. \"OpenMPI\").";
    Standard MODEL_LIBRARY_VERSION = "pmix.mld.vrs": STRING
        => "Version string of that implementation.";
    Standard THREADING_MODEL = "pmix.threads": STRING
        => "Threading model in use (e.g. \"pthreads\"; Open MPI sends \"NONE\" or \"PTHREAD\").";
    Standard MODEL_NUM_THREADS = "pmix.mdl.nthrds": UINT64
        => "Number of threads the model is using.";
    Standard MODEL_NUM_CPUS = "pmix.mdl.ncpu": UINT64
        => "Number of cpus the model is using.";
    Standard MODEL_CPU_TYPE = "pmix.mdl.cputype": STRING
        => "Granularity of those cpus (\"hwthread\", \"core\", ...).";
    Standard MODEL_PHASE_NAME = "pmix.mdl.phase": STRING
        => "User name of the application phase being entered.";
    Standard MODEL_PHASE_TYPE = "pmix.mdl.ptype": STRING
        => "Kind of phase being executed (e.g. \"matrix multiply\").";
    Standard MODEL_AFFINITY_POLICY = "pmix.mdl.tap": STRING
        => "Thread affinity policy (\"master\", \"close\", \"spread\").";
    Standard RM_NAME = "pmix.rm.name": STRING
        => "Name of the resource manager.";
    Standard RM_VERSION = "pmix.rm.version": STRING
        => "Version of the resource manager.";
}
