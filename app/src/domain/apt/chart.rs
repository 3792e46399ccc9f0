//! Figure 2 as an SVG drawn on the server: BLEURT histograms of APT, MI-but-not-APT and non-MI
//! attempts, stacked per bin, with the threshold marked. Only numbers go into the markup.
use super::stats::Histograms;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 44.0;
const BOTTOM: f64 = 28.0;
const TOP: f64 = 10.0;

/// Series colours: APT, MI not APT, non-MI (colour-blind safe: blue, orange, grey).
const COLOURS: [&str; 3] = ["#2456c7", "#e08a1e", "#9aa3b2"];

/// The chart for `h`; `threshold` is drawn as a dashed line when inside the range.
pub fn histogram_svg(h: &Histograms, threshold: f64) -> String {
    let bins = h.apt.len().max(1);
    let totals: Vec<u64> = (0..bins)
        .map(|i| h.apt[i] + h.mi_not_apt[i] + h.non_mi[i])
        .collect();
    let peak = totals.iter().copied().max().unwrap_or(0).max(1) as f64;
    let plot_w = WIDTH - LEFT - 8.0;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let bar_w = plot_w / bins as f64;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="BLEURT histogram of attempts by category" class="chart">"#
    );
    for i in 0..bins {
        let mut y = TOP + plot_h;
        for (series, colour) in [h.apt[i], h.mi_not_apt[i], h.non_mi[i]]
            .into_iter()
            .zip(COLOURS)
        {
            if series == 0 {
                continue;
            }
            let bar_h = plot_h * series as f64 / peak;
            y -= bar_h;
            svg.push_str(&format!(
                r#"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{colour}"/>"#,
                LEFT + i as f64 * bar_w,
                y,
                (bar_w - 0.5).max(0.5),
                bar_h
            ));
        }
    }
    // Axes and labels.
    let base = TOP + plot_h;
    svg.push_str(&format!(
        r##"<line x1="{LEFT}" y1="{base}" x2="{:.2}" y2="{base}" stroke="#5b6474"/><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{base}" stroke="#5b6474"/>"##,
        LEFT + plot_w
    ));
    svg.push_str(&format!(
        r##"<text x="{LEFT}" y="{:.1}" font-size="11" fill="#5b6474">{:.2}</text><text x="{:.1}" y="{:.1}" font-size="11" fill="#5b6474" text-anchor="end">{:.2}</text><text x="{:.1}" y="{:.1}" font-size="11" fill="#5b6474" text-anchor="middle">BLEURT</text>"##,
        base + 16.0,
        h.min,
        LEFT + plot_w,
        base + 16.0,
        h.max,
        LEFT + plot_w / 2.0,
        base + 16.0
    ));
    svg.push_str(&format!(
        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#5b6474" text-anchor="end">{}</text><text x="{:.1}" y="{base}" font-size="11" fill="#5b6474" text-anchor="end">0</text>"##,
        LEFT - 4.0,
        TOP + 10.0,
        peak as u64,
        LEFT - 4.0
    ));
    if h.max > h.min && (h.min..=h.max).contains(&threshold) {
        let x = LEFT + plot_w * (threshold - h.min) / (h.max - h.min);
        svg.push_str(&format!(
            r##"<line x1="{x:.2}" y1="{TOP}" x2="{x:.2}" y2="{base}" stroke="#b3261e" stroke-dasharray="4 3"/><text x="{:.2}" y="{:.1}" font-size="11" fill="#b3261e">threshold {threshold}</text>"##,
            x + 3.0,
            TOP + 10.0
        ));
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rect_per_non_empty_series_in_each_bin_and_the_threshold_line() {
        let h = Histograms {
            min: -1.0,
            max: 1.0,
            apt: vec![2, 0, 0, 0],
            mi_not_apt: vec![0, 0, 1, 1],
            non_mi: vec![1, 0, 0, 3],
        };
        let svg = histogram_svg(&h, 0.5);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<rect").count(), 5);
        assert!(svg.contains("threshold 0.5"));
        assert!(
            svg.contains(">4</text>"),
            "the peak count (bin 3: 1 + 3) labels the y axis"
        );
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn a_threshold_outside_the_range_is_not_drawn() {
        let h = Histograms {
            min: 0.6,
            max: 0.9,
            apt: vec![0; 100],
            mi_not_apt: vec![1; 100],
            non_mi: vec![0; 100],
        };
        let svg = histogram_svg(&h, 0.5);
        assert!(!svg.contains("threshold"));
        assert_eq!(svg.matches("<rect").count(), 100);
    }
}
