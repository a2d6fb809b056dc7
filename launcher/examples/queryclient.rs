//! A PMIx client driven by the query, process-set, programming-model and
//! cross-version tests (`launcher/tests/query.rs`). It prints `ok …`
//! lines and `ok done`, and exits 0 when every check passed; a failed check
//! prints `FAIL: …` and exits 1.
//!
//! Scenarios:
//! - `query` (under `pmixrun -n 3 --pset even:0,2 --pset everyone:all`):
//!   namespaces, proc tables, process sets by query and by `get`, the
//!   edge cases (partial success, an unknown key, a missing qualifier).
//! - `psets` (same command line): the two define events the launcher
//!   raised before this process existed reach a handler registered after
//!   init, and a second handler registered later, exactly once each.
//! - `runtime` (a server in the test process defines `rt` = ranks 0, 1
//!   after this client printed `ready`, then deletes it after `seen
//!   define`; its host answers `PMIX_TIME_REMAINING` = 42): define and delete events exactly once, late handlers
//!   included, and the query and `get` answers following them.
//! - `model`: two libraries of this process declare programming models at
//!   init; each reads the other's, a local peer reads them after a fence,
//!   and an OpenMP-style event raised PROC_LOCAL by one library reaches the
//!   other's handler.
//! - `remaining` (under `pmixrun --timeout 60`): `PMIX_TIME_REMAINING`,
//!   which the server leaves to `pmixrun`, answers at most 60 seconds.
//! - `latency`: prints the mean time of 2000 queries answered by the
//!   server and 2000 answered by the library (a measurement, not a test).
//! - `oldserver` (with `PMIXRS_PROTOCOL_MAX=4`): what needs the server is
//!   `PMIX_ERR_NOT_SUPPORTED`; attribute support, answered here, omits the
//!   functions the connection cannot offer.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use pmix_client::{Client, Event, EventCompletion};
use pmix_core::{attrs, DataRange, Info, Proc, ProcState, Query, Rank, Status, Value};

const WAIT: Duration = Duration::from_secs(20);

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn q(keys: &[&str], quals: Vec<Info>) -> Query {
    Query {
        keys: keys.iter().map(|k| (*k).to_owned()).collect(),
        qualifiers: quals,
    }
}

fn info(key: &str, v: impl Into<Value>) -> Info {
    Info::new(key, v).unwrap_or_else(|e| fail(format!("info {key}: {e}")))
}

fn string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => fail(format!("not a string: {other:?}")),
    }
}

fn procs(v: &Value) -> Vec<Proc> {
    let Value::DataArray(a) = v else {
        fail(format!("not an array: {v:?}"))
    };
    a.items()
        .iter()
        .map(|x| match x {
            Value::Proc(p) => p.clone(),
            other => fail(format!("not a proc: {other:?}")),
        })
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    let Value::DataArray(a) = v else {
        fail(format!("not an array: {v:?}"))
    };
    a.items().iter().map(string).collect()
}

/// Events one handler saw: (code, `PMIX_PSET_NAME` or a model key's value).
#[derive(Default)]
struct Inbox {
    seen: Mutex<Vec<(Status, String)>>,
    cv: Condvar,
}

impl Inbox {
    fn handler(self: &Arc<Self>) -> impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static {
        let me = Arc::clone(self);
        move |e, c| {
            let label = e
                .info
                .iter()
                .find(|i| {
                    i.is(attrs::PSET_NAME)
                        || i.is(attrs::PROGRAMMING_MODEL)
                        || i.is(attrs::MODEL_AFFINITY_POLICY)
                })
                .map(|i| string(&i.value))
                .unwrap_or_default();
            me.seen.lock().unwrap().push((e.status, label));
            me.cv.notify_all();
            c.done(Status::SUCCESS, vec![]);
        }
    }

    fn wait_for(&self, what: &str, pred: impl Fn(&[(Status, String)]) -> bool) {
        let end = Instant::now() + WAIT;
        let mut g = self.seen.lock().unwrap();
        while !pred(&g) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                fail(format!("timed out waiting for {what}; seen {:?}", *g));
            }
            g = self.cv.wait_timeout(g, left).unwrap().0;
        }
    }

    fn count(&self, code: Status, label: &str) -> usize {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(s, l)| *s == code && l == label)
            .count()
    }
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match scenario.as_str() {
        "query" => query(&c),
        "psets" => psets(&c),
        "runtime" => runtime(&c),
        "model" => model(&c),
        "oldserver" => oldserver(&c),
        "remaining" => remaining(&c),
        "latency" => latency(&c),
        s => fail(format!("unknown scenario {s:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}

fn query(c: &Client) {
    let me = c.proc().clone();
    let ns = me.nspace.as_str().to_owned();
    let nsq = || vec![info(attrs::NSPACE, ns.as_str())];
    // Namespaces: one comma-separated string holding ours.
    let r = c
        .query(&[q(&[attrs::QUERY_NAMESPACES], vec![])])
        .unwrap_or_else(|e| fail(format!("namespaces: {e}")));
    check(r.len() == 1 && r[0].is(attrs::QUERY_NAMESPACES), || {
        format!("namespaces: {r:?}")
    });
    let names = string(&r[0].value);
    check(names.split(',').any(|n| n == ns), || {
        format!("namespaces {names:?} lack {ns}")
    });
    // Namespace info: infos keyed PMIX_QUERY_NAMESPACE_INFO, one per
    // namespace, each an array of infos holding its PMIX_NSPACE and its
    // PMIX_CMD_LINE.
    let r = c
        .query(&[q(&[attrs::QUERY_NAMESPACE_INFO], vec![])])
        .unwrap_or_else(|e| fail(format!("namespace info: {e}")));
    let Value::DataArray(per_ns) = &r[0].value else {
        fail(format!("namespace info: {r:?}"))
    };
    let listed = per_ns.infos().is_ok_and(|entries| {
        entries.iter().any(|entry| {
            entry.is(attrs::QUERY_NAMESPACE_INFO)
                && entry.value.as_info_array().is_ok_and(|infos| {
                    // pmixrun registers the job's command line
                    infos
                        .iter()
                        .any(|i| i.is(attrs::NSPACE) && i.value == Value::String(ns.clone()))
                        && infos.iter().any(|i| {
                            i.is(attrs::CMD_LINE)
                                && i.value.as_str().is_ok_and(|c| c.contains("queryclient"))
                        })
                })
        })
    });
    check(listed, || format!("namespace info lacks {ns}: {per_ns:?}"));
    println!("ok namespaces");

    // Proc tables, in rank order, with this process's pid and RUNNING.
    // After a fence every rank was started (before it, a rank pmixrun has
    // not started yet is LAUNCH_UNDERWAY with pid 0).
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    for key in [attrs::QUERY_PROC_TABLE, attrs::QUERY_LOCAL_PROC_TABLE] {
        let r = c
            .query(&[q(&[key], nsq())])
            .unwrap_or_else(|e| fail(format!("{key}: {e}")));
        let Value::DataArray(a) = &r[0].value else {
            fail(format!("{key}: {r:?}"))
        };
        let rows: Vec<_> = a
            .items()
            .iter()
            .map(|x| match x {
                Value::ProcInfo(p) => (**p).clone(),
                other => fail(format!("{key}: element {other:?}")),
            })
            .collect();
        check(rows.len() == 3, || format!("{key}: {} rows", rows.len()));
        for (i, row) in rows.iter().enumerate() {
            check(
                row.proc.rank == Rank(i as u32) && row.proc.nspace == me.nspace,
                || format!("{key}: row {i} is {:?}", row.proc),
            );
            check(!row.hostname.is_empty() && row.pid > 0, || {
                format!("{key}: row {i}: {row:?}")
            });
        }
        let mine = &rows[me.rank.0 as usize];
        check(
            mine.pid == std::process::id() as i32 && mine.state == ProcState::RUNNING,
            || format!("{key}: my row {mine:?}"),
        );
    }
    println!("ok proc tables");

    // Process sets by query.
    let r = c
        .query(&[
            q(&[attrs::QUERY_NUM_PSETS, attrs::QUERY_PSET_NAMES], vec![]),
            q(
                &[attrs::QUERY_PSET_MEMBERSHIP],
                vec![info(attrs::PSET_NAME, "even")],
            ),
        ])
        .unwrap_or_else(|e| fail(format!("psets: {e}")));
    check(r.len() == 3, || format!("psets: {r:?}"));
    check(r[0].value == Value::Size(2), || {
        format!("num psets {:?}", r[0])
    });
    check(string(&r[1].value) == "even,everyone", || {
        format!("pset names {:?}", r[1])
    });
    let even: Vec<u32> = procs(&r[2].value).iter().map(|p| p.rank.0).collect();
    check(even == [0, 2], || format!("even = {even:?}"));
    println!("ok pset queries");

    // Process sets by get: my own sets, and a set's members.
    let mine = c
        .get(&me, attrs::PSET_NAMES, &[])
        .unwrap_or_else(|e| fail(format!("get pset names: {e}")));
    let want: Vec<&str> = if me.rank.0 % 2 == 0 {
        vec!["even", "everyone"]
    } else {
        vec!["everyone"]
    };
    check(strings(&mine) == want, || format!("my psets {mine:?}"));
    let members = c
        .get(
            &me,
            attrs::PSET_MEMBERS,
            &[info(attrs::PSET_NAME, "everyone")],
        )
        .unwrap_or_else(|e| fail(format!("get pset members: {e}")));
    check(procs(&members).len() == 3, || {
        format!("members {members:?}")
    });
    println!("ok pset gets");

    // Edge cases.
    let a = c
        .query_with_status(&[q(&[attrs::QUERY_NAMESPACES, "pmix.qry.bogus"], vec![])])
        .unwrap_or_else(|e| fail(format!("partial: {e}")));
    check(
        a.status == Status::ERR_PARTIAL_SUCCESS
            && a.results.len() == 1
            && a.results[0].is(attrs::QUERY_NAMESPACES),
        || format!("partial: {a:?}"),
    );
    let e = c.query(&[q(&["pmix.qry.bogus"], vec![])]).unwrap_err();
    check(e.status() == Status::ERR_NOT_FOUND, || {
        format!("unknown key: {e}")
    });
    let e = c
        .query(&[q(
            &[attrs::QUERY_NAMESPACES, attrs::QUERY_PROC_TABLE],
            vec![],
        )])
        .unwrap_err();
    check(e.status() == Status::ERR_BAD_PARAM, || {
        format!("no qualifier: {e}")
    });
    let e = c
        .query(&[q(&[attrs::QUERY_PSET_MEMBERSHIP], vec![])])
        .unwrap_err();
    check(e.status() == Status::ERR_BAD_PARAM, || {
        format!("no pset name: {e}")
    });
    let e = c
        .query(&[q(
            &[attrs::QUERY_PSET_MEMBERSHIP],
            vec![info(attrs::PSET_NAME, "nosuchset")],
        )])
        .unwrap_err();
    check(e.status() == Status::ERR_NOT_FOUND, || {
        format!("no such set: {e}")
    });
    // Refreshing the cache still answers (from the server).
    let r = c
        .query(&[q(
            &[attrs::QUERY_NAMESPACES],
            vec![info(attrs::QUERY_REFRESH_CACHE, true)],
        )])
        .unwrap_or_else(|e| fail(format!("refresh: {e}")));
    check(r.len() == 1, || format!("refresh: {r:?}"));
    // Attribute support, answered by the library.
    let r = c
        .query(&[q(
            &[attrs::QUERY_ATTRIBUTE_SUPPORT],
            vec![info(attrs::CLIENT_FUNCTIONS, true)],
        )])
        .unwrap_or_else(|e| fail(format!("attribute support: {e}")));
    let fns = string(&r[0].value);
    check(fns.split(',').any(|f| f == "PMIx_Query_info"), || {
        format!("client functions {fns:?}")
    });
    // Spawn support: pmixrun (the host) says what it honours.
    let r = c
        .query(&[q(&[attrs::QUERY_SPAWN_SUPPORT], vec![])])
        .unwrap_or_else(|e| fail(format!("spawn support: {e}")));
    let sup = string(&r[0].value);
    check(
        [attrs::WDIR, attrs::SET_ENVAR, attrs::NOTIFY_COMPLETION]
            .iter()
            .all(|a| sup.split(',').any(|x| x == *a)),
        || format!("spawn support {sup:?}"),
    );
    // Debug support: what pmixrun's debugger machinery honours, and
    // not stop-on-exec, which it refuses.
    let r = c
        .query(&[q(&[attrs::QUERY_DEBUG_SUPPORT], vec![])])
        .unwrap_or_else(|e| fail(format!("debug support: {e}")));
    let sup = string(&r[0].value);
    check(
        [
            attrs::DEBUG_STOP_IN_INIT,
            attrs::DEBUGGER_DAEMONS,
            attrs::DEBUG_DAEMONS_PER_PROC,
        ]
        .iter()
        .all(|a| sup.split(',').any(|x| x == *a))
            && !sup.split(',').any(|x| x == attrs::DEBUG_STOP_ON_EXEC),
        || format!("debug support {sup:?}"),
    );
    println!("ok edge cases");
}

fn psets(c: &Client) {
    let first = Arc::new(Inbox::default());
    c.register_event_handler(&[Status::PROCESS_SET_DEFINE], &[], first.handler())
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    first.wait_for("both defines", |s| s.len() >= 2);
    let second = Arc::new(Inbox::default());
    c.register_event_handler(&[Status::PROCESS_SET_DEFINE], &[], second.handler())
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    second.wait_for("both defines (late handler)", |s| s.len() >= 2);
    // Anything delivered twice would have arrived by now.
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    std::thread::sleep(Duration::from_millis(300));
    for (who, inbox) in [("first", &first), ("second", &second)] {
        for name in ["even", "everyone"] {
            let n = inbox.count(Status::PROCESS_SET_DEFINE, name);
            check(n == 1, || format!("{who} handler saw {name} {n} times"));
        }
        let total = inbox.seen.lock().unwrap().len();
        check(total == 2, || format!("{who} handler saw {total} events"));
    }
    println!("ok pset events once");
}

fn runtime(c: &Client) {
    let me = c.proc().clone();
    let early = Arc::new(Inbox::default());
    let codes = [Status::PROCESS_SET_DEFINE, Status::PROCESS_SET_DELETE];
    c.register_event_handler(&codes, &[], early.handler())
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    // The host answers what the server does not, in the order asked.
    let a = c
        .query_with_status(&[q(&[attrs::TIME_REMAINING, attrs::QUERY_NAMESPACES], vec![])])
        .unwrap_or_else(|e| fail(format!("host query: {e}")));
    check(
        a.status == Status::SUCCESS
            && a.results.len() == 2
            && a.results[0].is(attrs::TIME_REMAINING)
            && a.results[0].value == Value::Uint32(42)
            && a.results[1].is(attrs::QUERY_NAMESPACES),
        || format!("host query: {a:?}"),
    );
    // A host that does not answer spawn support: the server's own list.
    let r = c
        .query(&[q(&[attrs::QUERY_SPAWN_SUPPORT], vec![])])
        .unwrap_or_else(|e| fail(format!("spawn support: {e}")));
    check(
        string(&r[0].value)
            .split(',')
            .any(|x| x == attrs::SPAWN_TIMEOUT),
        || format!("server spawn support {r:?}"),
    );
    println!("ready");
    early.wait_for("define rt", |s| !s.is_empty());
    let late = Arc::new(Inbox::default());
    c.register_event_handler(&codes, &[], late.handler())
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    late.wait_for("define rt (late handler)", |s| !s.is_empty());
    let names = c.get(&me, attrs::PSET_NAMES, &[]);
    if me.rank.0 < 2 {
        let names = names.unwrap_or_else(|e| fail(format!("get pset names: {e}")));
        check(strings(&names) == ["rt"], || format!("my psets {names:?}"));
    } else {
        // In no set: nothing to name.
        check(names.is_err(), || format!("rank 2's psets {names:?}"));
    }
    println!("seen define");
    early.wait_for("delete rt", |s| s.len() >= 2);
    late.wait_for("delete rt (late handler)", |s| s.len() >= 2);
    std::thread::sleep(Duration::from_millis(300));
    for (who, inbox) in [("early", &early), ("late", &late)] {
        let g = inbox.seen.lock().unwrap().clone();
        check(
            g == [
                (Status::PROCESS_SET_DEFINE, "rt".to_owned()),
                (Status::PROCESS_SET_DELETE, "rt".to_owned()),
            ],
            || format!("{who} handler saw {g:?}"),
        );
    }
    let r = c
        .query(&[q(&[attrs::QUERY_NUM_PSETS], vec![])])
        .unwrap_or_else(|e| fail(format!("num psets: {e}")));
    check(r[0].value == Value::Size(0), || format!("num psets {r:?}"));
    let gone = c.get(&me, attrs::PSET_NAMES, &[]);
    check(gone.is_err(), || {
        format!("pset names after delete: {gone:?}")
    });
    println!("ok runtime psets");
}

fn model(c: &Client) {
    let me = c.proc().clone();
    // Library A (the "MPI" of this process) declared nothing yet; it
    // listens for declarations and for its OpenMP runtime's events.
    let a = Arc::new(Inbox::default());
    c.register_event_handler(
        &[Status::MODEL_DECLARED, Status::OPENMP_PARALLEL_ENTERED],
        &[],
        a.handler(),
    )
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    // Library B (an OpenMP runtime) initialises with its model.
    let b = Client::init(&[
        info(attrs::PROGRAMMING_MODEL, "OpenMP"),
        info(attrs::MODEL_LIBRARY_NAME, "fakeomp"),
        info(attrs::MODEL_LIBRARY_VERSION, "5.1"),
        info(attrs::THREADING_MODEL, "pthreads"),
    ])
    .unwrap_or_else(|e| fail(format!("second init: {e}")));
    a.wait_for("model declared", |s| {
        s.iter()
            .any(|(st, l)| *st == Status::MODEL_DECLARED && l == "OpenMP")
    });
    // Library A reads B's declaration in this process.
    for (k, want) in [
        (attrs::PROGRAMMING_MODEL, "OpenMP"),
        (attrs::MODEL_LIBRARY_NAME, "fakeomp"),
        (attrs::THREADING_MODEL, "pthreads"),
    ] {
        let v = c
            .get(&me, k, &[])
            .unwrap_or_else(|e| fail(format!("get own {k}: {e}")));
        check(string(&v) == want, || format!("own {k} = {v:?}"));
    }
    println!("ok model in process");
    // B raises an OpenMP-style event for the other libraries of this
    // process.
    b.notify_event(
        Status::OPENMP_PARALLEL_ENTERED,
        DataRange::PROC_LOCAL,
        &[info(attrs::MODEL_AFFINITY_POLICY, "spread")],
    )
    .unwrap_or_else(|e| fail(format!("notify: {e}")));
    a.wait_for("parallel entered", |s| {
        s.iter()
            .any(|(st, l)| *st == Status::OPENMP_PARALLEL_ENTERED && l == "spread")
    });
    println!("ok proc-local model event");
    // A local peer reads the declaration.
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let peer = Proc::from_parts(me.nspace.clone(), Rank((me.rank.0 + 1) % 2));
    for (k, want) in [
        (attrs::PROGRAMMING_MODEL, "OpenMP"),
        (attrs::MODEL_LIBRARY_VERSION, "5.1"),
    ] {
        let v = c
            .get(&peer, k, &[])
            .unwrap_or_else(|e| fail(format!("get peer {k}: {e}")));
        check(string(&v) == want, || format!("peer {k} = {v:?}"));
    }
    println!("ok model seen by peer");
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    b.finalize()
        .unwrap_or_else(|e| fail(format!("finalize b: {e}")));
}

fn oldserver(c: &Client) {
    check(c.protocol_version() == 4, || {
        format!("protocol version {}", c.protocol_version())
    });
    let e = c
        .query(&[q(&[attrs::QUERY_NAMESPACES], vec![])])
        .unwrap_err();
    check(e.status() == Status::ERR_NOT_SUPPORTED, || {
        format!("query on v4: {e}")
    });
    // Attribute support is answered here and reflects this connection.
    let r = c
        .query(&[q(
            &[attrs::QUERY_ATTRIBUTE_SUPPORT],
            vec![info(attrs::CLIENT_FUNCTIONS, true)],
        )])
        .unwrap_or_else(|e| fail(format!("attribute support: {e}")));
    let fns = string(&r[0].value);
    check(
        fns.split(',').any(|f| f == "PMIx_Publish")
            && !fns
                .split(',')
                .any(|f| f == "PMIx_Query_info" || f == "PMIx_Connect"),
        || format!("v4 client functions {fns:?}"),
    );
    // A mix: the local answer stands, the rest is not found.
    let a = c
        .query_with_status(&[q(
            &[attrs::QUERY_ATTRIBUTE_SUPPORT, attrs::QUERY_NAMESPACES],
            vec![],
        )])
        .unwrap_or_else(|e| fail(format!("mixed: {e}")));
    check(
        a.status == Status::ERR_PARTIAL_SUCCESS && a.results.len() == 1,
        || format!("mixed on v4: {a:?}"),
    );
    println!("ok old server");
}

fn remaining(c: &Client) {
    let r = c
        .query(&[q(&[attrs::TIME_REMAINING], vec![])])
        .unwrap_or_else(|e| fail(format!("time remaining: {e}")));
    check(
        matches!(r[0].value, Value::Uint32(s) if (1..=60).contains(&s)),
        || format!("time remaining {r:?}"),
    );
    println!("ok time remaining");
}

fn latency(c: &Client) {
    let n = 2000u32;
    let time = |query: &Query| {
        let t0 = Instant::now();
        for _ in 0..n {
            c.query(std::slice::from_ref(query))
                .unwrap_or_else(|e| fail(format!("latency: {e}")));
        }
        t0.elapsed().as_secs_f64() * 1e6 / f64::from(n)
    };
    let server = time(&q(&[attrs::QUERY_NAMESPACES], vec![]));
    let local = time(&q(&[attrs::QUERY_ATTRIBUTE_SUPPORT], vec![]));
    println!("latency: server-answered {server:.1} us, library-answered {local:.1} us per query");
}
