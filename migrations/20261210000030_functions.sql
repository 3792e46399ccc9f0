-- Written by scripts/sql-functions.py: the definitions below are copies of their files in
-- migrations/functions/, which are the ones to read and change
-- (docs/decisions/sql-functions.md).

-- definition: campaign_bump_version
-- A campaign's version goes up with every change to its row (and so, through
-- `judge_settings_bump_campaign`, to its judging settings). A server caches what a judging
-- request needs and checks its copy's version in the statement every request sends anyway
-- (`service::judge_campaign_cache`), so every server sees a change at once.
create or replace function campaign_bump_version() returns trigger
language plpgsql as $$
begin
    new.version := old.version + 1;
    return new;
end $$;

create or replace trigger campaign_version before update on campaign
    for each row execute function campaign_bump_version();
-- end of definition: campaign_bump_version

-- definition: judge_record_judgment
-- Stores a judgment, closes the assignment, counts the vote on the pair and reads the pair's
-- judgments, in one statement. The caller holds the pair's row lock from before this statement
-- began, so its snapshot holds every judgment that counts in the votes; the new one, invisible to
-- the statement's own reads, is added from the insert's result. Returns the pair's trusted votes
-- after it and every ordinary judgment on the pair, this one included (none for a test pair), as
-- parallel arrays; null when the pair is gone.
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
-- end of definition: judge_record_judgment

-- definition: judge_majority_sign
-- The sign of the majority of the *other* trusted votes on a pair, from the pair's trusted votes
-- (p_yes "paraphrase", p_no "not") and one judgment's label p_label, which is among them when
-- p_counts_itself: 1 "paraphrase", -1 "not", 0 a tie (null when p_counts_itself is null). A
-- part of `judge_cell_change`; the domain's twin: `domain::judge::gate_table::Votes::without`
-- and its majority.
create or replace function judge_majority_sign(
    p_yes int4, p_no int4, p_counts_itself bool, p_label bool)
returns int4
language sql immutable parallel safe
return sign((p_yes - (p_counts_itself and p_label)::int4)
            - (p_no - (p_counts_itself and not p_label)::int4))::int4;
-- end of definition: judge_majority_sign

-- definition: judge_cell_change
-- How one judgment's cell in its worker's gate table changes when its pair's trusted votes go
-- from (p_before_yes, p_before_no) to (p_after_yes, p_after_no): its cell is its label
-- p_label against the majority of the *other* trusted votes (none on a tie). p_trusted_before
-- and p_trusted_after say whether it counted itself, before and after; p_trusted_before null:
-- it was not there (a new judgment). Returns the change as {pp, pn, np, nn}. The domain's twin:
-- `domain::judge::gate_table::table_changes`, for one judgment. One expression, so that the
-- planner inlines it into its callers.
-- needs: judge_majority_sign
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
                                                    p_label), 0) < 0)::int4];
-- end of definition: judge_cell_change

-- definition: judge_starts_block
-- Whether the pair served as number p_served (0-based, per worker) starts a block of p_every
-- pairs, which draws a new test position. The domain's twin: `domain::judge::schedule::
-- starts_block`.
create or replace function judge_starts_block(p_served int4, p_every int4) returns bool
language sql immutable parallel safe
return p_every > 0 and p_served % p_every = 0;
-- end of definition: judge_starts_block

-- definition: judge_is_test_slot
-- Whether the pair served as number p_served is its block's hidden test pair, the block's test
-- position being p_position. The domain's twin: `domain::judge::schedule::is_test_slot`.
create or replace function judge_is_test_slot(p_served int4, p_every int4, p_position int4)
returns bool
language sql immutable parallel safe
return p_every > 0 and p_served % p_every = p_position % p_every;
-- end of definition: judge_is_test_slot

-- definition: judge_expire_leases
-- Ends the leases that ran out in a campaign and gives their slots back; returns how many.
create or replace function judge_expire_leases(p_campaign uuid) returns int8
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
-- end of definition: judge_expire_leases

-- definition: judge_test_window
-- How many test pairs a test lease draws from: half the campaign's pool of p_pool test pairs,
-- at least one, at most p_max. The domain's twin: `domain::judge::schedule::ServingWindows::
-- test_window` (tests/api/sql_twins.rs holds them equal).
create or replace function judge_test_window(p_pool int8, p_max int4) returns int4
language sql immutable parallel safe
return least(p_max, greatest(1, p_pool / 2))::int4;
-- end of definition: judge_test_window

-- definition: judge_choose_test
-- Chooses, and locks, a test pair p_user has not seen, the way `judge_choose_ordinary` chooses
-- an ordinary one: drawn at random (p_key) among those in the window of the test pairs that most
-- need serving, the first by (round, `sort_key`), where a test pair's round goes up after every
-- p_per_pair servings, the window's size `judge_test_window` of the pool. When the worker has
-- seen all of the window, or others hold it this moment, the first unseen test pair after it.
-- Null when there is none.
-- needs: judge_test_window
create or replace function judge_choose_test(
    p_campaign uuid, p_user uuid, p_key int8, p_test_max int4, p_per_pair int4)
returns uuid
language plpgsql as $$
declare
    chosen uuid;
begin
    with drawn as (
        select p.pair_id from judge_pair p
        where p.pair_id = any(array(
                select w.pair_id from judge_pair w
                where w.campaign_id = p_campaign and w.is_test
                order by w.test_served / p_per_pair, w.sort_key
                limit judge_test_window(
                    (select count(*) from judge_pair t
                     where t.campaign_id = p_campaign and t.is_test), p_test_max)))
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by hashfloat8extended(p.sort_key, p_key), p.pair_id limit 1
        for no key update of p skip locked),
    next_unseen as (
        select p.pair_id from judge_pair p
        where p.campaign_id = p_campaign and p.is_test
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by p.test_served / p_per_pair, p.sort_key limit 1
        for no key update skip locked)
    select pair_id into chosen
    from (select pair_id from drawn union all select pair_id from next_unseen) c limit 1;
    return chosen;
end $$;
-- end of definition: judge_choose_test

-- definition: judge_ordinary_window
-- How many ordinary pairs an ordinary lease draws from: p_per_test for each pair of the test
-- window, at least one; one (the pair that most needs judgments) when there are no test pairs
-- to hide. The domain's twin: `domain::judge::schedule::ServingWindows::ordinary`.
create or replace function judge_ordinary_window(p_pool int8, p_per_test int4, p_max int4)
returns int4
language sql immutable parallel safe
return case when p_pool = 0 then 1
            else greatest(1, p_per_test * judge_test_window(p_pool, p_max)) end;
-- end of definition: judge_ordinary_window

-- definition: judge_choose_ordinary
-- Chooses, and locks, an ordinary pair with a free slot that p_user has not seen: drawn at
-- random (p_key) among those they have not seen in the window of the pairs that most need
-- judgments, the first ones with a free slot by `sort_key`, the same window for every worker at
-- a time (`judge_ordinary_window`; `domain::judge::schedule::ServingWindows` says why).
-- Rows another request holds are skipped, not waited for; when the worker has seen the rest of
-- the window, or others hold it, the first free pair after it. Null when there is none.
-- needs: judge_ordinary_window
create or replace function judge_choose_ordinary(
    p_campaign uuid, p_user uuid, p_key int8, p_per_test int4, p_test_max int4)
returns uuid
language plpgsql as $$
declare
    chosen uuid;
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
                limit judge_ordinary_window(
                    (select count(*) from judge_pair t
                     where t.campaign_id = p_campaign and t.is_test), p_per_test, p_test_max)))
          and p.open_slots > 0
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by hashfloat8extended(p.sort_key, p_key), p.pair_id limit 1
        for no key update of p skip locked),
    next_free as (
        -- A WITH query runs only as far as it is read, so this one runs (and locks) only when
        -- `drawn` has no row.
        select p.pair_id from judge_pair p
        where p.campaign_id = p_campaign and not p.slots_full and p.open_slots > 0
          and not p.is_test
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by p.sort_key limit 1
        for no key update skip locked)
    select pair_id into chosen
    from (select pair_id from drawn union all select pair_id from next_free) c limit 1;
    return chosen;
end $$;
-- end of definition: judge_choose_ordinary

-- definition: judge_fold_worker
-- Brings a worker's row up to date, in one statement: p_judgments .. p_nn added to their own
-- gate counts (an answer's), the changes the answer makes to other workers' tables recorded
-- (p_users, p_cpp .. p_cnn, parallel arrays; `judge_gate_change`), the changes others recorded
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
    p_users uuid[], p_cpp int4[], p_cpn int4[], p_cnp int4[], p_cnn int4[])
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
            test_position = coalesce(p_new_position, w.test_position),
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
-- (`judge_fold_worker`), with p_judgments .. p_nn (an answer's own) and p_users .. p_cnn (its
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
    p_users uuid[], p_cpp int4[], p_cpn int4[], p_cnp int4[], p_cnn int4[])
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
        p_users, p_cpp, p_cpn, p_cnp, p_cnn);
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
-- 'stopped' (the gate stopped the worker), 'gone' (the lease ran out and the pair's slots went
-- to others), 'missing' (no such assignment of this worker's). In that order.
-- needs: judge_record_judgment, judge_cell_change, judge_next_pair
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
    queued int8;
begin
    -- The worker, the assignment and its pair, locked in this order (as every judging
    -- statement locks them), with the campaign, the account and the session as they are now.
    -- `no key update`: the rows that reference these (key checks) do not wait for the locks.
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
        when r.worker_status = 'stopped' then 'stopped' end;
    if res.outcome = 'answered' then
        select j.is_paraphrase into res.stored_label
        from judge_judgment j where j.assignment_id = p_assignment;
    end if;
    if res.outcome is not null then
        return res;
    end if;
    -- A lease that ran out gave its slot back: it takes one again (a test pair has none), or
    -- the pair went to others meanwhile.
    if r.assignment_status = 'expired' and not r.is_test then
        update judge_pair set open_slots = open_slots - 1
        where pair_id = r.pair_id and open_slots > 0;
        if not found then
            res.outcome := 'gone';
            return res;
        end if;
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
    own := '{0,0,0,0}';
    if not r.is_test then
        own := judge_cell_change(p_label, null, true, before_yes, before_no,
                                 rec.n_paraphrase, rec.n_judgments - rec.n_paraphrase);
        for i in 1 .. coalesce(array_length(rec.users, 1), 0) loop
            continue when rec.users[i] = p_user;
            c := judge_cell_change(rec.labels[i], rec.trusted[i], rec.trusted[i],
                                   before_yes, before_no,
                                   rec.n_paraphrase, rec.n_judgments - rec.n_paraphrase);
            continue when c = '{0,0,0,0}';
            users := users || rec.users[i];
            cpp := cpp || c[1];
            cpn := cpn || c[2];
            cnp := cnp || c[3];
            cnn := cnn || c[4];
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

    -- The next pair, with the worker's counts: this judgment, its own cell and the others'
    -- changes. An answer to a lease that ran out first looks for a live lease another tab may
    -- have taken since (a worker holds at most one); the common answer's lease was their only one.
    lease := judge_next_pair(
        p_campaign, p_user, r.served_count, r.test_position, r.assignment_status = 'expired',
        p_lease_seconds, p_key, p_test_every, p_per_pair, p_new_position, p_ordinary_per_test,
        p_test_max, p_sweep,
        1, r.is_test::int4, (v_correct is true)::int4, own[1], own[2], own[3], own[4],
        users, cpp, cpn, cnp, cnn);
    return row('judged', null, lease.judgments, lease.tests_answered, lease.tests_correct,
               lease.kappa_pp, lease.kappa_pn, lease.kappa_np, lease.kappa_nn,
               r.gate_overridden, r.is_test, r.gold_label, r.gold_explanation,
               lease.assignment_id, lease.sentence1, lease.sentence2,
               coalesce(queued, 0) > 0)::judge_answered;
end $$;
-- end of definition: judge_answer

-- definition: judge_orphans
-- Rows of the judging tables that name a row that is not there, counted by table: zero while
-- the keys hold (migration `judging_rows_reference_their_rows`). For checks that must not take
-- that on trust: the load tool's verification and the integrity tests.
create or replace function judge_orphans()
returns table (table_name text, orphans int8)
language sql stable as $$
    select 'judge_gate_change', count(*) from judge_gate_change c
    where not exists (select 1 from judge_worker w
                      where w.campaign_id = c.campaign_id and w.app_user_id = c.app_user_id)
    union all
    select 'judge_assignment', count(*) from judge_assignment a
    where not exists (select 1 from judge_worker w
                      where w.campaign_id = a.campaign_id and w.app_user_id = a.app_user_id)
       or not exists (select 1 from judge_pair p where p.pair_id = a.pair_id)
    union all
    select 'judge_judgment', count(*) from judge_judgment j
    where not exists (select 1 from judge_assignment a where a.assignment_id = j.assignment_id)
    union all
    select 'judge_worker', count(*) from judge_worker w
    where not exists (select 1 from campaign c where c.campaign_id = w.campaign_id)
       or not exists (select 1 from app_user u where u.app_user_id = w.app_user_id)
$$;
-- end of definition: judge_orphans

-- definition: judge_settings_bump_campaign
-- A change to a campaign's judging settings is a change to the campaign: its version goes up
-- (`campaign_bump_version`).
create or replace function judge_settings_bump_campaign() returns trigger
language plpgsql as $$
begin
    update campaign set updated_at = now() where campaign_id = old.campaign_id;
    return null;
end $$;

create or replace trigger judge_settings_version after update or delete on judge_settings
    for each row execute function judge_settings_bump_campaign();
-- end of definition: judge_settings_bump_campaign

-- definition: study_items
-- Items a worker made in a campaign: judgments, or sentences submitted. One definition for the
-- task's guard, the progress line and the payments page (inlined by the planner).
create or replace function study_items(campaign uuid, worker uuid) returns bigint
language sql stable as $$
    select coalesce((select w.judgments::int8 from judge_worker w
                     where w.campaign_id = campaign and w.app_user_id = worker), 0)
           + (select count(*) from apt_submission s
              where s.campaign_id = campaign and s.app_user_id = worker)
$$;
-- end of definition: study_items

-- definition: username_skeleton
-- What a username looks like, for refusing look-alike registrations ("vick1" once "vickl"
-- exists). Usernames are ASCII letters, digits, '.', '_' and '-' (`domain::Username`), so the
-- look-alikes are those of Unicode's confusables list (UTS #39) within that set, after case
-- folding: 0/o, 1/l, rn/m, vv/w, cl/d, and the three separators. `app_user.username_skeleton`
-- is generated from it.
create or replace function username_skeleton(name text) returns text
    language sql immutable strict parallel safe
    return replace(replace(replace(translate(lower(name), '01-.', 'ol__'), 'rn', 'm'), 'vv', 'w'),
                   'cl', 'd');
-- end of definition: username_skeleton
