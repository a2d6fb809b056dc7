use std::collections::HashSet;

use super::*;
use crate::proc::Proc;
use crate::value::DataArray;
use crate::{DataRange, Rank};

fn info(key: &str, value: impl Into<Value>) -> Info {
    Info::new(key, value).unwrap()
}

#[test]
fn lookup_works_both_ways() {
    let by_key = lookup(EVENT_HDLR_FIRST).unwrap();
    assert_eq!(by_key.name, "PMIX_EVENT_HDLR_FIRST");
    assert_eq!(by_key.key, "pmix.evfirst");
    assert_eq!(by_key.ty, DataType::BOOL);
    assert_eq!(lookup_name("PMIX_EVENT_HDLR_FIRST"), Some(by_key));
    assert!(lookup("pmix.no.such.key").is_none());
    assert!(lookup_name("PMIX_NO_SUCH_NAME").is_none());
    // Every row is found by both its key and its name.
    for a in ATTRIBUTES {
        assert_eq!(lookup(a.key), Some(a), "{}", a.name);
        assert_eq!(lookup_name(a.name), Some(a), "{}", a.name);
    }
}

#[test]
fn aliases_resolve_to_their_rows() {
    for al in ALIASES {
        let row = lookup_name(al.name).unwrap();
        assert_eq!(row.name, al.target);
        assert_eq!(row.key, al.key);
        assert!(lookup_name(al.target).is_some());
        assert!(
            ATTRIBUTES.iter().all(|a| a.name != al.name),
            "alias {} is also a row",
            al.name
        );
    }
    assert_eq!(PROC_DATA, "pmix.pdata");
    assert_eq!(EVENT_ORDER_PREPEND, "pmix.evprepend");
}

#[test]
fn open_mpi_job_keys_have_its_exact_types() {
    for (key, ty) in [
        (LOCAL_RANK, DataType::UINT16),
        (NODE_RANK, DataType::UINT16),
        (JOB_SIZE, DataType::UINT32),
        (MAX_PROCS, DataType::UINT32),
        (LOCAL_SIZE, DataType::UINT32),
        (UNIV_SIZE, DataType::UINT32),
        (NUM_NODES, DataType::UINT32),
        (APPNUM, DataType::UINT32),
        (NODEID, DataType::UINT32),
        (RANK, DataType::PROC_RANK),
        (GLOBAL_RANK, DataType::PROC_RANK),
        (LOCALLDR, DataType::PROC_RANK),
        (LOCAL_PEERS, DataType::STRING),
        (LOCALITY_STRING, DataType::STRING),
        (LOCALITY, DataType::UINT16),
        (AVAIL_PHYS_MEMORY, DataType::UINT64),
        (USERID, DataType::UINT32),
        (TIMEOUT, DataType::INT),
        (PERSISTENCE, DataType::PERSIST),
        (LOG_MSG, DataType::BYTE_OBJECT),
    ] {
        assert_eq!(lookup(key).unwrap().ty, ty, "{key}");
    }
}

#[test]
fn check_accepts_the_declared_type() {
    check(&info(EVENT_HDLR_FIRST, true)).unwrap();
    check(&info(EVENT_HDLR_NAME, "MPI-Default")).unwrap();
    check(&info(LOCAL_RANK, 3u16)).unwrap();
    check(&info(RANK, Rank(2))).unwrap();
    check(&info(RANGE, DataRange::PROC_LOCAL)).unwrap();
    check(&info(EVENT_AFFECTED_PROC, Proc::default())).unwrap();
    check(&info(TIMEOUT, Value::Int(600))).unwrap();
}

#[test]
fn check_takes_a_bare_flag_for_bools_only() {
    check(&Info::flag(EVENT_HDLR_PREPEND).unwrap()).unwrap();
    check(&Info::flag(COLLECT_DATA).unwrap()).unwrap();
    let e = check(&Info::flag(JOB_SIZE).unwrap()).unwrap_err();
    assert_eq!(e.status(), Status::ERR_TYPE_MISMATCH);
}

#[test]
fn check_rejects_another_type_and_says_why() {
    let e = check(&info(EVENT_HDLR_FIRST, "yes")).unwrap_err();
    assert_eq!(e.status(), Status::ERR_TYPE_MISMATCH);
    assert_eq!(
        e.context(),
        Some("PMIX_EVENT_HDLR_FIRST (pmix.evfirst) takes a PMIX_BOOL, got PMIX_STRING")
    );
    // Width matters: Open MPI checks the exact type.
    let e = check(&info(LOCAL_RANK, 3u32)).unwrap_err();
    assert_eq!(
        e.context(),
        Some("PMIX_LOCAL_RANK (pmix.lrank) takes a PMIX_UINT16, got PMIX_UINT32")
    );
    assert!(check(&info(RANK, 2u32)).is_err());
    assert!(check(&info(JOB_SIZE, 4u64)).is_err());
}

#[test]
fn check_accepts_the_listed_alternatives() {
    // ORTE sends a single proc as the custom range.
    check(&info(EVENT_CUSTOM_RANGE, Proc::default())).unwrap();
    let procs = DataArray::from_procs(vec![Proc::default()]);
    check(&info(EVENT_CUSTOM_RANGE, procs)).unwrap();
    // Open MPI's lookup sends pmix.wait as a bool.
    check(&info(WAIT, true)).unwrap();
    check(&info(WAIT, Value::Int(0))).unwrap();
    // "(varies)" debugger directives.
    check(&info(DEBUG_STOP_IN_INIT, true)).unwrap();
    check(&info(DEBUG_STOP_IN_INIT, Rank(0))).unwrap();
    let e = check(&info(DEBUG_STOP_IN_INIT, "0")).unwrap_err();
    assert_eq!(
        e.context(),
        Some(
            "PMIX_DEBUG_STOP_IN_INIT (pmix.dbg.init) takes a PMIX_BOOL or PMIX_PROC_RANK \
             or PMIX_DATA_ARRAY, got PMIX_STRING"
        )
    );
}

#[test]
fn unknown_keys_pass() {
    check(&info("btl.tcp.4.1", Value::ByteObject(vec![1, 2]))).unwrap();
    check(&info("orte.notify.donotloop", true)).unwrap();
}

#[test]
fn check_all_reports_the_first_bad_info() {
    let good = vec![
        info(EVENT_HDLR_NAME, "x"),
        Info::flag(EVENT_HDLR_PREPEND).unwrap(),
    ];
    check_all(&good).unwrap();
    check_all(&[]).unwrap();
    let bad = vec![
        info(EVENT_HDLR_NAME, "x"),
        info(JOB_SIZE, "4"),
        info(LOCAL_RANK, 1u8),
    ];
    let e = check_all(&bad).unwrap_err();
    assert!(e.context().unwrap().starts_with("PMIX_JOB_SIZE "));
}

#[test]
fn no_two_attributes_share_a_key_or_a_name() {
    let mut keys = HashSet::new();
    let mut names = HashSet::new();
    for a in ATTRIBUTES {
        assert!(keys.insert(a.key), "key {} used twice", a.key);
        assert!(names.insert(a.name), "name {} used twice", a.name);
    }
    for al in ALIASES {
        assert!(names.insert(al.name), "alias {} used twice", al.name);
    }
}

#[test]
fn rows_are_well_formed() {
    for a in ATTRIBUTES {
        assert!(a.name.starts_with("PMIX_"), "{}", a.name);
        assert!(a.key.len() <= crate::MAX_KEYLEN, "{}", a.name);
        assert!(a.ty.is_known() && a.ty != DataType::UNDEF, "{}", a.name);
        assert!(
            !a.alt.contains(&a.ty),
            "{} lists its type as alternative",
            a.name
        );
        assert!(a.alt.iter().all(|t| t.is_known()), "{}", a.name);
        assert!(!a.doc.is_empty() && !a.doc.contains('\n'), "{}", a.name);
        assert!(a.doc.ends_with('.'), "{}: doc is one sentence", a.name);
    }
}

#[test]
fn proposed_strings_are_ours() {
    let standard: HashSet<&str> = ATTRIBUTES
        .iter()
        .filter(|a| a.origin != Origin::Proposed)
        .map(|a| a.key)
        .collect();
    let proposed: Vec<&Attr> = ATTRIBUTES
        .iter()
        .filter(|a| a.origin == Origin::Proposed)
        .collect();
    assert!(!proposed.is_empty());
    for a in proposed {
        assert!(a.key.starts_with("pmix."), "{}: {}", a.name, a.key);
        assert!(!standard.contains(a.key), "{}: {}", a.name, a.key);
    }
}

#[test]
fn origin_displays() {
    assert_eq!(Origin::Proposed.to_string(), "proposed");
    assert_eq!(Origin::Standard.to_string(), "standard");
    assert_eq!(Origin::Deprecated.to_string(), "deprecated");
}
