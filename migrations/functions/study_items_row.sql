-- Items a worker made in a campaign, as a row: judgments, or sentences submitted. One definition
-- for the task's guard, the progress line and the payments page. A set-returning SQL function of
-- one SELECT: the planner inlines it into the statement that reads it
-- (`(select n from study_items_row(c, w) n)`), where a scalar SQL function with subqueries would
-- be parsed and planned again on every call (a study worker's every call checks it).
create or replace function study_items_row(campaign uuid, worker uuid) returns setof int8
language sql stable as $$
    select coalesce((select w.judgments::int8 from judge_worker w
                     where w.campaign_id = campaign and w.app_user_id = worker), 0)
           + (select count(*) from apt_submission s
              where s.campaign_id = campaign and s.app_user_id = worker)
$$;
