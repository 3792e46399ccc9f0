-- The `confidence` gate rule (app/src/domain/judge/confidence.rs): MultiPIT's accuracy minimum
-- decided by a sequential test at the campaign's error level. New campaigns use it; existing
-- ones keep the rule they were created with.
alter table judge_settings drop constraint judge_settings_gate_rule_check;
alter table judge_settings add constraint judge_settings_gate_rule_check
    check (gate_rule in ('paper', 'evidence', 'confidence'));
alter table judge_settings alter column gate_rule set default 'confidence';
alter table judge_settings add column gate_alpha double precision not null default 0.1
    check (gate_alpha between 0.001 and 0.5);
