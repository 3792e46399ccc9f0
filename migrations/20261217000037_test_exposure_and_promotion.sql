-- Gold that cannot be harvested (docs/quality.md): a campaign may cap how often each test pair
-- is served (null: no cap), and ordinary pairs settled with very high confidence by accurate
-- workers can be promoted to test pairs, marked as promoted (their explanation is written by a
-- researcher afterwards, if at all).
alter table judge_settings add column test_exposure_cap integer
    check (test_exposure_cap is null or test_exposure_cap >= 1);
alter table judge_pair add column gold_promoted boolean not null default false;
