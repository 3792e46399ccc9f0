-- Whether the pair served as number p_served (0-based, per worker) starts a block of p_every
-- pairs, which draws a new test position. The domain's twin: `domain::judge::schedule::
-- starts_block`.
create or replace function judge_starts_block(p_served int4, p_every int4) returns bool
language sql immutable parallel safe
return p_every > 0 and p_served % p_every = 0;
