-- The sign of the majority of the *other* trusted votes on a pair, from the pair's trusted votes
-- (p_yes "paraphrase", p_no "not") and one judgment's label p_label, which is among them when
-- p_counts_itself: 1 "paraphrase", -1 "not", 0 a tie (null when p_counts_itself is null). A
-- part of `judge_cell_change`; the domain's twin: `domain::judge::gate_table::Votes::without`
-- and its majority.
create or replace function judge_majority_sign(
    p_yes int4, p_no int4, p_counts_itself bool, p_label bool)
returns int4
language sql immutable parallel safe
return sign((p_yes - (p_counts_itself and p_label)::int4)
            - (p_no - (p_counts_itself and not p_label)::int4))::int4;
