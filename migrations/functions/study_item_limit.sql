-- `study_item_limit_row` as a value (null for a worker with no such rule), for the servers of
-- the release before it, whose statements name this function. Nothing of this release calls it:
-- drop it in the next release's migrations, with this file.
-- needs: study_item_limit_row
create or replace function study_item_limit(campaign uuid, worker uuid) returns int4
language plpgsql stable as $$
begin
    return (select l from study_item_limit_row(campaign, worker) l);
end $$;
