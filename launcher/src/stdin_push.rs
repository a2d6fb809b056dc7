//! Stdin forwarding (`PMIx_IOF_push`): the stdin pipes of the ranks a
//! spawn asked `PMIX_FWD_STDIN` for, each fed by a writer thread of its
//! own, so a rank that does not read its stdin never blocks the server
//! thread that hands over a push. Bytes reach a rank in the order of the
//! pushes; `PMIX_IOF_COMPLETE` closes its stdin after them (end-of-file);
//! a rank that exits ends its writer (the write fails with `EPIPE`:
//! pmixrun ignores `SIGPIPE`, as every Rust program does).

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ChildStdin;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, PoisonError};

use pmix_core::{Error, Proc, Rank, Result, Status};

/// What a rank's writer thread is given.
#[derive(Debug)]
enum Feed {
    Bytes(Vec<u8>),
    Close,
}

/// The stdin pipes pmixrun holds, by rank.
#[derive(Debug, Default)]
pub(crate) struct StdinPipes {
    pipes: Mutex<BTreeMap<Proc, Sender<Feed>>>,
}

impl StdinPipes {
    /// Holds `pipe`, the stdin of `proc`, and starts its writer.
    pub(crate) fn add(&self, proc: &Proc, mut pipe: ChildStdin) -> std::io::Result<()> {
        let (tx, rx) = channel::<Feed>();
        std::thread::Builder::new()
            .name(format!("pmixrun-stdin-{}", proc.rank.0))
            .spawn(move || {
                while let Ok(Feed::Bytes(b)) = rx.recv() {
                    if pipe.write_all(&b).and_then(|()| pipe.flush()).is_err() {
                        return; // the rank is gone
                    }
                }
                // Close, or pmixrun dropped the pipes: the rank reads EOF.
            })?;
        self.lock().insert(proc.clone(), tx);
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<Proc, Sender<Feed>>> {
        self.pipes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `data` for the stdin of `targets` (a wildcard rank: every
    /// rank of its job that pmixrun holds the stdin of) and, with `close`,
    /// closes them after it.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when a target's stdin is not held (nothing is
    /// sent to any target then).
    pub(crate) fn push(&self, targets: &[Proc], data: &[u8], close: bool) -> Result<()> {
        let mut pipes = self.lock();
        let mut chosen: Vec<Proc> = Vec::new();
        for t in targets {
            let before = chosen.len();
            chosen.extend(
                pipes
                    .keys()
                    .filter(|p| {
                        p.nspace == t.nspace && (t.rank == Rank::WILDCARD || p.rank == t.rank)
                    })
                    .filter(|p| !chosen.contains(p))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
            if chosen.len() == before && !chosen.iter().any(|p| p == t) {
                return Err(Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!(
                        "IOF push: pmixrun holds no stdin of {t} (spawn it with PMIX_FWD_STDIN, \
                         and push before closing it)"
                    ),
                ));
            }
        }
        for p in chosen {
            let Some(tx) = pipes.get(&p) else { continue };
            let gone = (!data.is_empty() && tx.send(Feed::Bytes(data.to_vec())).is_err())
                || (close && tx.send(Feed::Close).is_err());
            if close || gone {
                pipes.remove(&p);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::process::{Command, Stdio};

    #[test]
    fn bytes_reach_a_rank_in_order_and_close_gives_it_eof() {
        let mut cat = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let pipes = StdinPipes::default();
        let p = Proc::new("job", Rank(0)).unwrap();
        pipes.add(&p, cat.stdin.take().unwrap()).unwrap();
        let all = Proc::new("job", Rank::WILDCARD).unwrap();
        pipes
            .push(std::slice::from_ref(&p), b"one\n", false)
            .unwrap();
        pipes.push(&[all], b"two\n", true).unwrap();
        let mut out = String::new();
        cat.stdout.take().unwrap().read_to_string(&mut out).unwrap();
        assert_eq!(out, "one\ntwo\n");
        assert!(cat.wait().unwrap().success());
        // Closed: no longer held.
        let e = pipes.push(&[p], b"three\n", false).unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_FOUND, "{e}");
        let other = Proc::new("other", Rank(0)).unwrap();
        assert!(pipes.push(&[other], b"x", false).is_err());
    }
}
