-- The quality gate's inputs as running counts (domain/judge/gate_table.rs): each worker's 2x2
-- table of (their label, the other workers' trusted majority) over their ordinary pairs, so an
-- answer no longer reads the worker's whole history.
alter table judge_worker
    add column kappa_pp integer not null default 0,
    add column kappa_pn integer not null default 0,
    add column kappa_np integer not null default 0,
    add column kappa_nn integer not null default 0;

-- Changes to other workers' tables, written by whoever changed a pair's votes (without taking
-- those workers' row locks) and folded into the table by the gate when it reads it.
create table judge_gate_change (
    change_id   bigserial primary key,
    campaign_id uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id uuid not null references app_user (app_user_id) on delete cascade,
    pp integer not null,
    pn integer not null,
    np integer not null,
    nn integer not null
);
create index judge_gate_change_worker_idx on judge_gate_change (campaign_id, app_user_id);

-- The tables of the judgments already stored, counted in full once.
update judge_worker w
set kappa_pp = t.pp, kappa_pn = t.pn, kappa_np = t.np, kappa_nn = t.nn
from (select campaign_id, app_user_id,
             count(*) filter (where is_paraphrase and m > 0)::int as pp,
             count(*) filter (where is_paraphrase and m < 0)::int as pn,
             count(*) filter (where not is_paraphrase and m > 0)::int as np,
             count(*) filter (where not is_paraphrase and m < 0)::int as nn
      from (select j.campaign_id, j.app_user_id, j.is_paraphrase,
                   sign((p.n_paraphrase - (j.trusted and j.is_paraphrase)::int)
                        - (p.n_judgments - p.n_paraphrase
                           - (j.trusted and not j.is_paraphrase)::int)) as m
            from judge_judgment j join judge_pair p using (pair_id)
            where not j.is_test) c
      group by campaign_id, app_user_id) t
where w.campaign_id = t.campaign_id and w.app_user_id = t.app_user_id;
