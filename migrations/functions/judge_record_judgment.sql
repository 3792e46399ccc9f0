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
