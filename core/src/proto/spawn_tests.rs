//! The SPAWN request: encoding, capability, malformed bodies.

use super::*;
use crate::codec::Encoder;
use crate::{App, Envar, Info, Status};

fn app(cmd: &str, n: i32) -> App {
    App {
        cmd: cmd.into(),
        argv: vec![cmd.into(), "-x".into()],
        env: vec!["A=1".into()],
        cwd: "/tmp".into(),
        maxprocs: n,
        info: vec![Info::new(
            crate::attrs::SET_ENVAR,
            Value::Envar(Envar {
                envar: "B".into(),
                value: "2".into(),
                separator: b':',
            }),
        )
        .unwrap()],
    }
}

#[test]
fn spawn_round_trips_and_needs_its_capability() {
    let r = Request::Spawn {
        job_info: vec![Info::flag(crate::attrs::NOTIFY_COMPLETION).unwrap()],
        apps: vec![app("/bin/true", 2), app("/bin/false", 1)],
    };
    assert_eq!(r.msg_type(), msg::SPAWN);
    assert_eq!(r.needs_cap(), Some(caps::SPAWN));
    let enc = r.encode();
    assert_eq!(Request::decode(msg::SPAWN, &enc).unwrap(), r);
    for cut in 0..enc.len() {
        assert!(Request::decode(msg::SPAWN, &enc[..cut]).is_err(), "{cut}");
    }
    assert_eq!(caps::for_version(4) & caps::SPAWN, 0);
    assert_eq!(caps::for_version(5) & caps::SPAWN, caps::SPAWN);
}

#[test]
fn an_app_list_holding_another_type_is_refused() {
    let mut e = Encoder::new();
    e.put_infos(&[]);
    e.put_u32(1);
    e.put_value(&Value::from("not an app"));
    let err = Request::decode(msg::SPAWN, &e.finish()).unwrap_err();
    assert_eq!(err.status(), Status::ERR_UNPACK_FAILURE);
    // A count the body cannot hold.
    let mut e = Encoder::new();
    e.put_infos(&[]);
    e.put_u32(u32::MAX);
    assert!(Request::decode(msg::SPAWN, &e.finish()).is_err());
}
