//! PMIx status codes and the crate-wide error type.
//!
//! [`Status`] is a newtype over the C `pmix_status_t` (an `int`) so the C ABI
//! is a cast, not a table. Every code of the OpenPMIx 4.2 headers is here at
//! its standard numeric value, plus the two names the Event Notification
//! design uses that the headers never defined (as aliases of the standard code with that meaning).
//!
//! # References
//! PMIx Standard v4, chapter "Data Structures and Types", *Constants*.

use std::fmt;

/// A PMIx status code (`pmix_status_t`).
///
/// `Status::SUCCESS` is 0; errors and event codes are negative. Values from
/// other processes are kept as they are, so an unknown code is representable
/// and prints as `PMIX_STATUS(<n>)`.
///
/// # Examples
/// ```
/// use pmix_core::Status;
/// assert_eq!(Status::ERR_NOT_FOUND.0, -46);
/// assert_eq!(Status::ERR_NOT_FOUND.to_string(), "PMIX_ERR_NOT_FOUND");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(transparent)]
#[doc(alias = "pmix_status_t")]
pub struct Status(pub i32);

impl Status {
    /// `PMIX_SUCCESS` (0).
    pub const SUCCESS: Status = Status(0);
    /// `PMIX_ERROR` (-1).
    pub const ERROR: Status = Status(-1);
    /// `PMIX_ERR_PROC_RESTART` (-4).
    pub const ERR_PROC_RESTART: Status = Status(-4);
    /// `PMIX_ERR_PROC_CHECKPOINT` (-5).
    pub const ERR_PROC_CHECKPOINT: Status = Status(-5);
    /// `PMIX_ERR_PROC_MIGRATE` (-6).
    pub const ERR_PROC_MIGRATE: Status = Status(-6);
    /// `PMIX_ERR_EXISTS` (-11).
    pub const ERR_EXISTS: Status = Status(-11);
    /// `PMIX_ERR_INVALID_CRED` (-12).
    pub const ERR_INVALID_CRED: Status = Status(-12);
    /// `PMIX_ERR_WOULD_BLOCK` (-15).
    pub const ERR_WOULD_BLOCK: Status = Status(-15);
    /// `PMIX_ERR_UNKNOWN_DATA_TYPE` (-16).
    pub const ERR_UNKNOWN_DATA_TYPE: Status = Status(-16);
    /// `PMIX_ERR_TYPE_MISMATCH` (-18).
    pub const ERR_TYPE_MISMATCH: Status = Status(-18);
    /// `PMIX_ERR_UNPACK_INADEQUATE_SPACE` (-19).
    pub const ERR_UNPACK_INADEQUATE_SPACE: Status = Status(-19);
    /// `PMIX_ERR_UNPACK_FAILURE` (-20).
    pub const ERR_UNPACK_FAILURE: Status = Status(-20);
    /// `PMIX_ERR_PACK_FAILURE` (-21).
    pub const ERR_PACK_FAILURE: Status = Status(-21);
    /// `PMIX_ERR_NO_PERMISSIONS` (-23).
    pub const ERR_NO_PERMISSIONS: Status = Status(-23);
    /// `PMIX_ERR_TIMEOUT` (-24).
    pub const ERR_TIMEOUT: Status = Status(-24);
    /// `PMIX_ERR_UNREACH` (-25).
    pub const ERR_UNREACH: Status = Status(-25);
    /// `PMIX_ERR_BAD_PARAM` (-27).
    pub const ERR_BAD_PARAM: Status = Status(-27);
    /// `PMIX_ERR_RESOURCE_BUSY` (-28).
    pub const ERR_RESOURCE_BUSY: Status = Status(-28);
    /// `PMIX_ERR_OUT_OF_RESOURCE` (-29).
    pub const ERR_OUT_OF_RESOURCE: Status = Status(-29);
    /// `PMIX_ERR_INIT` (-31).
    pub const ERR_INIT: Status = Status(-31);
    /// `PMIX_ERR_NOMEM` (-32).
    pub const ERR_NOMEM: Status = Status(-32);
    /// `PMIX_ERR_NOT_FOUND` (-46).
    pub const ERR_NOT_FOUND: Status = Status(-46);
    /// `PMIX_ERR_NOT_SUPPORTED` (-47).
    pub const ERR_NOT_SUPPORTED: Status = Status(-47);
    /// `PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED` (-59).
    pub const ERR_PARAM_VALUE_NOT_SUPPORTED: Status = Status(-59);
    /// `PMIX_ERR_COMM_FAILURE` (-49).
    pub const ERR_COMM_FAILURE: Status = Status(-49);
    /// `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER` (-50).
    pub const ERR_UNPACK_READ_PAST_END_OF_BUFFER: Status = Status(-50);
    /// `PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES` (-51).
    pub const ERR_CONFLICTING_CLEANUP_DIRECTIVES: Status = Status(-51);
    /// `PMIX_ERR_PARTIAL_SUCCESS` (-52).
    pub const ERR_PARTIAL_SUCCESS: Status = Status(-52);
    /// `PMIX_ERR_DUPLICATE_KEY` (-53).
    pub const ERR_DUPLICATE_KEY: Status = Status(-53);
    /// `PMIX_ERR_EMPTY` (-60).
    pub const ERR_EMPTY: Status = Status(-60);
    /// `PMIX_ERR_LOST_CONNECTION` (-61).
    pub const ERR_LOST_CONNECTION: Status = Status(-61);
    /// `PMIX_ERR_EXISTS_OUTSIDE_SCOPE` (-62).
    pub const ERR_EXISTS_OUTSIDE_SCOPE: Status = Status(-62);
    /// `PMIX_PROCESS_SET_DEFINE` (-55).
    pub const PROCESS_SET_DEFINE: Status = Status(-55);
    /// `PMIX_PROCESS_SET_DELETE` (-56).
    pub const PROCESS_SET_DELETE: Status = Status(-56);
    /// `PMIX_DEBUGGER_RELEASE` (-3).
    pub const DEBUGGER_RELEASE: Status = Status(-3);
    /// `PMIX_READY_FOR_DEBUG` (-58).
    pub const READY_FOR_DEBUG: Status = Status(-58);
    /// `PMIX_QUERY_PARTIAL_SUCCESS` (-104).
    pub const QUERY_PARTIAL_SUCCESS: Status = Status(-104);
    /// `PMIX_JCTRL_CHECKPOINT` (-106).
    pub const JCTRL_CHECKPOINT: Status = Status(-106);
    /// `PMIX_JCTRL_CHECKPOINT_COMPLETE` (-107).
    pub const JCTRL_CHECKPOINT_COMPLETE: Status = Status(-107);
    /// `PMIX_JCTRL_PREEMPT_ALERT` (-108).
    pub const JCTRL_PREEMPT_ALERT: Status = Status(-108);
    /// `PMIX_MONITOR_HEARTBEAT_ALERT` (-109).
    pub const MONITOR_HEARTBEAT_ALERT: Status = Status(-109);
    /// `PMIX_MONITOR_FILE_ALERT` (-110).
    pub const MONITOR_FILE_ALERT: Status = Status(-110);
    /// `PMIX_PROC_TERMINATED` (-111).
    pub const PROC_TERMINATED: Status = Status(-111);
    /// `PMIX_ERR_EVENT_REGISTRATION` (-144).
    pub const ERR_EVENT_REGISTRATION: Status = Status(-144);
    /// `PMIX_MODEL_DECLARED` (-147).
    pub const MODEL_DECLARED: Status = Status(-147);
    /// `PMIX_MODEL_RESOURCES` (-151).
    pub const MODEL_RESOURCES: Status = Status(-151);
    /// `PMIX_OPENMP_PARALLEL_ENTERED` (-152).
    pub const OPENMP_PARALLEL_ENTERED: Status = Status(-152);
    /// `PMIX_OPENMP_PARALLEL_EXITED` (-153).
    pub const OPENMP_PARALLEL_EXITED: Status = Status(-153);
    /// `PMIX_LAUNCHER_READY` (-155).
    pub const LAUNCHER_READY: Status = Status(-155);
    /// `PMIX_OPERATION_IN_PROGRESS` (-156).
    pub const OPERATION_IN_PROGRESS: Status = Status(-156);
    /// `PMIX_OPERATION_SUCCEEDED` (-157).
    pub const OPERATION_SUCCEEDED: Status = Status(-157);
    /// `PMIX_ERR_INVALID_OPERATION` (-158).
    pub const ERR_INVALID_OPERATION: Status = Status(-158);
    /// `PMIX_GROUP_INVITED` (-159).
    pub const GROUP_INVITED: Status = Status(-159);
    /// `PMIX_GROUP_LEFT` (-160).
    pub const GROUP_LEFT: Status = Status(-160);
    /// `PMIX_GROUP_INVITE_ACCEPTED` (-161).
    pub const GROUP_INVITE_ACCEPTED: Status = Status(-161);
    /// `PMIX_GROUP_INVITE_DECLINED` (-162).
    pub const GROUP_INVITE_DECLINED: Status = Status(-162);
    /// `PMIX_GROUP_INVITE_FAILED` (-163).
    pub const GROUP_INVITE_FAILED: Status = Status(-163);
    /// `PMIX_GROUP_MEMBERSHIP_UPDATE` (-164).
    pub const GROUP_MEMBERSHIP_UPDATE: Status = Status(-164);
    /// `PMIX_GROUP_CONSTRUCT_ABORT` (-165).
    pub const GROUP_CONSTRUCT_ABORT: Status = Status(-165);
    /// `PMIX_GROUP_CONSTRUCT_COMPLETE` (-166).
    pub const GROUP_CONSTRUCT_COMPLETE: Status = Status(-166);
    /// `PMIX_GROUP_LEADER_SELECTED` (-167).
    pub const GROUP_LEADER_SELECTED: Status = Status(-167);
    /// `PMIX_GROUP_LEADER_FAILED` (-168).
    pub const GROUP_LEADER_FAILED: Status = Status(-168);
    /// `PMIX_GROUP_CONTEXT_ID_ASSIGNED` (-169).
    pub const GROUP_CONTEXT_ID_ASSIGNED: Status = Status(-169);
    /// `PMIX_GROUP_MEMBER_FAILED` (-170).
    pub const GROUP_MEMBER_FAILED: Status = Status(-170);
    /// `PMIX_ERR_REPEAT_ATTR_REGISTRATION` (-171).
    pub const ERR_REPEAT_ATTR_REGISTRATION: Status = Status(-171);
    /// `PMIX_ERR_IOF_FAILURE` (-172).
    pub const ERR_IOF_FAILURE: Status = Status(-172);
    /// `PMIX_ERR_IOF_COMPLETE` (-173).
    pub const ERR_IOF_COMPLETE: Status = Status(-173);
    /// `PMIX_LAUNCH_COMPLETE` (-174).
    pub const LAUNCH_COMPLETE: Status = Status(-174);
    /// `PMIX_FABRIC_UPDATED` (-175).
    pub const FABRIC_UPDATED: Status = Status(-175);
    /// `PMIX_FABRIC_UPDATE_PENDING` (-176).
    pub const FABRIC_UPDATE_PENDING: Status = Status(-176);
    /// `PMIX_FABRIC_UPDATE_ENDPOINTS` (-113).
    pub const FABRIC_UPDATE_ENDPOINTS: Status = Status(-113);
    /// `PMIX_ERR_JOB_APP_NOT_EXECUTABLE` (-177).
    pub const ERR_JOB_APP_NOT_EXECUTABLE: Status = Status(-177);
    /// `PMIX_ERR_JOB_NO_EXE_SPECIFIED` (-178).
    pub const ERR_JOB_NO_EXE_SPECIFIED: Status = Status(-178);
    /// `PMIX_ERR_JOB_FAILED_TO_MAP` (-179).
    pub const ERR_JOB_FAILED_TO_MAP: Status = Status(-179);
    /// `PMIX_ERR_JOB_CANCELED` (-180).
    pub const ERR_JOB_CANCELED: Status = Status(-180);
    /// `PMIX_ERR_JOB_FAILED_TO_LAUNCH` (-181).
    pub const ERR_JOB_FAILED_TO_LAUNCH: Status = Status(-181);
    /// `PMIX_ERR_JOB_ABORTED` (-182).
    pub const ERR_JOB_ABORTED: Status = Status(-182);
    /// `PMIX_ERR_JOB_KILLED_BY_CMD` (-183).
    pub const ERR_JOB_KILLED_BY_CMD: Status = Status(-183);
    /// `PMIX_ERR_JOB_ABORTED_BY_SIG` (-184).
    pub const ERR_JOB_ABORTED_BY_SIG: Status = Status(-184);
    /// `PMIX_ERR_JOB_TERM_WO_SYNC` (-185).
    pub const ERR_JOB_TERM_WO_SYNC: Status = Status(-185);
    /// `PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED` (-186).
    pub const ERR_JOB_SENSOR_BOUND_EXCEEDED: Status = Status(-186);
    /// `PMIX_ERR_JOB_NON_ZERO_TERM` (-187).
    pub const ERR_JOB_NON_ZERO_TERM: Status = Status(-187);
    /// `PMIX_ERR_JOB_ALLOC_FAILED` (-188).
    pub const ERR_JOB_ALLOC_FAILED: Status = Status(-188);
    /// `PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT` (-189).
    pub const ERR_JOB_ABORTED_BY_SYS_EVENT: Status = Status(-189);
    /// `PMIX_ERR_JOB_EXE_NOT_FOUND` (-190).
    pub const ERR_JOB_EXE_NOT_FOUND: Status = Status(-190);
    /// `PMIX_ERR_JOB_WDIR_NOT_FOUND` (-233).
    pub const ERR_JOB_WDIR_NOT_FOUND: Status = Status(-233);
    /// `PMIX_ERR_JOB_INSUFFICIENT_RESOURCES` (-234).
    pub const ERR_JOB_INSUFFICIENT_RESOURCES: Status = Status(-234);
    /// `PMIX_ERR_JOB_SYS_OP_FAILED` (-235).
    pub const ERR_JOB_SYS_OP_FAILED: Status = Status(-235);
    /// `PMIX_EVENT_JOB_START` (-191).
    pub const EVENT_JOB_START: Status = Status(-191);
    /// `PMIX_EVENT_JOB_END` (-145).
    pub const EVENT_JOB_END: Status = Status(-145);
    /// `PMIX_EVENT_SESSION_START` (-192).
    pub const EVENT_SESSION_START: Status = Status(-192);
    /// `PMIX_EVENT_SESSION_END` (-193).
    pub const EVENT_SESSION_END: Status = Status(-193);
    /// `PMIX_ERR_PROC_REQUESTED_ABORT` (-8).
    pub const ERR_PROC_REQUESTED_ABORT: Status = Status(-8);
    /// `PMIX_ERR_PROC_TERM_WO_SYNC` (-200).
    pub const ERR_PROC_TERM_WO_SYNC: Status = Status(-200);
    /// `PMIX_EVENT_PROC_TERMINATED` (-201).
    pub const EVENT_PROC_TERMINATED: Status = Status(-201);
    /// `PMIX_ERR_PROC_KILLED_BY_CMD` (-400).
    pub const ERR_PROC_KILLED_BY_CMD: Status = Status(-400);
    /// `PMIX_ERR_PROC_FAILED_TO_START` (-401).
    pub const ERR_PROC_FAILED_TO_START: Status = Status(-401);
    /// `PMIX_ERR_PROC_ABORTED_BY_SIG` (-402).
    pub const ERR_PROC_ABORTED_BY_SIG: Status = Status(-402);
    /// `PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED` (-403).
    pub const ERR_PROC_SENSOR_BOUND_EXCEEDED: Status = Status(-403);
    /// `PMIX_ERR_EXIT_NONZERO_TERM` (-404).
    pub const ERR_EXIT_NONZERO_TERM: Status = Status(-404);
    /// `PMIX_EVENT_SYS_BASE` (-230).
    pub const EVENT_SYS_BASE: Status = Status(-230);
    /// `PMIX_EVENT_NODE_DOWN` (-231).
    pub const EVENT_NODE_DOWN: Status = Status(-231);
    /// `PMIX_EVENT_NODE_OFFLINE` (-232).
    pub const EVENT_NODE_OFFLINE: Status = Status(-232);
    /// `PMIX_EVENT_SYS_OTHER` (-330).
    pub const EVENT_SYS_OTHER: Status = Status(-330);
    /// `PMIX_EVENT_NO_ACTION_TAKEN` (-331).
    pub const EVENT_NO_ACTION_TAKEN: Status = Status(-331);
    /// `PMIX_EVENT_PARTIAL_ACTION_TAKEN` (-332).
    pub const EVENT_PARTIAL_ACTION_TAKEN: Status = Status(-332);
    /// `PMIX_EVENT_ACTION_DEFERRED` (-333).
    pub const EVENT_ACTION_DEFERRED: Status = Status(-333);
    /// `PMIX_EVENT_ACTION_COMPLETE` (-334).
    pub const EVENT_ACTION_COMPLETE: Status = Status(-334);
    /// `PMIX_EXTERNAL_ERR_BASE` (-3000).
    pub const EXTERNAL_ERR_BASE: Status = Status(-3000);
    /// pmix-rs (no standard code): the caller is not a member of the
    /// operation it asked for (a connect whose procs do not include it, a
    /// disconnect from a group it is not in). Below every OpenPMIx 4.2 code,
    /// above `PMIX_EXTERNAL_ERR_BASE`.
    pub const ERR_NOT_A_MEMBER: Status = Status(-2900);
    /// pmix-rs (RFC0003's `PMIX_PROC_HAS_DISCONNECTED`, which has no code in
    /// OpenPMIx 4.2): a member disconnected from a connected group.
    pub const PROC_HAS_DISCONNECTED: Status = Status(-2901);
    /// `PMIX_ERR_SILENT` (-2); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_SILENT: Status = Status(-2);
    /// `PMIX_ERR_DEBUGGER_RELEASE` (-3); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_DEBUGGER_RELEASE: Status = Status(-3);
    /// `PMIX_ERR_PROC_ABORTED` (-7); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_PROC_ABORTED: Status = Status(-7);
    /// `PMIX_ERR_PROC_ABORTING` (-9); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_PROC_ABORTING: Status = Status(-9);
    /// `PMIX_ERR_SERVER_FAILED_REQUEST` (-10); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_SERVER_FAILED_REQUEST: Status = Status(-10);
    /// `PMIX_EXISTS` (-11); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const EXISTS: Status = Status(-11);
    /// `PMIX_ERR_HANDSHAKE_FAILED` (-13); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_HANDSHAKE_FAILED: Status = Status(-13);
    /// `PMIX_ERR_READY_FOR_HANDSHAKE` (-14); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_READY_FOR_HANDSHAKE: Status = Status(-14);
    /// `PMIX_ERR_PROC_ENTRY_NOT_FOUND` (-17); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_PROC_ENTRY_NOT_FOUND: Status = Status(-17);
    /// `PMIX_ERR_PACK_MISMATCH` (-22); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_PACK_MISMATCH: Status = Status(-22);
    /// `PMIX_ERR_IN_ERRNO` (-26); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_IN_ERRNO: Status = Status(-26);
    /// `PMIX_ERR_DATA_VALUE_NOT_FOUND` (-30); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_DATA_VALUE_NOT_FOUND: Status = Status(-30);
    /// `PMIX_ERR_INVALID_ARG` (-33); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_ARG: Status = Status(-33);
    /// `PMIX_ERR_INVALID_KEY` (-34); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_KEY: Status = Status(-34);
    /// `PMIX_ERR_INVALID_KEY_LENGTH` (-35); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_KEY_LENGTH: Status = Status(-35);
    /// `PMIX_ERR_INVALID_VAL` (-36); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_VAL: Status = Status(-36);
    /// `PMIX_ERR_INVALID_VAL_LENGTH` (-37); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_VAL_LENGTH: Status = Status(-37);
    /// `PMIX_ERR_INVALID_LENGTH` (-38); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_LENGTH: Status = Status(-38);
    /// `PMIX_ERR_INVALID_NUM_ARGS` (-39); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_NUM_ARGS: Status = Status(-39);
    /// `PMIX_ERR_INVALID_ARGS` (-40); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_ARGS: Status = Status(-40);
    /// `PMIX_ERR_INVALID_NUM_PARSED` (-41); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_NUM_PARSED: Status = Status(-41);
    /// `PMIX_ERR_INVALID_KEYVALP` (-42); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_KEYVALP: Status = Status(-42);
    /// `PMIX_ERR_INVALID_SIZE` (-43); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_SIZE: Status = Status(-43);
    /// `PMIX_ERR_INVALID_NAMESPACE` (-44); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_NAMESPACE: Status = Status(-44);
    /// `PMIX_ERR_SERVER_NOT_AVAIL` (-45); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_SERVER_NOT_AVAIL: Status = Status(-45);
    /// `PMIX_ERR_NOT_IMPLEMENTED` (-48); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_NOT_IMPLEMENTED: Status = Status(-48);
    /// `PMIX_DEBUG_WAITING_FOR_NOTIFY` (-58); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const DEBUG_WAITING_FOR_NOTIFY: Status = Status(-58);
    /// `PMIX_ERR_FATAL` (-63); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_FATAL: Status = Status(-63);
    /// `PMIX_ERR_NOT_AVAILABLE` (-64); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_NOT_AVAILABLE: Status = Status(-64);
    /// `PMIX_ERR_VALUE_OUT_OF_BOUNDS` (-65); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_VALUE_OUT_OF_BOUNDS: Status = Status(-65);
    /// `PMIX_ERR_FILE_OPEN_FAILURE` (-67); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_FILE_OPEN_FAILURE: Status = Status(-67);
    /// `PMIX_ERR_FILE_READ_FAILURE` (-68); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_FILE_READ_FAILURE: Status = Status(-68);
    /// `PMIX_ERR_FILE_WRITE_FAILURE` (-69); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_FILE_WRITE_FAILURE: Status = Status(-69);
    /// `PMIX_ERR_SYS_LIMITS_PIPES` (-70); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_SYS_LIMITS_PIPES: Status = Status(-70);
    /// `PMIX_ERR_SYS_LIMITS_CHILDREN` (-71); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_SYS_LIMITS_CHILDREN: Status = Status(-71);
    /// `PMIX_ERR_PIPE_SETUP_FAILURE` (-72); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_PIPE_SETUP_FAILURE: Status = Status(-72);
    /// `PMIX_ERR_EXE_NOT_ACCESSIBLE` (-73); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_EXE_NOT_ACCESSIBLE: Status = Status(-73);
    /// `PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE` (-74); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_JOB_WDIR_NOT_ACCESSIBLE: Status = Status(-74);
    /// `PMIX_ERR_SYS_LIMITS_FILES` (-75); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_SYS_LIMITS_FILES: Status = Status(-75);
    /// `PMIX_ERR_LOST_CONNECTION_TO_SERVER` (-101); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_LOST_CONNECTION_TO_SERVER: Status = Status(-101);
    /// `PMIX_ERR_LOST_PEER_CONNECTION` (-102); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_LOST_PEER_CONNECTION: Status = Status(-102);
    /// `PMIX_ERR_LOST_CONNECTION_TO_CLIENT` (-103); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_LOST_CONNECTION_TO_CLIENT: Status = Status(-103);
    /// `PMIX_NOTIFY_ALLOC_COMPLETE` (-105); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const NOTIFY_ALLOC_COMPLETE: Status = Status(-105);
    /// `PMIX_ERR_INVALID_TERMINATION` (-112); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_INVALID_TERMINATION: Status = Status(-112);
    /// `PMIX_ERR_JOB_TERMINATED` (-145); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_JOB_TERMINATED: Status = Status(-145);
    /// `PMIX_ERR_UPDATE_ENDPOINTS` (-146); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_UPDATE_ENDPOINTS: Status = Status(-146);
    /// `PMIX_GDS_ACTION_COMPLETE` (-148); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const GDS_ACTION_COMPLETE: Status = Status(-148);
    /// `PMIX_PROC_HAS_CONNECTED` (-149); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const PROC_HAS_CONNECTED: Status = Status(-149);
    /// `PMIX_CONNECT_REQUESTED` (-150); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const CONNECT_REQUESTED: Status = Status(-150);
    /// `PMIX_ERR_NODE_DOWN` (-231); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_NODE_DOWN: Status = Status(-231);
    /// `PMIX_ERR_NODE_OFFLINE` (-232); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_NODE_OFFLINE: Status = Status(-232);
    /// `PMIX_ERR_SYS_BASE` (-230); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_SYS_BASE: Status = Status(-230);
    /// `PMIX_ERR_SYS_OTHER` (-330); deprecated in the 4.2 headers (`pmix_deprecated.h`).
    pub const ERR_SYS_OTHER: Status = Status(-330);
    /// `PMIX_ERR_LOST_SERVER_CONNECTION` (-101); named by the event design; not in the standard headers, an alias of the standard code with the same meaning.
    pub const ERR_LOST_SERVER_CONNECTION: Status = Status(-101);
    /// `PMIX_ERR_FAILED_COMM` (-49); named by the event design; not in the standard headers, an alias of the standard code with the same meaning.
    pub const ERR_FAILED_COMM: Status = Status(-49);
}

mod error;
mod names;

pub use error::{Error, Result};
pub use names::ALL_STATUS_NAMES;
use names::CANONICAL_NAMES;

impl Status {
    /// The standard name of this code (`"PMIX_ERR_NOT_FOUND"`), or `None`
    /// for a value the standard does not define.
    #[doc(alias = "PMIx_Error_string")]
    pub fn name(self) -> Option<&'static str> {
        CANONICAL_NAMES
            .iter()
            .find(|(s, _)| *s == self)
            .map(|(_, n)| *n)
    }

    /// Looks a status up by its standard name (any alias is accepted).
    pub fn from_name(name: &str) -> Option<Status> {
        ALL_STATUS_NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }

    /// `true` for [`Status::SUCCESS`].
    pub fn is_success(self) -> bool {
        self == Status::SUCCESS
    }

    /// `Ok(())` for success, otherwise an [`Error`] carrying this status.
    ///
    /// # Errors
    /// Any status other than `PMIX_SUCCESS`.
    pub fn into_result(self) -> Result<()> {
        if self.is_success() {
            Ok(())
        } else {
            Err(Error::new(self))
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "PMIX_STATUS({})", self.0),
        }
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}({})", self.0)
    }
}

impl From<i32> for Status {
    fn from(v: i32) -> Self {
        Status(v)
    }
}

impl From<Status> for i32 {
    fn from(s: Status) -> Self {
        s.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_gives_standard_name() {
        assert_eq!(Status::SUCCESS.to_string(), "PMIX_SUCCESS");
        assert_eq!(
            Status::ERR_EVENT_REGISTRATION.to_string(),
            "PMIX_ERR_EVENT_REGISTRATION"
        );
        assert_eq!(Status(-123456).to_string(), "PMIX_STATUS(-123456)");
    }

    #[test]
    fn aliases_share_a_value_and_a_canonical_name() {
        assert_eq!(Status::EVENT_JOB_END, Status::ERR_JOB_TERMINATED);
        assert_eq!(
            Status::ERR_JOB_TERMINATED.name(),
            Some("PMIX_EVENT_JOB_END")
        );
        assert_eq!(Status::ERR_EXISTS, Status::EXISTS);
        assert_eq!(
            Status::from_name("PMIX_ERR_LOST_SERVER_CONNECTION"),
            Some(Status(-101))
        );
    }

    #[test]
    fn error_never_carries_success() {
        assert_eq!(Error::new(Status::SUCCESS).status(), Status::ERROR);
        assert!(Status::SUCCESS.into_result().is_ok());
        assert_eq!(
            Status::ERR_TIMEOUT.into_result().unwrap_err().status(),
            Status::ERR_TIMEOUT
        );
    }

    #[test]
    fn canonical_names_are_unique_per_value() {
        let mut seen = std::collections::HashSet::new();
        for (s, _) in CANONICAL_NAMES {
            assert!(seen.insert(*s), "{s:?} named twice");
        }
        for (n, s) in ALL_STATUS_NAMES {
            assert!(s.name().is_some(), "{n} has no canonical name");
        }
    }
}
