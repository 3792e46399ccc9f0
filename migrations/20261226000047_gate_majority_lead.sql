-- The `confidence` gate rule trusts a majority of the other workers as far as it leads
-- (app/src/domain/judge/confidence.rs, `majority_accuracy`): each worker's gate table keeps, of
-- their ordinary pairs with a majority of others, the answers that agree and disagree with a
-- majority 2 or more votes ahead and 3 or more votes ahead (domain/judge/gate_table.rs).
alter table judge_worker
    add column lead2_agreed integer not null default 0,
    add column lead2_disagreed integer not null default 0,
    add column lead3_agreed integer not null default 0,
    add column lead3_disagreed integer not null default 0;

alter table judge_gate_change
    add column lead2_agreed integer not null default 0,
    add column lead2_disagreed integer not null default 0,
    add column lead3_agreed integer not null default 0,
    add column lead3_disagreed integer not null default 0;

alter type judge_leased
    add attribute lead2_agreed int4,
    add attribute lead2_disagreed int4,
    add attribute lead3_agreed int4,
    add attribute lead3_disagreed int4;

alter type judge_answered
    add attribute lead2_agreed int4,
    add attribute lead2_disagreed int4,
    add attribute lead3_agreed int4,
    add attribute lead3_disagreed int4;

-- A campaign created without saying gets the new defaults (domain/judge/settings.rs); the ones
-- created before keep the levels they were created with.
alter table judge_settings
    alter column gate_alpha set default 0.3,
    alter column gate_worse_by set default 0.1;

-- The lease and fold take the new counts: new argument lists, so new functions (the next
-- migration defines them from migrations/functions/).
drop function judge_next_pair(uuid, uuid, int4, int4, bool, float8, int8, int4, int4, int4, int4,
                              int4, bool, int4, int4, int4, int4, int4, int4, int4, uuid[],
                              int4[], int4[], int4[], int4[]);
drop function judge_fold_worker(uuid, uuid, uuid, bool, float8, int4, int4, int4, int4, int4,
                                int4, int4, int4, uuid[], int4[], int4[], int4[], int4[]);

-- The new counts of the judgments already stored, counted in full once (changes still waiting
-- in judge_gate_change hold none of them: they are in these counts already).
update judge_worker w
set lead2_agreed = t.l2a, lead2_disagreed = t.l2d, lead3_agreed = t.l3a,
    lead3_disagreed = t.l3d
from (select campaign_id, app_user_id,
             count(*) filter (where lead >= 2)::int as l2a,
             count(*) filter (where lead <= -2)::int as l2d,
             count(*) filter (where lead >= 3)::int as l3a,
             count(*) filter (where lead <= -3)::int as l3d
      from (select j.campaign_id, j.app_user_id,
                   -- The others' lead, signed towards the judgment's own label.
                   ((p.n_paraphrase - (j.trusted and j.is_paraphrase)::int)
                    - (p.n_judgments - p.n_paraphrase
                       - (j.trusted and not j.is_paraphrase)::int))
                   * (2 * j.is_paraphrase::int - 1) as lead
            from judge_judgment j join judge_pair p using (pair_id)
            where not j.is_test) c
      group by campaign_id, app_user_id) t
where w.campaign_id = t.campaign_id and w.app_user_id = t.app_user_id;
