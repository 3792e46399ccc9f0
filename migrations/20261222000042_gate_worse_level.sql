-- The worse level the `confidence` gate rule tests a campaign's accuracy minimum against
-- (app/src/domain/judge/confidence.rs): the minimum minus this. Existing campaigns keep the
-- level they were run with.
alter table judge_settings add column gate_worse_by double precision not null default 0.2
    check (gate_worse_by between 0.01 and 0.5);
