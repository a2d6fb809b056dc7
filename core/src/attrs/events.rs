//! Event handler registration, ordering and notification attributes (the
//! event RFC, the event design and the standard's event chapter).

attributes! {
    // Handler identity and ordering (event RFC: many handlers per code).
    Standard EVENT_HDLR_NAME = "pmix.evname": STRING
        => "Name of the handler being registered; names are unique and let later registrations order themselves against it.";
    Standard EVENT_HDLR_FIRST = "pmix.evfirst": BOOL
        => "Run this handler before every other handler, whatever its category; only one handler may ask.";
    Standard EVENT_HDLR_LAST = "pmix.evlast": BOOL
        => "Run this handler after every other handler, whatever its category; only one handler may ask.";
    Standard EVENT_HDLR_FIRST_IN_CATEGORY = "pmix.evfirstcat": BOOL
        => "Run this handler before the others of its category (single-code, multi-code or default).";
    Standard EVENT_HDLR_LAST_IN_CATEGORY = "pmix.evlastcat": BOOL
        => "Run this handler after the others of its category (single-code, multi-code or default).";
    Standard EVENT_HDLR_BEFORE = "pmix.evbefore": STRING
        => "Place this handler immediately before the named handler of the same category.";
    Standard EVENT_HDLR_AFTER = "pmix.evafter": STRING
        => "Place this handler immediately after the named handler of the same category.";
    Standard EVENT_HDLR_PREPEND = "pmix.evprepend": BOOL
        => "Put this handler at the front of its category (the default order; Open MPI passes it as a bare flag).";
    Standard EVENT_HDLR_APPEND = "pmix.evappend": BOOL
        => "Put this handler at the end of its category, ahead of any last-in-category handler.";
    Standard EVENT_ONESHOT = "pmix.evone": BOOL
        => "Deregister this handler automatically after its first invocation.";

    // Where events come from and go to.
    Standard EVENT_CUSTOM_RANGE = "pmix.evrange": DATA_ARRAY | PROC
        => "Procs an event reaches (or a registration accepts) under PMIX_RANGE_CUSTOM; ORTE sends a single PMIX_PROC.";
    Standard EVENT_AFFECTED_PROC = "pmix.evproc": PROC
        => "The one process the event concerns (e.g. the proc that aborted).";
    Standard EVENT_AFFECTED_PROCS = "pmix.evaffected": DATA_ARRAY
        => "Array of pmix_proc_t the event concerns.";
    Standard EVENT_NON_DEFAULT = "pmix.evnondef": BOOL
        => "Do not deliver this event to default (no-code) handlers.";
    Standard EVENT_RETURN_OBJECT = "pmix.evobject": POINTER
        => "Opaque object handed back to the registering process whenever its handler runs.";
    Standard EVENT_DO_NOT_CACHE = "pmix.evnocache": BOOL
        => "The server must not keep this event in its cache for late registrants.";
    Standard EVENT_SILENT_TERMINATION = "pmix.evsilentterm": BOOL
        => "Raise no event when this job terminates normally.";
    Standard EVENT_PROXY = "pmix.evproxy": PROC
        => "The PMIx server that relayed the event.";
    Standard EVENT_TEXT_MESSAGE = "pmix.evtext": STRING
        => "Human-readable text describing the event, for the recipient to print.";
    Standard EVENT_TIMESTAMP = "pmix.evtstamp": TIME
        => "System time at which the event occurred.";
    Standard RANGE = "pmix.range": DATA_RANGE
        => "Range of a publish/lookup/unpublish, of a registration's source filter, or of a notification.";

    // What the resource manager intends to do (fault tolerance).
    Standard EVENT_TERMINATE_SESSION = "pmix.evterm.sess": BOOL
        => "The RM intends to terminate the whole session.";
    Standard EVENT_TERMINATE_JOB = "pmix.evterm.job": BOOL
        => "The RM intends to terminate this job.";
    Standard EVENT_TERMINATE_NODE = "pmix.evterm.node": BOOL
        => "The RM intends to terminate every process on this node.";
    Standard EVENT_TERMINATE_PROC = "pmix.evterm.proc": BOOL
        => "The RM intends to terminate only this process.";
    Standard EVENT_ACTION_TIMEOUT = "pmix.evtimeout": INT
        => "Seconds before the RM carries out its response to the event.";

    // Handler results (event RFC).
    Deprecated EVENT_NO_TERMINATION = "pmix.evnoterm": BOOL
        => "Result: this handler resolved the event and sees no need to terminate; later handlers may override it.";
    Deprecated EVENT_WANT_TERMINATION = "pmix.evterm": BOOL
        => "Result: this handler wants the application terminated; binding on later handlers when marked PMIX_INFO_REQD.";

    // Progress engine.
    Deprecated EVENT_BASE = "pmix.evbase": POINTER
        => "Event base the library should use instead of creating its own progress thread.";
    Standard EXTERNAL_PROGRESS = "pmix.evext": BOOL
        => "The host progresses the library itself by calling PMIx_Progress.";

    // Job vs environment events (the event design). Open MPI 4.1's OPAL layer
    // still defines these two strings (`OPAL_PMIX_EVENT_JOB_LEVEL` and
    // `OPAL_PMIX_EVENT_ENVIRO_LEVEL` in `opal/mca/pmix/pmix_types.h`), so they
    // are reused rather than invented.
    Proposed EVENT_JOB_LEVEL = "pmix.evjob": BOOL
        => "Registration wants only job-specific events (those targeting procs of a job); the string is PMIx 2's, kept by OPAL.";
    Proposed EVENT_ENVIRO_LEVEL = "pmix.evenv": BOOL
        => "Registration wants environment events (ECC, temperature...) that target no job; the string is PMIx 2's, kept by OPAL.";
    Proposed SERVER_CACHE_SIZE = "pmix.srvr.evcache": UINT32
        => "Server_init directive: number of events the server's replay ring holds (512 by default); the design calls it PMIx_server_cache_size.";
}
