-- Settles an ordinary pair again, or opens it again, after its trusted votes changed without a
-- new judgment (a change of trust: `service::gate_table::after_flips`): writes the label and
-- posterior `judge_pair_settlement` gives, where they changed. Returns whether the pair has its
-- label now (settled, or every slot taken: `judge_pair_taken`); false for a test pair or none. An answer
-- does not call this: `judge_answer` writes its pair once, counts and label together.
-- needs: judge_pair_settlement
create or replace function judge_settle_pair(p_pair uuid) returns bool
language plpgsql as $$
declare
    p record;
    o record;
begin
    select pr.campaign_id, pr.is_test, pr.n_judgments, pr.settled_label, pr.posterior
    into p
    from judge_pair pr
    where pr.pair_id = p_pair;
    if not found or p.is_test then
        return false;
    end if;
    select * into o from judge_pair_settlement(p_pair, p.campaign_id, p.n_judgments);
    if o.settled_label is distinct from p.settled_label
       or o.posterior is distinct from p.posterior then
        update judge_pair set settled_label = o.settled_label, posterior = o.posterior
        where pair_id = p_pair;
    end if;
    return o.labelled;
end $$;
