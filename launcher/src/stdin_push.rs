//! Stdin forwarding (`PMIx_IOF_push`): the stdin pipes of the ranks a
//! spawn asked `PMIX_FWD_STDIN` for, each fed by a writer thread of its
//! own, so a rank that does not read its stdin never blocks the server
//! thread that hands over a push. Bytes reach a rank in the order of the
//! pushes; `PMIX_IOF_COMPLETE` closes its stdin after them (end-of-file);
//! a rank that exits ends its writer (the write fails with `EPIPE`:
//! pmixrun ignores `SIGPIPE`, as every Rust program does), and a later
//! push to it is refused. At most [`MAX_QUEUED`] bytes wait for one rank
//! (a rank that never reads): a push beyond that is refused with
//! `PMIX_ERR_OUT_OF_RESOURCE`, so a tool cannot grow pmixrun without bound.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ChildStdin;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex, PoisonError};

use pmix_core::{Error, Proc, Rank, Result, Status};

/// What a rank's writer thread is given.
#[derive(Debug)]
enum Feed {
    Bytes(Vec<u8>),
    Close,
}

/// The most bytes queued for one rank's stdin and not yet written.
pub(crate) const MAX_QUEUED: usize = 4 << 20;

/// One held stdin: its writer's feed and the bytes queued for it.
#[derive(Debug)]
struct Pipe {
    feed: Sender<Feed>,
    queued: Arc<Mutex<usize>>,
}

/// The bytes queued for one pipe (a poisoned lock still counts).
fn count(q: &Mutex<usize>) -> std::sync::MutexGuard<'_, usize> {
    q.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The stdin pipes pmixrun holds, by rank.
#[derive(Debug, Default)]
pub(crate) struct StdinPipes {
    pipes: Mutex<BTreeMap<Proc, Pipe>>,
}

impl StdinPipes {
    /// Holds `pipe`, the stdin of `proc`, and starts its writer.
    pub(crate) fn add(&self, proc: &Proc, mut pipe: ChildStdin) -> std::io::Result<()> {
        let (tx, rx) = channel::<Feed>();
        let queued = Arc::new(Mutex::new(0usize));
        let written = Arc::clone(&queued);
        std::thread::Builder::new()
            .name(format!("pmixrun-stdin-{}", proc.rank.0))
            .spawn(move || {
                while let Ok(Feed::Bytes(b)) = rx.recv() {
                    if pipe.write_all(&b).and_then(|()| pipe.flush()).is_err() {
                        // The rank is gone: nothing waits any more, and the
                        // next push finds the feed closed.
                        *count(&written) = 0;
                        return;
                    }
                    let mut q = count(&written);
                    *q = q.saturating_sub(b.len());
                }
                // Close, or pmixrun dropped the pipes: the rank reads EOF.
            })?;
        self.lock().insert(proc.clone(), Pipe { feed: tx, queued });
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<Proc, Pipe>> {
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
        for p in &chosen {
            let Some(pipe) = pipes.get(p) else { continue };
            let queued = *count(&pipe.queued);
            if queued.saturating_add(data.len()) > MAX_QUEUED {
                return Err(Error::with_context(
                    Status::ERR_OUT_OF_RESOURCE,
                    format!(
                        "IOF push: {queued} bytes already wait for the stdin of {p}, which \
                         is not reading; at most {MAX_QUEUED} may (nothing was sent)"
                    ),
                ));
            }
        }
        let mut closed = Vec::new();
        for p in chosen {
            let Some(pipe) = pipes.get(&p) else { continue };
            if !data.is_empty() {
                *count(&pipe.queued) += data.len();
            }
            let gone = (!data.is_empty() && pipe.feed.send(Feed::Bytes(data.to_vec())).is_err())
                || (close && pipe.feed.send(Feed::Close).is_err());
            if close || gone {
                pipes.remove(&p);
            }
            if gone {
                closed.push(p.to_string());
            }
        }
        if !closed.is_empty() {
            return Err(Error::with_context(
                Status::ERR_NOT_FOUND,
                format!(
                    "IOF push: the stdin of {} is closed (the process exited)",
                    closed.join(", ")
                ),
            ));
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

    #[test]
    fn a_rank_that_never_reads_gets_at_most_the_limit_queued() {
        let mut sleeper = Command::new("sleep")
            .arg("30")
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let pipes = StdinPipes::default();
        let p = Proc::new("job", Rank(0)).unwrap();
        pipes.add(&p, sleeper.stdin.take().unwrap()).unwrap();
        let chunk = vec![b'x'; 1 << 20];
        let mut accepted = 0;
        let refusal = loop {
            match pipes.push(std::slice::from_ref(&p), &chunk, false) {
                Ok(()) => accepted += chunk.len(),
                Err(e) => break e,
            }
            assert!(
                accepted <= MAX_QUEUED + (1 << 20),
                "{accepted} bytes accepted"
            );
        };
        assert_eq!(refusal.status(), Status::ERR_OUT_OF_RESOURCE, "{refusal}");
        assert!(refusal.to_string().contains("not reading"), "{refusal}");
        // The pipe (64 KiB) took some; the rest waits, within the limit.
        assert!(accepted >= MAX_QUEUED - (1 << 20), "{accepted}");
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        // The rank is gone: once its writer noticed, pushes are refused.
        let t0 = std::time::Instant::now();
        loop {
            match pipes.push(std::slice::from_ref(&p), b"y", false) {
                Err(e) if e.status() == Status::ERR_NOT_FOUND => {
                    eprintln!("refused {:?} after the rank was killed: {e}", t0.elapsed());
                    break;
                }
                _ => assert!(t0.elapsed() < std::time::Duration::from_secs(10)),
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}
