//! One connection's outbound bytes: what the socket did not take at once,
//! bounded by a byte cap (`ServerConfig::max_outbound_bytes`), written
//! with non-blocking sends that never raise `SIGPIPE`. The connection
//! ([`Link`](crate::link::Link)) holds it under its lock; this module only
//! keeps the bytes and writes them.

use std::collections::VecDeque;
use std::io;
use std::os::unix::net::UnixStream;

use rustix::net::{send, SendFlags};

/// Bytes waiting for room in one socket, at most `cap` of them.
#[derive(Debug)]
pub(crate) struct Outbound {
    chunks: VecDeque<Vec<u8>>,
    /// Bytes of the front chunk already sent.
    head: usize,
    /// Bytes queued, not sent yet.
    bytes: usize,
    cap: usize,
}

/// The queue would hold more than its cap: the bytes queued and the cap.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Overflow {
    pub(crate) queued: usize,
    pub(crate) adding: usize,
    pub(crate) cap: usize,
}

/// Sends as much of `bytes` as the socket takes now: the number sent
/// (fewer than `bytes.len()` once the socket is full).
///
/// # Errors
/// The socket's error other than `WouldBlock` (`EINTR` is retried).
pub(crate) fn send_now(stream: &UnixStream, bytes: &[u8]) -> io::Result<usize> {
    let mut sent = 0;
    while sent < bytes.len() {
        match send(
            stream,
            &bytes[sent..],
            SendFlags::NOSIGNAL | SendFlags::DONTWAIT,
        ) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => sent += n,
            Err(e) if e == rustix::io::Errno::INTR => {}
            Err(e) if e == rustix::io::Errno::AGAIN => break,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(sent)
}

impl Outbound {
    /// An empty queue of at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> Outbound {
        Outbound {
            chunks: VecDeque::new(),
            head: 0,
            bytes: 0,
            cap,
        }
    }

    /// Nothing waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// Bytes waiting.
    #[cfg(test)]
    pub(crate) fn queued(&self) -> usize {
        self.bytes
    }

    /// Queues `bytes` after what waits already.
    ///
    /// # Errors
    /// [`Overflow`] (nothing queued) when the queue would exceed its cap.
    pub(crate) fn push(&mut self, bytes: Vec<u8>) -> Result<(), Overflow> {
        if bytes.is_empty() {
            return Ok(());
        }
        if self.bytes + bytes.len() > self.cap {
            return Err(Overflow {
                queued: self.bytes,
                adding: bytes.len(),
                cap: self.cap,
            });
        }
        self.bytes += bytes.len();
        self.chunks.push_back(bytes);
        Ok(())
    }

    /// Drops everything queued (the connection ended).
    pub(crate) fn clear(&mut self) {
        self.chunks.clear();
        self.head = 0;
        self.bytes = 0;
    }

    /// Writes what waits until the socket is full: `true` once nothing
    /// waits any more.
    ///
    /// # Errors
    /// The socket's error (the connection is then over).
    pub(crate) fn flush(&mut self, stream: &UnixStream) -> io::Result<bool> {
        while let Some(front) = self.chunks.front() {
            let rest = &front[self.head..];
            let n = send_now(stream, rest)?;
            self.bytes -= n;
            if n < rest.len() {
                self.head += n;
                return Ok(false);
            }
            self.chunks.pop_front();
            self.head = 0;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_full_socket_keeps_the_rest_in_order_within_the_cap() {
        let (a, mut b) = UnixStream::pair().unwrap();
        a.set_nonblocking(true).unwrap();
        let chunk: Vec<u8> = (0..=255u8).cycle().take(64 << 10).collect();
        // Fill the socket.
        let mut sent = 0;
        loop {
            let n = send_now(&a, &chunk).unwrap();
            sent += n;
            if n < chunk.len() {
                break;
            }
        }
        let mut q = Outbound::new(3 * chunk.len());
        q.push(chunk.clone()).unwrap();
        q.push(chunk.clone()).unwrap();
        let o = q.push(vec![0; chunk.len() + 1]).unwrap_err();
        assert_eq!((o.queued, o.cap), (2 * chunk.len(), 3 * chunk.len()));
        assert!(!q.flush(&a).unwrap());
        // The reader drains everything; the queue empties.
        let total = sent + q.queued();
        let reader = std::thread::spawn(move || {
            let mut got = vec![0u8; total];
            b.read_exact(&mut got).unwrap();
            got
        });
        while !q.flush(&a).unwrap() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(q.is_empty());
        let got = reader.join().unwrap();
        assert!(
            got.len() == total
                && got[sent..]
                    .chunks(chunk.len())
                    .all(|c| c == &chunk[..c.len()])
        );
    }
}
