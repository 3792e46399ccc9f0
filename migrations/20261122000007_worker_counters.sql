-- Each worker's judgment counts, kept on their row (locked while they answer anyway), so the
-- admin page and the dashboard do not count a campaign's judgments per worker at every load.
alter table judge_worker
    add column judgments      integer not null default 0,
    add column tests_answered integer not null default 0,
    add column tests_correct  integer not null default 0;
update judge_worker w set judgments = c.n, tests_answered = c.t, tests_correct = c.ok
from (select campaign_id, app_user_id, count(*)::int as n,
             count(*) filter (where is_test)::int as t,
             count(*) filter (where is_correct)::int as ok
      from judge_judgment group by campaign_id, app_user_id) c
where w.campaign_id = c.campaign_id and w.app_user_id = c.app_user_id;
