-- Server-function calls per account, and those made without one per address, are counted in
-- rate_count too (`service::call_limits`), each server adding its count a batch at a time.
alter table rate_count drop constraint rate_count_action_check;
alter table rate_count add constraint rate_count_action_check
    check (action in ('registration', 'study_account', 'call', 'anonymous_call'));
