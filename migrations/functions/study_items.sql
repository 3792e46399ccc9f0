-- Items a worker made in a campaign: judgments, or sentences submitted. One definition for the
-- task's guard, the progress line and the payments page. Not inlined (its body has subqueries):
-- parsed and planned on each call, which is rare beside an answer (a study worker's calls, not
-- the answer itself; `study_item_limit_row` shows the form the planner inlines).
create or replace function study_items(campaign uuid, worker uuid) returns bigint
language sql stable as $$
    select coalesce((select w.judgments::int8 from judge_worker w
                     where w.campaign_id = campaign and w.app_user_id = worker), 0)
           + (select count(*) from apt_submission s
              where s.campaign_id = campaign and s.app_user_id = worker)
$$;
