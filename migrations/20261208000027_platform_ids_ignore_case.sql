-- A platform id names one worker whatever its case: `A1CASEWORKER` and `a1caseworker` are one
-- MTurk worker, one account, one place and one bonus line. The account keeps the spelling it
-- first arrived with (the one the platform's files use); arrivals look it up by its lower case,
-- through this index. Not unique: a database from before this rule may hold two spellings of one
-- id as two accounts, and those stay as they are (the older one is found).
create index platform_account_external_id_ci_idx on platform_account (platform, lower(external_id));
