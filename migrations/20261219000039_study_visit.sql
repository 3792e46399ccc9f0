-- Where each study worker opened the link from, as digests (`domain::study::visit`): the
-- network (an IPv4 address, an IPv6 /64) and the browser's signature (User-Agent and
-- Accept-Language), each SHA-256 of the campaign id and the key, so that a digest means
-- nothing outside its campaign and the page never shows an address. One row per worker and
-- combination met; accounts that share one are shown together on the dashboard.
create table study_visit (
    campaign_id   uuid not null,
    app_user_id   uuid not null,
    network       bytea not null check (length(network) = 32),
    browser       bytea not null check (length(browser) = 32),
    first_seen_at timestamptz not null default now(),
    last_seen_at  timestamptz not null default now(),
    visits        integer not null default 1 check (visits > 0),
    primary key (campaign_id, app_user_id, network, browser),
    foreign key (campaign_id, app_user_id)
        references study_arrival (campaign_id, app_user_id) on delete cascade
);
create index study_visit_shared_idx on study_visit (campaign_id, network, browser);
