-- How many ordinary pairs an ordinary lease draws from: p_per_test for each pair of the test
-- window, at least one; one (the pair that most needs judgments) when there are no test pairs
-- to hide. The domain's twin: `domain::judge::schedule::ServingWindows::ordinary`.
create or replace function judge_ordinary_window(p_pool int8, p_per_test int4, p_max int4)
returns int4
language sql immutable parallel safe
return case when p_pool = 0 then 1
            else greatest(1, p_per_test * judge_test_window(p_pool, p_max)) end;
