//! EVD-19: a reply from the server that cannot be unpacked raises
//! `PMIX_ERR_FAILED_COMM` in the client. A proxy of this test sits
//! between a real client (`examples/evhost.rs garbled`) and an in-test
//! server, forwarding every byte and descriptor, and replaces the body of
//! the reply to the client's request naming `user.garble-my-reply` (a
//! `lookup`) with bytes that do not decode.

use std::os::fd::AsFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pmix_core::codec::frame::{encode_frame, FrameReader};
use pmix_core::proto::{env, msg};
use pmix_server::NullHost;
use pmix_shm::fdpass::{recv_with_fds, send_with_fds};

mod common;
use common::{example, one_node_job, text, wait_all};

const MARK: &[u8] = b"user.garble-my-reply";

/// Forwards `from` to `to` frame by frame, descriptors included; a frame
/// `edit` returns `Some` for goes out with that body instead.
fn pump(from: UnixStream, to: UnixStream, edit: impl Fn(u16, u32, &[u8]) -> Option<Vec<u8>>) {
    let mut reader = FrameReader::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut fds = Vec::new();
    loop {
        let (n, got) = match recv_with_fds(&from, &mut buf, 4) {
            Ok((0, _)) | Err(_) => break,
            Ok(x) => x,
        };
        fds.extend(got);
        reader.push(&buf[..n]);
        let mut out = Vec::new();
        while let Ok(Some(f)) = reader.next_frame() {
            let h = f.header;
            let body = edit(h.msg_type, h.tag, &f.body).unwrap_or_else(|| f.body.to_vec());
            out.extend(encode_frame(h.version, h.msg_type, h.tag, &body).unwrap());
        }
        if out.is_empty() {
            continue;
        }
        let borrowed: Vec<_> = fds.iter().map(|f| f.as_fd()).collect();
        if send_with_fds(&to, &out, &borrowed).is_err() {
            break;
        }
        fds.clear();
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

#[test]
fn a_reply_that_cannot_be_unpacked_raises_failed_comm() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("garbled", 1, Arc::new(NullHost), tmp.path());
    let proxy_path = tmp.path().join("proxy.sock");
    let listener = UnixListener::bind(&proxy_path).unwrap();
    let server_path = server.socket_path().to_path_buf();
    let garbled = Arc::new(Mutex::new(0usize));
    let g = Arc::clone(&garbled);
    std::thread::spawn(move || {
        let (client, _) = listener.accept().unwrap();
        let upstream = UnixStream::connect(&server_path).unwrap();
        let marked: Arc<Mutex<Option<u32>>> = Arc::default();
        let m = Arc::clone(&marked);
        let (c2, u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
        std::thread::spawn(move || {
            pump(c2, u2, |t, tag, body| {
                if t != msg::HELLO && body.windows(MARK.len()).any(|w| w == MARK) {
                    *m.lock().unwrap() = Some(tag);
                }
                None
            })
        });
        pump(upstream, client, |t, tag, _| {
            let hit = t & msg::REPLY != 0 && *marked.lock().unwrap() == Some(tag);
            hit.then(|| {
                *g.lock().unwrap() += 1;
                vec![0xff; 3]
            })
        });
    });
    let p = pmix_core::Proc::from_parts(ns.clone(), pmix_core::Rank(0));
    let child = std::process::Command::new(example("evhost"))
        .arg("garbled")
        .envs(server.setup_fork(&p).unwrap())
        .env(env::SERVER_SOCKET, &proxy_path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_all(vec![child], Duration::from_secs(30));
    assert!(out[0].status.success(), "{}", text(&out[0]));
    assert!(text(&out[0]).contains("ok garbled"), "{}", text(&out[0]));
    assert_eq!(*garbled.lock().unwrap(), 1, "the proxy garbled no reply");
}
