-- Mining (issue #7): corpora split into sentences, mining runs as background jobs, and their
-- candidate pairs, which admins deploy to judging campaigns.

create table corpus (
    corpus_id   uuid primary key default gen_random_uuid(),
    name        text not null check (length(name) between 1 and 200),
    shape       text not null check (shape in ('documents', 'grouped', 'sentences')),
    filename    text not null,
    clusters    integer not null,
    documents   integer not null,
    sentences   integer not null,
    created_by  uuid references app_user (app_user_id) on delete set null,
    created_at  timestamptz not null default now()
);

create table corpus_document (
    document_id bigserial primary key,
    corpus_id   uuid not null references corpus (corpus_id) on delete cascade,
    cluster     text not null,
    external_id text not null,
    time        text,
    source      text
);
create index corpus_document_corpus_idx on corpus_document (corpus_id);

create table corpus_sentence (
    sentence_id bigserial primary key,
    corpus_id   uuid not null references corpus (corpus_id) on delete cascade,
    document_id bigint not null references corpus_document (document_id) on delete cascade,
    cluster     text not null,
    -- 0-based position in the document (headings left out).
    position    integer not null,
    text        text not null check (length(text) between 1 and 2000)
);
create index corpus_sentence_corpus_idx on corpus_sentence (corpus_id, cluster, sentence_id);

create table mining_run (
    run_id       uuid primary key default gen_random_uuid(),
    corpus_id    uuid not null references corpus (corpus_id) on delete cascade,
    method       text not null check (method in ('l12', 'f2')),
    params       jsonb not null,
    -- running -> finished | cancelled | failed; a server that stops while a run is queued or
    -- running marks it interrupted at its next start (never finished); interrupted, cancelled
    -- and failed runs can be restarted.
    status       text not null default 'queued'
                 check (status in ('queued', 'running', 'finished', 'cancelled', 'interrupted', 'failed')),
    done         bigint not null default 0,
    total        bigint not null default 0,
    candidates   integer not null default 0,
    -- ParaSCI Table 2's numbers of the candidates (domain::mining::stats::PairStats).
    stats        jsonb,
    error        text,
    created_by   uuid references app_user (app_user_id) on delete set null,
    created_at   timestamptz not null default now(),
    started_at   timestamptz,
    finished_at  timestamptz,
    -- Seconds spent mining (without writing the candidates).
    mining_seconds double precision
);
create index mining_run_corpus_idx on mining_run (corpus_id, created_at desc);

create table mining_candidate (
    candidate_id      bigserial primary key,
    run_id            uuid not null references mining_run (run_id) on delete cascade,
    sentence_a        bigint not null references corpus_sentence (sentence_id) on delete cascade,
    sentence_b        bigint not null references corpus_sentence (sentence_id) on delete cascade,
    edit_distance     integer not null,
    shared_long_words integer not null,
    length_ratio      double precision not null,
    constraint mining_candidate_pair_key unique (run_id, sentence_a, sentence_b)
);

-- Where a judging pair came from, when it was deployed from a mining run.
alter table judge_pair add column mining_run_id uuid references mining_run (run_id) on delete set null;
