-- A judging campaign for the dashboard benchmark (scripts/bench-dashboard.sh): :pairs pairs x 6
-- judgments by 200 workers (one in ten always says "paraphrase", one in ten answers at random,
-- the rest are right 80-95% of the time), 40% of pairs paraphrases. Deterministic (hashes, not
-- random()). Usage: psql -v pairs=125000 -v campaign=<uuid> -f seed_dashboard.sql
\set ON_ERROR_STOP on
begin;
insert into campaign (campaign_id, kind, title, status)
values (:'campaign', 'judge', 'Dashboard benchmark', 'open');
insert into judge_settings (campaign_id) values (:'campaign');
insert into app_user (app_user_id, username, password_hash)
select md5('bench-worker-' || w)::uuid, 'bench_w' || w, 'not-a-hash' from generate_series(0, 199) w;
insert into judge_worker (campaign_id, app_user_id, served_count)
select :'campaign', md5('bench-worker-' || w)::uuid, 0 from generate_series(0, 199) w;
insert into judge_pair (pair_id, campaign_id, sentence1, sentence2, open_slots, n_judgments, sort_key)
select md5('bench-pair-' || i)::uuid, :'campaign', 'First sentence of pair ' || i || '.',
       'Second sentence of pair ' || i || '.', 0, 6, (hashtext('s' || i) & 65535) / 65536.0
from generate_series(1, :pairs) i;
create temporary table bench_vote as
select i, k, (i * 7 + k * 31) % 200 as w,
       i % 5 < 2 as truth,
       (hashtext('u' || i || '-' || k) & 65535) / 65536.0 as u,
       (hashtext('q' || ((i * 7 + k * 31) % 200)) & 65535) / 65536.0 as q,
       (i - 1) * 6 + k as n
from generate_series(1, :pairs) i, generate_series(0, 5) k;
insert into judge_assignment (assignment_id, campaign_id, pair_id, app_user_id, is_test, lease_expires_at, status)
select md5('bench-a-' || i || '-' || k)::uuid, :'campaign', md5('bench-pair-' || i)::uuid,
       md5('bench-worker-' || w)::uuid, false, now(), 'judged'
from bench_vote;
insert into judge_judgment (assignment_id, campaign_id, pair_id, app_user_id, is_paraphrase, is_test, seconds, created_at)
select md5('bench-a-' || i || '-' || k)::uuid, :'campaign', md5('bench-pair-' || i)::uuid,
       md5('bench-worker-' || w)::uuid,
       case when w % 10 = 0 then true
            when w % 10 = 1 then u < 0.5
            when u < 0.8 + 0.15 * q then truth
            else not truth end,
       false, 4 + 20 * u, now() - (:pairs * 6 - n) * interval '100 milliseconds'
from bench_vote;
update judge_pair p set n_paraphrase = v.np
from (select pair_id, count(*) filter (where is_paraphrase)::int as np
      from judge_judgment where campaign_id = :'campaign' group by pair_id) v
where p.pair_id = v.pair_id;
update judge_worker w set served_count = v.n, judgments = v.n
from (select app_user_id, count(*)::int as n from judge_judgment
      where campaign_id = :'campaign' group by app_user_id) v
where w.campaign_id = :'campaign' and w.app_user_id = v.app_user_id;
commit;
analyze;
