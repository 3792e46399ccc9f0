-- The number of items a worker may make in a campaign: for a worker who came through one of its
-- study links, the number its latest study information asks for (null when it sets none), and 0
-- once they completed the study; null for anyone else (no such rule). Read under the worker's
-- row lock by the answer (`judge_answer`), so answers made in parallel cannot pass it, and by the
-- check before every study worker's call (`db::study_completion::work_state`).
-- PL/pgSQL, not SQL: a SQL function with a FROM clause is never inlined, and the answer would
-- parse and plan its body again in every transaction; PL/pgSQL keeps the plan.
create or replace function study_item_limit(campaign uuid, worker uuid) returns int4
language plpgsql stable as $$
begin
    return (select case
                when exists (select 1 from study_completion c
                             where c.campaign_id = campaign and c.app_user_id = worker) then 0
                else (select i.complete_after from study_info i
                      where i.campaign_id = campaign order by i.version desc limit 1) end
            from study_arrival a
            where a.campaign_id = campaign and a.app_user_id = worker);
end $$;
