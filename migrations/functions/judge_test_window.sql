-- How many test pairs a test lease draws from: half the campaign's pool of p_pool test pairs,
-- at least one, at most p_max. The domain's twin: `domain::judge::schedule::ServingWindows::
-- test_window` (tests/api/sql_twins.rs holds them equal).
create or replace function judge_test_window(p_pool int8, p_max int4) returns int4
language sql immutable parallel safe
return least(p_max, greatest(1, p_pool / 2))::int4;
