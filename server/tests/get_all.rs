//! `Server::get_all`, the host's `PMIx_Get` with a NULL key (ORTE's
//! daemons ask for every value of a daemon that way): the values stored
//! with `store_internal`, the registered job data of a rank or of the job,
//! each key once, nothing private to pmix-rs.

use std::os::unix::fs::MetadataExt;
use std::sync::Arc;

use pmix_core::{attrs, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::{NullHost, Server, ServerConfig};

fn server(tmp: &std::path::Path) -> Server {
    let mut cfg = ServerConfig::new(Nspace::new("get-all-srv").unwrap());
    cfg.tmpdir = tmp.to_path_buf();
    cfg.log = false;
    Server::init(cfg, Arc::new(NullHost)).unwrap()
}

fn keys(infos: &[Info]) -> Vec<&str> {
    infos.iter().map(|i| i.key.as_str()).collect()
}

fn value<'a>(infos: &'a [Info], key: &str) -> Option<&'a Value> {
    infos.iter().find(|i| i.is(key)).map(|i| &i.value)
}

#[test]
fn get_all_returns_internal_and_registered_values_once() {
    let tmp = tempfile::tempdir().unwrap();
    let s = server(tmp.path());
    let ns = Nspace::new("job-all").unwrap();
    let info = [
        Info::new(attrs::JOB_SIZE, Value::Uint32(2)).unwrap(),
        Info::new(attrs::LOCAL_SIZE, Value::Uint32(1)).unwrap(),
    ];
    s.register_nspace(&ns, 1, &info).unwrap();
    let m = std::fs::metadata("/proc/self").unwrap();
    let rank0 = Proc::new("job-all", Rank(0)).unwrap();
    s.register_client(&rank0, m.uid(), m.gid()).unwrap();

    // A daemon known only from store_internal (ORTE's wireup data).
    let daemon = Proc::new("1234", Rank(1)).unwrap();
    s.store_internal(&daemon, "pmix.puri", Value::from("tcp://10.0.0.2:1"))
        .unwrap();
    s.store_internal(&daemon, "pmix.puri", Value::from("tcp://10.0.0.2:2"))
        .unwrap();
    s.store_internal(&daemon, "pmix.hname", Value::from("nodeB"))
        .unwrap();
    let all = s.get_all(&daemon).unwrap();
    assert_eq!(all.len(), 2, "{:?}", keys(&all));
    assert_eq!(
        value(&all, "pmix.puri"),
        Some(&Value::from("tcp://10.0.0.2:2"))
    );

    // The job level: the registered job data, no private entry.
    let wild = Proc::new("job-all", Rank::WILDCARD).unwrap();
    let job = s.get_all(&wild).unwrap();
    assert_eq!(value(&job, attrs::JOB_SIZE), Some(&Value::Uint32(2)));
    assert!(
        job.iter().all(|i| !i.key.as_str().starts_with("pmixrs.")),
        "{:?}",
        keys(&job)
    );
    // A stored value overrides the registered one, and appears once.
    s.store_internal(&wild, attrs::JOB_SIZE, Value::Uint32(7))
        .unwrap();
    let job = s.get_all(&wild).unwrap();
    assert_eq!(value(&job, attrs::JOB_SIZE), Some(&Value::Uint32(7)));
    assert_eq!(
        job.iter().filter(|i| i.is(attrs::JOB_SIZE)).count(),
        1,
        "{:?}",
        keys(&job)
    );

    // A registered rank with no public proc-level data: its private slot
    // entry is never handed out, so nothing is known of it.
    assert_eq!(
        s.get_all(&rank0).unwrap_err().status(),
        Status::ERR_NOT_FOUND
    );
    s.store_internal(&rank0, "mine", Value::Uint32(1)).unwrap();
    assert_eq!(keys(&s.get_all(&rank0).unwrap()), ["mine"]);

    let nobody = Proc::new("nobody", Rank(0)).unwrap();
    assert_eq!(
        s.get_all(&nobody).unwrap_err().status(),
        Status::ERR_NOT_FOUND
    );
    let undef = Proc::new("job-all", Rank::UNDEF).unwrap();
    assert_eq!(
        s.get_all(&undef).unwrap_err().status(),
        Status::ERR_BAD_PARAM
    );
}
