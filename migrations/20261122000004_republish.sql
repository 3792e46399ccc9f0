-- Republishing (issue #6, ParaSCI §5): judgments of low-agreement workers are set aside and
-- their pairs go back in the queue. Such judgments stay untrusted even if the worker is
-- reinstated, because trusted workers have replaced them.
alter table judge_judgment add column republished boolean not null default false;
create index judge_judgment_republished_idx on judge_judgment (campaign_id) where republished;

-- The gate's rule: MultiPIT's as written, or pooled evidence (app/src/domain/judge/gate.rs).
alter table judge_settings add column gate_rule text not null default 'paper'
    check (gate_rule in ('paper', 'evidence'));
