//! Small standard code types: data types, ranges, scopes, persistence, proc
//! and job states, info directive flags. Each is a newtype over the C type's
//! width so values from other processes survive unchanged, with one constant
//! per standard name at the standard's numeric value.

use std::fmt;

/// Declares a code newtype with its constants, a name table and `Display`.
macro_rules! code_type {
    (
        $(#[$meta:meta])*
        $name:ident($repr:ty), c = $cname:literal, table = $table:ident {
            $( $(#[$cmeta:meta])* $konst:ident = $val:expr => $sname:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[repr(transparent)]
        #[doc(alias = $cname)]
        pub struct $name(pub $repr);

        impl $name {
            $( $(#[$cmeta])* #[doc = concat!("`", $sname, "`")] pub const $konst: $name = $name($val); )*

            /// The standard name, or `None` for a value the standard does not define.
            pub fn name(self) -> Option<&'static str> {
                $table.iter().find(|(v, _)| *v == self).map(|(_, n)| *n)
            }

            /// `true` when the value is one the standard defines.
            pub fn is_known(self) -> bool {
                self.name().is_some()
            }
        }

        /// Every standard name of this type with its value.
        pub const $table: &[($name, &str)] = &[ $( ($name::$konst, $sname), )* ];

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{}({})", stringify!($name), self.0),
                }
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    };
}

code_type! {
    /// A PMIx data type tag (`pmix_data_type_t`, 16 bits).
    DataType(u16), c = "pmix_data_type_t", table = ALL_DATA_TYPES {
        UNDEF = 0 => "PMIX_UNDEF",
        BOOL = 1 => "PMIX_BOOL",
        BYTE = 2 => "PMIX_BYTE",
        STRING = 3 => "PMIX_STRING",
        SIZE = 4 => "PMIX_SIZE",
        PID = 5 => "PMIX_PID",
        INT = 6 => "PMIX_INT",
        INT8 = 7 => "PMIX_INT8",
        INT16 = 8 => "PMIX_INT16",
        INT32 = 9 => "PMIX_INT32",
        INT64 = 10 => "PMIX_INT64",
        UINT = 11 => "PMIX_UINT",
        UINT8 = 12 => "PMIX_UINT8",
        UINT16 = 13 => "PMIX_UINT16",
        UINT32 = 14 => "PMIX_UINT32",
        UINT64 = 15 => "PMIX_UINT64",
        FLOAT = 16 => "PMIX_FLOAT",
        DOUBLE = 17 => "PMIX_DOUBLE",
        TIMEVAL = 18 => "PMIX_TIMEVAL",
        TIME = 19 => "PMIX_TIME",
        STATUS = 20 => "PMIX_STATUS",
        VALUE = 21 => "PMIX_VALUE",
        PROC = 22 => "PMIX_PROC",
        APP = 23 => "PMIX_APP",
        INFO = 24 => "PMIX_INFO",
        PDATA = 25 => "PMIX_PDATA",
        BUFFER = 26 => "PMIX_BUFFER",
        BYTE_OBJECT = 27 => "PMIX_BYTE_OBJECT",
        KVAL = 28 => "PMIX_KVAL",
        PERSIST = 30 => "PMIX_PERSIST",
        POINTER = 31 => "PMIX_POINTER",
        SCOPE = 32 => "PMIX_SCOPE",
        DATA_RANGE = 33 => "PMIX_DATA_RANGE",
        COMMAND = 34 => "PMIX_COMMAND",
        INFO_DIRECTIVES = 35 => "PMIX_INFO_DIRECTIVES",
        DATA_TYPE = 36 => "PMIX_DATA_TYPE",
        PROC_STATE = 37 => "PMIX_PROC_STATE",
        PROC_INFO = 38 => "PMIX_PROC_INFO",
        DATA_ARRAY = 39 => "PMIX_DATA_ARRAY",
        PROC_RANK = 40 => "PMIX_PROC_RANK",
        QUERY = 41 => "PMIX_QUERY",
        COMPRESSED_STRING = 42 => "PMIX_COMPRESSED_STRING",
        ALLOC_DIRECTIVE = 43 => "PMIX_ALLOC_DIRECTIVE",
        IOF_CHANNEL = 45 => "PMIX_IOF_CHANNEL",
        ENVAR = 46 => "PMIX_ENVAR",
        COORD = 47 => "PMIX_COORD",
        REGATTR = 48 => "PMIX_REGATTR",
        REGEX = 49 => "PMIX_REGEX",
        JOB_STATE = 50 => "PMIX_JOB_STATE",
        LINK_STATE = 51 => "PMIX_LINK_STATE",
        PROC_CPUSET = 52 => "PMIX_PROC_CPUSET",
        GEOMETRY = 53 => "PMIX_GEOMETRY",
        DEVICE_DIST = 54 => "PMIX_DEVICE_DIST",
        ENDPOINT = 55 => "PMIX_ENDPOINT",
        TOPO = 56 => "PMIX_TOPO",
        DEVTYPE = 57 => "PMIX_DEVTYPE",
        LOCTYPE = 58 => "PMIX_LOCTYPE",
        COMPRESSED_BYTE_OBJECT = 59 => "PMIX_COMPRESSED_BYTE_OBJECT",
        PROC_NSPACE = 60 => "PMIX_PROC_NSPACE",
        PROC_STATS = 61 => "PMIX_PROC_STATS",
        DISK_STATS = 62 => "PMIX_DISK_STATS",
        NET_STATS = 63 => "PMIX_NET_STATS",
        NODE_STATS = 64 => "PMIX_NODE_STATS",
        DATA_BUFFER = 65 => "PMIX_DATA_BUFFER",
        STOR_MEDIUM = 66 => "PMIX_STOR_MEDIUM",
        STOR_ACCESS = 67 => "PMIX_STOR_ACCESS",
        STOR_PERSIST = 68 => "PMIX_STOR_PERSIST",
        STOR_ACCESS_TYPE = 69 => "PMIX_STOR_ACCESS_TYPE",
        DATA_TYPE_MAX = 500 => "PMIX_DATA_TYPE_MAX",
    }
}

code_type! {
    /// The range an event, a published datum or a group reaches
    /// (`pmix_data_range_t`, 8 bits).
    ///
    /// `PROC_LOCAL` (7) is the event RFC's thread-to-thread range: the event never
    /// leaves the process.
    DataRange(u8), c = "pmix_data_range_t", table = ALL_DATA_RANGES {
        UNDEF = 0 => "PMIX_RANGE_UNDEF",
        RM = 1 => "PMIX_RANGE_RM",
        LOCAL = 2 => "PMIX_RANGE_LOCAL",
        NAMESPACE = 3 => "PMIX_RANGE_NAMESPACE",
        SESSION = 4 => "PMIX_RANGE_SESSION",
        GLOBAL = 5 => "PMIX_RANGE_GLOBAL",
        CUSTOM = 6 => "PMIX_RANGE_CUSTOM",
        PROC_LOCAL = 7 => "PMIX_RANGE_PROC_LOCAL",
        INVALID = 255 => "PMIX_RANGE_INVALID",
    }
}

code_type! {
    /// Who may see a `put` value (`pmix_scope_t`, 8 bits).
    Scope(u8), c = "pmix_scope_t", table = ALL_SCOPES {
        UNDEF = 0 => "PMIX_SCOPE_UNDEF",
        LOCAL = 1 => "PMIX_LOCAL",
        REMOTE = 2 => "PMIX_REMOTE",
        GLOBAL = 3 => "PMIX_GLOBAL",
        INTERNAL = 4 => "PMIX_INTERNAL",
    }
}

code_type! {
    /// How long published data persists (`pmix_persistence_t`, 8 bits).
    Persistence(u8), c = "pmix_persistence_t", table = ALL_PERSISTENCES {
        INDEF = 0 => "PMIX_PERSIST_INDEF",
        FIRST_READ = 1 => "PMIX_PERSIST_FIRST_READ",
        PROC = 2 => "PMIX_PERSIST_PROC",
        APP = 3 => "PMIX_PERSIST_APP",
        SESSION = 4 => "PMIX_PERSIST_SESSION",
        INVALID = 255 => "PMIX_PERSIST_INVALID",
    }
}

code_type! {
    /// The state of a process (`pmix_proc_state_t`, 8 bits).
    ProcState(u8), c = "pmix_proc_state_t", table = ALL_PROC_STATES {
        UNDEF = 0 => "PMIX_PROC_STATE_UNDEF",
        PREPPED = 1 => "PMIX_PROC_STATE_PREPPED",
        LAUNCH_UNDERWAY = 2 => "PMIX_PROC_STATE_LAUNCH_UNDERWAY",
        RESTART = 3 => "PMIX_PROC_STATE_RESTART",
        TERMINATE = 4 => "PMIX_PROC_STATE_TERMINATE",
        RUNNING = 5 => "PMIX_PROC_STATE_RUNNING",
        CONNECTED = 6 => "PMIX_PROC_STATE_CONNECTED",
        UNTERMINATED = 15 => "PMIX_PROC_STATE_UNTERMINATED",
        TERMINATED = 20 => "PMIX_PROC_STATE_TERMINATED",
        ERROR = 50 => "PMIX_PROC_STATE_ERROR",
        KILLED_BY_CMD = 51 => "PMIX_PROC_STATE_KILLED_BY_CMD",
        ABORTED = 52 => "PMIX_PROC_STATE_ABORTED",
        FAILED_TO_START = 53 => "PMIX_PROC_STATE_FAILED_TO_START",
        ABORTED_BY_SIG = 54 => "PMIX_PROC_STATE_ABORTED_BY_SIG",
        TERM_WO_SYNC = 55 => "PMIX_PROC_STATE_TERM_WO_SYNC",
        COMM_FAILED = 56 => "PMIX_PROC_STATE_COMM_FAILED",
        SENSOR_BOUND_EXCEEDED = 57 => "PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED",
        CALLED_ABORT = 58 => "PMIX_PROC_STATE_CALLED_ABORT",
        HEARTBEAT_FAILED = 59 => "PMIX_PROC_STATE_HEARTBEAT_FAILED",
        MIGRATING = 60 => "PMIX_PROC_STATE_MIGRATING",
        CANNOT_RESTART = 61 => "PMIX_PROC_STATE_CANNOT_RESTART",
        TERM_NON_ZERO = 62 => "PMIX_PROC_STATE_TERM_NON_ZERO",
        FAILED_TO_LAUNCH = 63 => "PMIX_PROC_STATE_FAILED_TO_LAUNCH",
    }
}

code_type! {
    /// The state of a job (`pmix_job_state_t`, 8 bits).
    JobState(u8), c = "pmix_job_state_t", table = ALL_JOB_STATES {
        UNDEF = 0 => "PMIX_JOB_STATE_UNDEF",
        AWAITING_ALLOC = 1 => "PMIX_JOB_STATE_AWAITING_ALLOC",
        LAUNCH_UNDERWAY = 2 => "PMIX_JOB_STATE_LAUNCH_UNDERWAY",
        RUNNING = 3 => "PMIX_JOB_STATE_RUNNING",
        SUSPENDED = 4 => "PMIX_JOB_STATE_SUSPENDED",
        CONNECTED = 5 => "PMIX_JOB_STATE_CONNECTED",
        UNTERMINATED = 15 => "PMIX_JOB_STATE_UNTERMINATED",
        TERMINATED = 20 => "PMIX_JOB_STATE_TERMINATED",
        TERMINATED_WITH_ERROR = 50 => "PMIX_JOB_STATE_TERMINATED_WITH_ERROR",
    }
}

code_type! {
    /// Info directive flags (`pmix_info_directives_t`, 32 bits): a bit set.
    InfoFlags(u32), c = "pmix_info_directives_t", table = ALL_INFO_FLAGS {
        /// No flag set.
        NONE = 0 => "PMIX_INFO_NONE",
        REQD = 0x1 => "PMIX_INFO_REQD",
        ARRAY_END = 0x2 => "PMIX_INFO_ARRAY_END",
        REQD_PROCESSED = 0x4 => "PMIX_INFO_REQD_PROCESSED",
        QUALIFIER = 0x8 => "PMIX_INFO_QUALIFIER",
        PERSISTENT = 0x10 => "PMIX_INFO_PERSISTENT",
        DIR_RESERVED = 0xffff_0000 => "PMIX_INFO_DIR_RESERVED",
    }
}

impl InfoFlags {
    /// `true` when every bit of `other` is set in `self`.
    pub fn contains(self, other: InfoFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// `self` with the bits of `other` added.
    #[must_use]
    pub fn with(self, other: InfoFlags) -> InfoFlags {
        InfoFlags(self.0 | other.0)
    }

    /// `self` with the bits of `other` cleared.
    #[must_use]
    pub fn without(self, other: InfoFlags) -> InfoFlags {
        InfoFlags(self.0 & !other.0)
    }
}

impl std::ops::BitOr for InfoFlags {
    type Output = InfoFlags;
    fn bitor(self, rhs: InfoFlags) -> InfoFlags {
        self.with(rhs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_unknown_values_display() {
        assert_eq!(DataRange::PROC_LOCAL.0, 7);
        assert_eq!(DataRange::PROC_LOCAL.to_string(), "PMIX_RANGE_PROC_LOCAL");
        assert_eq!(DataRange(42).to_string(), "DataRange(42)");
        assert!(!DataRange(42).is_known());
        assert_eq!(Scope::GLOBAL.to_string(), "PMIX_GLOBAL");
        assert_eq!(DataType::UINT16.0, 13);
        assert_eq!(ProcState::CALLED_ABORT.0, 58);
    }

    #[test]
    fn info_flags_compose() {
        let f = InfoFlags::REQD | InfoFlags::QUALIFIER;
        assert!(f.contains(InfoFlags::REQD));
        assert!(!f.contains(InfoFlags::PERSISTENT));
        assert_eq!(f.without(InfoFlags::REQD), InfoFlags::QUALIFIER);
    }

    #[test]
    fn tables_have_unique_values() {
        fn check<T: PartialEq + fmt::Debug>(t: &[(T, &str)]) {
            for (i, (a, _)) in t.iter().enumerate() {
                for (b, _) in &t[i + 1..] {
                    assert_ne!(a, b);
                }
            }
        }
        check(ALL_DATA_TYPES);
        check(ALL_DATA_RANGES);
        check(ALL_SCOPES);
        check(ALL_PERSISTENCES);
        check(ALL_PROC_STATES);
        check(ALL_JOB_STATES);
        check(ALL_INFO_FLAGS);
    }
}
