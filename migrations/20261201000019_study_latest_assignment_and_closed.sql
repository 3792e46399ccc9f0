-- Issue #23, follow-up.
-- * An MTurk worker who returns a HIT and accepts it again (or takes it in a later batch) comes
--   back with a new assignment id; the first arrival's id is then dead. Each visit keeps the
--   platform's latest ids beside the first ones, and a completion keeps the ids it went back
--   to the platform with: the HIT it submitted and the assignment a bonus is sent against.
-- * A campaign closed while a worker is short of the study's number of items completes them
--   with the reason 'closed', so they can still finish and be paid for their time.
alter table study_arrival add column latest_detail jsonb;
alter table study_completion add column detail jsonb;
-- A completion recorded before this went back with the first arrival's ids.
update study_completion c set detail = a.detail
from study_arrival a
where a.campaign_id = c.campaign_id and a.app_user_id = c.app_user_id and c.detail is null;
alter table study_completion drop constraint study_completion_reason_check;
alter table study_completion add constraint study_completion_reason_check
    check (reason in ('items', 'cap', 'stopped', 'closed', 'nothing_left'));

-- Items a worker made in a campaign: judgments, or sentences submitted. One definition for the
-- task's guard, the progress line and the payments page (inlined by the planner).
create function study_items(campaign uuid, worker uuid) returns bigint
language sql stable as $$
    select coalesce((select w.judgments::int8 from judge_worker w
                     where w.campaign_id = campaign and w.app_user_id = worker), 0)
           + (select count(*) from apt_submission s
              where s.campaign_id = campaign and s.app_user_id = worker)
$$;
