-- What a username looks like, for refusing look-alike registrations ("vick1" once "vickl"
-- exists). Usernames are ASCII letters, digits, '.', '_' and '-' (`domain::Username`), so the
-- look-alikes are those of Unicode's confusables list (UTS #39) within that set, after case
-- folding: 0/o, 1/l, rn/m, vv/w, cl/d, and the three separators. `app_user.username_skeleton`
-- is generated from it.
create or replace function username_skeleton(name text) returns text
    language sql immutable strict parallel safe
    return replace(replace(replace(translate(lower(name), '01-.', 'ol__'), 'rn', 'm'), 'vv', 'w'),
                   'cl', 'd');
