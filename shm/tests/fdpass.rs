//! Descriptor passing and peer credentials over real socketpairs.
#![cfg(not(loom))]

use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;

use pmix_shm::fdpass::{
    peer_credentials, recv_with_fds, send_with_fds, PeerCred, MAX_FDS_PER_MESSAGE,
};

/// A fresh memfd holding `bytes`.
fn memfd_with(bytes: &[u8]) -> OwnedFd {
    // SAFETY: valid NUL-terminated name and flags.
    let fd = unsafe { libc::memfd_create(c"fdpass-test".as_ptr(), libc::MFD_CLOEXEC) };
    assert!(fd >= 0);
    // SAFETY: a fresh descriptor nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut f = std::fs::File::from(fd);
    f.write_all(bytes).unwrap();
    f.into()
}

/// `pread` of `len` bytes at offset 0.
fn pread(fd: &OwnedFd, len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` is writable for `len` bytes; `fd` is open.
    let n = unsafe { libc::pread(fd.as_raw_fd(), buf.as_mut_ptr().cast(), len, 0) };
    assert_eq!(n, len as isize);
    buf
}

fn is_cloexec(fd: &OwnedFd) -> bool {
    // SAFETY: F_GETFD on an open descriptor.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFD) };
    assert!(flags >= 0);
    flags & libc::FD_CLOEXEC != 0
}

#[test]
fn a_memfd_crosses_the_socket_and_reads_the_same_bytes() {
    let (a, b) = UnixStream::pair().unwrap();
    let memfd = memfd_with(b"segment bytes");
    send_with_fds(&a, b"hdr", &[memfd.as_fd()]).unwrap();
    let mut buf = [0u8; 16];
    let (n, fds) = recv_with_fds(&b, &mut buf, 4).unwrap();
    assert_eq!(&buf[..n], b"hdr");
    assert_eq!(fds.len(), 1);
    assert_ne!(fds[0].as_raw_fd(), memfd.as_raw_fd(), "a new descriptor");
    assert!(is_cloexec(&fds[0]), "MSG_CMSG_CLOEXEC");
    drop(memfd);
    assert_eq!(pread(&fds[0], 13), b"segment bytes");
}

#[test]
fn several_descriptors_arrive_in_order() {
    let (a, b) = UnixStream::pair().unwrap();
    let m1 = memfd_with(b"one");
    let m2 = memfd_with(b"two");
    let (p_read, p_write) = UnixStream::pair().unwrap();
    send_with_fds(&a, b"x", &[m1.as_fd(), m2.as_fd(), p_write.as_fd()]).unwrap();
    drop(p_write);
    let mut buf = [0u8; 4];
    let (n, fds) = recv_with_fds(&b, &mut buf, 8).unwrap();
    assert_eq!(n, 1);
    assert_eq!(fds.len(), 3);
    assert_eq!(pread(&fds[0], 3), b"one");
    assert_eq!(pread(&fds[1], 3), b"two");
    // Write through the received end of the pair, read at the other end.
    let mut w = UnixStream::from(fds.into_iter().nth(2).unwrap());
    w.write_all(b"ping").unwrap();
    drop(w);
    let mut got = Vec::new();
    let mut r = p_read;
    r.read_to_end(&mut got).unwrap();
    assert_eq!(got, b"ping");
}

#[test]
fn plain_bytes_without_descriptors() {
    let (a, b) = UnixStream::pair().unwrap();
    send_with_fds(&a, b"hello", &[]).unwrap();
    let mut buf = [0u8; 8];
    let (n, fds) = recv_with_fds(&b, &mut buf, 0).unwrap();
    assert_eq!((&buf[..n], fds.len()), (&b"hello"[..], 0));
    send_with_fds(&a, b"", &[]).unwrap();
}

#[test]
fn a_large_message_is_sent_whole_and_the_fds_come_first() {
    let (a, b) = UnixStream::pair().unwrap();
    let payload: Vec<u8> = (0..4 << 20).map(|i| (i % 251) as u8).collect();
    let expect = payload.clone();
    let memfd = memfd_with(b"m");
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        let (n, fds) = recv_with_fds(&b, &mut buf, 1).unwrap();
        assert_eq!(fds.len(), 1);
        let mut got = buf[..n].to_vec();
        let mut b = b;
        while got.len() < expect.len() {
            let (n, fds) = recv_with_fds(&b, &mut buf, 1).unwrap();
            assert!(fds.is_empty(), "descriptors travel with the first part");
            assert!(n > 0, "EOF before the whole message");
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, expect);
        let mut rest = Vec::new();
        b.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty());
    });
    send_with_fds(&a, &payload, &[memfd.as_fd()]).unwrap();
    drop(a);
    reader.join().unwrap();
}

#[test]
fn a_nonblocking_sender_still_sends_everything() {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    let payload: Vec<u8> = (0..2 << 20).map(|i| (i % 253) as u8).collect();
    let expect = payload.clone();
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        let mut buf = vec![0u8; 32 * 1024];
        loop {
            let (n, _) = recv_with_fds(&b, &mut buf, 0).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, expect);
    });
    send_with_fds(&a, &payload, &[]).unwrap();
    drop(a);
    reader.join().unwrap();
}

#[test]
fn eof_reads_zero_bytes() {
    let (a, b) = UnixStream::pair().unwrap();
    drop(a);
    let mut buf = [0u8; 8];
    let (n, fds) = recv_with_fds(&b, &mut buf, 2).unwrap();
    assert_eq!((n, fds.len()), (0, 0));
}

#[test]
fn descriptors_need_a_byte_and_a_bound() {
    let (a, _b) = UnixStream::pair().unwrap();
    let m = memfd_with(b"m");
    let e = send_with_fds(&a, b"", &[m.as_fd()]).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    let many = vec![m.as_fd(); MAX_FDS_PER_MESSAGE + 1];
    let e = send_with_fds(&a, b"x", &many).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
}

#[test]
fn more_descriptors_than_expected_is_invalid_data() {
    let (a, b) = UnixStream::pair().unwrap();
    let m = memfd_with(b"m");
    // No room at all for descriptors.
    send_with_fds(&a, b"x", &[m.as_fd()]).unwrap();
    let mut buf = [0u8; 4];
    let e = recv_with_fds(&b, &mut buf, 0).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    // Room for fewer than were sent (the control space for one descriptor
    // has room for two at most on x86-64, so send four).
    send_with_fds(&a, b"y", &[m.as_fd(), m.as_fd(), m.as_fd(), m.as_fd()]).unwrap();
    let e = recv_with_fds(&b, &mut buf, 1).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    // The stream goes on.
    send_with_fds(&a, b"z", &[]).unwrap();
    let (n, fds) = recv_with_fds(&b, &mut buf, 1).unwrap();
    assert_eq!((&buf[..n], fds.len()), (&b"z"[..], 0));
}

#[test]
fn peer_credentials_of_a_socketpair_are_our_own() {
    let (a, b) = UnixStream::pair().unwrap();
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    // SAFETY: getgid has no preconditions.
    let gid = unsafe { libc::getgid() };
    let me = PeerCred {
        pid: std::process::id(),
        uid,
        gid,
    };
    assert_eq!(peer_credentials(&a).unwrap(), me);
    assert_eq!(peer_credentials(&b).unwrap(), me);
}
