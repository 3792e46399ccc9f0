-- How one judgment's cell in its worker's gate table changes when its pair's trusted votes go
-- from (p_before_yes, p_before_no) to (p_after_yes, p_after_no): its cell is its label
-- p_label against the majority of the *other* trusted votes (none on a tie). p_trusted_before
-- and p_trusted_after say whether it counted itself, before and after; p_trusted_before null:
-- it was not there (a new judgment). Returns the change as {pp, pn, np, nn}. The domain's twin:
-- `domain::judge::gate_table::table_changes`, for one judgment. One expression, so that the
-- planner inlines it into its callers.
-- needs: judge_majority_sign
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
                                                    p_label), 0) < 0)::int4];
