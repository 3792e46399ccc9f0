-- Adaptive redundancy (app/src/domain/judge/settle.rs, docs/quality.md): a pair is served until
-- its label is settled, at least `min_judgments_per_pair` and at most `judgments_per_pair`
-- judgments. Campaigns that exist keep fixed redundancy (their minimum is their maximum); new
-- ones default to 3 to 6, settled at a posterior of 0.95.
alter table judge_settings add column min_judgments_per_pair integer;
update judge_settings set min_judgments_per_pair = judgments_per_pair;
alter table judge_settings
    alter column min_judgments_per_pair set default 3,
    alter column min_judgments_per_pair set not null,
    add constraint judge_settings_min_judgments_check
        check (min_judgments_per_pair between 1 and judgments_per_pair),
    add column settle_confidence double precision not null default 0.95
        check (settle_confidence > 0.5 and settle_confidence < 1);

-- The label a pair settled on before its maximum (`judge_settle_pair`); null while it is open,
-- and for a pair that reached its maximum (its label is the vote thresholds'). A settled pair
-- is not served: `slots_full` names it too, and the serving index leaves it out.
alter table judge_pair add column settled_label boolean;
-- The posterior of "paraphrase" by the same rule, as of the pair's last judgment (exports).
alter table judge_pair add column posterior double precision
    check (posterior between 0 and 1);
alter table judge_pair drop column slots_full;
alter table judge_pair
    add column slots_full boolean generated always as
        (open_slots = 0 or settled_label is not null) stored;
create index judge_pair_serving_idx on judge_pair (campaign_id, sort_key)
    where not slots_full and not is_test;
