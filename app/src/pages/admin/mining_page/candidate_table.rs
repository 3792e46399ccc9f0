use super::*;
use crate::domain::MethodKind;

/// Which of a candidate's numbers a mining method fills: every method gives the edit distance
/// and the length ratio; only F2 counts shared long words, and only the embedding miner
/// (cosine similarity) and group selection (the seed's rank) give a score. The others are 0 for
/// it and would only mislead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Columns {
    pub shared_long_words: bool,
    /// The score column's heading, when the method has one.
    pub score: Option<&'static str>,
}

pub(super) fn columns(method: Option<MethodKind>) -> Columns {
    Columns {
        shared_long_words: method == Some(MethodKind::F2),
        score: match method {
            Some(MethodKind::Embedding) => Some("Similarity"),
            Some(MethodKind::Group) => Some("Seed rank"),
            _ => None,
        },
    }
}

#[component]
pub(super) fn CandidateTable(
    list: Vec<CandidateView>,
    method: Option<MethodKind>,
) -> impl IntoView {
    let Columns {
        shared_long_words,
        score,
    } = columns(method);
    view! {
        <div class="scroll-x" role="region" aria-label="Candidates" tabindex="0">
            <table aria-label="Candidates">
                <thead>
                    <tr>
                        <th>"Sentence 1"</th>
                        <th>"Sentence 2"</th>
                        <th>"Cluster"</th>
                        <th>"Edit distance"</th>
                        {shared_long_words.then(|| view! { <th>"Shared long words"</th> })}
                        <th>"Length ratio"</th>
                        {score.map(|name| view! { <th>{name}</th> })}
                    </tr>
                </thead>
                <tbody>
                    {list
                        .into_iter()
                        .map(|c| {
                            view! {
                                <tr>
                                    <td>{c.sentence1}</td>
                                    <td>{c.sentence2}</td>
                                    <td>{c.cluster}</td>
                                    <td>{c.edit_distance}</td>
                                    {shared_long_words.then(|| view! { <td>{c.shared_long_words}</td> })}
                                    <td>{format!("{:.2}", c.length_ratio)}</td>
                                    {score.map(|_| view! { <td>{format!("{:.3}", c.score)}</td> })}
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_shows_only_the_numbers_it_fills() {
        assert_eq!(
            columns(Some(MethodKind::L12)),
            Columns {
                shared_long_words: false,
                score: None
            }
        );
        assert_eq!(
            columns(Some(MethodKind::F2)),
            Columns {
                shared_long_words: true,
                score: None
            }
        );
        assert_eq!(
            columns(Some(MethodKind::Embedding)).score,
            Some("Similarity")
        );
        assert_eq!(columns(Some(MethodKind::Group)).score, Some("Seed rank"));
    }
}
