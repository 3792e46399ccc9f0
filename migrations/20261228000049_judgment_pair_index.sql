-- A pair's ordinary judgments are read apart from its test answers: a test answer on a pair that
-- was judged as an ordinary pair first moves those judgments' majority (`judge_record_judgment`),
-- and a test pair's answers can run to hundreds. The index on the pair alone becomes one on the
-- pair and the kind of judgment, which serves every lookup by pair as well.
drop index judge_judgment_pair_idx;
create index judge_judgment_pair_idx on judge_judgment (pair_id, is_test);
