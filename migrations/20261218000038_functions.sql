-- Written by scripts/sql-functions.py: the definitions below are copies of their files in
-- migrations/functions/, which are the ones to read and change
-- (docs/decisions/sql-functions.md).

-- definition: judge_vote_accuracy
-- The accuracy a vote is weighed with when a pair settles: its worker's pooled evidence
-- (p_agreed of p_observations: correct test answers and answers equal to the others'
-- majority), without the vote's own observation when the pair's other trusted votes
-- (p_others_yes, p_others_no) have a majority, shrunk towards 0.8 as if from 4 observations.
-- The domain's twin: `domain::judge::settle::vote_accuracy`.
create or replace function judge_vote_accuracy(
    p_label bool, p_others_yes int4, p_others_no int4, p_agreed int4, p_observations int4)
returns float8
language sql immutable parallel safe
return (least(greatest(p_agreed - case when p_others_yes <> p_others_no
                                            and (p_others_yes > p_others_no) = p_label
                                       then 1 else 0 end, 0),
              greatest(p_observations - (p_others_yes <> p_others_no)::int4, 0))::float8
        + 0.8::float8 * 4.0::float8)
       / (greatest(p_observations - (p_others_yes <> p_others_no)::int4, 0)::float8
          + 4.0::float8);
-- end of definition: judge_vote_accuracy

-- definition: judge_settling
-- Where a pair with the votes p_labels stands, each weighted by its worker's accuracy
-- (p_accuracies, parallel): the domain's `domain::judge::settle::settle`, operation for
-- operation (its twin, compared on generated inputs). `state` is 'open', 'settled' (with the
-- label, `paraphrase`, and its posterior) or 'unresolved' (at p_max without reaching
-- p_confidence; `posterior` is that of "paraphrase"). `p_paraphrase` is always the posterior
-- of "paraphrase" (the domain's `settle::posterior`). A judgment still to come weighs as a
-- worker of accuracy p_next.
create or replace function judge_settling(
    p_min int4, p_max int4, p_confidence float8, p_prior float8, p_labels bool[],
    p_accuracies float8[], p_next float8,
    out state text, out paraphrase bool, out posterior float8, out p_paraphrase float8)
language plpgsql immutable parallel safe as $$
declare
    n int4 := coalesce(array_length(p_labels, 1), 0);
    pr float8 := least(greatest(p_prior, 1e-6), 1.0 - 1e-6);
    l float8;
    a float8;
    w float8;
    p float8;
    lead float8;
begin
    l := ln(pr / (1.0 - pr));
    for i in 1 .. n loop
        a := least(greatest(p_accuracies[i], 0.5), 0.99);
        w := ln(a / (1.0 - a));
        if p_labels[i] then l := l + w; else l := l - w; end if;
    end loop;
    p := 1.0 / (1.0 + exp(-l));
    p_paraphrase := p;
    lead := greatest(p, 1.0 - p);
    a := least(greatest(p_next, 0.5), 0.99);
    w := ln(a / (1.0 - a));
    if n >= p_max then
        if lead >= p_confidence then
            state := 'settled'; paraphrase := p >= 0.5; posterior := lead;
        else
            state := 'unresolved'; posterior := p;
        end if;
    elsif n < p_min then
        state := 'open';
    elsif lead >= p_confidence or abs(l) > (p_max - n)::float8 * w then
        state := 'settled'; paraphrase := p >= 0.5; posterior := lead;
    else
        state := 'open';
    end if;
end $$;
-- end of definition: judge_settling

-- definition: judge_settle_pair
-- Settles an ordinary pair, or opens it again: its trusted votes, each weighted by its worker's
-- accuracy as of their last counts (`judge_vote_accuracy`), put through the campaign's
-- redundancy settings (`judge_settling`, a coming judgment weighed as 0.99:
-- `settle::NEXT_ACCURACY`). Below its maximum a settled pair keeps its label in
-- `settled_label` and is no longer served; anything else clears it. `posterior` keeps the
-- posterior of "paraphrase" (null below the minimum, where nothing is read). Returns whether the pair has its label now
-- (settled, or its maximum of trusted votes). Called by an answer
-- (`judge_answer`, which holds the pair's row) and after a change of trust
-- (`service::gate_table::after_flips`). Reads at most a pair's judgments: an answer's cost
-- stays flat.
-- needs: judge_vote_accuracy, judge_settling
create or replace function judge_settle_pair(p_pair uuid) returns bool
language plpgsql as $$
declare
    s record;
    labels bool[];
    accuracies float8[];
    outcome record;
    label bool;
begin
    select p.is_test, p.n_judgments, p.settled_label, p.posterior,
           st.min_judgments_per_pair, st.judgments_per_pair, st.settle_confidence
    into s
    from judge_pair p join judge_settings st using (campaign_id)
    where p.pair_id = p_pair;
    if not found or s.is_test then
        return false;
    end if;
    -- Below the minimum nothing settles (`settle` says open): no votes are read, and the
    -- posterior waits for the minimum too.
    if s.n_judgments < s.min_judgments_per_pair then
        if s.settled_label is not null or s.posterior is not null then
            update judge_pair set settled_label = null, posterior = null where pair_id = p_pair;
        end if;
        return false;
    end if;
    with v as (
        select j.is_paraphrase, j.created_at, j.judgment_id,
               w.tests_correct + w.kappa_pp + w.kappa_nn as agreed,
               w.tests_answered + w.kappa_pp + w.kappa_pn + w.kappa_np + w.kappa_nn as observed
        from judge_judgment j
        join judge_worker w on w.campaign_id = j.campaign_id and w.app_user_id = j.app_user_id
        where j.pair_id = p_pair and j.trusted and not j.is_test),
    t as (
        select count(*) filter (where is_paraphrase)::int4 as yes,
               count(*) filter (where not is_paraphrase)::int4 as no
        from v)
    select coalesce(array_agg(v.is_paraphrase order by v.created_at, v.judgment_id), '{}'),
           coalesce(array_agg(judge_vote_accuracy(
               v.is_paraphrase, t.yes - v.is_paraphrase::int4, t.no - (not v.is_paraphrase)::int4,
               v.agreed, v.observed) order by v.created_at, v.judgment_id), '{}')
    into labels, accuracies
    from v cross join t;
    select * into outcome
    from judge_settling(s.min_judgments_per_pair, s.judgments_per_pair, s.settle_confidence,
                        0.5, labels, accuracies, 0.99);
    label := case when outcome.state = 'settled' and cardinality(labels) < s.judgments_per_pair
                  then outcome.paraphrase end;
    update judge_pair
    set settled_label = label,
        posterior = case when cardinality(labels) > 0 then outcome.p_paraphrase end
    where pair_id = p_pair;
    return label is not null or cardinality(labels) >= s.judgments_per_pair;
end $$;
-- end of definition: judge_settle_pair

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
-- needs: study_item_limit_row, judge_settle_pair
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
    last_item bool;
    labelled bool;
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
           p.gold_label, p.gold_explanation,
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

    -- The next pair, with the worker's counts: this judgment, its own cell and the others'
    -- changes. An answer to a lease that ran out first looks for a live lease another tab may
    -- have taken since (a worker holds at most one); the common answer's lease was their only one.
    -- A study worker's last item only brings the counts up to date: no pair is held for them.
    last_item := r.judgments + 1 >= r.item_limit;
    if last_item then
        lease := judge_fold_worker(
            p_campaign, p_user, null, false, p_lease_seconds, null,
            1, r.is_test::int4, (v_correct is true)::int4, own[1], own[2], own[3], own[4],
            users, cpp, cpn, cnp, cnn);
    else
        lease := judge_next_pair(
            p_campaign, p_user, r.served_count, r.test_position,
            r.assignment_status = 'expired', p_lease_seconds, p_key, p_test_every, p_per_pair,
            p_new_position, p_ordinary_per_test, p_test_max, p_sweep,
            1, r.is_test::int4, (v_correct is true)::int4, own[1], own[2], own[3], own[4],
            users, cpp, cpn, cnp, cnn);
    end if;
    -- The pair's label settles, or not, on its votes weighted by its workers' counts, this
    -- worker's brought up to date above (`judge_settle_pair`): a settled pair is not served.
    labelled := not r.is_test and judge_settle_pair(r.pair_id);

    -- A mined group's follow-up is due only when its last first-batch pair gets its label (its
    -- last judgment, or settled; `service::mining_follow_up` decides);
    -- the sweeper is woken only when a row was written (a pair that was not mined has no group).
    if labelled then
        insert into follow_up_outbox (campaign_id, pair_id)
        select p_campaign, r.pair_id where exists (select 1 from judge_pair p
                                                   where p.pair_id = r.pair_id
                                                     and p.mining_run_id is not null)
        on conflict (campaign_id, pair_id) do update set due_at = now(), attempts = 0;
        get diagnostics queued = row_count;
    end if;
    return row('judged', null, lease.judgments, lease.tests_answered, lease.tests_correct,
               lease.kappa_pp, lease.kappa_pn, lease.kappa_np, lease.kappa_nn,
               r.gate_overridden, r.is_test, r.gold_label, r.gold_explanation,
               lease.assignment_id, lease.sentence1, lease.sentence2,
               coalesce(queued, 0) > 0)::judge_answered;
end $$;
-- end of definition: judge_answer

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
        -- window's size and, joining, hashed the whole table (9 ms a lease). `slots_full`
        -- again: a row updated since the window was read (its last slot taken, or its label
        -- settled) is checked again when it is locked.
        select p.pair_id from judge_pair p
        where p.pair_id = any(array(
                select w.pair_id from judge_pair w
                where w.campaign_id = p_campaign and not w.slots_full and not w.is_test
                order by w.sort_key
                -- The count as the call's argument, not a subquery passed in: the planner
                -- inlines the window's arithmetic only then (else it is planned again on
                -- every call).
                limit (select judge_ordinary_window(count(*), p_per_test, p_test_max)
                       from judge_pair t where t.campaign_id = p_campaign and t.is_test)))
          and not p.slots_full
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

-- definition: judge_choose_test
-- Chooses, and locks, a test pair p_user has not seen, the way `judge_choose_ordinary` chooses
-- an ordinary one: drawn at random (p_key) among those in the window of the test pairs that most
-- need serving, the first by (round, `sort_key`), where a test pair's round goes up after every
-- p_per_pair servings, the window's size `judge_test_window` of the pool. When the worker has
-- seen all of the window, or others hold it this moment, the first unseen test pair after it.
-- A test pair served as often as the campaign's exposure cap (`test_exposure_cap`, none when
-- null) is served no more: the row is checked again when it is locked, so two leases at once
-- cannot pass the cap. Null when there is none (the slot then takes an ordinary pair).
-- needs: judge_test_window
create or replace function judge_choose_test(
    p_campaign uuid, p_user uuid, p_key int8, p_test_max int4, p_per_pair int4)
returns uuid
language plpgsql as $$
declare
    chosen uuid;
    cap int4;
begin
    select coalesce(s.test_exposure_cap, 2147483647) into cap
    from judge_settings s where s.campaign_id = p_campaign;
    with drawn as (
        select p.pair_id from judge_pair p
        where p.pair_id = any(array(
                select w.pair_id from judge_pair w
                where w.campaign_id = p_campaign and w.is_test and w.test_served < cap
                order by w.test_served / p_per_pair, w.sort_key
                limit (select judge_test_window(count(*), p_test_max)
                       from judge_pair t where t.campaign_id = p_campaign and t.is_test)))
          and p.test_served < cap
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by hashfloat8extended(p.sort_key, p_key), p.pair_id limit 1
        for no key update of p skip locked),
    next_unseen as (
        select p.pair_id from judge_pair p
        where p.campaign_id = p_campaign and p.is_test and p.test_served < cap
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by p.test_served / p_per_pair, p.sort_key limit 1
        for no key update skip locked)
    select pair_id into chosen
    from (select pair_id from drawn union all select pair_id from next_unseen) c limit 1;
    return chosen;
end $$;
-- end of definition: judge_choose_test

-- definition: judge_pairs_left
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
-- end of definition: judge_pairs_left
