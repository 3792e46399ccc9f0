-- Whether the pair served as number p_served is its block's hidden test pair, the block's test
-- position being p_position. The domain's twin: `domain::judge::schedule::is_test_slot`.
create or replace function judge_is_test_slot(p_served int4, p_every int4, p_position int4)
returns bool
language sql immutable parallel safe
return p_every > 0 and p_served % p_every = p_position % p_every;
