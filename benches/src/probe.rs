//! Probes of the machine's own limits, measured in the same run as the
//! rings so every ring figure can be quoted as a ratio: a cache line
//! bounced between two processes, and a shared futex word slept on and
//! woken.
//!
//! A [`Probe`] is four lines of a [`Lines`] region (kind [`PROBE`]) of the
//! harness's segment, each word on its own 128-byte line pair: both
//! processes map the segment and reach the same words. The region's own
//! code lives in `pmix-shm` (`pmix_shm::lines`); nothing here is `unsafe`.

use pmix_shm::layout::RegionKind;
use pmix_shm::lines::{Line, Lines, LinesParams};
use pmix_shm::segment::{Segment, SegmentLayout};
use pmix_shm::sync::{AtomicU64, FutexWord};

/// The region kind of a probe (benchmarks only; no server uses it).
pub const PROBE: RegionKind = RegionKind(0x100);

/// The lines of a probe: the ping-pong line, the futex, `go`, `ready`.
const PARAMS: LinesParams = LinesParams { lines: 4 };

/// A handle on a probe in a mapped segment; it keeps the mapping alive.
#[derive(Debug, Clone)]
pub struct Probe {
    lines: Lines,
}

impl Probe {
    /// Adds the region of probe `id` to `layout`.
    pub fn add_to(layout: SegmentLayout, id: u32) -> SegmentLayout {
        layout.region_for::<Lines>(PROBE, id, &PARAMS)
    }

    /// Initialises probe `id` in `segment` (its creator, before
    /// publishing): every word zero.
    ///
    /// # Errors
    /// When the segment has no such region, or is already published.
    pub fn init(segment: &Segment, id: u32) -> Result<Probe, String> {
        let lines: Lines = segment
            .init(PROBE, id, &PARAMS)
            .map_err(|e| format!("probe region: {e}"))?;
        Ok(Probe { lines })
    }

    /// Probe `id` of a published `segment`.
    ///
    /// # Errors
    /// When the region is missing, holds no lines, or too few.
    pub fn attach(segment: &Segment, id: u32) -> Result<Probe, String> {
        let lines: Lines = segment
            .attach(PROBE, id)
            .map_err(|e| format!("probe region: {e}"))?;
        if lines.len() < PARAMS.lines {
            return Err(format!("probe region: {} lines, need 4", lines.len()));
        }
        Ok(Probe { lines })
    }

    fn at(&self, i: u32) -> &Line {
        match self.lines.line(i) {
            Some(line) => line,
            None => unreachable!("a probe has 4 lines (checked at attach)"),
        }
    }

    /// The ping-pong cache line.
    pub fn line(&self) -> &AtomicU64 {
        self.at(0).word()
    }

    /// The futex ping-pong word.
    pub fn futex(&self) -> &FutexWord {
        self.at(1).futex()
    }

    /// A start barrier word.
    pub fn go(&self) -> &AtomicU64 {
        self.at(2).word()
    }

    /// A readiness counter.
    pub fn ready(&self) -> &AtomicU64 {
        self.at(3).word()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_shm::sync::Ordering;

    #[test]
    fn probe_words_are_shared_through_the_segment() {
        let seg = Segment::create(&Probe::add_to(SegmentLayout::new(), 0)).unwrap();
        let a = Probe::init(&seg, 0).unwrap();
        seg.publish();
        let other = Segment::open(seg.fd().try_clone_to_owned().unwrap()).unwrap();
        let b = Probe::attach(&other, 0).unwrap();
        // ORDERING: Relaxed — single thread, the test only checks addresses.
        a.line().store(7, Ordering::Relaxed);
        assert_eq!(b.line().load(Ordering::Relaxed), 7);
        a.ready().store(3, Ordering::Relaxed);
        assert_eq!(b.ready().load(Ordering::Relaxed), 3);
        assert_eq!(b.go().load(Ordering::Relaxed), 0);
        assert!(Probe::attach(&other, 1).is_err());
    }
}
