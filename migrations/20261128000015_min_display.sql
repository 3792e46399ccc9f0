-- Issue #22 item 3: an answer to a pair that has been on screen for less than this is ignored by
-- the judging page (a second key press meant for the pair before). 0 turns the guard off.
alter table judge_settings
    add column min_display_ms integer not null default 300 check (min_display_ms between 0 and 5000);
