//! Job data that changes while the job runs (use case "Business Card
//! Exchange", UC-11): a server in this test process updates a running
//! job's data with `Server::update_job_info`, and its clients' `get`
//! returns the new values, plain and with `PMIX_GET_REFRESH_CACHE`
//! (`examples/dynclient.rs`). Every client is bounded: killed by pid
//! after 60 s.

use std::io::{BufRead, BufReader};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

mod common;
use common::{one_node_job, start_client};
use pmix_core::{attrs, DataArray, DataRange, Info, Nspace, Rank, Status, Value};

struct NoHost;
impl pmix_server::Host for NoHost {}

fn info(k: &str, v: Value) -> Info {
    Info::new(k, v).unwrap()
}

#[test]
fn a_running_jobs_updated_info_is_what_get_returns() {
    const N: u32 = 2;
    let dir = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("update", N, Arc::new(NoHost), dir.path());
    let (tx, rx) = mpsc::channel();
    let mut children = Vec::new();
    for r in 0..N {
        let mut ch = start_client("dynclient", &server, &ns, r, "update");
        let out = ch.stdout.take().unwrap();
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(format!("[{r}] {line}"));
            }
        });
        children.push(ch);
    }
    drop(tx);
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut log = Vec::new();
    let mut ready = 0;
    while ready < N {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(l) => {
                ready += u32::from(l.ends_with("] ready"));
                log.push(l);
            }
            Err(_) => break,
        }
    }
    if ready < N {
        for c in &mut children {
            let _ = c.kill();
        }
    }
    // What cannot change is refused, and nothing is written.
    let e = server
        .update_job_info(&ns, &[info(attrs::LOCAL_SIZE, Value::Uint32(5))])
        .unwrap_err();
    assert_eq!(e.status(), Status::ERR_BAD_PARAM, "{e}");
    let e = server
        .update_job_info(
            &Nspace::new("not-registered").unwrap(),
            &[info(attrs::UNIV_SIZE, Value::Uint32(16))],
        )
        .unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_FOUND, "{e}");
    // The job grew by two processes elsewhere.
    let mut update = vec![
        info(attrs::UNIV_SIZE, Value::Uint32(16)),
        info(attrs::JOB_SIZE, Value::Uint32(N + 2)),
        info("app.phase", Value::String("grown".into())),
    ];
    for r in 0..N {
        let per_rank = vec![
            info(attrs::RANK, Value::Rank(Rank(r))),
            info(attrs::LOCALITY_STRING, Value::String(format!("CR{r}"))),
        ];
        update.push(info(
            attrs::PROC_DATA,
            Value::DataArray(Box::new(DataArray::from_infos(per_rank))),
        ));
    }
    server.update_job_info(&ns, &update).unwrap();
    assert_eq!(
        server
            .get(
                &pmix_core::Proc::from_parts(ns.clone(), Rank::WILDCARD),
                attrs::UNIV_SIZE
            )
            .unwrap(),
        Value::Uint32(16)
    );
    server
        .notify(Status(-3180), None, DataRange::NAMESPACE, &[])
        .unwrap();
    let outs = common::wait_all(children, Duration::from_secs(60));
    log.extend(rx.try_iter());
    let all = log.join("\n")
        + &outs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .collect::<String>();
    assert_eq!(ready, N, "{all}");
    assert!(outs.iter().all(|o| o.status.success()), "{all}");
    assert_eq!(
        all.matches("ok job info updated").count(),
        N as usize,
        "{all}"
    );
    server.finalize();
}
