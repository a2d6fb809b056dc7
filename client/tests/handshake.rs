//! The client against a scripted server: a segment of another layout
//! version is refused with a clear error; a silent server times out.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::FileExt;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::time::Duration;

use pmix_client::{Client, ClientConfig};
use pmix_core::codec::frame::{self, FrameReader};
use pmix_core::proto::{self, msg, Hello, Welcome};
use pmix_core::{Proc, Rank, Status};
use pmix_shm::layout::RegionKind;
use pmix_shm::segment::{Segment, SegmentLayout};

fn socket_path(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmixrs-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("s.sock")
}

/// Removes the directory [`socket_path`] made for `sock`.
fn remove_socket_dir(sock: &std::path::Path) {
    if let Some(d) = sock.parent() {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Accepts one client, reads its hello, answers with `segment` (its layout
/// version rewritten to `version`).
fn scripted_server(path: PathBuf, version: u32) -> std::thread::JoinHandle<Hello> {
    let listener = UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut r = FrameReader::new();
        let mut buf = [0u8; 1024];
        let f = loop {
            if let Some(f) = r.next_frame().unwrap() {
                break f;
            }
            let n = s.read(&mut buf).unwrap();
            r.push(&buf[..n]);
        };
        let hello = Hello::decode(&f.body).unwrap();
        let seg =
            Segment::create(&SegmentLayout::new().region(RegionKind::JOB_STORE, 0, 4096)).unwrap();
        seg.publish();
        let file = std::fs::File::from(seg.fd().try_clone_to_owned().unwrap());
        file.write_at(&version.to_le_bytes(), 8).unwrap();
        let w = Welcome {
            status: Status::SUCCESS,
            version: proto::PROTOCOL_VERSION,
            caps: hello.caps,
            client_slot: 0,
            server: Proc::new("srv", Rank(0)).unwrap(),
            message: String::new(),
        };
        let bytes =
            frame::encode_frame(proto::PROTOCOL_VERSION, msg::WELCOME, 0, &w.encode()).unwrap();
        pmix_shm::fdpass::send_with_fds(&s, &bytes, &[file.as_fd()]).unwrap();
        // Keep the socket open until the client hangs up.
        let _ = s.read(&mut buf);
        let _ = s.write_all(b"");
        hello
    })
}

#[test]
fn a_segment_of_another_layout_version_is_refused() {
    let path = socket_path("layout");
    let cfg_dir = path.clone();
    let server = scripted_server(path.clone(), pmix_shm::layout::LAYOUT_VERSION + 1);
    let cfg = ClientConfig::new(Proc::new("job", Rank(0)).unwrap(), path);
    let e = Client::connect(&cfg).unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("layout") || text.contains("version"),
        "{text}"
    );
    let hello = server.join().unwrap();
    remove_socket_dir(&cfg_dir);
    assert_eq!(hello.max_version, proto::PROTOCOL_VERSION);
}

#[test]
fn a_silent_server_times_out() {
    let path = socket_path("silent");
    let made = path.clone();
    let listener = UnixListener::bind(&path).unwrap();
    let t = std::thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        std::thread::sleep(Duration::from_millis(1500));
        drop(s);
    });
    let mut cfg = ClientConfig::new(Proc::new("job", Rank(0)).unwrap(), path);
    cfg.connect_timeout = Duration::from_millis(300);
    let e = Client::connect(&cfg).unwrap_err();
    t.join().unwrap();
    remove_socket_dir(&made);
    assert_eq!(e.status(), Status::ERR_TIMEOUT, "{e}");
}

#[test]
fn no_server_environment_is_not_supported() {
    // This test process was not started by a server.
    std::env::remove_var(proto::env::NAMESPACE);
    let e = Client::init(&[]).unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED, "{e}");
}
