//! Every numeric code pmix-rs defines equals the value in the OpenPMIx 4.2.2
//! headers (the C ABI depends on it: a status, type, range or scope crosses
//! the boundary as a cast). The fixture `data/pmix_int_macros.txt` lists the
//! integer macros of Debian's OpenPMIx 4.2.2 headers (`libpmix-dev`
//! 4.2.2-1+deb12u1: `pmix_common.h` and `pmix_deprecated.h`), each value
//! printed by a C program compiled against them: one `NAME VALUE [header]`
//! line per macro (`docs/CAPI.md` §3).

use std::collections::HashMap;

use pmix_core::codes::{
    ALL_DATA_RANGES, ALL_DATA_TYPES, ALL_INFO_FLAGS, ALL_JOB_STATES, ALL_PERSISTENCES,
    ALL_PROC_STATES, ALL_SCOPES,
};
use pmix_core::status::ALL_STATUS_NAMES;
use pmix_core::{Rank, Status, MAX_KEYLEN, MAX_NSLEN};

/// Names pmix-rs defines that the headers do not: the event design's status
/// names and the empty flag set.
const OURS_ONLY: &[&str] = &[
    "PMIX_ERR_LOST_SERVER_CONNECTION",
    "PMIX_ERR_FAILED_COMM",
    "PMIX_INFO_NONE",
];

fn header_values() -> HashMap<String, (i64, String)> {
    include_str!("data/pmix_int_macros.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            let name = it.next().unwrap().to_owned();
            let value: i64 = it.next().unwrap().parse().unwrap();
            let header = it.next().unwrap_or("").to_owned();
            (name, (value, header))
        })
        .collect()
}

fn check(table: impl IntoIterator<Item = (String, i64)>, errors: &mut Vec<String>) {
    let hdr = header_values();
    for (name, ours) in table {
        match hdr.get(&name) {
            Some((v, _)) if *v == ours => {}
            Some((v, _)) => errors.push(format!("{name}: ours {ours}, header {v}")),
            None if OURS_ONLY.contains(&name.as_str()) => {}
            None => errors.push(format!("{name}: not in the headers")),
        }
    }
}

#[test]
fn every_code_matches_the_standard_headers() {
    let mut errors = Vec::new();
    check(
        ALL_STATUS_NAMES
            .iter()
            .map(|(n, s)| (n.to_string(), i64::from(s.0))),
        &mut errors,
    );
    check(
        ALL_DATA_TYPES
            .iter()
            .map(|(t, n)| (n.to_string(), i64::from(t.0))),
        &mut errors,
    );
    check(
        ALL_DATA_RANGES
            .iter()
            .map(|(t, n)| (n.to_string(), i64::from(t.0))),
        &mut errors,
    );
    check(
        ALL_SCOPES
            .iter()
            .map(|(t, n)| (n.to_string(), i64::from(t.0))),
        &mut errors,
    );
    check(
        ALL_PERSISTENCES
            .iter()
            .map(|(t, n)| (n.to_string(), i64::from(t.0))),
        &mut errors,
    );
    check(
        ALL_PROC_STATES
            .iter()
            .map(|(t, n)| (n.to_string(), i64::from(t.0))),
        &mut errors,
    );
    check(
        ALL_JOB_STATES
            .iter()
            .map(|(t, n)| (n.to_string(), i64::from(t.0))),
        &mut errors,
    );
    check(
        ALL_INFO_FLAGS
            .iter()
            .map(|(t, n)| (n.to_string(), i64::from(t.0))),
        &mut errors,
    );
    let ranks = [
        ("PMIX_RANK_UNDEF", Rank::UNDEF),
        ("PMIX_RANK_WILDCARD", Rank::WILDCARD),
        ("PMIX_RANK_LOCAL_NODE", Rank::LOCAL_NODE),
        ("PMIX_RANK_INVALID", Rank::INVALID),
        ("PMIX_RANK_LOCAL_PEERS", Rank::LOCAL_PEERS),
        ("PMIX_RANK_VALID", Rank::VALID),
    ];
    check(
        ranks.iter().map(|(n, r)| (n.to_string(), i64::from(r.0))),
        &mut errors,
    );
    check(
        [
            ("PMIX_MAX_NSLEN".to_string(), MAX_NSLEN as i64),
            ("PMIX_MAX_KEYLEN".to_string(), MAX_KEYLEN as i64),
        ],
        &mut errors,
    );
    assert!(errors.is_empty(), "mismatches:\n{}", errors.join("\n"));
}

#[test]
fn every_standard_status_code_is_defined() {
    // Every negative macro of the headers whose name marks it as a status
    // (errors, events, group and job-control codes) must have a Status.
    let skip_prefixes = ["PMIX_RANK_", "PMIX_APP_"];
    let mut missing = Vec::new();
    for (name, (v, _)) in header_values() {
        if v >= 0 && name != "PMIX_SUCCESS" {
            continue;
        }
        if skip_prefixes.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        match Status::from_name(&name) {
            Some(s) if i64::from(s.0) == v => {}
            other => missing.push(format!("{name} = {v}: ours {other:?}")),
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "missing statuses:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_standard_data_type_range_and_scope_is_defined() {
    let hdr = header_values();
    for (name, want) in [
        ("PMIX_RANGE_PROC_LOCAL", 7),
        ("PMIX_RANGE_CUSTOM", 6),
        ("PMIX_GLOBAL", 3),
        ("PMIX_DATA_ARRAY", 39),
        ("PMIX_PROC_RANK", 40),
    ] {
        assert_eq!(hdr[name].0, want, "{name}");
    }
    for (t, n) in ALL_DATA_TYPES {
        assert_eq!(t.name(), Some(*n));
    }
}
