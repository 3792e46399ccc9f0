-- Issue #20: fewer foreign-key checks per judgment. Each check is a query of its own (with a
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
