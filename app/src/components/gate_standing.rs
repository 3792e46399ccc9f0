//! Where the quality gate stands on a worker: their accuracy estimate and its upper bound
//! drawn beside the campaign's minimum, kappa with its interval, and why they are kept or
//! stopped. Shown on the campaign page and the research dashboard.
use leptos::prelude::*;

use crate::dto::judge_admin::GateStanding;

/// What the Gate column shows, for its heading's title.
pub const GATE_TITLE: &str = "The accuracy the worker's check answers and agreement with the others' majority suggest (dot), its upper confidence bound (bar) against the campaign's minimum (red line), and why the gate keeps or stops them";

/// The gate's standing, for a table cell.
#[component]
pub fn GateStandingCell(gate: GateStanding) -> impl IntoView {
    let interval = match (gate.accuracy_estimate, gate.accuracy_upper) {
        (Some(estimate), Some(upper)) => {
            let label = format!(
                "Accuracy about {:.0}%, at most {:.0}%; the minimum is {:.0}%",
                estimate * 100.0,
                upper * 100.0,
                gate.minimum * 100.0
            );
            view! {
                <span class="interval" role="img" aria-label=label.clone() title=label>
                    <span class="interval-range" style=format!("left: {:.1}%; width: {:.1}%", estimate * 100.0, ((upper - estimate) * 100.0).max(0.5))></span>
                    <span class="interval-point" style=format!("left: {:.1}%", estimate * 100.0)></span>
                    <span class="interval-minimum" style=format!("left: {:.1}%", gate.minimum * 100.0)></span>
                </span>
            }
            .into_any()
        }
        _ => ().into_any(),
    };
    let kappa = gate.kappa.map(|k| {
        let range = gate
            .kappa_interval
            .map(|(lo, hi)| format!(" (95%: {lo:.2} to {hi:.2})"))
            .unwrap_or_default();
        view! { <span class="muted">{format!("kappa vs the others' majority {k:.2}{range}")}</span> }
    });
    view! {
        <div class="gate-standing" data-testid="gate-standing">
            {interval}
            {kappa}
            <span class="standing">{gate.standing}</span>
        </div>
    }
}
