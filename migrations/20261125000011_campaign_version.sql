-- A campaign's version, bumped by the database on every change to the campaign row or to its
-- judging settings. A server caches what a judging request needs (title, instructions,
-- settings: service/judge_campaign_cache.rs) and checks that its copy is current with the
-- worker-lock statement every request sends anyway, so every server sees a change at once
-- without any cross-server message, and no code path that edits a campaign can forget it.
alter table campaign add column version bigint not null default 1;

create function campaign_bump_version() returns trigger language plpgsql as $$
begin
    new.version := old.version + 1;
    return new;
end $$;

create trigger campaign_version before update on campaign
    for each row execute function campaign_bump_version();

create function judge_settings_bump_campaign() returns trigger language plpgsql as $$
begin
    update campaign set updated_at = now() where campaign_id = old.campaign_id;
    return null;
end $$;

create trigger judge_settings_version after update or delete on judge_settings
    for each row execute function judge_settings_bump_campaign();
