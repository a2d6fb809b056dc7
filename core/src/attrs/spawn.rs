//! `PMIx_Spawn` directives (job-level or per application), environment
//! variable directives, and `PMIx_server_setup_application` selectors.

attributes! {
    // Placement and launch.
    Standard PERSONALITY = "pmix.pers": STRING
        => "Personality (runtime flavour) to launch with; Open MPI's spawn passes \"ompi\".";
    Standard HOST = "pmix.host": STRING
        => "Comma-separated hosts to place the spawned processes on.";
    Standard HOSTFILE = "pmix.hostfile": STRING
        => "Hostfile to place the spawned processes with.";
    Standard PREFIX = "pmix.prefix": STRING
        => "Installation prefix the spawned application uses on remote nodes.";
    Standard WDIR = "pmix.wdir": STRING
        => "Working directory of the spawned processes.";
    Standard MAPBY = "pmix.mapby": STRING
        => "Mapping policy (also registered by ORTE as job data).";
    Standard RANKBY = "pmix.rankby": STRING
        => "Ranking policy.";
    Standard BINDTO = "pmix.bindto": STRING
        => "Binding policy.";
    Standard PPR = "pmix.ppr": STRING
        => "Processes per resource to start (e.g. \"2:node\").";
    Standard CPUS_PER_PROC = "pmix.cpuperproc": UINT32
        => "Number of cpus to give each process.";
    Standard NO_OVERSUBSCRIBE = "pmix.noover": BOOL
        => "Never put more processes than cpus on a node.";
    Standard DISPLAY_MAP = "pmix.dispmap": BOOL
        => "Print the placement map when spawning.";
    Standard COSPAWN_APP = "pmix.cospawn": BOOL
        => "Start this app as a separate job, not part of the others' comm world.";
    Standard SPAWN_TOOL = "pmix.spwn.tool": BOOL
        => "The job being spawned is a tool.";
    Standard DEBUGGER_DAEMONS = "pmix.debugger": BOOL
        => "The app being spawned consists of debugger daemons.";
    Standard CMD_LINE = "pmix.cmd.line": STRING
        => "Command line running in the nspace.";
    Standard LAUNCH_DIRECTIVES = "pmix.lnch.dirs": DATA_ARRAY
        => "Array of pmix_info_t of directives for the launcher, fetched with one PMIx_Get.";

    // Lifetime and notifications.
    Standard JOB_RECOVERABLE = "pmix.recover": BOOL
        => "The application can recover from failed processes.";
    Standard MAX_RESTARTS = "pmix.maxrestarts": UINT32
        => "Most times a process may be restarted.";
    Standard JOB_TIMEOUT = "pmix.job.time": INT
        => "Seconds before the job is killed (0: never).";
    Standard SPAWN_TIMEOUT = "pmix.sp.time": INT
        => "Seconds before the spawn operation itself times out (0: never).";
    Standard NOTIFY_JOB_EVENTS = "pmix.note.jev": BOOL
        => "Launcher raises job-start, launch-complete and job-end events.";
    Standard NOTIFY_PROC_TERMINATION = "pmix.noteproc": BOOL
        => "Launcher raises an event whenever a process terminates.";
    Standard NOTIFY_PROC_ABNORMAL_TERMINATION = "pmix.noteabproc": BOOL
        => "Launcher raises an event when a process terminates abnormally.";

    // Output forwarding requested at spawn.
    Standard FWD_STDIN = "pmix.fwd.stdin": BOOL
        => "Forward this process's stdin to the spawned processes.";
    Standard FWD_STDOUT = "pmix.fwd.stdout": BOOL
        => "Forward the spawned processes' stdout to this process.";
    Standard FWD_STDERR = "pmix.fwd.stderr": BOOL
        => "Forward the spawned processes' stderr to this process.";
    Standard FWD_STDDIAG = "pmix.fwd.stddiag": BOOL
        => "Forward the spawned processes' diagnostic channel, if any, to this process.";
    Standard STDIN_TGT = "pmix.stdin": PROC
        => "Process receiving forwarded stdin (rank wildcard: all of the nspace).";

    // Environment variable directives.
    Standard SET_ENVAR = "pmix.envar.set": ENVAR
        => "Set the variable, overwriting any value.";
    Standard ADD_ENVAR = "pmix.envar.add": ENVAR
        => "Set the variable unless it is already set.";
    Standard UNSET_ENVAR = "pmix.envar.unset": STRING
        => "Remove the named variable if set.";
    Standard PREPEND_ENVAR = "pmix.envar.prepnd": ENVAR
        => "Prepend the value to the variable with its separator, creating it if needed.";
    Standard APPEND_ENVAR = "pmix.envar.appnd": ENVAR
        => "Append the value to the variable with its separator, creating it if needed.";
    Standard FIRST_ENVAR = "pmix.envar.first": ENVAR
        => "Make the value the first element of the variable, creating it if needed.";
    Standard ENVARS_HARVESTED = "pmix.evar.hvstd": BOOL
        => "The spawn requester already harvested the relevant variables.";

    // PMIx_server_setup_application.
    Standard SETUP_APP_ENVARS = "pmix.setup.env": BOOL
        => "Setup data: harvest the relevant environment variables.";
    Standard SETUP_APP_NONENVARS = "pmix.setup.nenv": BOOL
        => "Setup data: include everything that is not an environment variable.";
    Standard SETUP_APP_ALL = "pmix.setup.all": BOOL
        => "Setup data: include everything relevant.";
}
