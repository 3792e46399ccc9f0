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
