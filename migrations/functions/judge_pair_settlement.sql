-- Where an ordinary pair's label stands, read and not written: its trusted votes, each weighted
-- by its worker's accuracy as of their last counts (`judge_vote_accuracy`), put through the
-- campaign's redundancy settings (`judge_settling`, a coming judgment weighed as 0.99:
-- `settle::NEXT_ACCURACY`). p_judgments is the pair's number of trusted judgments (the caller
-- may not have written the newest into the pair's counts yet). A pair settled while it can still
-- get judgments has its label in `settled_label` and is no longer served; anything else has
-- none. `posterior` is the posterior of "paraphrase" (null below the minimum, where no votes are
-- read). `labelled`: the pair has its label now, settled or because every slot is taken
-- (`judge_pair_taken`; at the maximum `labels::pair_label` gives it). Reads at most a pair's
-- judgments: an answer's cost stays flat. The writers: `judge_answer` (the pair's one write of
-- an answer) and `judge_settle_pair` (after a change of trust).
-- needs: judge_pooled_evidence, judge_vote_accuracy, judge_settling, judge_pair_taken
create or replace function judge_pair_settlement(
    p_pair uuid, p_campaign uuid, p_judgments int4,
    out settled_label bool, out posterior float8, out labelled bool)
language plpgsql as $$
declare
    s record;
    labels bool[];
    accuracies float8[];
    taken int4;
    outcome record;
begin
    labelled := false;
    select st.min_judgments_per_pair, st.judgments_per_pair, st.settle_confidence
    into s
    from judge_settings st
    where st.campaign_id = p_campaign;
    if not found then
        return;
    end if;
    -- A stopped worker's judgment keeps its slot: with every slot taken no judgment can come.
    taken := judge_pair_taken(p_pair);
    -- Below the minimum nothing settles (`settle` says open): no votes are read, and the
    -- posterior waits for the minimum too.
    if p_judgments < s.min_judgments_per_pair then
        labelled := taken >= s.judgments_per_pair;
        return;
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
    settled_label := case when outcome.state = 'settled' and taken < s.judgments_per_pair
                          then outcome.paraphrase end;
    posterior := case when cardinality(labels) > 0 then outcome.p_paraphrase end;
    labelled := settled_label is not null or taken >= s.judgments_per_pair;
end $$;
