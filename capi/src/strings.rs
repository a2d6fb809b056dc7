//! The pretty-print functions of `pmix.h` (`PMIx_Error_string`, ...) and
//! `PMIx_Get_version`.
//!
//! The texts are those OpenPMIx 4.2.2 returns, value for value, so that logs
//! and programs comparing strings behave the same on both libraries. They
//! were read from the real library (every status from -100000 to 100000,
//! every 8-bit code, data types 0..600); `tests/c_programs.rs` compares the
//! two libraries again wherever Debian's `libpmix2` is installed. Returned
//! strings are static, except `PMIx_Info_directives_string`,
//! `PMIx_Value_string` and `PMIx_Info_string`, which are malloc'd (the
//! caller frees them).

use std::ffi::CStr;
use std::os::raw::c_char;
use std::ptr;

use crate::attr_table::ATTRIBUTES;
use crate::cmem;
use crate::types::*;

/// `PMIx_Get_version`: starts with a digit ≥ '3', as Open MPI's ext3x
/// component requires (docs/CAPI.md, "What Open MPI needs").
pub(crate) const VERSION: &CStr = match CStr::from_bytes_with_nul(
    concat!(
        "4.2.2 (pmix-rs ",
        env!("CARGO_PKG_VERSION"),
        "; PMIx Standard: 4.2, Stable ABI: 0.0, Provisional ABI: 0.0)\0"
    )
    .as_bytes(),
) {
    Ok(s) => s,
    Err(_) => panic!("the version string has one NUL, at its end"),
};

/// The OpenPMIx 4.2.2 text of a status (`ERROR STRING NOT FOUND` for others).
pub(crate) fn error_string(v: pmix_status_t) -> &'static CStr {
    match v {
        0 => c"SUCCESS",
        -1 => c"ERROR",
        -2 => c"SILENT_ERROR",
        -3 => c"DEBUGGER-RELEASE",
        -4 => c"PROC_RESTART",
        -5 => c"PROC-CHECKPOINT-ERROR",
        -6 => c"PROC-MIGRATE",
        -7 => c"PROC-ABORTED",
        -8 => c"PROC-ABORT-REQUESTED",
        -9 => c"PROC-ABORTING",
        -10 => c"SERVER FAILED REQUEST",
        -11 => c"EXISTS",
        -12 => c"INVALID-CREDENTIAL",
        -13 => c"HANDSHAKE-FAILED",
        -14 => c"READY-FOR-HANDSHAKE",
        -15 => c"WOULD-BLOCK",
        -16 => c"UNKNOWN-DATA-TYPE",
        -17 => c"PROC-ENTRY-NOT-FOUND",
        -18 => c"TYPE-MISMATCH",
        -19 => c"UNPACK-INADEQUATE-SPACE",
        -20 => c"UNPACK-FAILURE",
        -21 => c"PACK-FAILURE",
        -22 => c"PACK-MISMATCH",
        -23 => c"NO-PERMISSIONS",
        -24 => c"TIMEOUT",
        -25 => c"UNREACHABLE",
        -26 => c"ERR-IN-ERRNO",
        -27 => c"BAD-PARAM",
        -28 => c"RESOURCE-BUSY",
        -29 => c"OUT-OF-RESOURCE",
        -30 => c"DATA-VALUE-NOT-FOUND",
        -31 => c"INIT",
        -32 => c"NO-MEM",
        -33 => c"INVALID-ARG",
        -34 => c"INVALID-KEY",
        -35 => c"INVALID-KEY-LENGTH",
        -36 => c"INVALID-VAL",
        -37 => c"INVALID-VAL-LENGTH",
        -38 => c"INVALID-LENGTH",
        -39 => c"INVALID-NUM-ARGS",
        -40 => c"INVALID-ARGS",
        -41 => c"INVALID-NUM-PARSED",
        -42 => c"INVALID-KEYVAL",
        -43 => c"INVALID-SIZE",
        -44 => c"INVALID-NAMESPACE",
        -45 => c"SERVER-NOT-AVAIL",
        -46 => c"NOT-FOUND",
        -47 => c"NOT-SUPPORTED",
        -48 => c"NOT-IMPLEMENTED",
        -49 => c"COMM-FAILURE",
        -50 => c"UNPACK-PAST-END",
        -51 => c"PMIX CONFLICTING CLEANUP DIRECTIVES",
        -52 => c"PARTIAL SUCCESS",
        -53 => c"DUPLICATE KEY",
        -55 => c"PROCESS SET DEFINED",
        -58 => c"READY-FOR-DEBUG",
        -59 => c"PARAM-VALUE-NOT-SUPPORTED",
        -60 => c"EMPTY",
        -61 => c"LOST_CONNECTION",
        -62 => c"OUTSIDE-SCOPE",
        -63 => c"FATAL",
        -64 => c"NOT_AVAILABLE",
        -65 => c"VALUE_OUT_OF_BOUNDS",
        -67 => c"FILE_OPEN_FAILURE",
        -68 => c"FILE_READ_FAILURE",
        -69 => c"FILE_WRITE_FAILURE",
        -70 => c"SYS_LIMITS_PIPES",
        -71 => c"SYS_LIMITS_CHILDREN",
        -72 => c"PIPE_SETUP_FAILURE",
        -73 => c"EXE NOT ACCESSIBLE",
        -74 => c"WDIR NOT ACCESSIBLE",
        -104 => c"QUERY-PARTIAL-SUCCESS",
        -105 => c"PMIX ALLOC OPERATION COMPLETE",
        -106 => c"PMIX JOB CONTROL CHECKPOINT",
        -107 => c"PMIX JOB CONTROL CHECKPOINT COMPLETE",
        -108 => c"PMIX PRE-EMPTION ALERT",
        -109 => c"PMIX HEARTBEAT ALERT",
        -110 => c"PMIX FILE MONITOR ALERT",
        -111 => c"PROC-TERMINATED",
        -112 => c"INVALID-TERMINATION",
        -113 => c"FABRIC-UPDATE-ENDPOINTS",
        -144 => c"EVENT-REGISTRATION",
        -145 => c"JOB ENDED",
        -146 => c"UPDATE-ENDPOINTS",
        -147 => c"PMIX MODEL DECLARED",
        -148 => c"GDS-ACTION-COMPLETE",
        -149 => c"PROC-HAS-CONNECTED",
        -150 => c"CONNECT-REQUESTED",
        -152 => c"OPENMP-PARALLEL-ENTERED",
        -153 => c"OPENMP-PARALLEL-EXITED",
        -155 => c"LAUNCHER-READY",
        -156 => c"OPERATION-IN-PROGRESS",
        -157 => c"OPERATION-SUCCEEDED",
        -158 => c"INVALID-OPERATION",
        -159 => c"GROUP-INVITED",
        -160 => c"GROUP-LEFT",
        -161 => c"GROUP-INVITE-ACCEPTED",
        -162 => c"GROUP-INVITE-DECLINED",
        -163 => c"GROUP-INVITE-FAILED",
        -164 => c"GROUP-MEMBERSHIP-UPDATE",
        -165 => c"GROUP-CONSTRUCT-ABORT",
        -166 => c"GROUP-CONSTRUCT-COMPLETE",
        -167 => c"GROUP-LEADER-SELECTED",
        -168 => c"GROUP-LEADER-FAILED",
        -169 => c"GROUP-CONTEXT-ID-ASSIGNED",
        -170 => c"GROUP-MEMBER-FAILED",
        -171 => c"REPEAT-ATTRIBUTE-REGISTRATION",
        -172 => c"IOF FAILURE",
        -173 => c"IOF COMPLETE",
        -174 => c"PMIX LAUNCH COMPLETE",
        -175 => c"FABRIC-UPDATED",
        -176 => c"FABRIC-UPDATE-PENDING",
        -177 => c"APPLICATION NOT EXECUTABLE",
        -178 => c"NO EXECUTABLE SPECIFIED",
        -179 => c"JOB FAILED TO MAP",
        -180 => c"JOB CANCELED",
        -181 => c"JOB FAILED TO LAUNCH",
        -182 => c"JOB ABORTED",
        -183 => c"KILLED BY COMMAND",
        -184 => c"ABORTED BY SIGNAL",
        -185 => c"TERMINATED WITHOUT SYNC",
        -186 => c"SENSOR BOUND EXCEEDED",
        -187 => c"NON-ZERO TERMINATION",
        -188 => c"FAILED TO OBTAIN ALLOCATION",
        -189 => c"JOB ABORTED BY SYSTEM EVENT",
        -190 => c"EXECUTABLE NOT FOUND",
        -191 => c"JOB STARTED",
        -192 => c"SESSION STARTED",
        -193 => c"SESSION ENDED",
        -200 => c"PROC TERMINATED WITHOUT SYNC",
        -201 => c"PROC TERMINATED",
        -230 => c"SYSTEM BASE EVENT",
        -231 => c"NODE-DOWN",
        -232 => c"NODE-OFFLINE",
        -233 => c"WORKING DIRECTORY NOT FOUND",
        -234 => c"INSUFFICIENT RESOURCES",
        -235 => c"SYSTEM OPERATION FAILED",
        -330 => c"UNDEFINED-SYSTEM-EVENT",
        -331 => c"EVENT-NO-ACTION-TAKEN",
        -332 => c"EVENT-PARTIAL-ACTION-TAKEN",
        -333 => c"EVENT-ACTION-DEFERRED",
        -334 => c"EVENT-ACTION-COMPLETE",
        -400 => c"PROC-KILLED-BY-CMD",
        -401 => c"PROC-FAILED-TO-START",
        -402 => c"PROC-ABORTED-BY-SIG",
        -403 => c"PROC-SENSOR-BOUND-EXCEEDED",
        -404 => c"PROC-EXIT-NONZERO-TERM",
        -1363 => c"FABRIC_NOT_PARSEABLE",
        -1366 => c"TAKE-NEXT-OPTION",
        -1367 => c"PMIX TEMPORARILY UNAVAILABLE",
        _ => c"ERROR STRING NOT FOUND",
    }
}

/// The OpenPMIx 4.2.2 text of a process state (`UNKNOWN STATE` for others).
pub(crate) fn proc_state_string(v: pmix_proc_state_t) -> &'static CStr {
    match v {
        0 => c"UNDEFINED",
        1 => c"PREPPED FOR LAUNCH",
        2 => c"LAUNCH UNDERWAY",
        3 => c"PROC READY FOR RESTART",
        4 => c"PROC MARKED FOR TERMINATION",
        5 => c"PROC EXECUTING",
        6 => c"PROC HAS CONNECTED TO LOCAL PMIX SERVER",
        15 => c"PROC HAS NOT TERMINATED",
        20 => c"PROC HAS TERMINATED",
        50 => c"PROC ERROR",
        51 => c"PROC KILLED BY CMD",
        52 => c"PROC ABNORMALLY ABORTED",
        53 => c"PROC FAILED TO START",
        54 => c"PROC ABORTED BY SIGNAL",
        55 => c"PROC TERMINATED WITHOUT CALLING PMIx_Finalize",
        56 => c"PROC LOST COMMUNICATION",
        57 => c"PROC SENSOR BOUND EXCEEDED",
        58 => c"PROC CALLED PMIx_Abort",
        59 => c"PROC FAILED TO REPORT HEARTBEAT",
        60 => c"PROC WAITING TO MIGRATE",
        61 => c"PROC CANNOT BE RESTARTED",
        62 => c"PROC TERMINATED WITH NON-ZERO STATUS",
        63 => c"PROC FAILED TO LAUNCH",
        _ => c"UNKNOWN STATE",
    }
}

/// The OpenPMIx 4.2.2 text of a job state (`UNKNOWN` for others).
pub(crate) fn job_state_string(v: pmix_job_state_t) -> &'static CStr {
    match v {
        0 => c"UNDEFINED",
        1 => c"PREPPED FOR LAUNCH",
        2 => c"LAUNCHING",
        3 => c"RUNNING",
        4 => c"SUSPENDED",
        5 => c"CONNECTED",
        15 => c"UNTERMINATED",
        20 => c"TERMINATED",
        50 => c"TERMINATED WITH ERROR",
        _ => c"UNKNOWN",
    }
}

/// The OpenPMIx 4.2.2 text of a scope (`UNKNOWN SCOPE` for others).
pub(crate) fn scope_string(v: pmix_scope_t) -> &'static CStr {
    match v {
        0 => c"UNDEFINED",
        1 => c"SHARE ON LOCAL NODE ONLY",
        2 => c"SHARE ON REMOTE NODES ONLY",
        3 => c"SHARE ACROSS ALL NODES",
        4 => c"STORE INTERNALLY",
        _ => c"UNKNOWN SCOPE",
    }
}

/// The OpenPMIx 4.2.2 text of a persistence (`UNKNOWN PERSISTENCE` for others).
pub(crate) fn persistence_string(v: pmix_persistence_t) -> &'static CStr {
    match v {
        0 => c"INDEFINITE",
        1 => c"DELETE ON FIRST ACCESS",
        2 => c"RETAIN UNTIL PUBLISHING PROCESS TERMINATES",
        3 => c"RETAIN UNTIL APPLICATION OF PUBLISHING PROCESS TERMINATES",
        4 => c"RETAIN UNTIL ALLOCATION OF PUBLISHING PROCESS TERMINATES",
        255 => c"INVALID",
        _ => c"UNKNOWN PERSISTENCE",
    }
}

/// The OpenPMIx 4.2.2 text of a data range (`UNKNOWN` for others).
pub(crate) fn data_range_string(v: pmix_data_range_t) -> &'static CStr {
    match v {
        0 => c"UNDEFINED",
        1 => c"INTENDED FOR HOST RESOURCE MANAGER ONLY",
        2 => c"AVAIL ON LOCAL NODE ONLY",
        3 => c"AVAIL TO PROCESSES IN SAME JOB ONLY",
        4 => c"AVAIL TO PROCESSES IN SAME ALLOCATION ONLY",
        5 => c"AVAIL TO ANYONE WITH AUTHORIZATION",
        6 => c"AVAIL AS SPECIFIED IN DIRECTIVES",
        7 => c"AVAIL ON LOCAL PROC ONLY",
        255 => c"INVALID",
        _ => c"UNKNOWN",
    }
}

/// The OpenPMIx 4.2.2 text of a data type (`UNKNOWN` for others).
pub(crate) fn data_type_string(v: pmix_data_type_t) -> &'static CStr {
    match v {
        1 => c"PMIX_BOOL",
        2 => c"PMIX_BYTE",
        3 => c"PMIX_STRING",
        4 => c"PMIX_SIZE",
        5 => c"PMIX_PID",
        6 => c"PMIX_INT",
        7 => c"PMIX_INT8",
        8 => c"PMIX_INT16",
        9 => c"PMIX_INT32",
        10 => c"PMIX_INT64",
        11 => c"PMIX_UINT",
        12 => c"PMIX_UINT8",
        13 => c"PMIX_UINT16",
        14 => c"PMIX_UINT32",
        15 => c"PMIX_UINT64",
        16 => c"PMIX_FLOAT",
        17 => c"PMIX_DOUBLE",
        18 => c"PMIX_TIMEVAL",
        19 => c"PMIX_TIME",
        20 => c"PMIX_STATUS",
        21 => c"PMIX_VALUE",
        22 => c"PMIX_PROC",
        23 => c"PMIX_APP",
        24 => c"PMIX_INFO",
        25 => c"PMIX_PDATA",
        26 => c"PMIX_BUFFER",
        27 => c"PMIX_BYTE_OBJECT",
        28 => c"PMIX_KVAL",
        29 => c"PMIX_MODEX",
        30 => c"PMIX_PERSIST",
        31 => c"PMIX_POINTER",
        32 => c"PMIX_SCOPE",
        33 => c"PMIX_DATA_RANGE",
        34 => c"PMIX_COMMAND",
        35 => c"PMIX_INFO_DIRECTIVES",
        36 => c"PMIX_DATA_TYPE",
        37 => c"PMIX_PROC_STATE",
        38 => c"PMIX_PROC_INFO",
        39 => c"PMIX_DATA_ARRAY",
        40 => c"PMIX_PROC_RANK",
        41 => c"PMIX_QUERY",
        42 => c"PMIX_COMPRESSED_STRING",
        43 => c"PMIX_ALLOC_DIRECTIVE",
        44 => c"PMIX_INFO_ARRAY",
        45 => c"PMIX_IOF_CHANNEL",
        46 => c"PMIX_ENVAR",
        47 => c"PMIX_COORD",
        48 => c"PMIX_REGATTR",
        49 => c"PMIX_REGEX",
        50 => c"PMIX_JOB_STATE",
        51 => c"PMIX_LINK_STATE",
        52 => c"PMIX_PROC_CPUSET",
        53 => c"PMIX_GEOMETRY",
        54 => c"PMIX_DEVICE_DIST",
        55 => c"PMIX_ENDPOINT",
        56 => c"PMIX_TOPO",
        57 => c"PMIX_DEVTYPE",
        58 => c"PMIX_LOCTYPE",
        59 => c"PMIX_COMPRESSED_BYTE_OBJECT",
        60 => c"PMIX_PROC_NSPACE",
        61 => c"PMIX_PROC_STATS",
        62 => c"PMIX_DISK_STATS",
        63 => c"PMIX_NET_STATS",
        64 => c"PMIX_NODE_STATS",
        65 => c"PMIX_DATA_BUFFER",
        66 => c"PMIX_STOR_MEDIUM",
        67 => c"PMIX_STOR_ACCESS",
        68 => c"PMIX_STOR_PERSIST",
        69 => c"PMIX_STOR_ACCESS_TYPE",
        _ => c"UNKNOWN",
    }
}

/// The OpenPMIx 4.2.2 text of a allocation directive (`UNSPECIFIED` for others).
pub(crate) fn alloc_directive_string(v: pmix_alloc_directive_t) -> &'static CStr {
    match v {
        1 => c"NEW",
        2 => c"EXTEND",
        3 => c"RELEASE",
        4 => c"REACQUIRE",
        _ => c"UNSPECIFIED",
    }
}

/// The OpenPMIx 4.2.2 text of a link state (`UNKNOWN` for others).
pub(crate) fn link_state_string(v: pmix_link_state_t) -> &'static CStr {
    match v {
        1 => c"INACTIVE",
        2 => c"ACTIVE",
        _ => c"UNKNOWN",
    }
}

/// The OpenPMIx 4.2.2 text of a comparison result (`UNKNOWN VALUE` for others).
pub(crate) fn value_comparison_string(v: pmix_value_cmp_t) -> &'static CStr {
    match v {
        0 => c"EQUAL",
        1 => c"VALUE1 GREATER",
        2 => c"VALUE2 GREATER",
        3 => c"DIFFERENT TYPES",
        4 => c"INCOMPATIBLE OBJECTS",
        5 => c"COMPARISON NOT AVAILABLE",
        _ => c"UNKNOWN VALUE",
    }
}

/// The OpenPMIx 4.2.2 text of an IOF channel set: the names of the four
/// low bits, each followed by a space, or `NONE`.
pub(crate) fn iof_channel_string(c: pmix_iof_channel_t) -> &'static CStr {
    const NAMES: [&CStr; 16] = [
        c"NONE",
        c"STDIN ",
        c"STDOUT ",
        c"STDIN STDOUT ",
        c"STDERR ",
        c"STDIN STDERR ",
        c"STDOUT STDERR ",
        c"STDIN STDOUT STDERR ",
        c"STDDIAG ",
        c"STDIN STDDIAG ",
        c"STDOUT STDDIAG ",
        c"STDIN STDOUT STDDIAG ",
        c"STDERR STDDIAG ",
        c"STDIN STDERR STDDIAG ",
        c"STDOUT STDERR STDDIAG ",
        c"STDIN STDOUT STDERR STDDIAG ",
    ];
    NAMES[usize::from(c & 0xf)]
}

/// The OpenPMIx 4.2.2 text of a device type (single bits only).
pub(crate) fn device_type_string(t: pmix_device_type_t) -> &'static CStr {
    match t {
        PMIX_DEVTYPE_BLOCK => c"BLOCK",
        PMIX_DEVTYPE_GPU => c"GPU",
        PMIX_DEVTYPE_NETWORK => c"NETWORK",
        PMIX_DEVTYPE_OPENFABRICS => c"OPENFABRICS",
        PMIX_DEVTYPE_DMA => c"DMA",
        PMIX_DEVTYPE_COPROC => c"COPROCESSOR",
        _ => c"UNKNOWN",
    }
}

/// The OpenPMIx 4.2.2 text of info directives: `QUALIFIER` when that bit
/// is set, else `REQUIRED`/`OPTIONAL` followed by `:PROCESSED` and `:END`.
pub(crate) fn info_directives_string(d: pmix_info_directives_t) -> String {
    if d & PMIX_INFO_QUALIFIER != 0 {
        return "QUALIFIER".to_owned();
    }
    let mut s = String::from(if d & PMIX_INFO_REQD != 0 {
        "REQUIRED"
    } else {
        "OPTIONAL"
    });
    if d & PMIX_INFO_REQD_PROCESSED != 0 {
        s.push_str(":PROCESSED");
    }
    if d & PMIX_INFO_ARRAY_END != 0 {
        s.push_str(":END");
    }
    s
}

/// `PMIx_Get_attribute_string`: the key of an attribute given by macro
/// name (or by key); anything else is returned as given.
pub(crate) fn attribute_string(attr: &CStr) -> Option<&'static CStr> {
    ATTRIBUTES
        .iter()
        .find(|(name, key, _)| *name == attr || *key == attr)
        .map(|(_, key, _)| *key)
}

/// `PMIx_Get_attribute_name`: the macro name of an attribute given by key
/// (or by name); anything else is returned as given.
pub(crate) fn attribute_name(attr: &CStr) -> Option<&'static CStr> {
    ATTRIBUTES
        .iter()
        .find(|(_, key, preferred)| *preferred && *key == attr)
        .or_else(|| ATTRIBUTES.iter().find(|(name, _, _)| *name == attr))
        .map(|(name, _, _)| *name)
}

// ---------------------------------------------------------------------------
// Exports

/// `const char* PMIx_Error_string(pmix_status_t status)`.
#[no_mangle]
pub extern "C" fn PMIx_Error_string(status: pmix_status_t) -> *const c_char {
    error_string(status).as_ptr()
}

/// `const char* PMIx_Proc_state_string(pmix_proc_state_t state)`.
#[no_mangle]
pub extern "C" fn PMIx_Proc_state_string(state: pmix_proc_state_t) -> *const c_char {
    proc_state_string(state).as_ptr()
}

/// `const char* PMIx_Scope_string(pmix_scope_t scope)`.
#[no_mangle]
pub extern "C" fn PMIx_Scope_string(scope: pmix_scope_t) -> *const c_char {
    scope_string(scope).as_ptr()
}

/// `const char* PMIx_Persistence_string(pmix_persistence_t persist)`.
#[no_mangle]
pub extern "C" fn PMIx_Persistence_string(persist: pmix_persistence_t) -> *const c_char {
    persistence_string(persist).as_ptr()
}

/// `const char* PMIx_Data_range_string(pmix_data_range_t range)`.
#[no_mangle]
pub extern "C" fn PMIx_Data_range_string(range: pmix_data_range_t) -> *const c_char {
    data_range_string(range).as_ptr()
}

/// `const char* PMIx_Data_type_string(pmix_data_type_t type)`.
#[no_mangle]
pub extern "C" fn PMIx_Data_type_string(type_: pmix_data_type_t) -> *const c_char {
    data_type_string(type_).as_ptr()
}

/// `const char* PMIx_Alloc_directive_string(pmix_alloc_directive_t directive)`.
#[no_mangle]
pub extern "C" fn PMIx_Alloc_directive_string(directive: pmix_alloc_directive_t) -> *const c_char {
    alloc_directive_string(directive).as_ptr()
}

/// `const char* PMIx_IOF_channel_string(pmix_iof_channel_t channel)`.
#[no_mangle]
pub extern "C" fn PMIx_IOF_channel_string(channel: pmix_iof_channel_t) -> *const c_char {
    iof_channel_string(channel).as_ptr()
}

/// `const char* PMIx_Job_state_string(pmix_job_state_t state)`.
#[no_mangle]
pub extern "C" fn PMIx_Job_state_string(state: pmix_job_state_t) -> *const c_char {
    job_state_string(state).as_ptr()
}

/// `const char* PMIx_Link_state_string(pmix_link_state_t state)`.
#[no_mangle]
pub extern "C" fn PMIx_Link_state_string(state: pmix_link_state_t) -> *const c_char {
    link_state_string(state).as_ptr()
}

/// `const char* PMIx_Device_type_string(pmix_device_type_t type)`.
#[no_mangle]
pub extern "C" fn PMIx_Device_type_string(type_: pmix_device_type_t) -> *const c_char {
    device_type_string(type_).as_ptr()
}

/// `const char* PMIx_Value_comparison_string(pmix_value_cmp_t cmp)`.
#[no_mangle]
pub extern "C" fn PMIx_Value_comparison_string(cmp: pmix_value_cmp_t) -> *const c_char {
    value_comparison_string(cmp).as_ptr()
}

/// `char* PMIx_Info_directives_string(pmix_info_directives_t directives)`:
/// malloc'd, the caller frees it (NULL when out of memory).
#[no_mangle]
pub extern "C" fn PMIx_Info_directives_string(directives: pmix_info_directives_t) -> *mut c_char {
    cmem::strdup_str(&info_directives_string(directives)).unwrap_or(ptr::null_mut())
}

/// `const char* PMIx_Get_version(void)`: static, never freed.
#[no_mangle]
pub extern "C" fn PMIx_Get_version() -> *const c_char {
    VERSION.as_ptr()
}

/// `const char* PMIx_Get_attribute_string(const char *attribute)`.
///
/// # Safety
/// `attribute` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_string(attribute: *const c_char) -> *const c_char {
    if attribute.is_null() {
        return attribute;
    }
    // SAFETY: non-NULL and NUL-terminated (caller guarantee).
    let attr = unsafe { CStr::from_ptr(attribute) };
    attribute_string(attr).map_or(attribute, CStr::as_ptr)
}

/// `const char* PMIx_Get_attribute_name(const char *attrstring)`.
///
/// # Safety
/// `attrstring` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_attribute_name(attrstring: *const c_char) -> *const c_char {
    if attrstring.is_null() {
        return attrstring;
    }
    // SAFETY: non-NULL and NUL-terminated (caller guarantee).
    let attr = unsafe { CStr::from_ptr(attrstring) };
    attribute_name(attr).map_or(attrstring, CStr::as_ptr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_match_openpmix() {
        assert_eq!(error_string(0), c"SUCCESS");
        assert_eq!(error_string(-47), c"NOT-SUPPORTED");
        assert_eq!(error_string(-3000), c"ERROR STRING NOT FOUND");
        assert_eq!(proc_state_string(58), c"PROC CALLED PMIx_Abort");
        assert_eq!(data_type_string(0), c"UNKNOWN");
        assert_eq!(data_type_string(29), c"PMIX_MODEX");
        assert_eq!(iof_channel_string(3), c"STDIN STDOUT ");
        assert_eq!(iof_channel_string(16), c"NONE");
        assert_eq!(info_directives_string(0x7), "REQUIRED:PROCESSED:END");
        assert_eq!(info_directives_string(0x1f), "QUALIFIER");
        assert_eq!(info_directives_string(0x10), "OPTIONAL");
        assert!(VERSION.to_bytes()[0] >= b'3');
    }

    #[test]
    fn attributes_map_both_ways() {
        assert_eq!(attribute_string(c"PMIX_JOB_SIZE"), Some(c"pmix.job.size"));
        assert_eq!(attribute_string(c"pmix.job.size"), Some(c"pmix.job.size"));
        assert_eq!(attribute_name(c"pmix.job.size"), Some(c"PMIX_JOB_SIZE"));
        assert_eq!(
            attribute_name(c"pmix.alloc.net"),
            Some(c"PMIX_ALLOC_FABRIC")
        );
        assert_eq!(attribute_name(c"bogus"), None);
    }
}
