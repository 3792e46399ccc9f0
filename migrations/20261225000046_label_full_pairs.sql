-- Pairs whose every slot is taken, some by the judgments of workers since stopped (a stop gives
-- no slot back), with fewer trusted votes than the maximum: no judgment can come, so they have
-- their label from the votes that still count (`judge_pair_taken`, `labels::pair_label`).
-- Before, such a pair waited for judgments that could not come, and a mined group's follow-up
-- waited with it; one settled below its maximum keeps no settled label now that it has them all.
-- Settle them again, and make a mined group's follow-up due where a first-batch
-- pair now has its label, as `db::judge::resettle` does. (Materialized: every stuck pair is
-- settled, whatever the insert reads.)
with stuck as materialized (
    select p.pair_id, p.campaign_id, p.mining_run_id, judge_settle_pair(p.pair_id) as labelled
    from judge_pair p
    join judge_settings s using (campaign_id)
    where not p.is_test and p.open_slots = 0
      and p.n_judgments < s.judgments_per_pair
      and judge_pair_taken(p.pair_id) >= s.judgments_per_pair)
insert into follow_up_outbox (campaign_id, pair_id)
select campaign_id, pair_id from stuck where labelled and mining_run_id is not null
on conflict (campaign_id, pair_id) do update set due_at = now(), attempts = 0;
