-- The accuracy a vote is weighed with when a pair settles: its worker's pooled evidence
-- (p_agreed of p_observations: correct test answers and answers equal to the others'
-- majority), without the vote's own observation when the pair's other trusted votes
-- (p_others_yes, p_others_no) have a majority, shrunk towards 0.8 as if from 4 observations.
-- The domain's twin: `domain::judge::settle::vote_accuracy`.
create or replace function judge_vote_accuracy(
    p_label bool, p_others_yes int4, p_others_no int4, p_agreed int4, p_observations int4)
returns float8
language sql immutable parallel safe
return (least(greatest(p_agreed - case when p_others_yes <> p_others_no
                                            and (p_others_yes > p_others_no) = p_label
                                       then 1 else 0 end, 0),
              greatest(p_observations - (p_others_yes <> p_others_no)::int4, 0))::float8
        + 0.8::float8 * 4.0::float8)
       / (greatest(p_observations - (p_others_yes <> p_others_no)::int4, 0)::float8
          + 4.0::float8);
