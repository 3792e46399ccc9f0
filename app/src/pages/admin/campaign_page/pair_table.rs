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
                                        {label.map(|l| label_text(l, p.posterior))}
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

/// A pair's label in the list, with the posterior behind it where the pair has one: the
/// label's, or for an unresolved pair that of "paraphrase" (as the export gives it).
fn label_text(label: VoteLabel, posterior: Option<f64>) -> String {
    let (name, p) = match label {
        VoteLabel::Paraphrase => ("paraphrase", posterior),
        VoteLabel::NotParaphrase => ("not paraphrase", posterior.map(|p| 1.0 - p)),
        VoteLabel::Unresolved => {
            return match posterior {
                Some(p) => format!(" · unresolved (paraphrase at {p:.2})"),
                None => " · unresolved".to_owned(),
            }
        }
    };
    match p {
        Some(p) => format!(" · {name} (posterior {p:.2})"),
        None => format!(" · {name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_says_how_sure_its_votes_make_it() {
        assert_eq!(
            label_text(VoteLabel::Paraphrase, Some(0.973)),
            " · paraphrase (posterior 0.97)"
        );
        assert_eq!(
            label_text(VoteLabel::NotParaphrase, Some(0.02)),
            " · not paraphrase (posterior 0.98)"
        );
        assert_eq!(
            label_text(VoteLabel::Unresolved, Some(0.8)),
            " · unresolved (paraphrase at 0.80)"
        );
        assert_eq!(label_text(VoteLabel::Unresolved, None), " · unresolved");
        assert_eq!(label_text(VoteLabel::Paraphrase, None), " · paraphrase");
    }
}
