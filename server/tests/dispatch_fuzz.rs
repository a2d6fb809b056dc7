//! The request-dispatch fuzz harness (`dispatch_harness/`) on stable: the
//! seeds, then seeded random mutations of them, for a bounded time
//! (`PMIXRS_DISPATCH_FUZZ_SECS`, default 10 s; the seed is printed, and
//! `PMIXRS_DISPATCH_FUZZ_SEED` replays a run). The libFuzzer target
//! `fuzz/fuzz_targets/request_dispatch.rs` runs the same harness under
//! coverage guidance (`fuzz/README.md`).

mod dispatch_harness;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use dispatch_harness::{seeds, Harness};

/// xorshift64*: enough for mutations, reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `input`: flip, set, insert, remove, splice or extend.
fn mutate(rng: &mut Rng, input: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    for _ in 0..1 + rng.below(4) {
        let len = input.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = rng.next() as u8;
            }
            2 => {
                let i = rng.below(len + 1);
                input.insert(i, rng.next() as u8);
            }
            3 if len > 1 => {
                input.remove(rng.below(len));
            }
            4 => {
                let other = &corpus[rng.below(corpus.len())];
                input.extend_from_slice(&other[..rng.below(other.len() + 1)]);
            }
            _ => input.extend((0..1 + rng.below(16)).map(|_| rng.next() as u8)),
        }
    }
    input.truncate(4096);
}

#[test]
fn dispatch_survives_random_request_sequences() {
    let secs: u64 = std::env::var("PMIXRS_DISPATCH_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let seed: u64 = std::env::var("PMIXRS_DISPATCH_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        });
    eprintln!("PMIXRS_DISPATCH_FUZZ_SEED={seed}");
    let dir = tempfile::tempdir().unwrap();
    let mut h = Harness::new(dir.path());
    let mut corpus = seeds();
    for s in &corpus {
        h.run(s);
    }
    let mut rng = Rng(seed);
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(secs) {
        let mut input = corpus[rng.below(corpus.len())].clone();
        mutate(&mut rng, &mut input, &corpus);
        h.run(&input);
        if corpus.len() < 256 && rng.below(8) == 0 {
            corpus.push(input);
        }
    }
    eprintln!(
        "{} inputs in {:.1} s, seed {seed}",
        h.inputs(),
        t0.elapsed().as_secs_f64()
    );
    h.finish();
}
