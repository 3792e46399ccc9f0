-- The judgments that hold one of an ordinary pair's slots (answers to it as a test pair hold
-- none): its trusted ones and those of workers since stopped (a stop gives no slot back), not the set-aside ones (republished, excluded), which
-- gave theirs back. A pair that has taken its maximum gets no more judgments, and is labelled by
-- the votes that still count (`labels::PairVotes::taken`, `labels::pair_label`). PL/pgSQL, so
-- that the answer path (`judge_pair_settlement`) keeps its plan.
create or replace function judge_pair_taken(p_pair uuid) returns int4
language plpgsql stable as $$
begin
    return (select count(*)::int4 from judge_judgment j
            where j.pair_id = p_pair and not j.republished and not j.is_test);
end $$;
