-- How one judgment's cell in its worker's gate table changes when its pair's trusted votes go
-- from (p_before_yes, p_before_no) to (p_after_yes, p_after_no): its cell is its label
-- p_label against the majority of the *other* trusted votes (none on a tie). p_trusted_before
-- and p_trusted_after say whether it counted itself, before and after; p_trusted_before null:
-- it was not there (a new judgment). Returns the change as {pp, pn, np, nn}. The domain's twin:
-- `domain::judge::gate_table::table_changes`, for one judgment.
create or replace function judge_cell_change(
    p_label bool, p_trusted_before bool, p_trusted_after bool,
    p_before_yes int4, p_before_no int4, p_after_yes int4, p_after_no int4)
returns int4[]
language sql immutable parallel safe
begin atomic
    select array[(p_label and now_ > 0)::int4 - (p_label and was > 0)::int4,
                 (p_label and now_ < 0)::int4 - (p_label and was < 0)::int4,
                 (not p_label and now_ > 0)::int4 - (not p_label and was > 0)::int4,
                 (not p_label and now_ < 0)::int4 - (not p_label and was < 0)::int4]
    from (select coalesce(sign(
                     (p_before_yes - (p_trusted_before and p_label)::int4)
                     - (p_before_no - (p_trusted_before and not p_label)::int4)), 0) as was,
                 sign((p_after_yes - (p_trusted_after and p_label)::int4)
                      - (p_after_no - (p_trusted_after and not p_label)::int4)) as now_) s;
end;
