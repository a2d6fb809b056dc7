//! Event notification across real processes: `pmixrun` jobs and an
//! in-test server running `examples/evclient.rs`.

use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_server::NullHost;

mod common;
use common::{assert_ok, one_node_job, start_client, text, wait_all};

fn pmixrun(n: u32, scenario: &str) -> Output {
    common::run_scenario("evclient", n, scenario, 60)
}

#[test]
fn every_range_reaches_exactly_its_targets_with_the_true_source() {
    let o = pmixrun(4, "ranges");
    assert_ok(&o, 4);
    assert_eq!(text(&o).matches("ok ranges").count(), 4, "{}", text(&o));
}

#[test]
fn late_handlers_get_cached_events_replayed_but_not_do_not_cache_ones() {
    let o = pmixrun(2, "replay");
    assert_ok(&o, 2);
}

#[test]
fn a_declared_programming_model_is_announced_to_specific_handlers_only() {
    let o = pmixrun(1, "model");
    assert_ok(&o, 1);
    assert!(text(&o).contains("ok model declared"), "{}", text(&o));
}

#[test]
fn an_event_for_a_client_not_yet_connected_is_held_until_it_connects() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("held", 2, Arc::new(NullHost), tmp.path());
    let early = wait_all(
        vec![start_client("evclient", &server, &ns, 0, "early_sender")],
        Duration::from_secs(30),
    );
    assert!(early[0].status.success(), "{}", text(&early[0]));
    let late = wait_all(
        vec![start_client("evclient", &server, &ns, 1, "late_receiver")],
        Duration::from_secs(30),
    );
    assert!(late[0].status.success(), "{}", text(&late[0]));
    assert!(
        text(&late[0]).contains("ok late receiver"),
        "{}",
        text(&late[0])
    );
}

#[test]
fn losing_the_server_raises_lost_connection_in_the_client() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("lost", 1, Arc::new(NullHost), tmp.path());
    let mut child = start_client("evclient", &server, &ns, 0, "lost");
    // wait for "registered" on its stdout
    let mut out = child.stdout.take().unwrap();
    let t0 = Instant::now();
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    use std::io::Read;
    while !String::from_utf8_lossy(&seen).contains("registered") {
        assert!(t0.elapsed() < Duration::from_secs(30), "never registered");
        let n = out.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "child closed stdout: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    server.finalize();
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let st = child.wait().unwrap();
    let all = format!("{}{rest}", String::from_utf8_lossy(&seen));
    assert!(st.success(), "{all}");
    assert!(all.contains("ok lost connection event"), "{all}");
}
