-- Issue #21 item 1: hidden test pairs are served like ordinary ones, from a window of the test
-- pairs that most need serving, each taking as many servings per round as an ordinary pair
-- takes judgments, so that the test window slides through the pool as the ordinary window
-- slides through the pairs. `test_served` counts a test pair's servings (its round is
-- test_served / judgments_per_pair); ordinary pairs leave it at 0.
alter table judge_pair add column test_served integer not null default 0;
