-- The number of items a worker may make in a campaign, as a row: for a worker who came through
-- one of its study links, the number its latest study information asks for (null when it sets
-- none), and 0 once they completed the study; no row for anyone else (no such rule). Read under
-- the worker's row lock by the answer (`judge_answer`), so answers made in parallel cannot pass
-- it, and by the check before every study worker's call (`db::study_completion::work_state`).
-- A set-returning SQL function of one SELECT: the planner inlines it into the statement that
-- reads it (`(select l from study_item_limit_row(c, w) l)`), which plans it once with the rest
-- of that statement. A scalar SQL function with a FROM clause or a subquery is never inlined,
-- and is parsed and planned again on every call; a PL/pgSQL one costs a statement of its own.
create or replace function study_item_limit_row(campaign uuid, worker uuid) returns setof int4
language sql stable as $$
    select case
               when exists (select 1 from study_completion c
                            where c.campaign_id = campaign and c.app_user_id = worker) then 0
               else (select i.complete_after from study_info i
                     where i.campaign_id = campaign order by i.version desc limit 1) end
    from study_arrival a
    where a.campaign_id = campaign and a.app_user_id = worker
$$;
