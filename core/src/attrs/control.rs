//! `PMIx_Job_control` directives (signals, cleanup registration),
//! `PMIx_Log` channels and I/O forwarding options.

attributes! {
    // Job control.
    Standard JOB_CTRL_ID = "pmix.jctrl.id": STRING
        => "Identifier of this job-control request.";
    Standard JOB_CTRL_KILL = "pmix.jctrl.kill": BOOL
        => "Kill the target processes and clean up.";
    Standard JOB_CTRL_TERMINATE = "pmix.jctrl.term": BOOL
        => "Ask the target processes to terminate politely.";
    Standard JOB_CTRL_SIGNAL = "pmix.jctrl.sig": INT
        => "Send this signal to the target processes.";

    // Cleanup registration (Open MPI registers its session dir and shm files).
    Standard REGISTER_CLEANUP = "pmix.reg.cleanup": STRING
        => "Comma-separated files to remove when the process terminates.";
    Standard REGISTER_CLEANUP_DIR = "pmix.reg.cleanupdir": STRING
        => "Comma-separated directories to remove when the process terminates.";
    Standard CLEANUP_RECURSIVE = "pmix.clnup.recurse": BOOL
        => "Remove the registered directories recursively.";

    // PMIx_Log.
    Standard LOG_SOURCE = "pmix.log.source": PROC
        => "Process the log request comes from.";
    Standard LOG_STDERR = "pmix.log.stderr": STRING
        => "Write the string to stderr.";
    Standard LOG_STDOUT = "pmix.log.stdout": STRING
        => "Write the string to stdout.";
    Standard LOG_SYSLOG = "pmix.log.syslog": STRING
        => "Write the string to syslog (global if available, else local).";
    Standard LOG_MSG = "pmix.log.msg": BYTE_OBJECT
        => "Message blob to log (Open MPI's MPI_Abort banner travels this way).";

    // I/O forwarding.
    Standard IOF_COMPLETE = "pmix.iof.cmp": BOOL
        => "The source closed the channel.";
    Standard IOF_PUSH_STDIN = "pmix.iof.stdin": BOOL
        => "The library reads the tool's stdin and pushes it to the targets.";
    Standard IOF_TAG_OUTPUT = "pmix.iof.tag": BOOL
        => "Tag each output line with its source and channel.";
    Standard IOF_TIMESTAMP_OUTPUT = "pmix.iof.ts": BOOL
        => "Time-stamp each output line.";
    Standard IOF_MERGE_STDERR_STDOUT = "pmix.iof.mrg": BOOL
        => "Merge the processes' stderr into stdout.";
}
