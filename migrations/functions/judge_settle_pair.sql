-- Settles an ordinary pair, or opens it again: its trusted votes, each weighted by its worker's
-- accuracy as of their last counts (`judge_vote_accuracy`), put through the campaign's
-- redundancy settings (`judge_settling`, a coming judgment weighed as 0.99:
-- `settle::NEXT_ACCURACY`). Below its maximum a settled pair keeps its label in
-- `settled_label` and is no longer served; anything else clears it. `posterior` keeps the
-- posterior of "paraphrase" (null below the minimum, where nothing is read). Returns whether the pair has its label now
-- (settled, or its maximum of trusted votes). Called by an answer
-- (`judge_answer`, which holds the pair's row) and after a change of trust
-- (`service::gate_table::after_flips`). Reads at most a pair's judgments: an answer's cost
-- stays flat.
-- needs: judge_pooled_evidence, judge_vote_accuracy, judge_settling
create or replace function judge_settle_pair(p_pair uuid) returns bool
language plpgsql as $$
declare
    s record;
    labels bool[];
    accuracies float8[];
    outcome record;
    label bool;
begin
    select p.is_test, p.n_judgments, p.settled_label, p.posterior,
           st.min_judgments_per_pair, st.judgments_per_pair, st.settle_confidence
    into s
    from judge_pair p join judge_settings st using (campaign_id)
    where p.pair_id = p_pair;
    if not found or s.is_test then
        return false;
    end if;
    -- Below the minimum nothing settles (`settle` says open): no votes are read, and the
    -- posterior waits for the minimum too.
    if s.n_judgments < s.min_judgments_per_pair then
        if s.settled_label is not null or s.posterior is not null then
            update judge_pair set settled_label = null, posterior = null where pair_id = p_pair;
        end if;
        return false;
    end if;
    with v as (
        select j.is_paraphrase, j.created_at, j.judgment_id,
               judge_pooled_evidence(w.tests_correct, w.tests_answered, w.kappa_pp, w.kappa_pn,
                                     w.kappa_np, w.kappa_nn) as evidence
        from judge_judgment j
        join judge_worker w on w.campaign_id = j.campaign_id and w.app_user_id = j.app_user_id
        where j.pair_id = p_pair and j.trusted and not j.is_test),
    t as (
        select count(*) filter (where is_paraphrase)::int4 as yes,
               count(*) filter (where not is_paraphrase)::int4 as no
        from v)
    select coalesce(array_agg(v.is_paraphrase order by v.created_at, v.judgment_id), '{}'),
           coalesce(array_agg(judge_vote_accuracy(
               v.is_paraphrase, t.yes - v.is_paraphrase::int4, t.no - (not v.is_paraphrase)::int4,
               v.evidence[1], v.evidence[2]) order by v.created_at, v.judgment_id), '{}')
    into labels, accuracies
    from v cross join t;
    select * into outcome
    from judge_settling(s.min_judgments_per_pair, s.judgments_per_pair, s.settle_confidence,
                        0.5, labels, accuracies, 0.99);
    label := case when outcome.state = 'settled' and cardinality(labels) < s.judgments_per_pair
                  then outcome.paraphrase end;
    update judge_pair
    set settled_label = label,
        posterior = case when cardinality(labels) > 0 then outcome.p_paraphrase end
    where pair_id = p_pair;
    return label is not null or cardinality(labels) >= s.judgments_per_pair;
end $$;
