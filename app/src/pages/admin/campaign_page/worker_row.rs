use super::*;
use crate::components::gate_standing::GateStandingCell;

#[component]
pub(super) fn WorkerRow(
    w: JudgeWorkerView,
    campaign_id: String,
    set_worker: ServerAction<SetJudgeWorkerStatus>,
) -> impl IntoView {
    let stopped = w.status == crate::domain::WorkerStatus::Stopped;
    let accuracy = w
        .test_accuracy
        .map(|a| format!("{:.0}% of {}", a * 100.0, w.tests_answered))
        .unwrap_or_else(|| "—".into());
    view! {
        <tr data-username=w.username.clone()>
            <td>{w.username.clone()}</td>
            <td>{w.judgments}</td>
            <td>{accuracy}</td>
            <td class=if w.harvesting_gold { "status blocked" } else { "" } data-testid="tests-seen">
                {w.tests_seen} " / " {w.tests_missed}
                {w.harvesting_gold.then_some(" — collecting answers?")}
            </td>
            <td class=if stopped { "status blocked" } else { "status" }>
                {w.status.as_str()} {w.gate_overridden.then_some(" (gate off)")}
            </td>
            <td class="small gate"><GateStandingCell gate=w.gate.clone() /></td>
            <td class="small">{w.last_reason.clone().unwrap_or_default()}</td>
            <td>
                <ActionForm action=set_worker attr:class="inline">
                    <input type="hidden" name="campaign_id" value=campaign_id />
                    <input type="hidden" name="user_id" value=w.user_id.to_string() />
                    <input type="hidden" name="status" value=if stopped { "active" } else { "stopped" } />
                    <button type="submit" class="small">{if stopped { "Reinstate" } else { "Stop" }}</button>
                </ActionForm>
            </td>
        </tr>
    }
}
