//! Client secrets: what proves that a connecting process is the one the
//! host launched as a given rank, not another process of the same user
//! (which the socket's uid/gid check cannot tell apart).
//!
//! The server makes one secret per registered client (128 bits from the
//! kernel's random source), `setup_fork` puts it in that client's
//! environment (`PMIXRS_CLIENT_SECRET`), and the hello must present it.
//! A child of rank 0 inherits rank 0's secret, never rank 2's.

use std::io::Read;

use pmix_core::{Error, Result, Status};

/// Bytes of randomness in a secret (printed as twice as many hex digits).
const SECRET_BYTES: usize = 16;

/// A fresh secret, as lowercase hex.
///
/// # Errors
/// `PMIX_ERR_INIT` if the kernel's random source cannot be read.
pub(crate) fn new_secret() -> Result<String> {
    let mut buf = [0u8; SECRET_BYTES];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|e| {
            Error::with_context(
                Status::ERR_INIT,
                format!("cannot read /dev/urandom for a client secret: {e}"),
            )
        })?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `presented` is `expected`, in time that does not depend on
/// where they first differ.
pub(crate) fn matches(expected: &str, presented: &str) -> bool {
    let (a, b) = (expected.as_bytes(), presented.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether process `pid` is `ancestor` or one of its descendants
/// (`/proc/<pid>/stat`'s parent links, at most 64 levels): a host that
/// launched a wrapper (a shell script, `env`, a debugger) as a rank still
/// lets the program it starts connect as that rank.
pub(crate) fn descends_from(pid: u32, ancestor: u32) -> bool {
    let mut p = pid;
    for _ in 0..64 {
        if p == ancestor {
            return true;
        }
        if p <= 1 {
            return false;
        }
        match parent_of(p) {
            Some(pp) => p = pp,
            None => return false,
        }
    }
    false
}

/// The parent pid of `pid`, from `/proc/<pid>/stat` (the field after the
/// parenthesised command name, which may itself hold spaces or parens).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_fresh_hex_of_the_set_length() {
        let a = new_secret().unwrap();
        let b = new_secret().unwrap();
        assert_eq!(a.len(), 2 * SECRET_BYTES);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn a_process_descends_from_itself_and_its_ancestors_only() {
        let me = std::process::id();
        let parent = parent_of(me).unwrap();
        assert!(descends_from(me, me));
        assert!(descends_from(me, parent));
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        assert!(descends_from(child.id(), me));
        assert!(!descends_from(me, child.id()));
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn only_the_same_secret_matches() {
        assert!(matches("00ff", "00ff"));
        assert!(!matches("00ff", "00fe"));
        assert!(!matches("00ff", "00ff0"));
        assert!(!matches("00ff", ""));
    }
}
