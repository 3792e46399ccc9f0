-- Whether a judging campaign still has an ordinary pair for a worker: one they have not been
-- served that has a free slot and is not settled, or whose last slots other workers hold on a
-- lease (it comes back when a lease runs out unanswered, unless it settles meanwhile). False
-- only when every pair they could judge has all its judgments or its label: the condition under which a worker is told that nothing is left, and a study
-- worker completes for that reason (`db::study_completion::judging_standing`).
create or replace function judge_pairs_left(campaign uuid, worker uuid) returns bool
language sql stable as $$
    select exists (select 1 from judge_pair p
                   where p.campaign_id = campaign and not p.is_test and not p.slots_full
                     and not exists (select 1 from judge_assignment a
                                     where a.app_user_id = worker and a.pair_id = p.pair_id))
        or exists (select 1 from judge_assignment h
                   join judge_pair hp on hp.pair_id = h.pair_id
                   where h.campaign_id = campaign and h.status = 'leased' and not h.is_test
                     and h.app_user_id <> worker and hp.settled_label is null
                     and not exists (select 1 from judge_assignment a
                                     where a.app_user_id = worker and a.pair_id = h.pair_id))
$$;
