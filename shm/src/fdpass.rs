//! Unix-socket helpers for the control plane: passing file descriptors
//! (`SCM_RIGHTS`, how the server hands a client the segment's memfd) and
//! reading the peer's credentials (`SO_PEERCRED`, how the server checks who
//! connected).
//!
//! The helpers work on a [`UnixStream`] and assume a **blocking** socket
//! (a non-blocking one works for [`recv_with_fds`]; [`send_with_fds`] then
//! waits with `poll` for room to send the rest of a message it started).
//!
//! # Examples
//!
//! ```
//! use std::os::fd::AsFd;
//! use std::os::unix::net::UnixStream;
//! use pmix_shm::fdpass::{peer_credentials, recv_with_fds, send_with_fds};
//!
//! let (server, client) = UnixStream::pair().unwrap();
//! let (r, w) = UnixStream::pair().unwrap(); // any fd will do
//! send_with_fds(&server, b"segment", &[w.as_fd()]).unwrap();
//! let mut buf = [0u8; 16];
//! let (n, fds) = recv_with_fds(&client, &mut buf, 4).unwrap();
//! assert_eq!((&buf[..n], fds.len()), (&b"segment"[..], 1));
//! assert_eq!(peer_credentials(&client).unwrap().pid, std::process::id());
//! # drop(r);
//! ```

use std::io;
use std::mem;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;

/// Most descriptors one message may carry (the kernel's `SCM_MAX_FD`).
pub const MAX_FDS_PER_MESSAGE: usize = 253;

/// Bytes of one descriptor in an `SCM_RIGHTS` payload.
const FD_SIZE: usize = mem::size_of::<RawFd>();

/// A control-message buffer of at least `len` bytes, aligned for
/// `cmsghdr` (its fields are `usize`-sized at most).
fn control_buffer(len: usize) -> Vec<u64> {
    vec![0u64; len.div_ceil(mem::size_of::<u64>())]
}

/// `CMSG_SPACE` for `n` descriptors (`n ≤ MAX_FDS_PER_MESSAGE`).
fn cmsg_space(n: usize) -> usize {
    // SAFETY: CMSG_SPACE is pure arithmetic on its argument; `n * 4` is at
    // most 1012, far from overflowing `c_uint`.
    unsafe { libc::CMSG_SPACE((n * FD_SIZE) as libc::c_uint) as usize }
}

/// `CMSG_LEN` for `n` descriptors (`n ≤ MAX_FDS_PER_MESSAGE`).
fn cmsg_len(n: usize) -> usize {
    // SAFETY: as in `cmsg_space`: pure arithmetic on a small value.
    unsafe { libc::CMSG_LEN((n * FD_SIZE) as libc::c_uint) as usize }
}

/// Sends all of `bytes` on `sock`, with `fds` attached (`SCM_RIGHTS`) to
/// the first `sendmsg`. If the kernel takes only part of the bytes, the
/// rest follows in plain sends (without the descriptors, which travelled
/// with the first part). `EINTR` is retried; `MSG_NOSIGNAL` keeps a closed
/// peer from raising `SIGPIPE` (it is reported as `BrokenPipe`).
///
/// The receiver gets the descriptors with the first bytes it reads of this
/// message (see [`recv_with_fds`]), so a protocol should read a message's
/// head with `recv_with_fds` before it reads the rest.
///
/// # Errors
///
/// * `InvalidInput` if `fds` is not empty but `bytes` is (a stream socket
///   needs at least one byte to carry descriptors), or if there are more
///   than [`MAX_FDS_PER_MESSAGE`] descriptors. Nothing is sent.
/// * The OS error of `sendmsg`/`send`. If it comes after part of the bytes
///   went out, the stream is out of step and should be closed.
pub fn send_with_fds(sock: &UnixStream, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> io::Result<()> {
    if bytes.is_empty() && fds.is_empty() {
        return Ok(());
    }
    let sent = try_send_with_fds(sock, bytes, fds)?;
    send_rest(sock.as_raw_fd(), bytes, sent)
}

/// One `sendmsg` of `bytes` with `fds` attached (`SCM_RIGHTS`), as much as
/// the kernel takes at once: the number of bytes sent (the descriptors
/// went with them). On a non-blocking socket the caller sends the rest
/// itself, without the descriptors, when the socket is writable again
/// (how the server's reactor sends its `WELCOME`). `EINTR` is retried;
/// `MSG_NOSIGNAL` as in [`send_with_fds`].
///
/// # Errors
///
/// As [`send_with_fds`]; `WouldBlock` on a non-blocking socket with no
/// room (nothing was sent, the descriptors neither).
pub fn try_send_with_fds(
    sock: &UnixStream,
    bytes: &[u8],
    fds: &[BorrowedFd<'_>],
) -> io::Result<usize> {
    if fds.len() > MAX_FDS_PER_MESSAGE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "more than SCM_MAX_FD descriptors in one message",
        ));
    }
    if bytes.is_empty() {
        if fds.is_empty() {
            return Ok(0);
        }
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "descriptors need at least one byte of data to travel with",
        ));
    }
    let raw = sock.as_raw_fd();
    let mut control = control_buffer(if fds.is_empty() {
        0
    } else {
        cmsg_space(fds.len())
    });
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // SAFETY: `msghdr` is plain old data; all-zero is a valid (empty) value.
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = cmsg_space(fds.len()) as _;
        // SAFETY: `msg_control` points at `control`, which is at least
        // CMSG_SPACE(n) bytes, aligned for `cmsghdr` (u64 elements), and
        // zeroed; CMSG_FIRSTHDR therefore returns a pointer to its start.
        let cmsg = unsafe { libc::CMSG_FIRSTHDR(&msg) };
        if cmsg.is_null() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        // SAFETY: `cmsg` is the first header inside `control` (checked
        // non-null above); the header and `n` descriptors after CMSG_DATA
        // fit in CMSG_SPACE(n) bytes. The data may be unaligned for `i32`,
        // hence `write_unaligned`.
        unsafe {
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = cmsg_len(fds.len()) as _;
            let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
            for (i, fd) in fds.iter().enumerate() {
                data.add(i).write_unaligned(fd.as_raw_fd());
            }
        }
    }
    let sent = loop {
        // SAFETY: `msg` points at `iov` (which covers `bytes`) and at
        // `control`, all alive for the call; sendmsg only reads them.
        let r = unsafe { libc::sendmsg(raw, &msg, libc::MSG_NOSIGNAL) };
        if r >= 0 {
            break r as usize;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    };
    Ok(sent)
}

/// Sends `bytes[sent..]` with plain `send`s: the tail of a message whose
/// first part (and descriptors) went out with `sendmsg`.
fn send_rest(raw: RawFd, bytes: &[u8], mut sent: usize) -> io::Result<()> {
    while sent < bytes.len() {
        let rest = &bytes[sent..];
        // SAFETY: `rest` is a live slice; send only reads `rest.len()`
        // bytes from its start.
        let r = unsafe { libc::send(raw, rest.as_ptr().cast(), rest.len(), libc::MSG_NOSIGNAL) };
        if r > 0 {
            sent += r as usize;
            continue;
        }
        if r == 0 {
            return Err(io::Error::from(io::ErrorKind::WriteZero));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::Interrupted => {}
            // A non-blocking socket: the message is half sent, so finish it.
            io::ErrorKind::WouldBlock => wait_writable(raw)?,
            _ => return Err(e),
        }
    }
    Ok(())
}

/// Blocks until `raw` is writable (or in error, which the next send reports).
fn wait_writable(raw: RawFd) -> io::Result<()> {
    let mut pfd = libc::pollfd {
        fd: raw,
        events: libc::POLLOUT,
        revents: 0,
    };
    loop {
        // SAFETY: one valid `pollfd` for the duration of the call.
        let r = unsafe { libc::poll(&mut pfd, 1, -1) };
        if r >= 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Receives up to `buf.len()` bytes from `sock` and the descriptors that
/// came with them (at most `max_fds`, capped at [`MAX_FDS_PER_MESSAGE`]),
/// with `MSG_CMSG_CLOEXEC` so they are close-on-exec from the start.
/// `EINTR` is retried.
///
/// Returns the number of bytes read (0: the peer closed the connection)
/// and the descriptors received (owned: dropping them closes them).
///
/// # Errors
///
/// * `InvalidData` if the kernel had to truncate the control data
///   (`MSG_CTRUNC`: more descriptors arrived than `max_fds`, which the
///   kernel then closes). Every descriptor that did arrive is closed too;
///   the bytes read are lost, so the stream should be treated as broken.
/// * The OS error of `recvmsg` (`WouldBlock` on a non-blocking socket with
///   nothing to read).
pub fn recv_with_fds(
    sock: &UnixStream,
    buf: &mut [u8],
    max_fds: usize,
) -> io::Result<(usize, Vec<OwnedFd>)> {
    let max_fds = max_fds.min(MAX_FDS_PER_MESSAGE);
    let space = if max_fds == 0 { 0 } else { cmsg_space(max_fds) };
    let mut control = control_buffer(space);
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: `msghdr` is plain old data; all-zero is a valid (empty) value.
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if space > 0 {
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
    }
    let n = loop {
        // SAFETY: `msg` points at `iov` (covering `buf`, writable) and at
        // `control` (`space` bytes, aligned), all alive for the call; the
        // kernel writes at most those lengths.
        let r = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if r >= 0 {
            break r as usize;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    };
    // Take ownership of every descriptor first, so each one is closed on
    // every path below.
    let mut fds = Vec::new();
    let control_end = (msg.msg_controllen as usize).min(space);
    if control_end > 0 {
        // SAFETY: `msg` describes `control`, of which the kernel filled
        // `msg_controllen` bytes (clamped to the buffer above).
        let mut cmsg = unsafe { libc::CMSG_FIRSTHDR(&msg) };
        while !cmsg.is_null() {
            // SAFETY: CMSG_FIRSTHDR/CMSG_NXTHDR only return headers that
            // lie inside the `msg_controllen` bytes the kernel wrote.
            let hdr = unsafe { cmsg.read_unaligned() };
            if hdr.cmsg_level == libc::SOL_SOCKET && hdr.cmsg_type == libc::SCM_RIGHTS {
                let data_len = (hdr.cmsg_len as usize).saturating_sub(cmsg_len(0));
                // SAFETY: the header is inside the buffer (above).
                let data = unsafe { libc::CMSG_DATA(cmsg) }.cast::<RawFd>();
                let data_off = (data as usize).saturating_sub(control.as_ptr() as usize);
                // Never read past what the kernel wrote, whatever the
                // header says.
                let avail = control_end.saturating_sub(data_off);
                for i in 0..data_len.min(avail) / FD_SIZE {
                    // SAFETY: descriptor `i` lies inside the written part
                    // of `control` (bounded above); unaligned read.
                    let fd = unsafe { data.add(i).read_unaligned() };
                    if fd >= 0 {
                        // SAFETY: SCM_RIGHTS installed `fd` in this process
                        // for us; nobody else owns it.
                        fds.push(unsafe { OwnedFd::from_raw_fd(fd) });
                    }
                }
            }
            // SAFETY: `cmsg` is a header inside the buffer described by
            // `msg`; CMSG_NXTHDR returns the next one or null at the end.
            cmsg = unsafe { libc::CMSG_NXTHDR(&msg, cmsg) };
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        drop(fds);
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "control data truncated (MSG_CTRUNC): more descriptors than expected",
        ));
    }
    Ok((n, fds))
}

/// Credentials of the process at the other end of a Unix socket, as the
/// kernel recorded them when the connection was made (`SO_PEERCRED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeerCred {
    /// Process id of the peer (in this process's pid namespace; 0 if the
    /// peer is in a namespace this one cannot see).
    pub pid: u32,
    /// Effective user id of the peer.
    pub uid: u32,
    /// Effective group id of the peer.
    pub gid: u32,
}

/// The peer's credentials (`getsockopt(SOL_SOCKET, SO_PEERCRED)`).
///
/// # Errors
///
/// The OS error of `getsockopt`, or `InvalidData` if the kernel returned a
/// structure of an unexpected size.
pub fn peer_credentials(sock: &UnixStream) -> io::Result<PeerCred> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` is a writable `ucred` and `len` its size; getsockopt
    // writes at most `len` bytes into it and updates `len`.
    let r = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    if len as usize != mem::size_of::<libc::ucred>() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "SO_PEERCRED returned a structure of another size",
        ));
    }
    Ok(PeerCred {
        pid: cred.pid as u32,
        uid: cred.uid,
        gid: cred.gid,
    })
}

/// Reads from `stream` until `reader` holds one whole frame; `Ok(None)` at
/// end of stream. Socket errors become `lost` with the error in the
/// context; a malformed frame is the reader's error.
///
/// # Errors
/// `lost` for a failed read (not `EINTR`), the frame reader's errors for
/// bad bytes.
#[cfg(not(loom))]
pub fn read_frame(
    stream: &mut UnixStream,
    reader: &mut pmix_core::codec::frame::FrameReader,
    lost: pmix_core::Status,
) -> pmix_core::Result<Option<pmix_core::codec::frame::Frame>> {
    use std::io::Read;
    let mut buf = [0u8; 16 * 1024];
    loop {
        if let Some(f) = reader.next_frame()? {
            return Ok(Some(f));
        }
        match stream.read(&mut buf) {
            Ok(0) => return Ok(None),
            Ok(n) => reader.push(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(pmix_core::Error::with_context(lost, format!("read: {e}"))),
        }
    }
}
