//! Property tests of the codec: encode→decode is the identity for arbitrary
//! values, infos and procs; arbitrary bytes never panic any decoder.

use pmix_core::codec::{self, blob, frame, Decoder, Encoder};
use pmix_core::{
    App, DataArray, DataRange, DataType, Envar, Info, InfoFlags, JobState, Nspace, Persistence,
    Proc, ProcInfo, ProcState, Query, Rank, Scope, Status, Timeval, Value,
};
use proptest::prelude::*;

fn nspace() -> impl Strategy<Value = Nspace> {
    "[a-zA-Z0-9._-]{0,40}".prop_map(|s| Nspace::new(s).unwrap())
}

fn proc_() -> impl Strategy<Value = Proc> {
    (nspace(), any::<u32>()).prop_map(|(n, r)| Proc::from_parts(n, Rank(r)))
}

fn key() -> impl Strategy<Value = String> {
    "[a-z0-9._]{0,30}"
}

/// Values whose body is a plain scalar or string (no nesting).
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Undef),
        any::<bool>().prop_map(Value::Bool),
        any::<u8>().prop_map(Value::Byte),
        ".{0,20}".prop_map(Value::String),
        any::<u64>().prop_map(Value::Size),
        any::<i32>().prop_map(Value::Pid),
        any::<i32>().prop_map(Value::Int),
        any::<i8>().prop_map(Value::Int8),
        any::<i16>().prop_map(Value::Int16),
        any::<i32>().prop_map(Value::Int32),
        any::<i64>().prop_map(Value::Int64),
        any::<u32>().prop_map(Value::Uint),
        any::<u8>().prop_map(Value::Uint8),
        any::<u16>().prop_map(Value::Uint16),
        any::<u32>().prop_map(Value::Uint32),
        any::<u64>().prop_map(Value::Uint64),
        (-1e30f32..1e30f32).prop_map(Value::Float),
        (-1e300f64..1e300f64).prop_map(Value::Double),
        (any::<i64>(), any::<i64>()).prop_map(|(sec, usec)| Value::Timeval(Timeval { sec, usec })),
        any::<i64>().prop_map(Value::Time),
        any::<i32>().prop_map(|s| Value::Status(Status(s))),
        proc_().prop_map(Value::Proc),
        any::<u32>().prop_map(|r| Value::Rank(Rank(r))),
        nspace().prop_map(Value::Nspace),
        proptest::collection::vec(any::<u8>(), 0..64).prop_map(Value::ByteObject),
        proptest::collection::vec(any::<u8>(), 0..16).prop_map(Value::CompressedString),
        proptest::collection::vec(any::<u8>(), 0..16).prop_map(Value::CompressedByteObject),
        proptest::collection::vec(any::<u8>(), 0..16).prop_map(Value::Regex),
        any::<u8>().prop_map(|x| Value::Persistence(Persistence(x))),
        any::<u8>().prop_map(|x| Value::Scope(Scope(x))),
        any::<u8>().prop_map(|x| Value::DataRange(DataRange(x))),
        any::<u8>().prop_map(|x| Value::ProcState(ProcState(x))),
        any::<u8>().prop_map(|x| Value::JobState(JobState(x))),
        any::<u32>().prop_map(|x| Value::InfoDirectives(InfoFlags(x))),
        any::<u16>().prop_map(|x| Value::DataType(DataType(x))),
        (
            proc_(),
            ".{0,10}",
            ".{0,10}",
            any::<i32>(),
            any::<i32>(),
            any::<u8>()
        )
            .prop_map(|(proc, hostname, executable_name, pid, exit_code, st)| {
                Value::ProcInfo(Box::new(ProcInfo {
                    proc,
                    hostname,
                    executable_name,
                    pid,
                    exit_code,
                    state: ProcState(st),
                }))
            }),
        (".{0,10}", ".{0,10}", any::<u8>()).prop_map(|(envar, value, separator)| {
            Value::Envar(Envar {
                envar,
                value,
                separator,
            })
        }),
        any::<u16>().prop_map(Value::IofChannel),
        any::<u8>().prop_map(Value::AllocDirective),
        any::<u8>().prop_map(Value::LinkState),
        any::<u16>().prop_map(Value::Locality),
        any::<u64>().prop_map(Value::DevType),
    ]
}

fn info_of(v: impl Strategy<Value = Value>) -> impl Strategy<Value = Info> {
    (key(), v, any::<u32>()).prop_map(|(k, value, f)| {
        let mut i = Info::new(k, value).unwrap();
        i.flags = InfoFlags(f);
        i
    })
}

/// Any value, nested up to a few levels (arrays of values, arrays of infos,
/// apps, queries).
fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            // homogeneous array: pick one element, repeat values of its type
            proptest::collection::vec(leaf(), 0..5).prop_map(|items| {
                match items.first().map(Value::data_type) {
                    Some(t) if t != DataType::UNDEF => {
                        let same: Vec<Value> =
                            items.into_iter().filter(|v| v.data_type() == t).collect();
                        DataArray::new(t, same).unwrap().into()
                    }
                    _ => DataArray::new(DataType::UINT32, vec![]).unwrap().into(),
                }
            }),
            proptest::collection::vec(info_of(inner.clone()), 0..4)
                .prop_map(|infos| DataArray::from_infos(infos).into()),
            (
                ".{0,10}",
                proptest::collection::vec(".{0,6}", 0..3),
                proptest::collection::vec(".{0,6}", 0..3),
                ".{0,6}",
                any::<i32>(),
                proptest::collection::vec(info_of(inner.clone()), 0..3)
            )
                .prop_map(|(cmd, argv, env, cwd, maxprocs, info)| {
                    Value::App(Box::new(App {
                        cmd,
                        argv,
                        env,
                        cwd,
                        maxprocs,
                        info,
                    }))
                }),
            (
                proptest::collection::vec(key(), 0..3),
                proptest::collection::vec(info_of(inner), 0..3)
            )
                .prop_map(|(keys, qualifiers)| Value::Query(Box::new(Query { keys, qualifiers }))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn value_roundtrips(v in value()) {
        let b = codec::encode_value(&v);
        prop_assert_eq!(codec::decode_value(&b).unwrap(), v);
    }

    #[test]
    fn infos_and_procs_roundtrip(
        infos in proptest::collection::vec(info_of(value()), 0..6),
        procs in proptest::collection::vec(proc_(), 0..6),
    ) {
        let mut e = Encoder::new();
        e.put_infos(&infos);
        e.put_procs(&procs);
        let b = e.finish();
        let mut d = Decoder::new(&b);
        prop_assert_eq!(d.get_infos().unwrap(), infos);
        prop_assert_eq!(d.get_procs().unwrap(), procs);
        prop_assert!(d.is_at_end());
    }

    #[test]
    fn concatenated_value_blobs_roundtrip(vs in proptest::collection::vec(value(), 0..6)) {
        let mut all = Vec::new();
        for v in &vs {
            blob::append(&mut all, blob::BlobKind::VALUE, &codec::encode_value(v)).unwrap();
        }
        let blobs = blob::decode_all(&all).unwrap();
        prop_assert_eq!(blobs.len(), vs.len());
        for (b, v) in blobs.iter().zip(&vs) {
            prop_assert_eq!(&codec::decode_value(b.payload).unwrap(), v);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_decoders(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = codec::decode_value(&bytes);
        let _ = codec::decode_infos(&bytes);
        let _ = blob::decode_all(&bytes);
        let _ = blob::decode_modex_all(&bytes);
        let _ = frame::FrameHeader::parse(&bytes);
        let mut r = frame::FrameReader::with_max_body(1024);
        r.push(&bytes);
        let _ = r.next_frame();
        let mut d = Decoder::new(&bytes);
        let _ = d.get_procs();
    }

    #[test]
    fn corrupted_encodings_never_panic(v in value(), flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4)) {
        let mut b = codec::encode_value(&v);
        if !b.is_empty() {
            for (i, x) in flips {
                let n = b.len();
                b[i % n] ^= x;
            }
        }
        if let Err(e) = codec::decode_value(&b) {
            prop_assert!(matches!(
                e.status(),
                Status::ERR_UNPACK_FAILURE | Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
            ));
        }
    }
}
