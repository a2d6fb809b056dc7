//! The numeric constants of the headers this crate uses (status codes,
//! data types, info directives, channels, device types, comparison
//! results), each compared with the C headers' value by
//! `tests/c_programs.rs` through [`ALL_CONSTANTS`].

use super::*;

macro_rules! c_consts {
    ($( $(#[$m:meta])* $name:ident : $ty:ty = $val:expr; )*) => {
        $(
            $(#[$m])*
            #[doc = concat!("`", stringify!($name), "`.")]
            pub const $name: $ty = $val;
        )*
        /// Every constant of this module with its C name, so a test can
        /// compare each against the value the C headers give it.
        #[doc(hidden)]
        pub const ALL_CONSTANTS: &[(&str, i64)] = &[ $( (stringify!($name), $name as i64), )* ];
    };
}

c_consts! {
    PMIX_MAX_NSLEN: usize = 255;
    PMIX_MAX_KEYLEN: usize = 511;

    // ranks
    PMIX_RANK_UNDEF: pmix_rank_t = u32::MAX;
    PMIX_RANK_WILDCARD: pmix_rank_t = u32::MAX - 1;
    PMIX_RANK_LOCAL_NODE: pmix_rank_t = u32::MAX - 2;
    PMIX_RANK_INVALID: pmix_rank_t = u32::MAX - 3;
    PMIX_RANK_LOCAL_PEERS: pmix_rank_t = u32::MAX - 4;
    PMIX_RANK_VALID: pmix_rank_t = u32::MAX - 50;

    // status codes used by this crate
    PMIX_SUCCESS: pmix_status_t = 0;
    PMIX_ERROR: pmix_status_t = -1;
    PMIX_ERR_EXISTS: pmix_status_t = -11;
    PMIX_ERR_UNKNOWN_DATA_TYPE: pmix_status_t = -16;
    PMIX_ERR_TYPE_MISMATCH: pmix_status_t = -18;
    PMIX_ERR_BAD_PARAM: pmix_status_t = -27;
    PMIX_ERR_OUT_OF_RESOURCE: pmix_status_t = -29;
    PMIX_ERR_INIT: pmix_status_t = -31;
    PMIX_ERR_NOMEM: pmix_status_t = -32;
    PMIX_ERR_NOT_FOUND: pmix_status_t = -46;
    PMIX_ERR_NOT_SUPPORTED: pmix_status_t = -47;
    PMIX_ERR_EMPTY: pmix_status_t = -60;
    PMIX_ERR_VALUE_OUT_OF_BOUNDS: pmix_status_t = -65;
    PMIX_OPERATION_SUCCEEDED: pmix_status_t = -157;

    // data types
    PMIX_UNDEF: pmix_data_type_t = 0;
    PMIX_BOOL: pmix_data_type_t = 1;
    PMIX_BYTE: pmix_data_type_t = 2;
    PMIX_STRING: pmix_data_type_t = 3;
    PMIX_SIZE: pmix_data_type_t = 4;
    PMIX_PID: pmix_data_type_t = 5;
    PMIX_INT: pmix_data_type_t = 6;
    PMIX_INT8: pmix_data_type_t = 7;
    PMIX_INT16: pmix_data_type_t = 8;
    PMIX_INT32: pmix_data_type_t = 9;
    PMIX_INT64: pmix_data_type_t = 10;
    PMIX_UINT: pmix_data_type_t = 11;
    PMIX_UINT8: pmix_data_type_t = 12;
    PMIX_UINT16: pmix_data_type_t = 13;
    PMIX_UINT32: pmix_data_type_t = 14;
    PMIX_UINT64: pmix_data_type_t = 15;
    PMIX_FLOAT: pmix_data_type_t = 16;
    PMIX_DOUBLE: pmix_data_type_t = 17;
    PMIX_TIMEVAL: pmix_data_type_t = 18;
    PMIX_TIME: pmix_data_type_t = 19;
    PMIX_STATUS: pmix_data_type_t = 20;
    PMIX_VALUE: pmix_data_type_t = 21;
    PMIX_PROC: pmix_data_type_t = 22;
    PMIX_APP: pmix_data_type_t = 23;
    PMIX_INFO: pmix_data_type_t = 24;
    PMIX_PDATA: pmix_data_type_t = 25;
    PMIX_BYTE_OBJECT: pmix_data_type_t = 27;
    PMIX_KVAL: pmix_data_type_t = 28;
    PMIX_PERSIST: pmix_data_type_t = 30;
    PMIX_POINTER: pmix_data_type_t = 31;
    PMIX_SCOPE: pmix_data_type_t = 32;
    PMIX_DATA_RANGE: pmix_data_type_t = 33;
    PMIX_COMMAND: pmix_data_type_t = 34;
    PMIX_INFO_DIRECTIVES: pmix_data_type_t = 35;
    PMIX_DATA_TYPE: pmix_data_type_t = 36;
    PMIX_PROC_STATE: pmix_data_type_t = 37;
    PMIX_PROC_INFO: pmix_data_type_t = 38;
    PMIX_DATA_ARRAY: pmix_data_type_t = 39;
    PMIX_PROC_RANK: pmix_data_type_t = 40;
    PMIX_QUERY: pmix_data_type_t = 41;
    PMIX_COMPRESSED_STRING: pmix_data_type_t = 42;
    PMIX_ALLOC_DIRECTIVE: pmix_data_type_t = 43;
    PMIX_IOF_CHANNEL: pmix_data_type_t = 45;
    PMIX_ENVAR: pmix_data_type_t = 46;
    PMIX_COORD: pmix_data_type_t = 47;
    PMIX_REGATTR: pmix_data_type_t = 48;
    PMIX_REGEX: pmix_data_type_t = 49;
    PMIX_JOB_STATE: pmix_data_type_t = 50;
    PMIX_LINK_STATE: pmix_data_type_t = 51;
    PMIX_PROC_CPUSET: pmix_data_type_t = 52;
    PMIX_GEOMETRY: pmix_data_type_t = 53;
    PMIX_DEVICE_DIST: pmix_data_type_t = 54;
    PMIX_ENDPOINT: pmix_data_type_t = 55;
    PMIX_TOPO: pmix_data_type_t = 56;
    PMIX_DEVTYPE: pmix_data_type_t = 57;
    PMIX_LOCTYPE: pmix_data_type_t = 58;
    PMIX_COMPRESSED_BYTE_OBJECT: pmix_data_type_t = 59;
    PMIX_PROC_NSPACE: pmix_data_type_t = 60;
    PMIX_PROC_STATS: pmix_data_type_t = 61;
    PMIX_DISK_STATS: pmix_data_type_t = 62;
    PMIX_NET_STATS: pmix_data_type_t = 63;
    PMIX_NODE_STATS: pmix_data_type_t = 64;
    PMIX_DATA_BUFFER: pmix_data_type_t = 65;
    PMIX_STOR_MEDIUM: pmix_data_type_t = 66;
    PMIX_STOR_ACCESS: pmix_data_type_t = 67;
    PMIX_STOR_PERSIST: pmix_data_type_t = 68;
    PMIX_STOR_ACCESS_TYPE: pmix_data_type_t = 69;
    PMIX_DATA_TYPE_MAX: pmix_data_type_t = 500;

    // info directives
    PMIX_INFO_REQD: pmix_info_directives_t = 0x1;
    PMIX_INFO_ARRAY_END: pmix_info_directives_t = 0x2;
    PMIX_INFO_REQD_PROCESSED: pmix_info_directives_t = 0x4;
    PMIX_INFO_QUALIFIER: pmix_info_directives_t = 0x8;
    PMIX_INFO_PERSISTENT: pmix_info_directives_t = 0x10;
    PMIX_INFO_DIR_RESERVED: pmix_info_directives_t = 0xffff_0000;

    // IOF channels
    PMIX_FWD_NO_CHANNELS: pmix_iof_channel_t = 0;
    PMIX_FWD_STDIN_CHANNEL: pmix_iof_channel_t = 0x1;
    PMIX_FWD_STDOUT_CHANNEL: pmix_iof_channel_t = 0x2;
    PMIX_FWD_STDERR_CHANNEL: pmix_iof_channel_t = 0x4;
    PMIX_FWD_STDDIAG_CHANNEL: pmix_iof_channel_t = 0x8;

    // device types
    PMIX_DEVTYPE_UNKNOWN: pmix_device_type_t = 0;
    PMIX_DEVTYPE_BLOCK: pmix_device_type_t = 0x1;
    PMIX_DEVTYPE_GPU: pmix_device_type_t = 0x2;
    PMIX_DEVTYPE_NETWORK: pmix_device_type_t = 0x4;
    PMIX_DEVTYPE_OPENFABRICS: pmix_device_type_t = 0x8;
    PMIX_DEVTYPE_DMA: pmix_device_type_t = 0x10;
    PMIX_DEVTYPE_COPROC: pmix_device_type_t = 0x20;

    // pmix_value_cmp_t (enum)
    PMIX_EQUAL: pmix_value_cmp_t = 0;
    PMIX_VALUE1_GREATER: pmix_value_cmp_t = 1;
    PMIX_VALUE2_GREATER: pmix_value_cmp_t = 2;
    PMIX_VALUE_TYPE_DIFFERENT: pmix_value_cmp_t = 3;
    PMIX_VALUE_INCOMPATIBLE_OBJECTS: pmix_value_cmp_t = 4;
    PMIX_VALUE_COMPARISON_NOT_AVAIL: pmix_value_cmp_t = 5;

    // pmix_coord_view_t
    PMIX_COORD_VIEW_UNDEF: pmix_coord_view_t = 0;

    // pmix_boolean_t (enum)
    PMIX_BOOL_TRUE: pmix_boolean_t = 0;
    PMIX_BOOL_FALSE: pmix_boolean_t = 1;
    PMIX_NON_BOOL: pmix_boolean_t = 2;
}
