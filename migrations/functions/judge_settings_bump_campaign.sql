-- A change to a campaign's judging settings is a change to the campaign: its version goes up
-- (`campaign_bump_version`).
create or replace function judge_settings_bump_campaign() returns trigger
language plpgsql as $$
begin
    update campaign set updated_at = now() where campaign_id = old.campaign_id;
    return null;
end $$;

create or replace trigger judge_settings_version after update or delete on judge_settings
    for each row execute function judge_settings_bump_campaign();
