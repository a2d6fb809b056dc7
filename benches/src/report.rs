//! What `pmixbench` reports: one [`Entry`] per (row, side) — a latency
//! distribution or a rate — the machine's own limits measured in the same
//! run, and the two ratios every entry is quoted with: to its limit (the
//! cache line for spinning paths, the futex or pipe wake-up for sleeping
//! ones) and to the first side (pmix-rs native, or the first library).
//! Rendered as a Markdown table, CSV or JSON.

use serde_json::{json, Value};

use crate::summary::{fmt_ns, fmt_rate, Dist, Summary};

/// What an entry measured.
#[derive(Clone, Debug)]
pub enum Measure {
    /// Latency samples (ns).
    Latency(Dist),
    /// Events per second, one figure per repetition.
    Rate(Vec<f64>),
}

/// One row of the report for one side (implementation).
#[derive(Clone, Debug)]
pub struct Entry {
    /// What was measured (`notify one-way CUSTOM, spin`).
    pub row: String,
    /// The measurement family (`notify`, `fence`, …), for plots.
    pub family: String,
    /// The process count, for scaling curves.
    pub np: u32,
    /// Which implementation (`pmix-rs native`, `OpenPMIx`, …).
    pub side: String,
    /// The figures.
    pub measure: Measure,
    /// The machine limit this row is quoted against, by name.
    pub limit: Option<String>,
}

impl Entry {
    /// The headline figure: the median latency (ns) or the median rate.
    pub fn value(&self) -> f64 {
        match &self.measure {
            Measure::Latency(d) => d.quantile(0.5),
            Measure::Rate(v) => median(v),
        }
    }

    /// Whether the entry holds no figure (every run failed or was stopped).
    pub fn is_empty(&self) -> bool {
        match &self.measure {
            Measure::Latency(d) => d.is_empty(),
            Measure::Rate(v) => v.is_empty(),
        }
    }

    /// The latency percentiles (`None` for a rate).
    pub fn summary(&self) -> Option<Summary> {
        match &self.measure {
            Measure::Latency(d) => Some(d.summary()),
            Measure::Rate(_) => None,
        }
    }
}

/// A ratio with two significant digits at least (`0.0061`, `1.56`, `21392`).
pub fn fmt_ratio(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 0.1 {
        format!("{r:.2}")
    } else {
        format!("{r:.2e}")
    }
}

/// The median of `v` (0 when empty).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// A whole run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The command line, as typed.
    pub command: String,
    /// CPUs, load average before/after, and anything else worth a line.
    pub notes: Vec<String>,
    /// The machine's limits: (name, one-way ns).
    pub limits: Vec<(String, f64)>,
    /// The sides in order; the first is the ratio's baseline.
    pub sides: Vec<String>,
    /// Every entry, in measurement order.
    pub entries: Vec<Entry>,
    /// Rows that failed: (row, side, why).
    pub failures: Vec<(String, String, String)>,
}

impl Report {
    /// The entry for `row` on `side`, creating an empty one like `proto`.
    pub fn entry_mut(&mut self, proto: &Entry) -> &mut Entry {
        let i = match self
            .entries
            .iter()
            .position(|e| e.row == proto.row && e.side == proto.side)
        {
            Some(i) => i,
            None => {
                self.entries.push(proto.clone());
                self.entries.len() - 1
            }
        };
        &mut self.entries[i]
    }

    /// The one-way ns of limit `name`.
    pub fn limit(&self, name: &str) -> Option<f64> {
        self.limits.iter().find(|l| l.0 == name).map(|l| l.1)
    }

    /// The entry's median latency as a multiple of its limit.
    pub fn ratio_to_limit(&self, e: &Entry) -> Option<f64> {
        let l = self.limit(e.limit.as_deref()?)?;
        match e.measure {
            Measure::Latency(_) if l > 0.0 && !e.is_empty() => Some(e.value() / l),
            _ => None,
        }
    }

    /// How many times slower than the first side the entry is (latency:
    /// its median over the baseline's; rate: the baseline's over its).
    pub fn ratio_to_first(&self, e: &Entry) -> Option<f64> {
        let first = self.sides.first()?;
        if *first == e.side || e.is_empty() {
            return None;
        }
        let base = self
            .entries
            .iter()
            .find(|b| b.row == e.row && b.side == *first && !b.is_empty())?;
        let (b, v) = (base.value(), e.value());
        if b <= 0.0 || v <= 0.0 {
            return None;
        }
        Some(match e.measure {
            Measure::Latency(_) => v / b,
            Measure::Rate(_) => b / v,
        })
    }

    /// The Markdown table (limits first, then one line per entry).
    pub fn table(&self) -> String {
        let base = self.sides.first().map_or("first", String::as_str);
        let mut s = format!(
            "| row | side | n | min | p50 | p90 | p99 | p99.9 | max | × limit | × {base} |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        );
        for (name, ns) in &self.limits {
            s.push_str(&format!(
                "| limit: {name} one-way | the machine | | | {} | | | | | 1 | |\n",
                fmt_ns(*ns)
            ));
        }
        let x = |r: Option<f64>| r.map_or(String::new(), fmt_ratio);
        for e in &self.entries {
            let cells = match (&e.measure, e.summary()) {
                (_, Some(m)) if m.count > 0 => format!(
                    "{} | {} | {} | {} | {} | {} | {}",
                    m.count,
                    fmt_ns(m.min),
                    fmt_ns(m.p50),
                    fmt_ns(m.p90),
                    fmt_ns(m.p99),
                    fmt_ns(m.p999),
                    fmt_ns(m.max)
                ),
                (Measure::Rate(v), _) if !v.is_empty() => {
                    format!("{} | | {} | | | | ", v.len(), fmt_rate(e.value()))
                }
                _ => "0 | | — | | | | ".to_owned(),
            };
            let limit = match (self.ratio_to_limit(e), &e.limit) {
                (Some(r), Some(l)) => format!("{} × {l}", fmt_ratio(r)),
                _ => String::new(),
            };
            s.push_str(&format!(
                "| {} | {} | {cells} | {limit} | {} |\n",
                e.row,
                e.side,
                x(self.ratio_to_first(e))
            ));
        }
        for (row, side, why) in &self.failures {
            s.push_str(&format!("\nFAILED: {row} on {side}: {why}"));
        }
        if !self.failures.is_empty() {
            s.push('\n');
        }
        s
    }

    /// One CSV line per limit and entry, with a header.
    pub fn csv(&self) -> String {
        let mut s = String::from(
            "row,family,np,side,unit,count,min,p50,p90,p99,p999,max,value,limit,x_limit,x_first\n",
        );
        let q = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
        let o = |r: Option<f64>| r.map_or(String::new(), |r| format!("{r:.4}"));
        for (name, ns) in &self.limits {
            s.push_str(&format!(
                "{},limit,2,{},ns,,,{ns},,,,,{ns},,,\n",
                q(&format!("limit: {name}")),
                q("the machine")
            ));
        }
        for e in &self.entries {
            let (unit, pct) = match e.summary() {
                Some(m) => (
                    "ns",
                    format!(
                        "{},{},{},{},{},{},{}",
                        m.count, m.min, m.p50, m.p90, m.p99, m.p999, m.max
                    ),
                ),
                None => ("ev/s", format!("{},,,,,,", self.rate_runs(e))),
            };
            s.push_str(&format!(
                "{},{},{},{},{unit},{pct},{},{},{},{}\n",
                q(&e.row),
                q(&e.family),
                e.np,
                q(&e.side),
                e.value(),
                q(e.limit.as_deref().unwrap_or("")),
                o(self.ratio_to_limit(e)),
                o(self.ratio_to_first(e)),
            ));
        }
        s
    }

    fn rate_runs(&self, e: &Entry) -> usize {
        match &e.measure {
            Measure::Rate(v) => v.len(),
            Measure::Latency(d) => d.len() as usize,
        }
    }

    /// The whole report as JSON.
    pub fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .entries
            .iter()
            .map(|e| {
                let mut v = json!({
                    "row": e.row,
                    "family": e.family,
                    "np": e.np,
                    "side": e.side,
                    "value": e.value(),
                    "limit": e.limit,
                    "x_limit": self.ratio_to_limit(e),
                    "x_first": self.ratio_to_first(e),
                });
                match e.summary() {
                    Some(m) => {
                        v["unit"] = json!("ns");
                        v["count"] = json!(m.count);
                        v["min"] = json!(m.min);
                        v["p50"] = json!(m.p50);
                        v["p90"] = json!(m.p90);
                        v["p99"] = json!(m.p99);
                        v["p999"] = json!(m.p999);
                        v["max"] = json!(m.max);
                    }
                    None => {
                        v["unit"] = json!("ev/s");
                        v["count"] = json!(self.rate_runs(e));
                    }
                }
                v
            })
            .collect();
        json!({
            "command": self.command,
            "notes": self.notes,
            "sides": self.sides,
            "limits": self.limits.iter().map(|(n, ns)| json!({"name": n, "oneway_ns": ns})).collect::<Vec<_>>(),
            "rows": rows,
            "failures": self.failures.iter().map(|(r, s, w)| json!({"row": r, "side": s, "why": w})).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lat(row: &str, side: &str, samples: &[u64]) -> Entry {
        let mut d = Dist::new();
        d.record_all(samples);
        Entry {
            row: row.into(),
            family: "notify".into(),
            np: 2,
            side: side.into(),
            measure: Measure::Latency(d),
            limit: Some("cache line".into()),
        }
    }

    fn sample_report() -> Report {
        let rate = |side: &str, v: f64| Entry {
            row: "throughput".into(),
            family: "throughput".into(),
            np: 2,
            side: side.into(),
            measure: Measure::Rate(vec![v, v * 3.0, v * 2.0]),
            limit: None,
        };
        Report {
            command: "pmixbench notify".into(),
            notes: vec!["2 CPUs".into()],
            limits: vec![("cache line".into(), 100.0)],
            sides: vec!["native".into(), "other".into()],
            entries: vec![
                lat("notify", "native", &[1000, 1000, 1000]),
                lat("notify", "other", &[1500, 1500, 1500]),
                rate("native", 1000.0),
                rate("other", 250.0),
            ],
            failures: vec![("fence".into(), "other".into(), "timed out".into())],
        }
    }

    #[test]
    fn ratios_to_limit_and_first_side() {
        let r = sample_report();
        let [a, b, c, d] = &r.entries[..] else {
            panic!("4 entries")
        };
        assert_eq!(r.ratio_to_limit(a), Some(10.0));
        assert_eq!(r.ratio_to_first(a), None);
        let x = r.ratio_to_first(b).unwrap();
        assert!((x - 1.5).abs() < 0.01, "{x}");
        assert_eq!(c.value(), 2000.0); // median of 1000, 3000, 2000
        assert_eq!(r.ratio_to_first(d), Some(4.0)); // 2000 / 500 ev/s
        assert_eq!(r.ratio_to_limit(c), None);
    }

    #[test]
    fn table_csv_and_json_carry_every_row() {
        let r = sample_report();
        let t = r.table();
        assert!(
            t.contains("| limit: cache line one-way | the machine |"),
            "{t}"
        );
        assert!(t.contains("| notify | other | 3 | 1.50 µs |"), "{t}");
        assert!(t.contains("10.00 × cache line"), "{t}");
        assert!(t.contains("| throughput | other | 3 | | 500 ev/s |"), "{t}");
        assert!(t.contains("FAILED: fence on other: timed out"), "{t}");
        let csv = r.csv();
        assert_eq!(csv.lines().count(), 1 + 1 + 4, "{csv}");
        assert!(
            csv.contains("\"notify\",\"notify\",2,\"other\",ns,3,1500,1500"),
            "{csv}"
        );
        let j = r.json();
        let rows = j["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[1]["p50"], 1500.0);
        assert_eq!(rows[1]["unit"], "ns");
        assert_eq!(rows[3]["unit"], "ev/s");
        assert_eq!(j["limits"][0]["oneway_ns"], 100.0);
        assert_eq!(j["failures"][0]["why"], "timed out");
    }

    #[test]
    fn entry_mut_merges_by_row_and_side() {
        let mut r = sample_report();
        let proto = lat("notify", "other", &[]);
        if let Measure::Latency(d) = &mut r.entry_mut(&proto).measure {
            d.record(1500);
        }
        assert_eq!(r.entries.len(), 4);
        assert_eq!(r.entries[1].summary().unwrap().count, 4);
        r.entry_mut(&lat("fence", "other", &[]));
        assert_eq!(r.entries.len(), 5);
    }
}
