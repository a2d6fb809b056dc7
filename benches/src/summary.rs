//! Latency distributions: every sample of a latency row goes into an HDR
//! histogram ([`Dist`], the `hdrhistogram` crate, 3 significant digits
//! from 1 ns to 100 s), so that repetitions merge exactly and the tail
//! percentiles are not an average of medians. [`Summary`] is what the
//! report prints of one: min, p50, p90, p99, p99.9, max.

use hdrhistogram::Histogram;

/// The largest latency a [`Dist`] records (100 s, in ns); larger samples
/// are clamped to it.
pub const MAX_NS: u64 = 100_000_000_000;

/// A latency distribution in nanoseconds.
#[derive(Clone, Debug)]
pub struct Dist {
    h: Histogram<u64>,
}

impl Default for Dist {
    fn default() -> Self {
        Self::new()
    }
}

/// The percentiles a report gives of one distribution, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// How many samples.
    pub count: u64,
    /// The smallest sample.
    pub min: f64,
    /// The median.
    pub p50: f64,
    /// The 90th percentile.
    pub p90: f64,
    /// The 99th percentile.
    pub p99: f64,
    /// The 99.9th percentile.
    pub p999: f64,
    /// The largest sample.
    pub max: f64,
}

impl Dist {
    /// An empty distribution.
    pub fn new() -> Dist {
        match Histogram::new_with_bounds(1, MAX_NS, 3) {
            Ok(h) => Dist { h },
            // the bounds are constants that the crate accepts
            Err(e) => unreachable!("histogram bounds: {e}"),
        }
    }

    /// Records one sample (ns); 0 counts as 1 ns, and anything above
    /// [`MAX_NS`] as [`MAX_NS`].
    pub fn record(&mut self, ns: u64) {
        self.h.saturating_record(ns.clamp(1, MAX_NS));
    }

    /// Records every sample of `ns`.
    pub fn record_all(&mut self, ns: &[u64]) {
        for &v in ns {
            self.record(v);
        }
    }

    /// Adds every sample of `other` (another repetition).
    pub fn merge(&mut self, other: &Dist) {
        // same bounds on both sides: cannot fail
        let _ = self.h.add(&other.h);
    }

    /// How many samples.
    pub fn len(&self) -> u64 {
        self.h.len()
    }

    /// Whether no sample was recorded.
    pub fn is_empty(&self) -> bool {
        self.h.is_empty()
    }

    /// The value at quantile `q` (0..=1), in ns.
    pub fn quantile(&self, q: f64) -> f64 {
        self.h.value_at_quantile(q) as f64
    }

    /// The report's percentiles (all zero when empty).
    pub fn summary(&self) -> Summary {
        if self.h.is_empty() {
            return Summary::default();
        }
        Summary {
            count: self.h.len(),
            min: self.h.min() as f64,
            p50: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            p999: self.quantile(0.999),
            max: self.h.max() as f64,
        }
    }

    /// Points `(ns, fraction of samples ≤ ns)` of the cumulative
    /// distribution, for a plot: one per distinct recorded value bucket,
    /// at most `max_points` (evenly thinned), always ending at 1.
    pub fn cdf(&self, max_points: usize) -> Vec<(f64, f64)> {
        let n = self.h.len();
        if n == 0 {
            return Vec::new();
        }
        let all: Vec<(f64, f64)> = self
            .h
            .iter_recorded()
            .map(|v| {
                (
                    self.h.highest_equivalent(v.value_iterated_to()) as f64,
                    v.quantile_iterated_to(),
                )
            })
            .collect();
        let step = all.len().div_ceil(max_points.max(1)).max(1);
        let mut pts: Vec<(f64, f64)> = all.iter().copied().step_by(step).collect();
        if let Some(&last) = all.last() {
            if pts.last() != Some(&last) {
                pts.push(last);
            }
        }
        pts
    }
}

/// `ns` as a short human figure: `850 ns`, `1.36 µs`, `22.0 ms`, `1.20 s`.
pub fn fmt_ns(ns: f64) -> String {
    let three = |x: f64| {
        if x >= 100.0 {
            format!("{x:.0}")
        } else if x >= 10.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.2}")
        }
    };
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{} µs", three(ns / 1e3))
    } else if ns < 1e9 {
        format!("{} ms", three(ns / 1e6))
    } else {
        format!("{} s", three(ns / 1e9))
    }
}

/// A rate as a short human figure: `950 k ev/s`, `2.25 M ev/s`.
pub fn fmt_rate(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.2} M ev/s", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.0} k ev/s", r / 1e3)
    } else {
        format!("{r:.0} ev/s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let mut d = Dist::new();
        d.record_all(&(1..=1000).collect::<Vec<u64>>());
        let s = d.summary();
        assert_eq!(s.count, 1000);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 1000.0);
        assert!((s.p50 - 500.0).abs() <= 1.0, "{s:?}");
        assert!((s.p90 - 900.0).abs() <= 1.0, "{s:?}");
        assert!((s.p99 - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.p999 - 999.0).abs() <= 1.0, "{s:?}");
        let cdf = d.cdf(50);
        assert!(cdf.len() <= 51, "{}", cdf.len());
        assert_eq!(cdf.last().map(|p| p.1), Some(1.0));
        assert!(cdf.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
    }

    #[test]
    fn merge_adds_repetitions_and_clamps() {
        let mut a = Dist::new();
        a.record_all(&[0, 10, 10]);
        let mut b = Dist::new();
        b.record(MAX_NS * 10);
        a.merge(&b);
        let s = a.summary();
        assert_eq!(s.count, 4);
        assert_eq!(s.min, 1.0);
        assert!(s.max >= MAX_NS as f64 * 0.999);
        assert_eq!(Dist::new().summary(), Summary::default());
    }

    #[test]
    fn human_figures() {
        assert_eq!(fmt_ns(850.0), "850 ns");
        assert_eq!(fmt_ns(1360.0), "1.36 µs");
        assert_eq!(fmt_ns(22_000_000.0), "22.0 ms");
        assert_eq!(fmt_rate(2_250_000.0), "2.25 M ev/s");
        assert_eq!(fmt_rate(94_000.0), "94 k ev/s");
    }
}
