-- How far the majority of the *other* trusted votes on a pair leads, signed: the pair's trusted
-- votes (p_yes "paraphrase", p_no "not") less one judgment's label p_label when it is among
-- them (p_counts_itself), "paraphrase" votes minus "not" votes (null when p_counts_itself is
-- null). A part of `judge_cell_change`; the domain's twin: `domain::judge::gate_table::Votes`'s
-- `without`, `majority` and `lead`.
create or replace function judge_majority_lead(
    p_yes int4, p_no int4, p_counts_itself bool, p_label bool)
returns int4
language sql immutable parallel safe
return (p_yes - (p_counts_itself and p_label)::int4)
       - (p_no - (p_counts_itself and not p_label)::int4);
