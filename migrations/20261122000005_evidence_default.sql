-- New judging campaigns use the pooled-evidence gate (see app/src/domain/judge/gate.rs); the API
-- always writes the rule, this keeps a row inserted by hand consistent with it.
alter table judge_settings alter column gate_rule set default 'evidence';
