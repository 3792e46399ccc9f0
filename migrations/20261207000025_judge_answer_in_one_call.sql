-- An answer in one round trip (issue #20). A judgment used to take six: BEGIN, the worker-lock,
-- the judgment, the lease with the gate's fold, COMMIT, and the pool's test of the connection on
-- its release. Each cost the two cores about 1.7% of the saturated judging rate (ten extra
-- `select 1` in the answer's transaction took 15.7% off it), and in a profile a third of the
-- server's time was spent sending them. So the answer's statements now run inside the database,
-- as one call of `judge_answer` (db/judge/answer.rs), in its own implicit transaction.
--
-- The statements are the ones the service sent before, moved here so that every path uses the
-- same copy: the lease statements (`judge_lease_ordinary`, `judge_lease_test`), the sweep of
-- expired leases (`judge_expire_leases`) and the judgment's own statement
-- (`judge_record_judgment`) are called from Rust (db/judge/lease.rs, judgment.rs) by
-- `judge/next` and by an answer's rare paths, and by `judge_answer` itself. Each is PL/pgSQL,
-- whose plans are kept per connection as sqlx keeps a prepared statement's.
--
-- What stays in Rust: every decision the gate makes (`domain::judge::gate::decide`, after the
-- call, on the counts it returns; a stop is a second transaction, `service::judging`), the
-- test pair's drawn position (`domain::judge::schedule::test_position`, passed in), and every
-- answer that is not the common one (an expired lease, a worker's first call, a refusal): the
-- call then writes nothing and says why, and the service takes the path it took before.
--
-- What is written twice, on purpose: the gate table's cell arithmetic
-- (`domain::judge::gate_table::table_changes`) and the schedule's block arithmetic
-- (`domain::judge::schedule::{starts_block, is_test_slot}`), a few lines each below. Tests run
-- both on the same inputs (tests/api/judge_sql.rs) so they cannot drift apart.

-- A lease statement's result: the worker's gate counts after it, and the pair leased (all null
-- when none was free; every column null when the worker has no row).
create type judge_leased as (
    judgments int4,
    tests_answered int4,
    tests_correct int4,
    kappa_pp int4,
    kappa_pn int4,
    kappa_np int4,
    kappa_nn int4,
    assignment_id uuid,
    sentence1 text,
    sentence2 text
);

-- Ends the leases that ran out in a campaign and gives their slots back; returns how many.
create function judge_expire_leases(p_campaign uuid) returns int8
language plpgsql as $$
declare
    v_n int8;
begin
    with expired as (
        update judge_assignment set status = 'expired'
        where campaign_id = p_campaign and status = 'leased' and lease_expires_at < now()
        returning pair_id, is_test),
    freed as (
        update judge_pair p set open_slots = p.open_slots + e.n
        from (select pair_id, count(*)::int as n from expired where not is_test
              group by pair_id) e
        where p.pair_id = e.pair_id)
    select count(*) into v_n from expired;
    return v_n;
end $$;

-- Leases an ordinary pair (db/judge/lease.rs `lease_pair` says how it is chosen) and, in the same
-- statement, writes the worker's update: their own counts added (p_judgments .. p_nn), the
-- changes to other workers' tables recorded (p_users, p_cpp .. p_cnn), the changes recorded for
-- them folded in, and a new block's test position (p_position, null: unchanged).
create function judge_lease_ordinary(
    p_campaign uuid, p_user uuid, p_lease_seconds float8, p_key int8,
    p_ordinary_per_test int4, p_test_max int4,
    p_judgments int4, p_tests_answered int4, p_tests_correct int4,
    p_pp int4, p_pn int4, p_np int4, p_nn int4,
    p_users uuid[], p_cpp int4[], p_cpn int4[], p_cnp int4[], p_cnn int4[],
    p_position int4)
returns judge_leased
language plpgsql as $$
declare
    r judge_leased;
begin
    with drawn as (
        -- The window's ids as an array (`= any`), not a join: the planner cannot know the
        -- window's size and, joining, hashed the whole table (9 ms a lease). `open_slots > 0`
        -- again: a row updated since the window was read is checked again when it is locked.
        select p.pair_id from judge_pair p
        where p.pair_id = any(array(
                select w.pair_id from judge_pair w
                where w.campaign_id = p_campaign and not w.slots_full and not w.is_test
                order by w.sort_key
                limit greatest(1, p_ordinary_per_test * (
                    select least(p_test_max, greatest(least(n, 1), n / 2))
                    from (select count(*) as n from judge_pair t
                          where t.campaign_id = p_campaign and t.is_test) pool))))
          and p.open_slots > 0
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by hashfloat8extended(p.sort_key, p_key), p.pair_id limit 1
        for update of p skip locked),
    next_free as (
        -- The worker has seen every pair of the window, or another request holds the rest this
        -- moment: the first free one after them. A WITH query runs only as far as it is read,
        -- so this one runs (and locks) only when `drawn` has no row.
        select p.pair_id from judge_pair p
        where p.campaign_id = p_campaign and not p.slots_full and p.open_slots > 0
          and not p.is_test
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by p.sort_key limit 1
        for update skip locked),
    chosen as (
        select pair_id from drawn union all select pair_id from next_free limit 1),
    taken as (
        update judge_pair p set open_slots = p.open_slots - 1
        from chosen where p.pair_id = chosen.pair_id
        returning p.pair_id, p.sentence1, p.sentence2),
    a as (
        insert into judge_assignment (campaign_id, pair_id, app_user_id, is_test,
            lease_expires_at)
        select p_campaign, pair_id, p_user, false, now() + make_interval(secs => p_lease_seconds)
        from taken
        returning assignment_id, pair_id),
    leased as (
        select a.assignment_id, t.sentence1, t.sentence2 from a join taken t using (pair_id)),
    recorded as (
        insert into judge_gate_change (campaign_id, app_user_id, pp, pn, np, nn)
        select p_campaign, * from unnest(p_users, p_cpp, p_cpn, p_cnp, p_cnn)),
    pending as (
        delete from judge_gate_change where campaign_id = p_campaign and app_user_id = p_user
        returning pp, pn, np, nn),
    total as (
        select coalesce(sum(pp), 0)::int as pp, coalesce(sum(pn), 0)::int as pn,
               coalesce(sum(np), 0)::int as np, coalesce(sum(nn), 0)::int as nn
        from pending),
    worker as (
        update judge_worker w
        set served_count = w.served_count + (select count(*) from a)::int,
            test_position = coalesce(p_position, w.test_position),
            judgments = w.judgments + p_judgments,
            tests_answered = w.tests_answered + p_tests_answered,
            tests_correct = w.tests_correct + p_tests_correct,
            kappa_pp = w.kappa_pp + p_pp + g.pp, kappa_pn = w.kappa_pn + p_pn + g.pn,
            kappa_np = w.kappa_np + p_np + g.np, kappa_nn = w.kappa_nn + p_nn + g.nn
        from total g
        where w.campaign_id = p_campaign and w.app_user_id = p_user
        returning w.judgments, w.tests_answered, w.tests_correct,
                  w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn)
    select w.judgments, w.tests_answered, w.tests_correct,
           w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn,
           l.assignment_id, l.sentence1, l.sentence2
    into r
    from worker w left join leased l on true;
    return r;
end $$;

-- Leases a test pair (db/judge/lease.rs `lease_test_pair` says how it is chosen), writing the
-- worker's update as `judge_lease_ordinary` does. p_test_max bounds the test window, and a test
-- pair's round goes up every p_per_pair servings.
create function judge_lease_test(
    p_campaign uuid, p_user uuid, p_lease_seconds float8, p_key int8,
    p_test_max int4, p_per_pair int4,
    p_judgments int4, p_tests_answered int4, p_tests_correct int4,
    p_pp int4, p_pn int4, p_np int4, p_nn int4,
    p_users uuid[], p_cpp int4[], p_cpn int4[], p_cnp int4[], p_cnn int4[],
    p_position int4)
returns judge_leased
language plpgsql as $$
declare
    r judge_leased;
begin
    with drawn as (
        -- The window's ids as an array (`= any`), not a join (see `judge_lease_ordinary`).
        select p.pair_id from judge_pair p
        where p.pair_id = any(array(
                select w.pair_id from judge_pair w
                where w.campaign_id = p_campaign and w.is_test
                order by w.test_served / p_per_pair, w.sort_key
                limit least(p_test_max, greatest(1,
                    (select count(*) from judge_pair t
                     where t.campaign_id = p_campaign and t.is_test) / 2))))
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by hashfloat8extended(p.sort_key, p_key), p.pair_id limit 1
        for update of p skip locked),
    next_unseen as (
        -- Runs (and locks) only when `drawn` has no row: a WITH query runs only as far as it is
        -- read.
        select p.pair_id from judge_pair p
        where p.campaign_id = p_campaign and p.is_test
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by p.test_served / p_per_pair, p.sort_key limit 1
        for update skip locked),
    chosen as (
        select pair_id from drawn union all select pair_id from next_unseen limit 1),
    served as (
        update judge_pair p set test_served = p.test_served + 1
        from chosen where p.pair_id = chosen.pair_id
        returning p.pair_id, p.sentence1, p.sentence2),
    a as (
        insert into judge_assignment (campaign_id, pair_id, app_user_id, is_test,
            lease_expires_at)
        select p_campaign, pair_id, p_user, true, now() + make_interval(secs => p_lease_seconds)
        from served
        returning assignment_id, pair_id),
    leased as (
        select a.assignment_id, s.sentence1, s.sentence2 from a join served s using (pair_id)),
    recorded as (
        insert into judge_gate_change (campaign_id, app_user_id, pp, pn, np, nn)
        select p_campaign, * from unnest(p_users, p_cpp, p_cpn, p_cnp, p_cnn)),
    pending as (
        delete from judge_gate_change where campaign_id = p_campaign and app_user_id = p_user
        returning pp, pn, np, nn),
    total as (
        select coalesce(sum(pp), 0)::int as pp, coalesce(sum(pn), 0)::int as pn,
               coalesce(sum(np), 0)::int as np, coalesce(sum(nn), 0)::int as nn
        from pending),
    worker as (
        update judge_worker w
        set served_count = w.served_count + (select count(*) from a)::int,
            test_position = coalesce(p_position, w.test_position),
            judgments = w.judgments + p_judgments,
            tests_answered = w.tests_answered + p_tests_answered,
            tests_correct = w.tests_correct + p_tests_correct,
            kappa_pp = w.kappa_pp + p_pp + g.pp, kappa_pn = w.kappa_pn + p_pn + g.pn,
            kappa_np = w.kappa_np + p_np + g.np, kappa_nn = w.kappa_nn + p_nn + g.nn
        from total g
        where w.campaign_id = p_campaign and w.app_user_id = p_user
        returning w.judgments, w.tests_answered, w.tests_correct,
                  w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn)
    select w.judgments, w.tests_answered, w.tests_correct,
           w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn,
           l.assignment_id, l.sentence1, l.sentence2
    into r
    from worker w left join leased l on true;
    return r;
end $$;

-- A judgment just stored: the pair's trusted votes after it, and every ordinary judgment on the
-- pair, this one included (none for a test pair), as parallel arrays.
create type judge_recorded as (
    n_judgments int4,
    n_paraphrase int4,
    users uuid[],
    labels bool[],
    trusted bool[]
);

-- Stores a judgment, closes the assignment, counts the vote on the pair and reads the pair's
-- judgments, in one statement. The caller holds the pair's row lock from before this statement
-- began, so its snapshot holds every judgment that counts in the votes; the new one, invisible to
-- the statement's own reads, is added from the insert's result. Null when the pair is gone.
create function judge_record_judgment(
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
        update judge_pair set n_judgments = n_judgments + 1,
            n_paraphrase = n_paraphrase + p_label::int
        where pair_id = p_pair
        returning n_judgments, n_paraphrase),
    on_pair as (
        select app_user_id, is_paraphrase, trusted from judged where not p_is_test
        union all
        select app_user_id, is_paraphrase, trusted from judge_judgment
        where pair_id = p_pair and not is_test and not p_is_test)
    select c.n_judgments, c.n_paraphrase,
           coalesce((select array_agg(app_user_id) from on_pair), '{}'),
           coalesce((select array_agg(is_paraphrase) from on_pair), '{}'),
           coalesce((select array_agg(trusted) from on_pair), '{}')
    into r
    from counted c;
    return r;
end $$;

-- An answer's result (db/judge/answer.rs `AnswerCall`): `outcome` says which case it was and
-- the other columns hold what that case needs.
create type judge_answered as (
    -- 'judged': stored, counted and the next pair leased (when there was one); the rest wrote
    -- nothing: 'missing' (no such assignment of this worker's, or no worker row yet),
    -- 'session_changed', 'unauthenticated', 'not_open', 'stale' (the campaign's version is not
    -- p_version), 'answered' (judged before), 'stopped' (the worker is), 'expired'.
    outcome text,
    -- 'answered': the answer stored the first time.
    stored_label bool,
    -- 'judged': the worker's gate counts after the answer ('answered': judgments as they are).
    judgments int4,
    tests_answered int4,
    tests_correct int4,
    kappa_pp int4,
    kappa_pn int4,
    kappa_np int4,
    kappa_nn int4,
    gate_overridden bool,
    -- The pair answered: a test pair, its right answer and the explanation shown on a miss.
    is_test bool,
    gold_label bool,
    gold_explanation text,
    -- The next pair, when one was leased.
    next_assignment uuid,
    sentence1 text,
    sentence2 text,
    -- The judgment completed a mined pair and its follow-up was queued (wake the sweeper).
    follow_up bool
);

-- Answers an assignment of p_user's in one call (see the top of this file). p_version is the
-- campaign version the caller's copy of the settings has; p_lease_seconds, p_test_every and
-- p_per_pair are those settings; p_position is the test position a new block gets (drawn by the
-- caller), p_key orders the lease's window at random, p_ordinary_per_test and p_test_max size
-- the windows (`schedule::ServingWindows`), p_sweep says whether expired leases are swept first.
create function judge_answer(
    p_campaign uuid, p_user uuid, p_assignment uuid, p_session_id text, p_session_data bytea,
    p_label bool, p_version int8, p_lease_seconds float8, p_test_every int4, p_per_pair int4,
    p_position int4, p_key int8, p_ordinary_per_test int4, p_test_max int4, p_sweep bool)
returns judge_answered
language plpgsql as $$
declare
    -- Written with few statements: each costs the interpreter's round of checks.
    res judge_answered;
    r record;
    rec judge_recorded;
    lease judge_leased;
    v_correct bool;
    -- The pair's trusted votes, "paraphrase" minus "not", before and after this judgment.
    before_diff int4;
    after_diff int4;
    -- One other judgment: its label, its own trusted vote (+1, -1, 0), the sign of the others'
    -- majority before and after.
    l bool; own int4; was int4; now_ int4;
    -- The changes to other workers' tables.
    users uuid[] := '{}'; cpp int4[] := '{}'; cpn int4[] := '{}'; cnp int4[] := '{}';
    cnn int4[] := '{}';
    -- The schedule.
    pos int4; new_pos int4; test_slot bool; swept bool := p_sweep;
    -- The first lease statement wrote this judgment's counts (a later one must not again).
    written bool := false;
    queued int8;
begin
    -- The worker, the assignment and its pair, locked in this order (as every judging
    -- statement locks them), with the campaign, the account and the session as they are now.
    select w.status as worker_status, w.gate_overridden, w.served_count, w.test_position,
           w.judgments, c.status as campaign_status, c.version, u.status as user_status,
           exists (select 1 from tower_sessions.session s
                   where s.id = p_session_id and s.data = p_session_data
                     and s.expiry_date > now()) as session_current,
           a.pair_id, a.is_test, a.status as assignment_status,
           greatest(extract(epoch from now() - a.served_at)::float8, 0) as seconds,
           p.gold_label, p.gold_explanation
    into r
    from judge_worker w join campaign c using (campaign_id)
         join app_user u on u.app_user_id = w.app_user_id
         join judge_assignment a on a.assignment_id = p_assignment
                                and a.campaign_id = w.campaign_id
                                and a.app_user_id = w.app_user_id
         join judge_pair p on p.pair_id = a.pair_id
    where w.campaign_id = p_campaign and w.app_user_id = p_user
    for update of w, a, p;
    -- Anything but the common case writes nothing and says why, in the order the service
    -- checked them before (`service::judging::answer_step_by_step`).
    if not found then
        res.outcome := 'missing';
        return res;
    elsif not r.session_current or r.user_status <> 'active' or r.campaign_status <> 'open'
          or r.version <> p_version or r.assignment_status <> 'leased'
          or r.worker_status = 'stopped' then
        res.outcome := case
            when not r.session_current then 'session_changed'
            when r.user_status <> 'active' then 'unauthenticated'
            when r.campaign_status <> 'open' then 'not_open'
            when r.version <> p_version then 'stale'
            when r.assignment_status = 'judged' then 'answered'
            when r.worker_status = 'stopped' then 'stopped'
            else 'expired' end;
        res.judgments := r.judgments;
        res.is_test := r.is_test;
        res.gold_label := r.gold_label;
        res.gold_explanation := r.gold_explanation;
        if res.outcome = 'answered' then
            select j.is_paraphrase into res.stored_label
            from judge_judgment j where j.assignment_id = p_assignment;
        end if;
        return res;
    end if;

    v_correct := case when r.is_test then r.gold_label = p_label end;
    rec := judge_record_judgment(p_assignment, p_campaign, r.pair_id, p_user, p_label,
                                 r.is_test, v_correct, r.seconds);

    -- The gate table's changes (domain/judge/gate_table.rs `after_vote`, `table_changes`): a
    -- judgment's cell is its label against the majority of the *other* trusted votes on its
    -- pair. This judgment adds one trusted vote; its own cell is new (the others' votes are the
    -- votes before it), and another judgment on the pair changes cell when the sign of its
    -- others' majority changes. None for a test pair.
    after_diff := 2 * rec.n_paraphrase - rec.n_judgments;
    before_diff := after_diff - case when p_label then 1 else -1 end;
    if not r.is_test then
        for i in 1 .. coalesce(array_length(rec.users, 1), 0) loop
            continue when rec.users[i] = p_user;
            l := rec.labels[i];
            own := case when not rec.trusted[i] then 0 when l then 1 else -1 end;
            was := sign(before_diff - own)::int4;
            now_ := sign(after_diff - own)::int4;
            continue when was = now_;
            users := users || rec.users[i];
            cpp := cpp || ((l and now_ > 0)::int4 - (l and was > 0)::int4);
            cpn := cpn || ((l and now_ < 0)::int4 - (l and was < 0)::int4);
            cnp := cnp || ((not l and now_ > 0)::int4 - (not l and was > 0)::int4);
            cnn := cnn || ((not l and now_ < 0)::int4 - (not l and was < 0)::int4);
        end loop;
    end if;

    -- A mined group's follow-up is due only when its last first-batch pair gets its last
    -- judgment (db/mining/outbox.rs `enqueue_follow_up`, the same statement); the sweeper is
    -- woken only when a row was written (a pair that was not mined has no group).
    if not r.is_test and rec.n_judgments >= p_per_pair then
        insert into follow_up_outbox (campaign_id, pair_id)
        select p_campaign, r.pair_id where exists (select 1 from judge_pair p
                                                   where p.pair_id = r.pair_id
                                                     and p.mining_run_id is not null)
        on conflict (campaign_id, pair_id) do update set due_at = now(), attempts = 0;
        get diagnostics queued = row_count;
    end if;

    -- The next pair (service/judging.rs `lease_next`): where the block's test pair goes
    -- (domain/judge/schedule.rs `starts_block`, `is_test_slot`), then the lease, whose
    -- statement also writes the worker's counts: this judgment, its own cell, and the others'
    -- changes. Expired leases are swept first when due, and always before saying that nothing
    -- is left.
    pos := r.test_position;
    if p_test_every > 0 and r.served_count % p_test_every = 0 then
        pos := p_position;
        new_pos := p_position;
    end if;
    test_slot := p_test_every > 0 and r.served_count % p_test_every = pos % p_test_every;
    if p_sweep then
        perform judge_expire_leases(p_campaign);
    end if;
    loop
        if test_slot then
            lease := judge_lease_test(
                p_campaign, p_user, p_lease_seconds, p_key, p_test_max, p_per_pair,
                (not written)::int4, (not written and r.is_test)::int4,
                (not written and v_correct is true)::int4,
                (not written and not r.is_test and p_label and before_diff > 0)::int4,
                (not written and not r.is_test and p_label and before_diff < 0)::int4,
                (not written and not r.is_test and not p_label and before_diff > 0)::int4,
                (not written and not r.is_test and not p_label and before_diff < 0)::int4,
                users, cpp, cpn, cnp, cnn, new_pos);
            if lease.assignment_id is null then
                -- Written once: a later statement only folds in what others recorded since.
                written := true;
                users := '{}'; cpp := '{}'; cpn := '{}'; cnp := '{}'; cnn := '{}';
                new_pos := null;
            end if;
        end if;
        if not test_slot or lease.assignment_id is null then
            lease := judge_lease_ordinary(
                p_campaign, p_user, p_lease_seconds, p_key, p_ordinary_per_test, p_test_max,
                (not written)::int4, (not written and r.is_test)::int4,
                (not written and v_correct is true)::int4,
                (not written and not r.is_test and p_label and before_diff > 0)::int4,
                (not written and not r.is_test and p_label and before_diff < 0)::int4,
                (not written and not r.is_test and not p_label and before_diff > 0)::int4,
                (not written and not r.is_test and not p_label and before_diff < 0)::int4,
                users, cpp, cpn, cnp, cnn, new_pos);
            if lease.assignment_id is null then
                written := true;
                users := '{}'; cpp := '{}'; cpn := '{}'; cnp := '{}'; cnn := '{}';
                new_pos := null;
            end if;
        end if;
        exit when lease.assignment_id is not null or swept;
        perform judge_expire_leases(p_campaign);
        swept := true;
    end loop;
    return row('judged', null, lease.judgments, lease.tests_answered, lease.tests_correct,
               lease.kappa_pp, lease.kappa_pn, lease.kappa_np, lease.kappa_nn,
               r.gate_overridden, r.is_test, r.gold_label, r.gold_explanation,
               lease.assignment_id, lease.sentence1, lease.sentence2,
               coalesce(queued, 0) > 0)::judge_answered;
end $$;
