-- Issue #20: less work for the database per judgment, found by profiling the saturated load
-- benchmark (`perf record -a -g` while `scripts/bench-load.sh 60 200 0` ran).

-- Fewer foreign-key checks. Each check is a query of its own (with a
-- KEY SHARE lock on the referenced row) run at the end of the inserting statement; on every
-- judgment the lease's assignment checked three and the judgment four, and two of them locked
-- the campaign's one row, which every concurrent judgment shares (PostgreSQL then builds a
-- MultiXact for it). A profile of the saturated load benchmark put these checks at 8% of the
-- database's time.
--
-- The checks dropped are implied by the ones kept, because the rows are written from what they
-- reference, in one statement each (`db::judge`):
-- - a judgment's campaign, pair and worker are its assignment's (`insert_judgment` writes them
--   from the locked assignment); its assignment is still checked, and deleting a campaign, a
--   pair or an account still deletes its judgments, through their assignments;
-- - an assignment's campaign is its pair's (`lease_pair` and `lease_test_pair` choose the pair
--   among the campaign's and insert that campaign); its pair and its worker are still checked,
--   and deleting a campaign still deletes its assignments, through its pairs.
alter table judge_judgment
    drop constraint judge_judgment_campaign_id_fkey,
    drop constraint judge_judgment_pair_id_fkey,
    drop constraint judge_judgment_app_user_id_fkey;
alter table judge_assignment
    drop constraint judge_assignment_campaign_id_fkey;

-- A judgment's worker and pair are its assignment's, which are unique together already
-- (`judge_assignment_worker_pair_key`), as its assignment is unique here: this index only cost
-- an insert per judgment.
alter table judge_judgment drop constraint judge_judgment_worker_pair_key;

-- Every lease takes a pair's slot and every judgment counts its vote: two updates of the pair's
-- row per judgment. The serving index's predicate named `open_slots`, which made every lease's
-- update a non-HOT one: a new row version in every index of the table, the sentences' unique
-- index included. The predicate now names a column that changes only when the last slot is
-- taken or the first one freed, so the other updates stay on their page (HOT) and touch no
-- index; room is left on each page for them.
alter table judge_pair
    add column slots_full boolean generated always as (open_slots = 0) stored;
drop index judge_pair_serving_idx;
create index judge_pair_serving_idx on judge_pair (campaign_id, sort_key)
    where not slots_full and not is_test;
alter table judge_pair set (fillfactor = 80);
alter table judge_worker set (fillfactor = 80);
