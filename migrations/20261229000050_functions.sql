-- Written by scripts/sql-functions.py: the definitions below are copies of their files in
-- migrations/functions/, which are the ones to read and change
-- (docs/decisions/sql-functions.md).

-- definition: judge_record_judgment
-- Stores a judgment, closes the assignment and reads the pair's counts and judgments, in one
-- statement. The caller holds the pair's row lock from before this statement began, so its
-- snapshot holds every judgment that counts in the votes; the new one, invisible to the
-- statement's own reads, is added from the insert's result. Returns the pair's counts with this
-- judgment (the caller writes them, with the pair's label, in the pair's one write of the
-- answer: `judge_answer`) and every ordinary judgment on the pair, this one included when it is
-- one, as parallel arrays; null when the pair is gone. A test pair has none, unless it was
-- judged as an ordinary pair before it became one (promoted, or made one by an admin): a test
-- answer is a vote on it too, and moves the majority those judgments are measured against.
create or replace function judge_record_judgment(
    p_assignment uuid, p_campaign uuid, p_pair uuid, p_user uuid, p_label bool,
    p_is_test bool, p_is_correct bool, p_seconds float8)
returns judge_recorded
language plpgsql as $$
declare
    r judge_recorded;
begin
    with judged as (
        insert into judge_judgment (assignment_id, campaign_id, pair_id, app_user_id,
            is_paraphrase, is_test, is_correct, seconds)
        values (p_assignment, p_campaign, p_pair, p_user, p_label, p_is_test, p_is_correct,
                p_seconds)
        returning app_user_id, is_paraphrase, trusted),
    closed as (
        update judge_assignment set status = 'judged' where assignment_id = p_assignment),
    counted as (
        select n_judgments + 1 as n_judgments, n_paraphrase + p_label::int as n_paraphrase
        from judge_pair
        where pair_id = p_pair),
    on_pair as (
        select app_user_id, is_paraphrase, trusted from judged where not p_is_test
        union all
        select app_user_id, is_paraphrase, trusted from judge_judgment
        where pair_id = p_pair and not is_test)
    select c.n_judgments, c.n_paraphrase,
           coalesce((select array_agg(app_user_id) from on_pair), '{}'),
           coalesce((select array_agg(is_paraphrase) from on_pair), '{}'),
           coalesce((select array_agg(trusted) from on_pair), '{}')
    into r
    from counted c;
    return r;
end $$;
-- end of definition: judge_record_judgment

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
    -- majority of its others changes.
    before_yes := rec.n_paraphrase - p_label::int4;
    before_no := rec.n_judgments - rec.n_paraphrase - (not p_label)::int4;
    -- A test answer has no cell of its own, and its pair no ordinary judgments to change, unless
    -- it was judged as an ordinary pair before it became a test pair (`judge_record_judgment`).
    own := '{0,0,0,0,0,0,0,0}';
    if not r.is_test then
        own := judge_cell_change(p_label, null, true, before_yes, before_no,
                                 rec.n_paraphrase, rec.n_judgments - rec.n_paraphrase);
    end if;
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
