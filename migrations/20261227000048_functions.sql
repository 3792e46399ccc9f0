-- Written by scripts/sql-functions.py: the definitions below are copies of their files in
-- migrations/functions/, which are the ones to read and change
-- (docs/decisions/sql-functions.md).

-- definition: judge_majority_lead
-- How far the majority of the *other* trusted votes on a pair leads, signed: the pair's trusted
-- votes (p_yes "paraphrase", p_no "not") less one judgment's label p_label when it is among
-- them (p_counts_itself), "paraphrase" votes minus "not" votes (null when p_counts_itself is
-- null). A part of `judge_cell_change`; the domain's twin: `domain::judge::gate_table::Votes`'s
-- `without`, `majority` and `lead`.
create or replace function judge_majority_lead(
    p_yes int4, p_no int4, p_counts_itself bool, p_label bool)
returns int4
language sql immutable parallel safe
return (p_yes - (p_counts_itself and p_label)::int4)
       - (p_no - (p_counts_itself and not p_label)::int4);
-- end of definition: judge_majority_lead

-- definition: judge_cell_change
-- How one judgment's cell in its worker's gate table changes when its pair's trusted votes go
-- from (p_before_yes, p_before_no) to (p_after_yes, p_after_no): its cell is its label
-- p_label against the majority of the *other* trusted votes (none on a tie). p_trusted_before
-- and p_trusted_after say whether it counted itself, before and after; p_trusted_before null:
-- it was not there (a new judgment). Returns the change as {pp, pn, np, nn, lead2_agreed,
-- lead2_disagreed, lead3_agreed, lead3_disagreed}: the four cells, then whether the label agrees
-- or disagrees with a majority 2 or more, then 3 or more, votes ahead. The domain's twin:
-- `domain::judge::gate_table::table_changes`, for one judgment (`KappaTable::cells` is the
-- order). One expression, so that the planner inlines it into its callers.
-- needs: judge_majority_sign, judge_majority_lead
create or replace function judge_cell_change(
    p_label bool, p_trusted_before bool, p_trusted_after bool,
    p_before_yes int4, p_before_no int4, p_after_yes int4, p_after_no int4)
returns int4[]
language sql immutable parallel safe
return array[
    (p_label and judge_majority_sign(p_after_yes, p_after_no, p_trusted_after, p_label) > 0)::int4
    - (p_label and coalesce(judge_majority_sign(p_before_yes, p_before_no, p_trusted_before,
                                                p_label), 0) > 0)::int4,
    (p_label and judge_majority_sign(p_after_yes, p_after_no, p_trusted_after, p_label) < 0)::int4
    - (p_label and coalesce(judge_majority_sign(p_before_yes, p_before_no, p_trusted_before,
                                                p_label), 0) < 0)::int4,
    (not p_label and judge_majority_sign(p_after_yes, p_after_no, p_trusted_after, p_label) > 0)::int4
    - (not p_label and coalesce(judge_majority_sign(p_before_yes, p_before_no, p_trusted_before,
                                                    p_label), 0) > 0)::int4,
    (not p_label and judge_majority_sign(p_after_yes, p_after_no, p_trusted_after, p_label) < 0)::int4
    - (not p_label and coalesce(judge_majority_sign(p_before_yes, p_before_no, p_trusted_before,
                                                    p_label), 0) < 0)::int4,
    -- A lead of at least 2 (then 3) whose side is the label's (agreed) or not (disagreed): the
    -- lead's sign times the label's (+1 "paraphrase", -1 "not") is at least 2, or at most -2.
    (judge_majority_lead(p_after_yes, p_after_no, p_trusted_after, p_label)
       * (2 * p_label::int4 - 1) >= 2)::int4
    - coalesce(judge_majority_lead(p_before_yes, p_before_no, p_trusted_before, p_label)
       * (2 * p_label::int4 - 1) >= 2, false)::int4,
    (judge_majority_lead(p_after_yes, p_after_no, p_trusted_after, p_label)
       * (2 * p_label::int4 - 1) <= -2)::int4
    - coalesce(judge_majority_lead(p_before_yes, p_before_no, p_trusted_before, p_label)
       * (2 * p_label::int4 - 1) <= -2, false)::int4,
    (judge_majority_lead(p_after_yes, p_after_no, p_trusted_after, p_label)
       * (2 * p_label::int4 - 1) >= 3)::int4
    - coalesce(judge_majority_lead(p_before_yes, p_before_no, p_trusted_before, p_label)
       * (2 * p_label::int4 - 1) >= 3, false)::int4,
    (judge_majority_lead(p_after_yes, p_after_no, p_trusted_after, p_label)
       * (2 * p_label::int4 - 1) <= -3)::int4
    - coalesce(judge_majority_lead(p_before_yes, p_before_no, p_trusted_before, p_label)
       * (2 * p_label::int4 - 1) <= -3, false)::int4];
-- end of definition: judge_cell_change

-- definition: judge_fold_worker
-- Brings a worker's row up to date, in one statement: p_judgments .. p_l3d added to their own
-- gate counts (an answer's; p_l2a .. p_l3d are the agreements and disagreements with a
-- majority 2 and 3 or more votes ahead), the changes the answer makes to other workers' tables
-- recorded (p_users, p_cpp .. p_c3d, parallel arrays; `judge_gate_change`), the changes others recorded
-- for this worker folded in, and, when p_new_position is not null, the block's test position
-- set. With a pair p_pair (chosen and locked by the caller), the same statement leases it: its
-- slot taken (an ordinary pair) or its serving counted (a test pair, p_pair_is_test), the
-- assignment inserted for p_lease_seconds, and the serving counted on the worker. The caller
-- holds the worker's row. Returns their counts after it and the pair leased (null columns when
-- none); every column null when the worker has no row.
create or replace function judge_fold_worker(
    p_campaign uuid, p_user uuid, p_pair uuid, p_pair_is_test bool, p_lease_seconds float8,
    p_new_position int4,
    p_judgments int4, p_tests_answered int4, p_tests_correct int4,
    p_pp int4, p_pn int4, p_np int4, p_nn int4,
    p_l2a int4, p_l2d int4, p_l3a int4, p_l3d int4,
    p_users uuid[], p_cpp int4[], p_cpn int4[], p_cnp int4[], p_cnn int4[],
    p_c2a int4[], p_c2d int4[], p_c3a int4[], p_c3d int4[])
returns judge_leased
language plpgsql as $$
declare
    r judge_leased;
begin
    with taken as (
        update judge_pair p
        set open_slots = p.open_slots - (not p_pair_is_test)::int,
            test_served = p.test_served + p_pair_is_test::int
        where p.pair_id = p_pair
        returning p.pair_id, p.sentence1, p.sentence2),
    a as (
        insert into judge_assignment (campaign_id, pair_id, app_user_id, is_test,
            lease_expires_at)
        select p_campaign, pair_id, p_user, p_pair_is_test,
               now() + make_interval(secs => p_lease_seconds)
        from taken
        returning assignment_id, pair_id),
    leased as (
        select a.assignment_id, t.sentence1, t.sentence2 from a join taken t using (pair_id)),
    recorded as (
        insert into judge_gate_change (campaign_id, app_user_id, pp, pn, np, nn,
                                       lead2_agreed, lead2_disagreed, lead3_agreed,
                                       lead3_disagreed)
        select p_campaign, *
        from unnest(p_users, p_cpp, p_cpn, p_cnp, p_cnn, p_c2a, p_c2d, p_c3a, p_c3d)),
    pending as (
        delete from judge_gate_change where campaign_id = p_campaign and app_user_id = p_user
        returning pp, pn, np, nn, lead2_agreed, lead2_disagreed, lead3_agreed, lead3_disagreed),
    total as (
        select coalesce(sum(pp), 0)::int as pp, coalesce(sum(pn), 0)::int as pn,
               coalesce(sum(np), 0)::int as np, coalesce(sum(nn), 0)::int as nn,
               coalesce(sum(lead2_agreed), 0)::int as l2a,
               coalesce(sum(lead2_disagreed), 0)::int as l2d,
               coalesce(sum(lead3_agreed), 0)::int as l3a,
               coalesce(sum(lead3_disagreed), 0)::int as l3d
        from pending),
    worker as (
        update judge_worker w
        set served_count = w.served_count + (select count(*) from a)::int,
            test_position = coalesce(p_new_position, w.test_position),
            judgments = w.judgments + p_judgments,
            tests_answered = w.tests_answered + p_tests_answered,
            tests_correct = w.tests_correct + p_tests_correct,
            kappa_pp = w.kappa_pp + p_pp + g.pp, kappa_pn = w.kappa_pn + p_pn + g.pn,
            kappa_np = w.kappa_np + p_np + g.np, kappa_nn = w.kappa_nn + p_nn + g.nn,
            lead2_agreed = w.lead2_agreed + p_l2a + g.l2a,
            lead2_disagreed = w.lead2_disagreed + p_l2d + g.l2d,
            lead3_agreed = w.lead3_agreed + p_l3a + g.l3a,
            lead3_disagreed = w.lead3_disagreed + p_l3d + g.l3d
        from total g
        where w.campaign_id = p_campaign and w.app_user_id = p_user
        returning w.judgments, w.tests_answered, w.tests_correct,
                  w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn,
                  w.lead2_agreed, w.lead2_disagreed, w.lead3_agreed, w.lead3_disagreed)
    select w.judgments, w.tests_answered, w.tests_correct,
           w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn,
           l.assignment_id, l.sentence1, l.sentence2,
           w.lead2_agreed, w.lead2_disagreed, w.lead3_agreed, w.lead3_disagreed
    into r
    from worker w left join leased l on true;
    return r;
end $$;
-- end of definition: judge_fold_worker

-- definition: judge_next_pair
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
-- end of definition: judge_next_pair

-- definition: judge_answer
-- Answers an assignment of p_user's: every answer, in one call of the database and one
-- transaction (docs/architecture.md, "The answer path"). The worker, the assignment and its
-- pair are locked; the caller is checked; the judgment is stored; the gate table's changes are
-- recorded; the next pair is leased (`judge_next_pair`). What stays in the server: the gate's
-- decision on the counts returned (`domain::judge::gate::decide`; a stop is a transaction of
-- its own), and the draws (p_new_position, the test position a new block gets; p_key, which
-- orders a lease's window at random), passed in on every call so that a seeded server replays
-- the same schedule.
--
-- p_version is the campaign version the caller's copy of the settings has; p_lease_seconds,
-- p_test_every and p_per_pair are those settings; p_ordinary_per_test and p_test_max size the
-- windows (`schedule::ServingWindows`); p_sweep says whether expired leases are swept first.
--
-- `outcome` says what happened: 'judged' (stored, counted, the next pair leased when there was
-- one). Everything else wrote nothing: 'session_changed' (the session is not stored as
-- presented), 'unauthenticated' (the account is blocked or gone), 'not_open', 'stale' (the
-- campaign's version is not p_version), 'answered' (judged before: the label stored then),
-- 'stopped' (the gate stopped the worker), 'done' (a study worker who made the items the study
-- asks for, or completed it: `study_item_limit_row`, read under the worker's lock so that answers
-- made in parallel cannot pass it), 'gone' (the lease ran out and the pair's slots went to
-- others), 'missing' (no such assignment of this worker's). In that order. The answer that makes
-- a study worker's last item leases no next pair.
-- needs: judge_record_judgment, judge_cell_change, judge_next_pair, judge_fold_worker,
-- needs: study_item_limit_row, judge_pair_settlement
create or replace function judge_answer(
    p_campaign uuid, p_user uuid, p_assignment uuid, p_session_id text, p_session_data bytea,
    p_label bool, p_version int8, p_lease_seconds float8, p_test_every int4, p_per_pair int4,
    p_new_position int4, p_key int8, p_ordinary_per_test int4, p_test_max int4, p_sweep bool)
returns judge_answered
language plpgsql as $$
declare
    res judge_answered;
    r record;
    rec judge_recorded;
    lease judge_leased;
    v_correct bool;
    -- The pair's trusted votes before this judgment.
    before_yes int4;
    before_no int4;
    own int4[];
    c int4[];
    -- The changes to other workers' tables.
    users uuid[] := '{}'::uuid[];
    cpp int4[] := '{}'::int4[];
    cpn int4[] := '{}'::int4[];
    cnp int4[] := '{}'::int4[];
    cnn int4[] := '{}'::int4[];
    c2a int4[] := '{}'::int4[];
    c2d int4[] := '{}'::int4[];
    c3a int4[] := '{}'::int4[];
    c3d int4[] := '{}'::int4[];
    queued int8;
    last_item bool;
    settlement record;
    labelled bool := false;
    -- A slot the answer takes again (its lease ran out): 0 or 1.
    retaken int4 := 0;
begin
    -- The worker, the assignment and its pair, locked in this order (as every judging
    -- statement locks them), with the campaign, the account, the session and a study worker's
    -- item limit as they are now (in this statement: every query an answer makes is an
    -- executor started and stopped, its largest cost). `no key update`: the rows that reference
    -- these (key checks) do not wait for the locks.
    select w.status as worker_status, w.gate_overridden, w.served_count, w.test_position,
           w.judgments, c.status as campaign_status, c.version, u.status as user_status,
           exists (select 1 from tower_sessions.session s
                   where s.id = p_session_id and s.data = p_session_data
                     and s.expiry_date > now()) as session_current,
           a.pair_id, a.is_test, a.status as assignment_status,
           greatest(extract(epoch from now() - a.served_at)::float8, 0) as seconds,
           p.gold_label, p.gold_explanation, p.open_slots, p.mining_run_id is not null as mined,
           (select l from study_item_limit_row(p_campaign, p_user) l) as item_limit
    into r
    from judge_worker w join campaign c using (campaign_id)
         join app_user u on u.app_user_id = w.app_user_id
         join judge_assignment a on a.assignment_id = p_assignment
                                and a.campaign_id = w.campaign_id
                                and a.app_user_id = w.app_user_id
         join judge_pair p on p.pair_id = a.pair_id
    where w.campaign_id = p_campaign and w.app_user_id = p_user
    for no key update of w, a, p;
    if not found then
        -- No such assignment of this worker's: refused as the session and the account say.
        res.outcome := case
            when not exists (select 1 from tower_sessions.session s
                             where s.id = p_session_id and s.data = p_session_data
                               and s.expiry_date > now()) then 'session_changed'
            when not exists (select 1 from app_user u
                             where u.app_user_id = p_user and u.status = 'active')
                then 'unauthenticated'
            else 'missing' end;
        return res;
    end if;
    res.judgments := r.judgments;
    res.is_test := r.is_test;
    res.gold_label := r.gold_label;
    res.gold_explanation := r.gold_explanation;
    res.outcome := case
        when not r.session_current then 'session_changed'
        when r.user_status <> 'active' then 'unauthenticated'
        when r.campaign_status <> 'open' then 'not_open'
        when r.version <> p_version then 'stale'
        when r.assignment_status = 'judged' then 'answered'
        when r.worker_status = 'stopped' then 'stopped'
        when r.judgments >= r.item_limit then 'done' end;
    if res.outcome = 'answered' then
        select j.is_paraphrase into res.stored_label
        from judge_judgment j where j.assignment_id = p_assignment;
    end if;
    if res.outcome is not null then
        return res;
    end if;
    -- A lease that ran out gave its slot back: it takes one again (a test pair has none; the
    -- pair's write below takes it), or the pair went to others meanwhile.
    if r.assignment_status = 'expired' and not r.is_test then
        if r.open_slots = 0 then
            res.outcome := 'gone';
            return res;
        end if;
        retaken := 1;
    end if;

    v_correct := case when r.is_test then r.gold_label = p_label end;
    rec := judge_record_judgment(p_assignment, p_campaign, r.pair_id, p_user, p_label,
                                 r.is_test, v_correct, r.seconds);

    -- The gate tables' changes (`domain::judge::gate_table`): a judgment's cell is its label
    -- against the majority of the *other* trusted votes on its pair. This judgment adds one
    -- trusted vote: its own cell is new, and another judgment on the pair changes cell when the
    -- majority of its others changes. None for a test pair.
    before_yes := rec.n_paraphrase - p_label::int4;
    before_no := rec.n_judgments - rec.n_paraphrase - (not p_label)::int4;
    own := '{0,0,0,0,0,0,0,0}';
    if not r.is_test then
        own := judge_cell_change(p_label, null, true, before_yes, before_no,
                                 rec.n_paraphrase, rec.n_judgments - rec.n_paraphrase);
        for i in 1 .. coalesce(array_length(rec.users, 1), 0) loop
            continue when rec.users[i] = p_user;
            c := judge_cell_change(rec.labels[i], rec.trusted[i], rec.trusted[i],
                                   before_yes, before_no,
                                   rec.n_paraphrase, rec.n_judgments - rec.n_paraphrase);
            continue when c = '{0,0,0,0,0,0,0,0}';
            users := users || rec.users[i];
            cpp := cpp || c[1];
            cpn := cpn || c[2];
            cnp := cnp || c[3];
            cnn := cnn || c[4];
            c2a := c2a || c[5];
            c2d := c2d || c[6];
            c3a := c3a || c[7];
            c3d := c3d || c[8];
        end loop;
    end if;

    -- The next pair, with the worker's counts: this judgment, its own cell and the others'
    -- changes. An answer to a lease that ran out first looks for a live lease another tab may
    -- have taken since (a worker holds at most one); the common answer's lease was their only one.
    -- A study worker's last item only brings the counts up to date: no pair is held for them.
    last_item := r.judgments + 1 >= r.item_limit;
    if last_item then
        lease := judge_fold_worker(
            p_campaign, p_user, null, false, p_lease_seconds, null,
            1, r.is_test::int4, (v_correct is true)::int4, own[1], own[2], own[3], own[4],
            own[5], own[6], own[7], own[8], users, cpp, cpn, cnp, cnn, c2a, c2d, c3a, c3d);
    else
        lease := judge_next_pair(
            p_campaign, p_user, r.served_count, r.test_position,
            r.assignment_status = 'expired', p_lease_seconds, p_key, p_test_every, p_per_pair,
            p_new_position, p_ordinary_per_test, p_test_max, p_sweep,
            1, r.is_test::int4, (v_correct is true)::int4, own[1], own[2], own[3], own[4],
            own[5], own[6], own[7], own[8], users, cpp, cpn, cnp, cnn, c2a, c2d, c3a, c3d);
    end if;
    -- The pair's one write of the answer: its counts with this judgment, a slot taken again
    -- and, for an ordinary pair, the label its votes give, weighted by their workers' counts,
    -- this worker's brought up to date above (`judge_pair_settlement`): a settled pair is not
    -- served.
    if r.is_test then
        update judge_pair set n_judgments = rec.n_judgments, n_paraphrase = rec.n_paraphrase
        where pair_id = r.pair_id;
    else
        select * into settlement
        from judge_pair_settlement(r.pair_id, p_campaign, rec.n_judgments);
        update judge_pair
        set n_judgments = rec.n_judgments, n_paraphrase = rec.n_paraphrase,
            open_slots = open_slots - retaken, settled_label = settlement.settled_label,
            posterior = settlement.posterior
        where pair_id = r.pair_id;
        labelled := settlement.labelled;
    end if;

    -- A mined group's follow-up is due only when its last first-batch pair gets its label (its
    -- last judgment, or settled; `service::mining_follow_up` decides);
    -- the sweeper is woken only when a row was written (a pair that was not mined has no group).
    if labelled and r.mined then
        insert into follow_up_outbox (campaign_id, pair_id)
        values (p_campaign, r.pair_id)
        on conflict (campaign_id, pair_id) do update set due_at = now(), attempts = 0;
        get diagnostics queued = row_count;
    end if;
    return row('judged', null, lease.judgments, lease.tests_answered, lease.tests_correct,
               lease.kappa_pp, lease.kappa_pn, lease.kappa_np, lease.kappa_nn,
               r.gate_overridden, r.is_test, r.gold_label, r.gold_explanation,
               lease.assignment_id, lease.sentence1, lease.sentence2,
               coalesce(queued, 0) > 0, lease.lead2_agreed, lease.lead2_disagreed,
               lease.lead3_agreed, lease.lead3_disagreed)::judge_answered;
end $$;
-- end of definition: judge_answer
