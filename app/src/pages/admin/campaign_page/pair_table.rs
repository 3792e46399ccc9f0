use super::*;

#[component]
pub(super) fn PairTable(
    list: Vec<AdminPair>,
    campaign_id: String,
    set_test: ServerAction<SetTestPair>,
) -> impl IntoView {
    view! {
        <div class="scroll-x" role="region" aria-label="Pairs" tabindex="0">
            <table class="users pairs" aria-label="Pairs">
                <thead>
                    <tr>
                        <th scope="col">"Sentence 1"</th>
                        <th scope="col">"Sentence 2"</th>
                        <th scope="col">"Paraphrase votes · label"</th>
                        <th scope="col">"Test pair (gold)"</th>
                    </tr>
                </thead>
                <tbody>
                    {list
                        .into_iter()
                        .map(|AdminPair { pair: p, label }| {
                            let campaign_id = campaign_id.clone();
                            let gold = match (p.is_test, p.gold_label) {
                                (true, Some(true)) => "paraphrase",
                                (true, Some(false)) => "not_paraphrase",
                                _ => "none",
                            };
                            view! {
                                <tr>
                                    <td>{p.sentence1}</td>
                                    <td>{p.sentence2}</td>
                                    <td>
                                        {format!("{} / {}", p.n_paraphrase, p.n_judgments)}
                                        {label.map(|l| match l {
                                            VoteLabel::Paraphrase => " · paraphrase",
                                            VoteLabel::NotParaphrase => " · not paraphrase",
                                            VoteLabel::Unresolved => " · unresolved",
                                        })}
                                        {(p.is_test && p.gold_promoted).then(|| view! {
                                            <span class="muted small" data-testid="promoted">
                                                {if p.gold_explanation.as_deref().unwrap_or("").trim().is_empty() {
                                                    " · promoted (no explanation yet)"
                                                } else {
                                                    " · promoted"
                                                }}
                                            </span>
                                        })}
                                    </td>
                                    <td>
                                        <ActionForm action=set_test attr:class="gold">
                                            <input type="hidden" name="campaign_id" value=campaign_id />
                                            <input type="hidden" name="pair_id" value=p.pair_id.to_string() />
                                            <select name="gold" aria-label="Gold label">
                                                <option value="none" selected=gold == "none">"not a test pair"</option>
                                                <option value="paraphrase" selected=gold == "paraphrase">"paraphrase"</option>
                                                <option value="not_paraphrase" selected=gold == "not_paraphrase">"not paraphrase"</option>
                                            </select>
                                            <input name="explanation" placeholder="Explanation shown on a miss" value=p.gold_explanation.unwrap_or_default() />
                                            <button type="submit" class="small">"Save"</button>
                                        </ActionForm>
                                    </td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}
