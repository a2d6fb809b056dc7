//! The MPSC ring across real processes over a real memfd: this test binary
//! re-runs itself (`current_exe() --exact xproc_child_entry`) as producer
//! processes, with the segment's fd left open as fd 77 (`dup2` in
//! `pre_exec`) and the role in environment variables. Every wait has a
//! timeout, and children are killed if the parent fails.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pmix_shm::layout::RegionKind;
use pmix_shm::ring::{Ring, RingParams};
use pmix_shm::segment::{Segment, SegmentLayout};

const CHILD_FD: i32 = 77;
const ROLE: &str = "PMIX_SHM_XPROC_ROLE";
const ID: &str = "PMIX_SHM_XPROC_ID";
const COUNT: &str = "PMIX_SHM_XPROC_COUNT";
const WAIT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------
// Payloads: producer id, sequence, variable filler, checksum
// ---------------------------------------------------------------------------

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn payload(id: u32, seq: u64) -> Vec<u8> {
    let len = 24 + ((seq * 7 + u64::from(id) * 13) % 200) as usize;
    let mut p = Vec::with_capacity(len);
    p.extend_from_slice(&id.to_le_bytes());
    p.extend_from_slice(&(seq as u32).to_le_bytes());
    p.extend_from_slice(&seq.to_le_bytes());
    while p.len() < len - 8 {
        p.push((seq as u8).wrapping_mul(31).wrapping_add(p.len() as u8) ^ id as u8);
    }
    let sum = fnv(&p);
    p.extend_from_slice(&sum.to_le_bytes());
    p
}

/// Checks a payload and returns (producer id, sequence).
fn check(kind: u16, p: &[u8]) -> (u32, u64) {
    assert!(p.len() >= 24, "short payload");
    let (body, sum) = p.split_at(p.len() - 8);
    assert_eq!(
        fnv(body),
        u64::from_le_bytes(sum.try_into().unwrap()),
        "checksum"
    );
    let id = u32::from_le_bytes(p[..4].try_into().unwrap());
    let seq = u64::from_le_bytes(p[8..16].try_into().unwrap());
    assert_eq!(u32::from(kind), id, "kind carries the producer id");
    assert_eq!(p, payload(id, seq).as_slice(), "payload bytes");
    (id, seq)
}

// ---------------------------------------------------------------------------
// Children
// ---------------------------------------------------------------------------

/// Kills and reaps every child on drop (test failure included).
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn spawn(seg: &Segment, role: &str, id: u32, count: u64, stdout: Stdio) -> Child {
    let fd = seg.fd().as_raw_fd();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "xproc_child_entry",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(ROLE, role)
    .env(ID, id.to_string())
    .env(COUNT, count.to_string())
    .stdout(stdout)
    .stderr(Stdio::inherit());
    // SAFETY: the closure only calls dup2/fcntl, which are
    // async-signal-safe, on an fd that stays open in the parent.
    unsafe {
        cmd.pre_exec(move || {
            if fd == CHILD_FD {
                let flags = libc::fcntl(fd, libc::F_GETFD);
                if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            } else if libc::dup2(fd, CHILD_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn().unwrap()
}

fn env_num(name: &str) -> u64 {
    std::env::var(name).unwrap().parse().unwrap()
}

/// The child side. Without the role variable (the normal test run) it does
/// nothing.
#[test]
fn xproc_child_entry() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let id = env_num(ID) as u32;
    let count = env_num(COUNT);
    // SAFETY: the parent left the segment's fd open as CHILD_FD for us.
    let fd = unsafe { OwnedFd::from_raw_fd(CHILD_FD) };
    let seg = Segment::open(fd).expect("child opens the segment");
    let ring = seg
        .attach::<Ring>(RegionKind::SERVER_RING, 0)
        .expect("child attaches");
    for seq in 0..count {
        ring.push_timeout(id as u16, &payload(id, seq), WAIT)
            .expect("push within the timeout");
    }
    if role == "reserve_then_hang" {
        ring.try_push_reserve_only(100, None).expect("reserve");
        let mut out = std::io::stdout();
        out.write_all(b"RESERVED\n").unwrap();
        out.flush().unwrap();
        std::thread::sleep(WAIT);
    }
    std::process::exit(0);
}

fn server(cells: usize) -> (Segment, Ring) {
    let p = RingParams::new(cells).unwrap();
    let seg =
        Segment::create(&SegmentLayout::new().region_for::<Ring>(RegionKind::SERVER_RING, 0, &p))
            .unwrap();
    let ring = seg.init::<Ring>(RegionKind::SERVER_RING, 0, &p).unwrap();
    seg.publish();
    (seg, ring)
}

fn wait_all(children: &mut Children) {
    let deadline = Instant::now() + WAIT;
    for c in &mut children.0 {
        loop {
            if let Some(status) = c.try_wait().unwrap() {
                assert!(status.success(), "child failed: {status}");
                break;
            }
            assert!(Instant::now() < deadline, "child did not exit in time");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[test]
fn four_producer_processes_deliver_every_record_once_in_order() {
    const PRODUCERS: u32 = 4;
    const PER: u64 = 100_000;
    let (seg, ring) = server(1024);
    let mut consumer = ring.consumer().unwrap();
    let mut children = Children(
        (0..PRODUCERS)
            .map(|id| spawn(&seg, "producer", id, PER, Stdio::null()))
            .collect(),
    );
    let mut next = [0u64; PRODUCERS as usize];
    let mut total = 0u64;
    while total < u64::from(PRODUCERS) * PER {
        let n = consumer.drain(256, |kind, p| {
            let (id, seq) = check(kind, p);
            assert_eq!(
                seq, next[id as usize],
                "producer {id}: lost, duplicated or reordered"
            );
            next[id as usize] += 1;
        });
        total += n as u64;
        if n == 0 {
            consumer
                .pop_timeout(WAIT, |kind, p| {
                    let (id, seq) = check(kind, p);
                    assert_eq!(seq, next[id as usize], "producer {id} out of order");
                    next[id as usize] += 1;
                })
                .expect("a record within the timeout");
            total += 1;
        }
    }
    assert_eq!(next, [PER; PRODUCERS as usize]);
    wait_all(&mut children);
    assert!(consumer.try_pop(|_, _| ()).is_err(), "no extra record");
    assert_eq!(ring.lost(), 0);
    assert_eq!(ring.corrupt(), 0);
}

#[test]
fn producer_killed_between_reserve_and_commit_is_skipped() {
    let (seg, ring) = server(64);
    let mut consumer = ring.consumer().unwrap();
    let mut children = Children(vec![spawn(
        &seg,
        "reserve_then_hang",
        0,
        10,
        Stdio::piped(),
    )]);
    // Wait (bounded) until the child says it holds a reservation.
    let out = children.0[0].stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if line.trim_end().ends_with("RESERVED") {
                let _ = tx.send(());
                break;
            }
        }
    });
    rx.recv_timeout(WAIT).expect("child reserved in time");
    children.0[0].kill().unwrap(); // SIGKILL
    children.0[0].wait().unwrap();
    // A later producer's records must still arrive.
    children
        .0
        .push(spawn(&seg, "producer", 1, 10, Stdio::null()));
    let mut got = Vec::new();
    for _ in 0..20 {
        got.push(
            consumer
                .pop_timeout(WAIT, check)
                .expect("records after the dead reservation arrive"),
        );
    }
    let expect: Vec<(u32, u64)> = (0..10)
        .map(|s| (0, s))
        .chain((0..10).map(|s| (1, s)))
        .collect();
    assert_eq!(got, expect);
    assert_eq!(ring.lost(), 1);
    assert_eq!(ring.corrupt(), 0);
    let mut later = Children(vec![children.0.remove(1)]);
    wait_all(&mut later);
}

#[test]
fn slow_consumer_blocks_producers_without_loss() {
    const PER: u64 = 5_000;
    let (seg, ring) = server(16);
    let mut consumer = ring.consumer().unwrap();
    let mut children = Children(
        (0..2)
            .map(|id| spawn(&seg, "producer", id, PER, Stdio::null()))
            .collect(),
    );
    let mut next = [0u64; 2];
    let mut saw_full = false;
    for i in 0..2 * PER {
        if i % 500 == 0 {
            std::thread::sleep(Duration::from_millis(2));
            saw_full |= ring.used_cells() + 4 > ring.cells();
        }
        consumer
            .pop_timeout(WAIT, |k, p| {
                let (id, seq) = check(k, p);
                assert_eq!(seq, next[id as usize]);
                next[id as usize] += 1;
            })
            .expect("a record within the timeout");
    }
    assert_eq!(next, [PER; 2]);
    assert!(saw_full, "producers never had to wait");
    wait_all(&mut children);
    assert_eq!(ring.lost(), 0);
}
