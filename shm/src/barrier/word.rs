//! The episode word of a barrier cell: the open episode, whether the
//! episode before it was released, and the arrivals so far, in one `u64`
//! so that every change of them is a single compare-and-swap.
//!
//! | bits   | field          | meaning |
//! |--------|----------------|---------|
//! | 63..32 | `episode`      | the open episode (`u32`, from 1; wraps) |
//! | 31     | `prev_released`| episode `episode − 1` ended released (1) or timed out (0) |
//! | 30..0  | `count`        | arrivals in the open episode (`< parties`) |
//!
//! Any 64 bits decode to some word; the barrier treats an impossible one
//! (a count at or above `parties`) as an episode its next arrival closes.

/// Bit 31: the episode before the open one was released.
const PREV_RELEASED: u64 = 1 << 31;
/// Bits 30..0: the arrivals in the open episode.
const COUNT_MASK: u64 = PREV_RELEASED - 1;

/// Most parties a barrier counts (larger `parties` values are clamped).
pub const MAX_PARTIES: u32 = COUNT_MASK as u32;

/// A decoded episode word (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EpisodeWord {
    /// The open episode.
    pub episode: u32,
    /// Whether episode `episode − 1` was released (else it timed out, or
    /// the cell was just reset).
    pub prev_released: bool,
    /// Arrivals in the open episode.
    pub count: u32,
}

impl EpisodeWord {
    /// The word of a freshly reset cell: episode 1, nobody arrived.
    pub const RESET: EpisodeWord = EpisodeWord {
        episode: 1,
        prev_released: false,
        count: 0,
    };

    /// Decodes a raw word (any bits).
    pub const fn from_bits(bits: u64) -> Self {
        EpisodeWord {
            episode: (bits >> 32) as u32,
            prev_released: bits & PREV_RELEASED != 0,
            count: (bits & COUNT_MASK) as u32,
        }
    }

    /// Encodes the word (`count` is truncated to 31 bits).
    pub const fn to_bits(self) -> u64 {
        let flag = if self.prev_released { PREV_RELEASED } else { 0 };
        ((self.episode as u64) << 32) | flag | (self.count as u64 & COUNT_MASK)
    }

    /// The word that opens the next episode: empty, remembering whether the
    /// open one was `released`.
    pub const fn next(self, released: bool) -> Self {
        EpisodeWord {
            episode: self.episode.wrapping_add(1),
            prev_released: released,
            count: 0,
        }
    }

    /// How many episodes the open one is past `episode`, with wrapping
    /// arithmetic: 0 = it is open, 1 = it just ended, negative = the cell
    /// is behind `episode`.
    pub const fn past(self, episode: u32) -> i32 {
        episode_diff(self.episode, episode)
    }
}

/// `a − b` between two wrapping episode numbers (assumed within 2^31).
pub const fn episode_diff(a: u32, b: u32) -> i32 {
    a.wrapping_sub(b) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_decode_any_bits() {
        let w = EpisodeWord {
            episode: 0xdead_beef,
            prev_released: true,
            count: 5,
        };
        assert_eq!(w.to_bits(), 0xdead_beef_8000_0005);
        assert_eq!(EpisodeWord::from_bits(w.to_bits()), w);
        let any = EpisodeWord::from_bits(u64::MAX);
        assert_eq!(
            (any.episode, any.prev_released, any.count),
            (u32::MAX, true, MAX_PARTIES)
        );
        assert_eq!(EpisodeWord::RESET.to_bits(), 1 << 32);
    }

    #[test]
    fn next_opens_an_empty_episode_and_wraps() {
        let w = EpisodeWord {
            episode: u32::MAX,
            prev_released: false,
            count: 3,
        };
        let n = w.next(true);
        assert_eq!((n.episode, n.prev_released, n.count), (0, true, 0));
        assert_eq!(n.past(u32::MAX), 1, "wrapping");
        assert_eq!(w.past(u32::MAX), 0);
        assert_eq!(w.past(2), -3);
        assert_eq!(episode_diff(5, 2), 3);
    }
}
