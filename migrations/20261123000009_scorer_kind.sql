-- Which scorer produced each Check (issue #18): the kind (the paper's models, their int8 copy,
-- the development stand-ins, the lite scorer, models named by the operator) and its description
-- in words, as the annotator saw it and exports say it.
alter table apt_attempt add column scorer_kind text not null default 'custom'
    check (scorer_kind in ('paper', 'paper_int8', 'standin', 'lite', 'custom'));
alter table apt_attempt add column scorer text not null default '';

-- Checks recorded before scorers were named: the stand-ins were the only models then.
update apt_attempt
set scorer_kind = case when mi_model like '%standin%' then 'standin' else 'custom' end,
    scorer = 'recorded before scorers were named: ' || mi_model || ' and ' || bleurt_model;

alter table apt_attempt alter column scorer_kind drop default;
alter table apt_attempt alter column scorer drop default;
