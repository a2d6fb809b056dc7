//! The attribute table against the facts: the string macros of the
//! OpenPMIx 4.2.2 headers (`data/pmix_str_macros.txt`, one
//! `STR PMIX_NAME "string" [header]` per line), the attribute names the
//! source documents use (`docs/SOURCES.md`), and `docs/ATTRIBUTES.md`, which is generated from the table.
//!
//! Regenerate the document after changing the table with
//! `PMIX_REGEN_ATTR_DOCS=1 cargo test -p pmix-core --test attrs_table`.

use std::collections::HashMap;
use std::fmt::Write as _;

use pmix_core::attrs::{self, Attr, Origin, ALIASES, ATTRIBUTES};

const STR_MACROS: &str = include_str!("data/pmix_str_macros.txt");
const DOC: &str = include_str!("../../docs/ATTRIBUTES.md");

/// One header macro: its string and the header defining it.
struct Macro<'a> {
    value: &'a str,
    header: &'a str,
}

fn header_macros() -> HashMap<&'static str, Macro<'static>> {
    let mut out = HashMap::new();
    for (n, line) in STR_MACROS.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let rest = line
            .strip_prefix("STR ")
            .unwrap_or_else(|| panic!("line {}: no STR prefix: {line}", n + 1));
        let (name, rest) = rest
            .trim_start()
            .split_once(char::is_whitespace)
            .unwrap_or_else(|| panic!("line {}: no value: {line}", n + 1));
        let rest = rest.trim_start().strip_prefix('"').unwrap();
        let (value, rest) = rest.split_once('"').unwrap();
        let header = rest
            .trim()
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or_else(|| panic!("line {}: no header: {line}", n + 1));
        let old = out.insert(name, Macro { value, header });
        assert!(old.is_none(), "{name} defined twice");
    }
    out
}

/// Checks one name/key/origin against the headers; pushes what is wrong.
/// `own_key`: a proposed row's string must be ours (an alias shares its
/// row's string, so only its name is checked).
fn check_against_headers(
    macros: &HashMap<&str, Macro<'_>>,
    name: &str,
    key: &str,
    origin: Origin,
    own_key: bool,
    bad: &mut Vec<String>,
) {
    let want_header = match origin {
        Origin::Standard => "pmix_common.h",
        Origin::Deprecated => "pmix_deprecated.h",
        Origin::Proposed => {
            if macros.contains_key(name) {
                bad.push(format!(
                    "{name} is marked Proposed but the headers define it"
                ));
            }
            let clash = macros.iter().find(|(_, m)| m.value == key);
            if let Some((other, _)) = clash.filter(|_| own_key) {
                bad.push(format!(
                    "{name}: proposed string {key:?} is the header's {other}"
                ));
            }
            return;
        }
    };
    match macros.get(name) {
        None => bad.push(format!("{name} ({origin}) is not in the headers")),
        Some(m) => {
            if m.value != key {
                bad.push(format!(
                    "{name}: table says {key:?}, header says {:?}",
                    m.value
                ));
            }
            if m.header != want_header {
                bad.push(format!(
                    "{name} is marked {origin} but is defined in {}",
                    m.header
                ));
            }
        }
    }
}

#[test]
fn fixture_parses() {
    let macros = header_macros();
    assert_eq!(macros.len(), STR_MACROS.lines().count());
    assert_eq!(macros["PMIX_EVENT_HDLR_FIRST"].value, "pmix.evfirst");
    assert_eq!(macros["PMIX_EVENT_BASE"].header, "pmix_deprecated.h");
}

#[test]
fn every_row_matches_the_headers() {
    let macros = header_macros();
    let mut bad = Vec::new();
    for a in ATTRIBUTES {
        check_against_headers(&macros, a.name, a.key, a.origin, true, &mut bad);
    }
    for al in ALIASES {
        check_against_headers(&macros, al.name, al.key, al.origin, false, &mut bad);
    }
    assert!(
        bad.is_empty(),
        "{} mismatches with the 4.2.2 headers:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Every attribute name the five source documents use (`docs/SOURCES.md`;
/// every `PMIX_[A-Z0-9_]*` in their text), by document.
const SOURCE_ATTRIBUTES: &[&str] = &[
    // Extend the Event Notification RFC (CONFORMANCE rows EV).
    "PMIX_EVENT_HDLR_NAME",
    "PMIX_EVENT_ORDER_PREPEND",
    "PMIX_EVENT_HDLR_PREPEND",
    "PMIX_EVENT_HDLR_FIRST",
    "PMIX_EVENT_HDLR_LAST",
    "PMIX_EVENT_HDLR_FIRST_IN_CATEGORY",
    "PMIX_EVENT_HDLR_LAST_IN_CATEGORY",
    "PMIX_EVENT_HDLR_BEFORE",
    "PMIX_EVENT_HDLR_AFTER",
    "PMIX_EVENT_HDLR_APPEND",
    "PMIX_EVENT_NO_TERMINATION",
    "PMIX_EVENT_WANT_TERMINATION",
    // Event Notification design (EVD; its "PMIx_server_cache_size info key"
    // is PMIX_SERVER_CACHE_SIZE here).
    "PMIX_EVENT_JOB_LEVEL",
    "PMIX_EVENT_ENVIRO_LEVEL",
    "PMIX_SERVER_CACHE_SIZE",
    // RFC0003 — PMIx_Connect/Disconnect (CON).
    "PMIX_CONNECT_NOTIFY_EACH",
    "PMIX_CONNECT_NOTIFY_REQ",
    "PMIX_CONNECT_OPTIONAL",
    "PMIX_CONNECT_EARLY_TERM_ALLOWED",
    "PMIX_CONNECT_XCHG_ONLY",
    "PMIX_CONNECT_ID",
    "PMIX_CLUSTER_ID",
    "PMIX_RANGE",
    // PMIx Standard use cases (UC). Business card / job-level keys:
    "PMIX_NODE_LIST",
    "PMIX_NUM_NODES",
    "PMIX_NODEID",
    "PMIX_JOB_SIZE",
    "PMIX_PROC_MAP",
    "PMIX_LOCAL_PEERS",
    "PMIX_LOCAL_SIZE",
    "PMIX_RANK",
    "PMIX_LOCAL_RANK",
    "PMIX_GLOBAL_RANK",
    "PMIX_LOCALITY_STRING",
    "PMIX_HOSTNAME",
    // Debuggers and tools:
    "PMIX_DEBUGGER_DAEMONS",
    "PMIX_QUERY_SPAWN_SUPPORT",
    "PMIX_QUERY_DEBUG_SUPPORT",
    "PMIX_DEBUG_STOP_IN_INIT",
    "PMIX_DEBUG_STOP_ON_EXEC",
    "PMIX_DEBUG_STOP_IN_APP",
    "PMIX_DEBUG_DAEMONS_PER_PROC",
    "PMIX_DEBUG_DAEMONS_PER_NODE",
    "PMIX_DEBUG_TARGET",
    "PMIX_COSPAWN_APP",
    "PMIX_MAPBY",
    "PMIX_FWD_STDOUT",
    "PMIX_FWD_STDERR",
    "PMIX_NOTIFY_COMPLETION",
    "PMIX_SETUP_APP_ENVARS",
    "PMIX_EVENT_AFFECTED_PROC",
    "PMIX_QUERY_PROC_TABLE",
    "PMIX_QUERY_LOCAL_PROC_TABLE",
    "PMIX_LAUNCH_DIRECTIVES",
    "PMIX_SPAWN_TOOL",
    "PMIX_WAIT_FOR_CONNECTION",
    "PMIX_REQUESTOR_IS_TOOL",
    "PMIX_QUERY_NAMESPACES",
    // Environment directives:
    "PMIX_SET_ENVAR",
    "PMIX_ADD_ENVAR",
    "PMIX_UNSET_ENVAR",
    "PMIX_PREPEND_ENVAR",
    "PMIX_APPEND_ENVAR",
    // Hybrid programming models:
    "PMIX_PROGRAMMING_MODEL",
    "PMIX_MODEL_LIBRARY_NAME",
    "PMIX_MODEL_LIBRARY_VERSION",
    "PMIX_THREADING_MODEL",
    "PMIX_MODEL_NUM_THREADS",
    "PMIX_MODEL_NUM_CPUS",
    "PMIX_MODEL_CPU_TYPE",
    "PMIX_MODEL_PHASE_NAME",
    "PMIX_MODEL_PHASE_TYPE",
    "PMIX_MODEL_AFFINITY_POLICY",
    // MPI Sessions:
    "PMIX_PSET_NAMES",
    "PMIX_QUERY_NUM_GROUPS",
    "PMIX_QUERY_GROUP_NAMES",
    "PMIX_QUERY_GROUP_MEMBERSHIP",
    // PMIx Groups draft (GRP).
    "PMIX_TIMEOUT",
    "PMIX_GROUP_LEADER",
    "PMIX_GROUP_FT_COLLECTIVE",
    "PMIX_GROUP_NOTIFY_TERMINATION",
];

/// `PMIX_` names in the source documents that are not attributes, and so
/// have no row:
/// status and event codes, macros, range values, data types, enum values,
/// info flags, environment variables, limits.
const SOURCE_NON_ATTRIBUTES: &[&str] = &[
    // Status and event codes (`pmix_core::Status`).
    "PMIX_SUCCESS",
    "PMIX_ERR_NOT_SUPPORTED",
    "PMIX_ERR_FAILED_COMM",
    "PMIX_ERR_LOST_SERVER_CONNECTION",
    "PMIX_EVENT_NO_ACTION_TAKEN",
    "PMIX_EVENT_PARTIAL_ACTION_TAKEN",
    "PMIX_EVENT_ACTION_DEFERRED",
    "PMIX_EVENT_ACTION_COMPLETE",
    "PMIX_PROC_HAS_CONNECTED",
    "PMIX_PROC_HAS_DISCONNECTED",
    "PMIX_CONNECT_REQUESTED",
    "PMIX_DEBUG_WAITING_FOR_NOTIFY",
    "PMIX_DEBUGGER_RELEASE",
    "PMIX_LAUNCHER_READY",
    "PMIX_LAUNCH_COMPLETE",
    "PMIX_MODEL_DECLARED",
    "PMIX_MODEL_RESOURCES",
    "PMIX_OPENMP_PARALLEL_ENTERED",
    "PMIX_OPENMP_PARALLEL_EXITED",
    "PMIX_GROUP_INVITED",
    "PMIX_GROUP_INVITE_ACCEPTED",
    "PMIX_GROUP_INVITE_DECLINED",
    "PMIX_GROUP_INVITE_FAILED",
    "PMIX_GROUP_LEADER_FAILED",
    "PMIX_GROUP_LEADER_SELECTED",
    "PMIX_GROUP_LEFT",
    "PMIX_GROUP_MEMBERSHIP_UPDATE",
    "PMIX_GROUP_CONSTRUCT_ABORT",
    "PMIX_GROUP_CONSTRUCT_COMPLETE",
    // Macros.
    "PMIX_INFO_LOAD",
    "PMIX_INFO_CREATE",
    "PMIX_INFO_FREE",
    "PMIX_INFO_CONSTRUCT",
    "PMIX_INFO_DESTRUCT",
    "PMIX_PROC_LOAD",
    "PMIX_PDATA_CONSTRUCT",
    "PMIX_PDATA_DESTRUCT",
    "PMIX_VALUE_RELEASE",
    "PMIX_MULTICLUSTER_NSPACE_CONSTRUCT",
    "PMIX_EXPORT",
    // Values, types, flags, limits, environment variables.
    "PMIX_RANGE_PROC_LOCAL",
    "PMIX_RANGE_GLOBAL",
    "PMIX_RANK_WILDCARD",
    "PMIX_STRING",
    "PMIX_DATA_RANGE",
    "PMIX_INFO_REQD",
    "PMIX_GROUP_ACCEPT",
    "PMIX_GROUP_DECLINE",
    "PMIX_MAX_NSLEN",
    "PMIX_LAUNCHER_RNDZ_URI",
];

#[test]
fn every_source_attribute_has_a_row() {
    let missing: Vec<&str> = SOURCE_ATTRIBUTES
        .iter()
        .copied()
        .filter(|n| attrs::lookup_name(n).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "attributes of the source documents without a row: {missing:?}"
    );
}

#[test]
fn source_non_attributes_have_no_row() {
    let wrong: Vec<&str> = SOURCE_NON_ATTRIBUTES
        .iter()
        .copied()
        .filter(|n| attrs::lookup_name(n).is_some())
        .collect();
    assert!(
        wrong.is_empty(),
        "not attributes, yet in the table: {wrong:?}"
    );
    for n in SOURCE_NON_ATTRIBUTES {
        assert!(!SOURCE_ATTRIBUTES.contains(n), "{n} is in both lists");
    }
}

#[test]
fn proposed_rows_are_named_by_a_source() {
    // A proposed row exists because a source document names it, and for no
    // other reason.
    for a in ATTRIBUTES.iter().filter(|a| a.origin == Origin::Proposed) {
        assert!(
            SOURCE_ATTRIBUTES.contains(&a.name),
            "{} is Proposed but no source document names it",
            a.name
        );
    }
}

fn type_cell(a: &Attr) -> String {
    let mut s = format!("`{}`", a.ty);
    for t in a.alt {
        let _ = write!(s, " or `{t}`");
    }
    s
}

fn origin_cell(o: Origin) -> &'static str {
    match o {
        Origin::Standard => "standard",
        Origin::Deprecated => "deprecated",
        Origin::Proposed => "**proposed**",
    }
}

/// Renders `docs/ATTRIBUTES.md` from the table.
fn render() -> String {
    let count = |o: Origin| ATTRIBUTES.iter().filter(|a| a.origin == o).count();
    let mut s = String::new();
    s.push_str(
        "# Attributes\n\
         \n\
         <!-- Generated from `pmix_core::attrs` by core/tests/attrs_table.rs; do not edit.\n\
         \x20    Regenerate: PMIX_REGEN_ATTR_DOCS=1 cargo test -p pmix-core --test attrs_table -->\n\
         \n\
         `pmix_core::attrs` has one constant per attribute (info key) that the source\n\
         documents (`SOURCES.md`) name, plus the job-level keys and directives Open MPI 4.1\n\
         and ORTE exchange with OpenPMIx 4.2.2 (`CAPI.md` §6), plus the common directives of\n\
         the standard. A constant drops the `PMIX_` prefix: `attrs::EVENT_HDLR_FIRST` is\n\
         `\"pmix.evfirst\"`.\n\
         \n\
         Names and key strings are those of the OpenPMIx 4.2.2 headers;\n\
         `core/tests/attrs_table.rs` checks every row against their string macros\n\
         (`core/tests/data/pmix_str_macros.txt`). The type is the one the standard declares,\n\
         or, for job-level keys, the exact type Open MPI checks on `PMIx_Get` (`pmix.lrank` is\n\
         `PMIX_UINT16`, sizes `PMIX_UINT32`, ranks `PMIX_PROC_RANK`).\n\
         \n\
         `attrs::check` accepts an info whose key is not in the table (user keys are free),\n\
         or whose value has the listed type or one of its listed alternatives, or a\n\
         `PMIX_UNDEF` value for a `PMIX_BOOL` attribute (a flag given without a value).\n\
         Anything else is `PMIX_ERR_TYPE_MISMATCH`. Alternatives exist only where the\n\
         standard says \"(varies)\" or where Open MPI/ORTE are seen sending another type\n\
         (`pmix.evrange` as one proc, `pmix.wait` as a bool, `pmix.srv.rank` as a uint32).\n\
         \n\
         Origins:\n\
         \n\
         - **standard**: in the standard and in `pmix_common.h`.\n\
         - **deprecated**: only in `pmix_deprecated.h`, still sent by Open MPI or named by a\n\
         \x20 source document.\n\
         - **proposed**: named by a source document, absent from the 4.2.2 headers. The key\n\
         \x20 string is ours, in the `pmix.` style, and equals no header string. The connect\n\
         \x20 RFC's six `CONNECT_*` directives were superseded by the groups API;\n\
         \x20 `EVENT_JOB_LEVEL` and `EVENT_ENVIRO_LEVEL` were dropped after PMIx 2 and keep\n\
         \x20 the PMIx 2 strings that Open MPI's OPAL layer still defines (`pmix.evjob`,\n\
         \x20 `pmix.evenv`); `SERVER_CACHE_SIZE` is the event design's\n\
         \x20 `PMIx_server_cache_size` key.\n\
         \n",
    );
    let _ = writeln!(
        s,
        "{} attributes: {} standard, {} deprecated, {} proposed; {} aliases.\n",
        ATTRIBUTES.len(),
        count(Origin::Standard),
        count(Origin::Deprecated),
        count(Origin::Proposed),
        ALIASES.len()
    );
    s.push_str("| name | key | type | origin | meaning |\n");
    s.push_str("| --- | --- | --- | --- | --- |\n");
    for a in ATTRIBUTES {
        let _ = writeln!(
            s,
            "| `{}` | `{}` | {} | {} | {} |",
            a.name,
            a.key,
            type_cell(a),
            origin_cell(a.origin),
            a.doc.replace('|', "\\|")
        );
    }
    s.push_str(
        "\n## Aliases\n\
         \n\
         Other names of a row's key; `attrs::lookup_name` resolves them.\n\
         \n\
         | name | key | stands for | origin |\n\
         | --- | --- | --- | --- |\n",
    );
    for al in ALIASES {
        let _ = writeln!(
            s,
            "| `{}` | `{}` | `{}` | {} |",
            al.name,
            al.key,
            al.target,
            origin_cell(al.origin)
        );
    }
    s.push_str(
        "\n`PMIX_EVENT_ORDER_PREPEND` is the event RFC's old name for `PMIX_EVENT_HDLR_PREPEND`;\n\
         the RFC renamed it, and Open MPI's `OPAL_PMIX_EVENT_ORDER_PREPEND` is the same\n\
         `pmix.evprepend` string, so it is an alias rather than a proposed key of ours.\n\
         \n\
         Names in the source documents that are not attributes (status codes, macros such as\n\
         `PMIX_MULTICLUSTER_NSPACE_CONSTRUCT`, range values, the `PMIX_LAUNCHER_RNDZ_URI`\n\
         environment variable) have no row; `core/tests/attrs_table.rs` lists them.\n",
    );
    s.push_str(
        "\n## pmix-rs keys of connected groups\n\
         \n\
         Keys of pmix-rs's own (`pmix_core::proto::connect`), outside any standard, that\n\
         `PMIx_Get` answers after a connect (RFC0003).\n\
         \n\
         | key | type | on | meaning |\n\
         | --- | --- | --- | --- |\n",
    );
    use pmix_core::proto::connect as c;
    for (key, ty, on, what) in [
        (
            c::CONNECT_NSPACE,
            "PMIX_STRING",
            "the caller's own proc, qualified by `PMIX_CONNECT_ID` (none: the connects without an id)",
            "Namespace of the caller's latest live connect with that id (the 4.2 `PMIx_Connect` returns only a status).",
        ),
        (
            c::CONNECT_RANK,
            "PMIX_PROC_RANK",
            "as above",
            "The caller's rank in that group: its index in the canonical participant order.",
        ),
        (
            c::GROUP_MEMBERS,
            "PMIX_DATA_ARRAY of PMIX_PROC",
            "(group ns, WILDCARD)",
            "The rank map: the real process of each group rank (also at (group id, WILDCARD) of a PMIx group).",
        ),
        (
            c::GROUP_CANONICAL,
            "PMIX_DATA_ARRAY of PMIX_PROC",
            "(group ns, WILDCARD)",
            "The canonical participant set of the connect that made the group.",
        ),
        (
            c::GROUP_MEMBER,
            "PMIX_PROC",
            "(group ns, r)",
            "The real process holding group rank r.",
        ),
        (
            "<key>#q:<qkey>=<value>;…",
            "the stored value's",
            "(proc)",
            "A value stored under qualifiers (`proto::group::qualified_key`, qualifiers sorted by key): a `get` of `<key>` with those `PMIX_INFO_QUALIFIER` directives reads it. A PMIx group's `PMIX_GROUP_INFO` entries are stored at their contributor so, qualified by `PMIX_GROUP_ID` and by `PMIX_GROUP_CONTEXT_ID`.",
        ),
    ] {
        let _ = writeln!(s, "| `{key}` | `{ty}` | {on} | {what} |");
    }
    s.push_str(
        "\nA group namespace also has `PMIX_JOB_SIZE`, `PMIX_NSPACE`, `PMIX_JOBID` and,\n\
         per rank, `PMIX_RANK`; any other key asked of `(group ns, r)` is asked of its real\n\
         process.\n",
    );
    s
}

#[test]
fn docs_table_is_current() {
    let fresh = render();
    if std::env::var_os("PMIX_REGEN_ATTR_DOCS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ATTRIBUTES.md");
        std::fs::write(path, &fresh).unwrap();
        return;
    }
    assert!(
        DOC == fresh,
        "docs/ATTRIBUTES.md is stale: run PMIX_REGEN_ATTR_DOCS=1 cargo test -p pmix-core --test attrs_table"
    );
}
