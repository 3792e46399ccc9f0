-- Where a pair with the votes p_labels stands, each weighted by its worker's accuracy
-- (p_accuracies, parallel): the domain's `domain::judge::settle::settle`, operation for
-- operation (its twin, compared on generated inputs). `state` is 'open', 'settled' (with the
-- label, `paraphrase`, and its posterior) or 'unresolved' (at p_max without reaching
-- p_confidence; `posterior` is that of "paraphrase"). `p_paraphrase` is always the posterior
-- of "paraphrase" (the domain's `settle::posterior`). A judgment still to come weighs as a
-- worker of accuracy p_next.
create or replace function judge_settling(
    p_min int4, p_max int4, p_confidence float8, p_prior float8, p_labels bool[],
    p_accuracies float8[], p_next float8,
    out state text, out paraphrase bool, out posterior float8, out p_paraphrase float8)
language plpgsql immutable parallel safe as $$
declare
    n int4 := coalesce(array_length(p_labels, 1), 0);
    pr float8 := least(greatest(p_prior, 1e-6), 1.0 - 1e-6);
    l float8;
    a float8;
    w float8;
    p float8;
    lead float8;
begin
    l := ln(pr / (1.0 - pr));
    for i in 1 .. n loop
        a := least(greatest(p_accuracies[i], 0.5), 0.99);
        w := ln(a / (1.0 - a));
        if p_labels[i] then l := l + w; else l := l - w; end if;
    end loop;
    p := 1.0 / (1.0 + exp(-l));
    p_paraphrase := p;
    lead := greatest(p, 1.0 - p);
    a := least(greatest(p_next, 0.5), 0.99);
    w := ln(a / (1.0 - a));
    if n >= p_max then
        if lead >= p_confidence then
            state := 'settled'; paraphrase := p >= 0.5; posterior := lead;
        else
            state := 'unresolved'; posterior := p;
        end if;
    elsif n < p_min then
        state := 'open';
    elsif lead >= p_confidence or abs(l) > (p_max - n)::float8 * w then
        state := 'settled'; paraphrase := p >= 0.5; posterior := lead;
    else
        state := 'open';
    end if;
end $$;
