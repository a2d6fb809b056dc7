//! `--plot FILE.svg`: one panel per latency row with the cumulative
//! distribution of every side overlaid (log-scaled latency), then one
//! panel per family measured at several process counts with the median
//! against np per side (the scaling curves). SVG through `plotters`.

use std::path::Path;

use plotters::prelude::*;

use pmix_benches::report::{Entry, Measure, Report};
use pmix_benches::summary::fmt_ns;

const PANEL_W: u32 = 640;
const PANEL_H: u32 = 360;
const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn color(report: &Report, side: &str) -> RGBColor {
    let i = report.sides.iter().position(|s| s == side).unwrap_or(0);
    COLORS[i % COLORS.len()]
}

/// A panel: a CDF of one row, or a scaling curve of one family.
enum Panel<'a> {
    Cdf(&'a str, Vec<&'a Entry>),
    Scaling(String, Vec<&'a Entry>),
}

fn panels(report: &Report) -> Vec<Panel<'_>> {
    let mut rows: Vec<&str> = Vec::new();
    for e in &report.entries {
        if matches!(e.measure, Measure::Latency(_)) && !e.is_empty() && !rows.contains(&&*e.row) {
            rows.push(&e.row);
        }
    }
    let mut out: Vec<Panel<'_>> = rows
        .iter()
        .map(|r| {
            Panel::Cdf(
                r,
                report
                    .entries
                    .iter()
                    .filter(|e| e.row == *r && !e.is_empty())
                    .collect(),
            )
        })
        .collect();
    // families with a latency at more than one np: p50 against np
    let mut fams: Vec<(&str, &str)> = Vec::new();
    for e in &report.entries {
        if let ("fence" | "init" | "fanout", Measure::Latency(_)) = (&*e.family, &e.measure) {
            let suffix = e.row.rsplit(": ").next().unwrap_or("");
            let key = if e.family == "fanout" { suffix } else { "" };
            if !fams.contains(&(&e.family, key)) {
                fams.push((&e.family, key));
            }
        }
    }
    for (fam, key) in fams {
        let es: Vec<&Entry> = report
            .entries
            .iter()
            .filter(|e| {
                e.family == fam && !e.is_empty() && (key.is_empty() || e.row.ends_with(key))
            })
            .collect();
        let mut nps: Vec<u32> = es.iter().map(|e| e.np).collect();
        nps.dedup();
        if nps.len() > 1 {
            let title = if key.is_empty() {
                format!("{fam}: median vs np")
            } else {
                format!("{fam} ({key}): median vs np")
            };
            out.push(Panel::Scaling(title, es));
        }
    }
    out
}

/// Draws the report's plots into `path` (SVG).
///
/// # Errors
/// A path that does not end in `.svg`, nothing to draw, or a drawing error.
pub fn draw(report: &Report, path: &Path) -> Result<(), String> {
    if path.extension().and_then(|e| e.to_str()) != Some("svg") {
        return Err(format!(
            "{}: only SVG is drawn (name the file *.svg; convert with rsvg-convert for PNG)",
            path.display()
        ));
    }
    let ps = panels(report);
    if ps.is_empty() {
        return Err("nothing to plot: no latency row was measured".into());
    }
    let cols = if ps.len() == 1 { 1 } else { 2 };
    let rows = ps.len().div_ceil(cols);
    let root =
        SVGBackend::new(path, (PANEL_W * cols as u32, PANEL_H * rows as u32)).into_drawing_area();
    let e = |x: &dyn std::fmt::Display| format!("plot {}: {x}", path.display());
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let areas = root.split_evenly((rows, cols));
    for (p, area) in ps.iter().zip(areas.iter()) {
        match p {
            Panel::Cdf(row, es) => cdf_panel(report, area, row, es).map_err(|x| e(&x))?,
            Panel::Scaling(title, es) => {
                scaling_panel(report, area, title, es).map_err(|x| e(&x))?
            }
        }
    }
    root.present().map_err(|x| e(&x))
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn cdf_panel(report: &Report, area: &Area<'_>, row: &str, es: &[&Entry]) -> DrawResult {
    let curves: Vec<(&Entry, Vec<(f64, f64)>)> = es
        .iter()
        .filter_map(|e| match &e.measure {
            Measure::Latency(d) => Some((
                *e,
                d.cdf(400).into_iter().map(|(x, q)| (x / 1e3, q)).collect(),
            )),
            Measure::Rate(_) => None,
        })
        .collect();
    let lo = curves
        .iter()
        .flat_map(|c| c.1.first())
        .map(|p| p.0)
        .fold(f64::MAX, f64::min);
    let hi = curves
        .iter()
        .flat_map(|c| c.1.last())
        .map(|p| p.0)
        .fold(0.0, f64::max);
    let (lo, hi) = ((lo * 0.8).max(1e-3), (hi * 1.25).max(lo * 2.0));
    let mut chart = ChartBuilder::on(area)
        .caption(row, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d((lo..hi).log_scale(), 0.0..1.0)?;
    chart
        .configure_mesh()
        .x_desc("latency (µs, log)")
        .y_desc("fraction ≤ x")
        .draw()?;
    for (e, pts) in curves {
        let c = color(report, &e.side);
        let label = format!("{} (p50 {})", e.side, fmt_ns(e.value()));
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

fn scaling_panel(report: &Report, area: &Area<'_>, title: &str, es: &[&Entry]) -> DrawResult {
    let max_np = es.iter().map(|e| e.np).max().unwrap_or(2) as f64;
    let min_np = es.iter().map(|e| e.np).min().unwrap_or(1) as f64;
    let hi = es.iter().map(|e| e.value() / 1e3).fold(0.0, f64::max) * 1.3;
    let lo = es.iter().map(|e| e.value() / 1e3).fold(f64::MAX, f64::min) * 0.7;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(
            min_np..max_np.max(min_np + 1.0),
            (lo.max(1e-3)..hi.max(lo * 2.0)).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("processes")
        .y_desc("p50 (µs, log)")
        .draw()?;
    for side in &report.sides {
        let mut pts: Vec<(f64, f64)> = es
            .iter()
            .filter(|e| e.side == *side)
            .map(|e| (f64::from(e.np), e.value() / 1e3))
            .collect();
        if pts.is_empty() {
            continue;
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let c = color(report, side);
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
            .label(side.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
