//! Round trips of every value type and of info and proc arrays through C.

use std::ptr;

use pmix_core::{
    App, DataArray, DataRange, DataType, Envar, Info, InfoFlags, JobState, Nspace, Persistence,
    Proc, ProcInfo, ProcState, Query, Rank, Scope, Status, Timeval, Value,
};

use super::value::infos_to_c;
use super::*;
use crate::cdata::{array_free, value_destruct};
use crate::cmem::free;
use crate::types::*;

fn round_trip(v: Value) {
    let mut c = pmix_value_t::INIT;
    // SAFETY: `c` is writable; it is read back and released here.
    unsafe {
        value_to_c(&v, &mut c).unwrap();
        assert_eq!(c.type_, v.data_type().0, "{v:?}");
        let back = value_from_c(&c).unwrap();
        assert_eq!(back, v);
        value_destruct(&mut c);
    }
}

#[test]
fn every_value_type_round_trips() {
    let me = Proc::new("job-1", 3).unwrap();
    let info = Info::new("k", 5u32).unwrap().required();
    for v in [
        Value::Undef,
        Value::Bool(true),
        Value::Byte(7),
        Value::String("hello".into()),
        Value::Size(1 << 40),
        Value::Pid(-2),
        Value::Int(-3),
        Value::Int8(-4),
        Value::Int16(-5),
        Value::Int32(-6),
        Value::Int64(-7),
        Value::Uint(8),
        Value::Uint8(9),
        Value::Uint16(10),
        Value::Uint32(11),
        Value::Uint64(u64::MAX),
        Value::Float(1.5),
        Value::Double(-2.25),
        Value::Timeval(Timeval { sec: 3, usec: 4 }),
        Value::Time(5),
        Value::Status(Status::ERR_NOT_FOUND),
        Value::Proc(me.clone()),
        Value::Rank(Rank::WILDCARD),
        Value::Nspace(Nspace::new("ns").unwrap()),
        Value::ByteObject(vec![0, 1, 2]),
        Value::ByteObject(vec![]),
        Value::CompressedString(vec![3]),
        Value::CompressedByteObject(vec![4]),
        Value::Regex(b"pmix[a]".to_vec()),
        Value::Persistence(Persistence::FIRST_READ),
        Value::Scope(Scope::GLOBAL),
        Value::DataRange(DataRange::SESSION),
        Value::ProcState(ProcState::RUNNING),
        Value::JobState(JobState::TERMINATED),
        Value::InfoDirectives(InfoFlags::REQD),
        Value::DataType(DataType::UINT16),
        Value::IofChannel(3),
        Value::AllocDirective(1),
        Value::LinkState(2),
        Value::Locality(0x4000),
        Value::DevType(4),
        Value::ProcInfo(Box::new(ProcInfo {
            proc: me.clone(),
            hostname: "h".into(),
            executable_name: "e".into(),
            pid: 42,
            exit_code: 1,
            state: ProcState::TERMINATED,
        })),
        Value::Envar(Envar {
            envar: "PATH".into(),
            value: "/bin".into(),
            separator: b':',
        }),
        DataArray::from_infos(vec![info.clone(), Info::new("s", "x").unwrap()]).into(),
        DataArray::from_procs(vec![me.clone(), Proc::new("b", 0).unwrap()]).into(),
        DataArray::new(DataType::UINT16, vec![Value::Uint16(1), Value::Uint16(2)])
            .unwrap()
            .into(),
        DataArray::new(DataType::STRING, vec!["a".into(), "b".into()])
            .unwrap()
            .into(),
        DataArray::new(
            DataType::APP,
            vec![Value::App(Box::new(App {
                cmd: "a.out".into(),
                argv: vec!["a.out".into(), "-x".into()],
                env: vec!["A=1".into()],
                cwd: "/tmp".into(),
                maxprocs: 2,
                info: vec![info.clone()],
            }))],
        )
        .unwrap()
        .into(),
        DataArray::new(
            DataType::QUERY,
            vec![Value::Query(Box::new(Query {
                keys: vec!["pmix.qry.ns".into()],
                qualifiers: vec![info],
            }))],
        )
        .unwrap()
        .into(),
    ] {
        round_trip(v);
    }
}

#[test]
fn top_level_app_and_unknown_types_are_not_supported() {
    let mut c = pmix_value_t::INIT;
    // SAFETY: `c` is writable.
    let e = unsafe { value_to_c(&Value::App(Box::default()), &mut c) }.unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
    assert_eq!(c.type_, PMIX_UNDEF);
    c.type_ = PMIX_COORD;
    // SAFETY: a coord value with NULL data is valid to read the tag of.
    let e = unsafe { value_from_c(&c) }.unwrap_err();
    assert_eq!(e.status(), Status::ERR_BAD_PARAM);
    c.type_ = PMIX_POINTER;
    // SAFETY: as above.
    let e = unsafe { value_from_c(&c) }.unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
}

#[test]
fn infos_and_procs_convert_both_ways() {
    let infos = vec![
        Info::new("a", 1u32).unwrap(),
        Info::new("b", "two").unwrap().required(),
    ];
    let c = infos_to_c(&infos).unwrap();
    // SAFETY: `c` holds `infos.len()` infos; released below.
    unsafe {
        assert_eq!(infos_from_c(c, infos.len()).unwrap(), infos);
        array_free(PMIX_INFO, c.cast(), infos.len());
    }
    let procs = vec![
        Proc::new("x", 1).unwrap(),
        Proc::new("y", Rank::WILDCARD).unwrap(),
    ];
    let c = procs_to_c(&procs).unwrap();
    // SAFETY: `c` holds 2 procs; released below.
    unsafe {
        assert_eq!(procs_from_c(c, 2).unwrap(), procs);
        free(c);
    }
    // SAFETY: NULL is allowed.
    assert!(unsafe { infos_from_c(ptr::null(), 3) }.unwrap().is_empty());
}
