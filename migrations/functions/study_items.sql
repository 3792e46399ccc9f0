-- `study_items_row` as a value, for the servers of the release before it, whose statements name
-- this function. Nothing of this release calls it: drop it in the next release's migrations,
-- with this file.
-- needs: study_items_row
create or replace function study_items(campaign uuid, worker uuid) returns bigint
language sql stable as $$
    select n from study_items_row(campaign, worker) n
$$;
