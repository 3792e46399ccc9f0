-- How one judgment's cell in its worker's gate table changes when its pair's trusted votes go
-- from (p_before_yes, p_before_no) to (p_after_yes, p_after_no): its cell is its label
-- p_label against the majority of the *other* trusted votes (none on a tie). p_trusted_before
-- and p_trusted_after say whether it counted itself, before and after; p_trusted_before null:
-- it was not there (a new judgment). Returns the change as {pp, pn, np, nn, lead2_agreed,
-- lead2_disagreed, lead3_agreed, lead3_disagreed}: the four cells, then whether the label agrees
-- or disagrees with a majority 2 or more, then 3 or more, votes ahead. The domain's twin:
-- `domain::judge::gate_table::table_changes`, for one judgment (`KappaTable::cells` is the
-- order). One expression, so that the planner inlines it into its callers.
-- needs: judge_majority_sign, judge_majority_lead
create or replace function judge_cell_change(
    p_label bool, p_trusted_before bool, p_trusted_after bool,
    p_before_yes int4, p_before_no int4, p_after_yes int4, p_after_no int4)
returns int4[]
language sql immutable parallel safe
return array[
    (p_label and judge_majority_sign(p_after_yes, p_after_no, p_trusted_after, p_label) > 0)::int4
    - (p_label and coalesce(judge_majority_sign(p_before_yes, p_before_no, p_trusted_before,
                                                p_label), 0) > 0)::int4,
    (p_label and judge_majority_sign(p_after_yes, p_after_no, p_trusted_after, p_label) < 0)::int4
    - (p_label and coalesce(judge_majority_sign(p_before_yes, p_before_no, p_trusted_before,
                                                p_label), 0) < 0)::int4,
    (not p_label and judge_majority_sign(p_after_yes, p_after_no, p_trusted_after, p_label) > 0)::int4
    - (not p_label and coalesce(judge_majority_sign(p_before_yes, p_before_no, p_trusted_before,
                                                    p_label), 0) > 0)::int4,
    (not p_label and judge_majority_sign(p_after_yes, p_after_no, p_trusted_after, p_label) < 0)::int4
    - (not p_label and coalesce(judge_majority_sign(p_before_yes, p_before_no, p_trusted_before,
                                                    p_label), 0) < 0)::int4,
    -- A lead of at least 2 (then 3) whose side is the label's (agreed) or not (disagreed): the
    -- lead's sign times the label's (+1 "paraphrase", -1 "not") is at least 2, or at most -2.
    (judge_majority_lead(p_after_yes, p_after_no, p_trusted_after, p_label)
       * (2 * p_label::int4 - 1) >= 2)::int4
    - coalesce(judge_majority_lead(p_before_yes, p_before_no, p_trusted_before, p_label)
       * (2 * p_label::int4 - 1) >= 2, false)::int4,
    (judge_majority_lead(p_after_yes, p_after_no, p_trusted_after, p_label)
       * (2 * p_label::int4 - 1) <= -2)::int4
    - coalesce(judge_majority_lead(p_before_yes, p_before_no, p_trusted_before, p_label)
       * (2 * p_label::int4 - 1) <= -2, false)::int4,
    (judge_majority_lead(p_after_yes, p_after_no, p_trusted_after, p_label)
       * (2 * p_label::int4 - 1) >= 3)::int4
    - coalesce(judge_majority_lead(p_before_yes, p_before_no, p_trusted_before, p_label)
       * (2 * p_label::int4 - 1) >= 3, false)::int4,
    (judge_majority_lead(p_after_yes, p_after_no, p_trusted_after, p_label)
       * (2 * p_label::int4 - 1) <= -3)::int4
    - coalesce(judge_majority_lead(p_before_yes, p_before_no, p_trusted_before, p_label)
       * (2 * p_label::int4 - 1) <= -3, false)::int4];
