//! Connect/disconnect (RFC0003 — PMIx_Connect/Disconnect), groups (the
//! PMIx Groups draft), process sets and clusters (`docs/SOURCES.md`).
//!
//! The six `CONNECT_*` attributes of RFC0003 never entered the standard: the
//! groups API took over their roles (`GROUP_OPTIONAL`, `GROUP_NOTIFY_TERMINATION`,
//! a group id). They keep rows of origin [`Origin::Proposed`](super::Origin::Proposed), all under the `pmix.cnct.` prefix,
//! which only `pmix.cnct.sys`, `pmix.cnct.sys.first` and `pmix.cnct.recon`
//! use in the standard.

attributes! {
    // RFC0003 connect/disconnect directives (proposed, never standardised).
    Proposed CONNECT_NOTIFY_EACH = "pmix.cnct.ntfyeach": BOOL
        => "Raise PMIX_PROC_HAS_CONNECTED / PMIX_PROC_HAS_DISCONNECTED locally as each process connects or disconnects.";
    Proposed CONNECT_NOTIFY_REQ = "pmix.cnct.ntfyreq": BOOL
        => "Send each named process a PMIX_CONNECT_REQUESTED event asking it to connect.";
    Proposed CONNECT_OPTIONAL = "pmix.cnct.opt": BOOL
        => "Participation is optional: processes that terminate without connecting are no error.";
    Proposed CONNECT_EARLY_TERM_ALLOWED = "pmix.cnct.eterm": BOOL
        => "A process may terminate without disconnecting; later collectives of the nspace adjust.";
    Proposed CONNECT_XCHG_ONLY = "pmix.cnct.xchg": BOOL
        => "Only exchange job-level data of the nspaces involved; assign no new nspace or rank.";
    Proposed CONNECT_ID = "pmix.cnct.id": STRING
        => "Caller-chosen identifier that, with the proc array, tells parallel connects apart; the same on every participant.";
    Standard CLUSTER_ID = "pmix.clid": STRING
        => "Name of the cluster the process runs on (multi-cluster nspaces are \"cluster:nspace\").";

    // Groups.
    Standard GROUP_ID = "pmix.grp.id": STRING
        => "User-chosen group identifier (distinct from any RM nspace).";
    Standard GROUP_LEADER = "pmix.grp.ldr": BOOL
        => "This process leads the group construction; returned from a leader-failed handler, it claims leadership.";
    Standard GROUP_OPTIONAL = "pmix.grp.opt": BOOL
        => "Members that terminate without joining are no error; the result is the final membership.";
    Standard GROUP_NOTIFY_TERMINATION = "pmix.grp.notterm": BOOL
        => "Tell the remaining members when one terminates without leaving, instead of failing the operation.";
    Standard GROUP_FT_COLLECTIVE = "pmix.grp.ftcoll": BOOL
        => "Collectives over the group adjust to members that left or failed.";
    Standard GROUP_MEMBERSHIP = "pmix.grp.mbrs": DATA_ARRAY
        => "Array of pmix_proc_t: the group's members, in group-rank order.";
    Standard GROUP_ASSIGN_CONTEXT_ID = "pmix.grp.actxid": BOOL
        => "Ask the host for a context id unique within the allocation.";
    Standard GROUP_CONTEXT_ID = "pmix.grp.ctxid": SIZE
        => "Context id the host assigned to the group.";
    Standard GROUP_LOCAL_ONLY = "pmix.grp.lcl": BOOL
        => "Every member is on this node; the operation needs no host.";
    Standard GROUP_ENDPT_DATA = "pmix.grp.endpt": BYTE_OBJECT
        => "Endpoint data a member contributes during construction.";
    Standard GROUP_NAMES = "pmix.pgrp.nm": DATA_ARRAY
        => "Array of the names of the groups a process belongs to.";
    Standard GROUP_INFO = "pmix.grp.info": DATA_ARRAY
        => "Array of pmix_info_t shared with every member during construction.";
    Standard GROUP_LOCAL_CID = "pmix.grp.lclid": SIZE
        => "A member's local context id for the group.";
    Standard GROUP_ADD_MEMBERS = "pmix.grp.add": DATA_ARRAY
        => "Array of pmix_proc_t to add to the group beyond the construct call's procs.";

    // Process sets.
    Standard PSET_NAME = "pmix.pset.nm": STRING
        => "Name of a newly defined process set.";
    Standard PSET_NAMES = "pmix.pset.nms": DATA_ARRAY
        => "Array of the names of the process sets a process belongs to.";
    Standard PSET_MEMBERS = "pmix.pset.mems": DATA_ARRAY
        => "Array of pmix_proc_t: members of a newly defined process set.";
}
