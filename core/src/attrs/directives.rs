//! Directives common to many calls: timeouts, Get/Fence/Publish/Lookup
//! qualifiers, and the keys a server library passes its host with a
//! collective or a direct-modex request.

attributes! {
    // Any call.
    Standard TIMEOUT = "pmix.timeout": INT
        => "Seconds before the operation gives up (0: never); Open MPI passes a PMIX_INT.";

    // PMIx_Get.
    Standard OPTIONAL = "pmix.optional": BOOL
        => "Get: look only in the local store and fail fast if the key is absent; never ask the server.";
    Standard IMMEDIATE = "pmix.immediate": BOOL
        => "Get: the server answers from what it holds and does not ask the host RM.";
    Standard GET_REFRESH_CACHE = "pmix.get.refresh": BOOL
        => "Get: refresh the local copy of a remote proc's data before answering.";
    Standard DATA_SCOPE = "pmix.scope": SCOPE
        => "Get: only consider data put with this scope.";
    Standard SESSION_INFO = "pmix.ssn.info": BOOL
        => "Get qualifier: the key is session-level information.";
    Standard JOB_INFO = "pmix.job.info": BOOL
        => "Get qualifier: the key is job-level information (of the nspace named by PMIX_NSPACE/PMIX_JOBID if given).";
    Standard APP_INFO = "pmix.app.info": BOOL
        => "Get qualifier: the key is application-level information (of the app named by PMIX_APPNUM if given).";
    Standard NODE_INFO = "pmix.node.info": BOOL
        => "Get qualifier: the key is node-level information (of the node named by PMIX_NODEID/PMIX_HOSTNAME if given).";
    Standard QUALIFIED_VALUE = "pmix.qual.val": DATA_ARRAY
        => "Put: a value stored with qualifiers; first element the key-value, then the qualifiers.";

    // PMIx_Fence and other collectives.
    Standard COLLECT_DATA = "pmix.collect": BOOL
        => "Fence: gather everyone's committed data (full exchange) instead of a plain barrier.";
    Standard COLLECT_GENERATED_JOB_INFO = "pmix.collect.gen": BOOL
        => "Fence: also gather the job-level data each server generated locally.";
    Standard LOCAL_COLLECTIVE_STATUS = "pmix.loc.col.st": STATUS
        => "Server to host: status of the local part of a collective (OpenPMIx appends it to fence_nb).";
    Standard SORTED_PROC_ARRAY = "pmix.sorted.parr": BOOL
        => "Server to host: the proc array of the collective is sorted.";
    Standard REQUIRED_KEY = "pmix.req.key": STRING
        => "Direct modex: the key the requester waits for before the answer is useful.";

    // PMIx_Publish / PMIx_Lookup / PMIx_Unpublish.
    Standard PERSISTENCE = "pmix.persist": PERSIST
        => "Publish: how long the published data lives.";
    Standard WAIT = "pmix.wait": INT | BOOL
        => "Lookup: wait until that many keys are published (0: all); Open MPI sends a PMIX_BOOL true.";
    Standard ACCESS_PERMISSIONS = "pmix.aperms": DATA_ARRAY
        => "Publish: array of pmix_info_t giving who may read the published data.";
    Standard ACCESS_USERIDS = "pmix.auids": DATA_ARRAY
        => "Publish: array of effective uids allowed to read the data.";
    Standard ACCESS_GRPIDS = "pmix.agids": DATA_ARRAY
        => "Publish: array of effective gids allowed to read the data.";
    Standard WAIT_FOR_CONNECTION = "pmix.wait.conn": BOOL
        => "Block until the requested connection has been made.";
    Standard NOTIFY_COMPLETION = "pmix.notecomp": BOOL
        => "Notify the parent (or requesting tool) when the spawned job terminates.";
}
