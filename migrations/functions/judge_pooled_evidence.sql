-- A worker's pooled evidence as `{agreed, observed}`: test pairs answered right of those
-- answered, plus ordinary pairs where they gave the label of the others' majority (p_pp, p_nn)
-- of all their ordinary pairs with such a majority (the gate table's four cells). What a vote is
-- weighed with when a pair settles (`judge_pair_settlement`) and when a settled pair is promoted to a
-- test pair (`db::judge::pairs::promote_settled`). The domain's twin: the `agreements` and
-- `evidence` of `domain::judge::gate_table::GateCounts::numbers`.
create or replace function judge_pooled_evidence(
    p_tests_correct int4, p_tests_answered int4, p_pp int4, p_pn int4, p_np int4, p_nn int4)
returns int4[]
language sql immutable parallel safe
return array[p_tests_correct + p_pp + p_nn, p_tests_answered + p_pp + p_pn + p_np + p_nn];
