-- A worker's next pair, and their gate counts brought up to date, in one call: what
-- `judge/next` asks for, and what an answer ends with (`judge_answer`). The caller holds the
-- worker's row (`for no key update`) and passes what it read there: p_served pairs served so
-- far and p_position, the current block's test position.
--
-- With p_renew, the pair the worker holds (a live lease: another tab's, or the one they were
-- shown) is the next one, its lease renewed. Else a new lease: the block's test pair in the
-- block's test slot, else an ordinary pair (`judge_choose_test`, `judge_choose_ordinary`). A
-- block's first pair takes p_new_position as the block's test position (the caller drew it).
-- Expired leases give their slots back first when p_sweep says so, and always before the answer
-- is that nothing is left, so no worker is told so while a slot could be freed.
--
-- The new lease is taken in the statement that brings the worker's counts up to date
-- (`judge_fold_worker`), with p_judgments .. p_l3d (an answer's own) and p_users .. p_c3d (its
-- changes to other workers' tables).
-- Returns their counts after it and the pair, if any.
-- needs: judge_starts_block, judge_is_test_slot, judge_expire_leases, judge_choose_test,
-- needs: judge_choose_ordinary, judge_fold_worker
create or replace function judge_next_pair(
    p_campaign uuid, p_user uuid, p_served int4, p_position int4, p_renew bool,
    p_lease_seconds float8, p_key int8, p_test_every int4, p_per_pair int4,
    p_new_position int4, p_ordinary_per_test int4, p_test_max int4, p_sweep bool,
    p_judgments int4, p_tests_answered int4, p_tests_correct int4,
    p_pp int4, p_pn int4, p_np int4, p_nn int4,
    p_l2a int4, p_l2d int4, p_l3a int4, p_l3d int4,
    p_users uuid[], p_cpp int4[], p_cpn int4[], p_cnp int4[], p_cnn int4[],
    p_c2a int4[], p_c2d int4[], p_c3a int4[], p_c3d int4[])
returns judge_leased
language plpgsql as $$
declare
    r judge_leased;
    chosen uuid;
    chosen_test bool := false;
    held uuid;
    pos int4 := p_position;
    new_pos int4;
    test_slot bool;
    swept bool := p_sweep;
begin
    if p_renew then
        update judge_assignment set lease_expires_at = now() + make_interval(secs => p_lease_seconds)
        where campaign_id = p_campaign and app_user_id = p_user and status = 'leased'
        returning assignment_id, pair_id into held, chosen;
    end if;
    if held is null then
        if judge_starts_block(p_served, p_test_every) then
            pos := p_new_position;
            new_pos := p_new_position;
        end if;
        test_slot := judge_is_test_slot(p_served, p_test_every, pos);
        if p_sweep then
            perform judge_expire_leases(p_campaign);
        end if;
        loop
            if test_slot then
                chosen := judge_choose_test(p_campaign, p_user, p_key, p_test_max, p_per_pair);
                chosen_test := chosen is not null;
            end if;
            if chosen is null then
                chosen := judge_choose_ordinary(p_campaign, p_user, p_key, p_ordinary_per_test,
                                                p_test_max);
            end if;
            exit when chosen is not null or swept;
            perform judge_expire_leases(p_campaign);
            swept := true;
        end loop;
    end if;
    r := judge_fold_worker(
        p_campaign, p_user, case when held is null then chosen end, chosen_test,
        p_lease_seconds, new_pos,
        p_judgments, p_tests_answered, p_tests_correct, p_pp, p_pn, p_np, p_nn,
        p_l2a, p_l2d, p_l3a, p_l3d,
        p_users, p_cpp, p_cpn, p_cnp, p_cnn, p_c2a, p_c2d, p_c3a, p_c3d);
    if held is not null then
        r.assignment_id := held;
        select sentence1, sentence2 into r.sentence1, r.sentence2
        from judge_pair where pair_id = chosen;
    end if;
    return r;
end $$;
