//! Connect / disconnect (RFC0003) across real processes: `pmixrun` jobs
//! and in-test servers running `examples/connectclient.rs`.

use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use pmix_core::{Nspace, Proc, Rank};
use pmix_server::{NullHost, Server, ServerConfig, SingleNodeJob};

mod common;
use common::{assert_ok, example, ids, one_node_job, start_client, text, wait_all};

fn pmixrun(n: u32, scenario: &str) -> Output {
    common::run_scenario("connectclient", n, scenario, 90)
}

#[test]
fn concurrent_connects_name_groups_alike_and_group_addresses_reach_exactly_the_members() {
    let o = pmixrun(4, "pairs");
    assert_ok(&o, 4);
    let t = text(&o);
    for what in [
        "ok cluster id",
        "ok zero procs",
        "ok caller not a member",
        "ok unknown namespace",
        "ok all four twice",
        "ok group fence",
        "ok group get",
        "ok custom notify",
        "ok second disconnect",
        "ok reconnect",
        "ok blocking connect in a handler",
    ] {
        assert_eq!(t.matches(what).count(), 4, "{what}: {t}");
    }
    assert_eq!(t.matches("ok non-member disconnect").count(), 2, "{t}");
    // each pair printed one namespace twice, the two pairs two namespaces
    let mut pairs: Vec<&str> = t
        .lines()
        .filter_map(|l| l.split("ok pair ").nth(1))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    pairs.sort_unstable();
    assert_eq!(pairs.len(), 4, "{t}");
    assert_eq!(pairs[0], pairs[1], "{t}");
    assert_eq!(pairs[2], pairs[3], "{t}");
    assert_ne!(pairs[1], pairs[2], "{t}");
}

#[test]
fn a_timed_out_connect_fails_everyone_refuses_the_late_one_and_the_next_works() {
    let o = pmixrun(3, "timeout");
    assert_ok(&o, 3);
    assert_eq!(
        text(&o).matches("ok next connect").count(),
        3,
        "{}",
        text(&o)
    );
}

/// The `(kind, unix-ms)` lines a client printed.
fn stamps(o: &Output, what: &str) -> Vec<(i32, u128)> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            match (f.first(), f.len()) {
                (Some(w), 3) if *w == what => Some((f[1].parse().ok()?, f[2].parse().ok()?)),
                (Some(w), 2) if *w == what => Some((0, f[1].parse().ok()?)),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn a_participant_killed_before_arriving_fails_the_others_within_a_second() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("ckill", 3, Arc::new(NullHost), tmp.path());
    let kids = (0..3)
        .map(|r| start_client("connectclient", &server, &ns, r, "kill"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    let died = stamps(&outs[2], "dying");
    assert_eq!(died.len(), 1, "{}", text(&outs[2]));
    for o in &outs[..2] {
        assert!(o.status.success(), "{}", text(o));
        let f = stamps(o, "failed");
        assert_eq!(f.len(), 1, "{}", text(o));
        assert_eq!(
            f[0].0,
            pmix_core::Status::ERR_LOST_CONNECTION.0,
            "{}",
            text(o)
        );
        let after = f[0].1.saturating_sub(died[0].1);
        eprintln!("connect failed {after} ms after the participant's SIGKILL");
        assert!(
            after < 1000,
            "failed {after} ms after the death: {}",
            text(o)
        );
    }
}

#[test]
fn a_member_ending_while_connected_raises_term_without_sync_and_disconnect_still_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("cterm", 3, Arc::new(NullHost), tmp.path());
    let kids = (0..3)
        .map(|r| start_client("connectclient", &server, &ns, r, "term"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    for o in &outs[..2] {
        assert!(o.status.success(), "{}", text(o));
        assert!(text(o).contains("ok term without sync"), "{}", text(o));
        assert!(text(o).contains("ok disconnect"), "{}", text(o));
    }
    assert!(text(&outs[2]).contains("ok leaving"), "{}", text(&outs[2]));
}

#[test]
fn connect_across_namespaces_exchanges_job_info_and_cards() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = ServerConfig::new(Nspace::new("srv-xns").unwrap());
    cfg.max_clients = 8;
    cfg.tmpdir = tmp.path().to_path_buf();
    let server = Server::init(cfg, Arc::new(NullHost)).unwrap();
    let (uid, gid) = ids();
    let a = Nspace::new("job-xa").unwrap();
    let b = Nspace::new("job-xb").unwrap();
    for ns in [&a, &b] {
        let p = Proc::from_parts(ns.clone(), Rank(0));
        server.register_client(&p, uid, gid).unwrap();
        let infos = SingleNodeJob::new(ns.clone(), 1, "testnode")
            .infos()
            .unwrap();
        server.register_nspace(ns, 1, &infos).unwrap();
    }
    let start = |ns: &Nspace, other: &Nspace, scenario: &str| {
        let mut cmd = Command::new(example("connectclient"));
        cmd.arg(scenario)
            .envs(
                server
                    .setup_fork(&Proc::from_parts(ns.clone(), Rank(0)))
                    .unwrap(),
            )
            .env("XNS_OTHER", other.as_str())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd.spawn().unwrap()
    };
    let kids = vec![start(&a, &b, "xns_a"), start(&b, &a, "xns_b")];
    let outs = wait_all(kids, Duration::from_secs(60));
    for o in &outs {
        assert!(o.status.success(), "{}", text(o));
        assert!(text(o).contains("ok cross namespace"), "{}", text(o));
    }
}

#[test]
fn notify_each_notify_req_and_exchange_only() {
    let o = pmixrun(3, "options");
    assert_ok(&o, 3);
    for what in [
        "ok notify each\n",
        "ok notify each disconnect",
        "ok notify req",
        "ok xchg only",
    ] {
        assert_eq!(text(&o).matches(what).count(), 3, "{what}: {}", text(&o));
    }
}

#[test]
fn an_optional_connect_completes_with_who_arrived() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("copt", 3, Arc::new(NullHost), tmp.path());
    let kids = (0..3)
        .map(|r| start_client("connectclient", &server, &ns, r, "optional"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    for o in &outs[..2] {
        assert!(o.status.success(), "{}", text(o));
        assert!(text(o).contains("ok optional"), "{}", text(o));
    }
}

#[test]
fn a_participant_that_finalized_without_connecting_fails_a_connect_but_not_an_optional_one() {
    let o = pmixrun(3, "finalized");
    assert_ok(&o, 3);
    let t = text(&o);
    assert_eq!(
        t.matches("ok connect without a finalized rank fails")
            .count(),
        2,
        "{t}"
    );
    assert_eq!(
        t.matches("ok optional without a finalized rank").count(),
        2,
        "{t}"
    );
}
