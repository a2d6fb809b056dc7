//! EVD-17: internal server errors — protocol violations — reach a host
//! that registered for them (`Server::register_host_events`) as events of
//! the server itself with range `PMIX_RANGE_RM`, and never reach a host
//! that did not. The violations come from raw sockets (the client crate
//! never sends them).

mod abuse;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use abuse::{hello_frame, p, read_welcome, register, server, RawClient, WAIT};
use pmix_core::codec::frame;
use pmix_core::proto::{self, msg};
use pmix_core::{attrs, DataRange, Info, Proc, Status, Value};
use pmix_server::{Completion, Host, Server};

/// One `notify_event` up-call: code, source, range, affected proc, text.
type Seen = (Status, Proc, DataRange, Option<Proc>, String);

/// Records every `notify_event` up-call.
#[derive(Debug, Default)]
struct Recorder {
    seen: Mutex<Vec<Seen>>,
}

impl Recorder {
    fn seen(&self) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits (bounded) until `n` up-calls came, then a little more for
    /// any that should not.
    fn settle(&self, n: usize) -> Vec<Seen> {
        let end = Instant::now() + WAIT;
        while self.seen().len() < n && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(2));
        }
        self.quiet()
    }

    /// What came, after giving up-calls that should not come time to.
    fn quiet(&self) -> Vec<Seen> {
        std::thread::sleep(Duration::from_millis(200));
        self.seen()
    }
}

impl Host for Recorder {
    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: DataRange,
        info: &[Info],
        done: Completion<()>,
    ) {
        let affected = info.iter().find_map(|i| match &i.value {
            Value::Proc(p) if i.is(attrs::EVENT_AFFECTED_PROC) => Some(p.clone()),
            _ => None,
        });
        let text = info
            .iter()
            .find_map(|i| match &i.value {
                Value::String(s) if i.is(attrs::EVENT_TEXT_MESSAGE) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_default();
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((status, source.clone(), range, affected, text));
        done(Ok(()));
    }
}

/// Sends a one-way frame whose body cannot be decoded.
fn junk(c: &mut RawClient) {
    let f = frame::encode_frame(proto::PROTOCOL_VERSION, msg::NOTIFY, 0, b"junk").unwrap();
    c.stream.write_all(&f).unwrap();
}

/// A hello for `proc` with a wrong secret: refused.
fn impostor(server: &Server, proc: &Proc) -> Status {
    let mut s = UnixStream::connect(server.socket_path()).unwrap();
    s.write_all(&hello_frame(proc, Some("not-the-secret".into())))
        .unwrap();
    let w = read_welcome(&s, WAIT).unwrap();
    assert!(!w.status.is_success());
    w.status
}

#[test]
fn protocol_violations_reach_a_registered_host_only() {
    let dir = tempfile::tempdir().unwrap();
    let host = Arc::new(Recorder::default());
    let server = server(dir.path(), host.clone(), |_| {});
    register(&server, "a", 2);
    let mut c = RawClient::connect(&server, &p("a", 0));

    // not registered: nothing reaches the host
    junk(&mut c);
    impostor(&server, &p("a", 1));
    assert_eq!(host.quiet(), [], "the host never registered");

    // registered for every code: both violations, in order
    server.register_host_events(&[]);
    junk(&mut c);
    let refused = impostor(&server, &p("a", 1));
    let seen = host.settle(2);
    assert_eq!(seen.len(), 2, "{seen:?}");
    let me = server.proc().clone();
    let (s, src, range, who, text) = &seen[0];
    assert_eq!(
        (*s, src, *range, who.as_ref()),
        (
            Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
            &me,
            DataRange::RM,
            Some(&p("a", 0))
        ),
        "{text}"
    );
    assert!(text.contains("one-way message type"), "{text}");
    let (s, src, range, who, text) = &seen[1];
    assert_eq!((*s, src, *range, who), (refused, &me, DataRange::RM, &None));
    assert!(text.contains("refused a client"), "{text}");

    // registered for another code only: nothing more
    server.register_host_events(&[Status(-3001)]);
    junk(&mut c);
    assert_eq!(host.quiet().len(), 2);

    // deregistered: nothing more
    server.register_host_events(&[]);
    server.deregister_host_events();
    impostor(&server, &p("a", 1));
    assert_eq!(host.quiet().len(), 2);

    // the client that sent junk one-way is still served
    assert!(server.is_connected(&p("a", 0)));
}
