//! The event design's registration and replay rules with real processes:
//! `pmixrun` jobs running `examples/evorder.rs`, and clients of an in-test
//! server whose host records every event up-call running
//! `examples/evhost.rs`.

use std::process::Output;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pmix_core::{DataRange, Info, Proc, Status};
use pmix_server::{Completion, Host};

mod common;
use common::{assert_ok, one_node_job, start_client, text, wait_all};

/// An event up-call the host saw.
#[derive(Clone, Debug, PartialEq)]
enum Call {
    Notify(Status, Proc, DataRange),
    Register(Vec<Status>),
    Deregister(Vec<Status>),
}

/// Records the event up-calls.
#[derive(Debug, Default)]
struct Recorder {
    calls: Mutex<Vec<Call>>,
}

impl Recorder {
    fn calls(&self) -> Vec<Call> {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn record(&self, c: Call) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(c);
    }

    fn notified(&self) -> Vec<(Status, Proc, DataRange)> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Notify(s, p, r) => Some((s, p, r)),
                _ => None,
            })
            .collect()
    }
}

impl Host for Recorder {
    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: DataRange,
        _info: &[Info],
        done: Completion<()>,
    ) {
        self.record(Call::Notify(status, source.clone(), range));
        done(Ok(()));
    }

    fn register_events(&self, codes: &[Status], done: Completion<()>) {
        self.record(Call::Register(codes.to_vec()));
        done(Ok(()));
    }

    fn deregister_events(&self, codes: &[Status], done: Completion<()>) {
        self.record(Call::Deregister(codes.to_vec()));
        done(Ok(()));
    }
}

/// Runs `evhost <scenario>` as `rank` of `ns` on `server`, to its end.
fn evhost(
    server: &pmix_server::Server,
    ns: &pmix_core::Nspace,
    rank: u32,
    scenario: &str,
) -> String {
    let out = wait_all(
        vec![start_client("evhost", server, ns, rank, scenario)],
        Duration::from_secs(30),
    );
    assert!(out[0].status.success(), "{scenario}: {}", text(&out[0]));
    assert!(!text(&out[0]).contains("FAIL"), "{}", text(&out[0]));
    text(&out[0])
}

fn pmixrun(n: u32, scenario: &str) -> Output {
    common::run_scenario("evorder", n, scenario, 60)
}

/// EV-04 and EV-13 through a client: unnamed handlers cannot be cited;
/// one FIRST_IN_CATEGORY and one LAST_IN_CATEGORY per category, nothing
/// before the first or after the last; the accepted handlers run in their
/// placement order, refused ones never.
#[test]
fn placement_rules_refuse_what_they_must_and_order_the_rest() {
    let o = pmixrun(1, "names");
    assert_ok(&o, 1);
    for line in [
        "ok unnamed handlers cannot be cited",
        "ok a second first/last in a category and before first/after last refused",
        "ok dispatch order",
    ] {
        assert!(text(&o).contains(line), "{line}:\n{}", text(&o));
    }
}

/// EVD-08: the replay of a cached event reaches the new registration
/// only; a handler that already ran for it does not run again.
#[test]
fn a_replay_reaches_the_new_registration_only() {
    let o = pmixrun(2, "replay_once");
    assert_ok(&o, 2);
    assert_eq!(
        text(&o)
            .matches("ok replay reached the new registration only")
            .count(),
        2,
        "{}",
        text(&o)
    );
}

/// EV-18 and EVD-19: a `PROC_LOCAL` event and the client-internal
/// `PMIX_MODEL_DECLARED` reach the process's own handlers and never leave
/// it: the host (registered for the server's internal errors too) is told
/// nothing, and a client that registers later is given only the `LOCAL`
/// control event from the server's cache.
#[test]
fn proc_local_and_internal_events_never_reach_the_server_or_the_host() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Arc::new(Recorder::default());
    let (server, ns) = one_node_job("quiet", 2, host.clone(), tmp.path());
    server.register_host_events(&[]);
    let out = evhost(&server, &ns, 0, "quiet");
    assert!(out.contains("ok quiet"), "{out}");
    let out = evhost(&server, &ns, 1, "late");
    assert!(out.contains("ok late"), "{out}");
    assert_eq!(host.notified(), [], "the host was told of an event");
}

/// EVD-02: two clients whose handlers want the same code make the server
/// ask the host once; the host is asked again only after both left.
#[test]
fn the_host_is_asked_once_per_code_not_once_per_client() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Arc::new(Recorder::default());
    let (server, ns) = one_node_job("interest", 2, host.clone(), tmp.path());
    let out = wait_all(
        (0..2)
            .map(|r| start_client("evhost", &server, &ns, r, "interest"))
            .collect(),
        Duration::from_secs(30),
    );
    for o in &out {
        assert!(o.status.success(), "{}", text(o));
        assert!(text(o).contains("ok interest"), "{}", text(o));
    }
    let calls = host.calls();
    let wanted = Status(-3202);
    let before_leaving: Vec<&Call> = calls
        .iter()
        .take_while(|c| !matches!(c, Call::Deregister(_)))
        .collect();
    assert_eq!(
        before_leaving,
        [&Call::Register(vec![wanted])],
        "calls {calls:?}"
    );
    // once both left, the interest is dropped once
    let end = std::time::Instant::now() + Duration::from_secs(10);
    while !host.calls().contains(&Call::Deregister(vec![wanted])) && std::time::Instant::now() < end
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    let calls = host.calls();
    assert_eq!(
        calls,
        [Call::Register(vec![wanted]), Call::Deregister(vec![wanted])],
        "calls {calls:?}"
    );
}

/// EVD-20: a client sends the events that leave the node — `SESSION`,
/// `GLOBAL`, a `CUSTOM` range naming a process of another node, its own
/// `NAMESPACE` when the job has a rank elsewhere — to its server, which
/// passes each to the host with its range and the client as the source;
/// a `LOCAL` event stays on the node.
#[test]
fn wide_events_go_through_the_server_to_the_host_with_their_range() {
    use pmix_core::{Nspace, Rank};
    use pmix_server::{Server, ServerConfig, SingleNodeJob};
    let tmp = tempfile::tempdir().unwrap();
    let host = Arc::new(Recorder::default());
    let mut cfg = ServerConfig::new(Nspace::new("srv-wide").unwrap());
    cfg.max_clients = 4;
    cfg.tmpdir = tmp.path().to_path_buf();
    let server = Server::init(cfg, host.clone()).unwrap();
    // a job of 2 ranks, rank 1 on another node
    let ns = Nspace::new("job-wide").unwrap();
    let infos = SingleNodeJob::new(ns.clone(), 2, "testnode")
        .infos()
        .unwrap();
    server.register_nspace(&ns, 1, &infos).unwrap();
    let me = Proc::from_parts(ns.clone(), Rank(0));
    let (uid, gid) = common::ids();
    server.register_client(&me, uid, gid).unwrap();
    let out = evhost(&server, &ns, 0, "wide");
    assert!(out.contains("ok wide"), "{out}");
    let mut got = host.notified();
    got.sort_by_key(|c| std::cmp::Reverse(c.0 .0));
    assert_eq!(
        got,
        [
            (Status(-3211), me.clone(), DataRange::SESSION),
            (Status(-3212), me.clone(), DataRange::GLOBAL),
            (Status(-3213), me.clone(), DataRange::CUSTOM),
            (Status(-3215), me, DataRange::NAMESPACE),
        ]
    );
}

/// EVD-18: a client that handled an event sends no reply to the notifier:
/// the notifying client's default handler sees nothing, and neither the
/// host nor the server (whose internal errors the host registered for)
/// hears of anything.
#[test]
fn a_handled_event_sends_nothing_back_to_the_notifier() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Arc::new(Recorder::default());
    let (server, ns) = one_node_job("noreply", 2, host.clone(), tmp.path());
    server.register_host_events(&[]);
    let out = wait_all(
        vec![
            start_client("evhost", &server, &ns, 0, "notifier"),
            start_client("evhost", &server, &ns, 1, "handler"),
        ],
        Duration::from_secs(30),
    );
    for o in &out {
        assert!(o.status.success(), "{}", text(o));
        assert!(!text(o).contains("FAIL"), "{}", text(o));
    }
    assert!(text(&out[0]).contains("ok notifier"), "{}", text(&out[0]));
    assert!(text(&out[1]).contains("ok handler"), "{}", text(&out[1]));
    assert_eq!(host.notified(), [], "calls {:?}", host.calls());
}
