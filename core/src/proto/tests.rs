//! Round trips and refusals of the control messages.

use super::*;
use crate::{Info, Rank, Status};

fn p(ns: &str, r: u32) -> Proc {
    Proc::new(ns, Rank(r)).unwrap()
}

#[test]
fn hello_round_trip_and_refusals() {
    let h = Hello {
        min_version: 1,
        max_version: 7,
        caps: caps::ALL,
        proc: p("job", 3),
        pid: 42,
        secret: None,
    };
    assert_eq!(Hello::decode(&h.encode()).unwrap(), h);
    let with_secret = Hello {
        secret: Some("0123abcd".into()),
        ..h.clone()
    };
    assert_eq!(Hello::decode(&with_secret.encode()).unwrap(), with_secret);
    let mut bad = h.encode();
    bad[0] = b'X';
    assert_eq!(
        Hello::decode(&bad).unwrap_err().status(),
        Status::ERR_UNPACK_FAILURE
    );
    let inverted = Hello {
        min_version: 3,
        max_version: 2,
        ..h.clone()
    };
    assert!(Hello::decode(&inverted.encode()).is_err());
    let enc = h.encode();
    for cut in 0..enc.len() {
        assert!(Hello::decode(&enc[..cut]).is_err());
    }
}

#[test]
fn requests_round_trip() {
    let reqs = vec![
        Request::Finalize,
        Request::Abort {
            status: Status(7),
            message: "bye".into(),
            procs: vec![p("a", 0)],
        },
        Request::Fence {
            procs: vec![p("a", Rank::WILDCARD.0), p("b", 1)],
            info: vec![Info::new("pmix.collect", Value::Bool(true)).unwrap()],
        },
        Request::Get {
            proc: p("a", 1),
            key: "btl.tcp".into(),
            info: vec![],
        },
        Request::Commit {
            entries: vec![("k".into(), 3, Value::Uint32(5))],
        },
        Request::Notify {
            event: crate::event::EventMsg::new(Status(-3001), crate::DataRange::LOCAL),
            delivered: vec![1, 7],
        },
        Request::EventInterest {
            codes: vec![Status(-3001), Status::ERR_LOST_CONNECTION],
            default: true,
        },
        Request::Log {
            data: vec![Info::new("pmix.log.msg", "x").unwrap()],
            directives: vec![],
        },
        Request::Publish {
            info: vec![Info::new("svc", "port").unwrap()],
        },
        Request::Lookup {
            keys: vec!["svc".into(), "b".into()],
            info: vec![Info::new("pmix.wait", true).unwrap()],
        },
        Request::Unpublish {
            keys: vec![],
            info: vec![],
        },
        Request::Connect {
            procs: vec![p("a", 0), p("b", 1)],
            info: vec![Info::new("pmix.cnct.id", "x").unwrap()],
        },
        Request::Disconnect {
            nspace: "a+b".into(),
            info: vec![],
        },
        Request::GroupConstruct {
            id: "g".into(),
            procs: vec![Proc::new("a", Rank(1)).unwrap()],
            info: vec![],
        },
        Request::GroupDestruct {
            id: "g".into(),
            info: vec![],
        },
        Request::GroupLeave {
            id: "g".into(),
            info: vec![],
        },
        Request::GroupInvite {
            id: "g".into(),
            procs: vec![Proc::new("a", Rank(2)).unwrap()],
            info: vec![],
        },
        Request::GroupJoin {
            id: "g".into(),
            leader: Proc::new("a", Rank(0)).unwrap(),
            accept: true,
            info: vec![],
        },
        Request::GroupDecide {
            id: "g".into(),
            event: crate::Status::GROUP_LEADER_FAILED,
            decision: crate::proto::group::decision::LEADER,
        },
        Request::GroupReplace {
            id: "g".into(),
            procs: vec![p("j", 3)],
        },
    ];
    for r in reqs {
        let enc = r.encode();
        assert_eq!(Request::decode(r.msg_type(), &enc).unwrap(), r);
        for cut in 0..enc.len() {
            let _ = Request::decode(r.msg_type(), &enc[..cut]);
        }
    }
    assert_eq!(
        Request::decode(999, &[]).unwrap_err().status(),
        Status::ERR_NOT_SUPPORTED
    );
}

#[test]
fn multi_nspace_fence_needs_its_capability() {
    let one = Request::Fence {
        procs: vec![p("a", 0), p("a", 1)],
        info: vec![],
    };
    assert_eq!(one.needs_cap(), None);
    let two = Request::Fence {
        procs: vec![p("a", 0), p("b", 1)],
        info: vec![],
    };
    assert_eq!(two.needs_cap(), Some(caps::MULTI_NSPACE_FENCE));
}

#[test]
fn lookup_results_round_trip_through_a_value() {
    let found = vec![
        PData {
            proc: p("a", 2),
            key: "svc".into(),
            value: Value::String("port".into()),
        },
        PData {
            proc: p("b", 0),
            key: "n".into(),
            value: Value::Uint32(7),
        },
    ];
    let v = pdata_to_value(&found).unwrap();
    assert_eq!(pdata_from_value(&v).unwrap(), found);
    assert!(pdata_from_value(&Value::Uint32(1)).is_err());
}

#[test]
fn reply_round_trip() {
    let r = Reply {
        status: Status::SUCCESS,
        value: Some(Value::String("x".into())),
        message: String::new(),
    };
    assert_eq!(Reply::decode(&r.encode()).unwrap(), r);
    let e = Reply::status(Status::ERR_NOT_FOUND);
    assert_eq!(
        e.clone().into_result().unwrap_err().status(),
        Status::ERR_NOT_FOUND
    );
    assert_eq!(Reply::decode(&e.encode()).unwrap(), e);
}

#[test]
fn version_agreement() {
    assert_eq!(agree_version((1, 2), (1, 2)), Some(2));
    assert_eq!(agree_version((1, 40), (1, 2)), Some(2));
    assert_eq!(agree_version((1, 1), (1, 2)), Some(1));
    assert_eq!(agree_version((5, 6), (1, 2)), None);
}

#[test]
fn connect_needs_version_5_and_its_capability() {
    let c = Request::Connect {
        procs: vec![p("a", 0)],
        info: vec![],
    };
    assert_eq!(c.needs_cap(), Some(caps::CONNECT));
    let d = Request::Disconnect {
        nspace: "a".into(),
        info: vec![],
    };
    assert_eq!(d.needs_cap(), Some(caps::CONNECT));
    assert_eq!(caps::for_version(4) & caps::CONNECT, 0);
    assert_eq!(caps::for_version(5) & caps::CONNECT, caps::CONNECT);
    assert_eq!(caps::for_version(4), caps::V4);
}
