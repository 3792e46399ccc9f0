//! The database's functions and triggers are defined in files, one each, in
//! `migrations/functions/` (docs/decisions/sql-functions.md): these tests hold the migrations to
//! the files, the live database to the migrations, and every body to the schema, so that a
//! renamed column fails here and not at the first answer.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sqlx::{Connection, PgConnection, PgPool};

const BEGIN: &str = "-- definition: ";
const END: &str = "-- end of definition: ";

fn migrations() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations")
}

/// The files of `migrations/functions/`, by name.
fn files() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(migrations().join("functions")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "sql") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            out.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    out
}

/// The last copy of each definition the migrations hold, as `scripts/sql-functions.py` writes
/// them (between its marker lines).
fn defined() -> BTreeMap<String, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(migrations())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "sql"))
        .collect();
    paths.sort();
    let mut last = BTreeMap::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        let mut i = 0;
        while i < lines.len() {
            if let Some(rest) = lines[i].strip_prefix(BEGIN) {
                let name = rest.split_whitespace().next().unwrap().to_owned();
                let end = format!("{END}{name}");
                let j = (i + 1..lines.len())
                    .find(|&j| lines[j] == end)
                    .unwrap_or_else(|| panic!("{}: {name} has no end marker", path.display()));
                last.insert(name, lines[i + 1..j].join("\n") + "\n");
                i = j;
            }
            i += 1;
        }
    }
    last
}

#[test]
fn every_function_file_is_what_the_migrations_define_last() {
    let (files, defined) = (files(), defined());
    assert!(files.len() >= 10, "found only {} files", files.len());
    let differ: Vec<&String> = files
        .iter()
        .filter(|(name, text)| defined.get(*name) != Some(text))
        .map(|(name, _)| name)
        .collect();
    assert!(
        differ.is_empty(),
        "migrations/functions/ differs from what the migrations define for {differ:?}: \
         run scripts/sql-functions.py to write the migration that brings them in"
    );
    let without_file: Vec<&String> = defined.keys().filter(|n| !files.contains_key(*n)).collect();
    assert!(
        without_file.is_empty(),
        "the migrations define {without_file:?}, whose files are gone: drop them in a migration \
         and take their definitions out of the check by deleting nothing already applied"
    );
}

/// The functions in the public schema (not an extension's) by name, each with its definition as
/// PostgreSQL prints it back (`pg_get_functiondef`, one per overload), and for each trigger its
/// function and its definition.
type Live = (
    BTreeMap<String, Vec<String>>,
    BTreeMap<String, (String, String)>,
);

async fn live(conn: &mut PgConnection) -> Live {
    let rows: Vec<(String, String)> = sqlx::query_as(
        r#"select p.proname::text, pg_get_functiondef(p.oid) from pg_proc p
           join pg_namespace n on n.oid = p.pronamespace
           where n.nspname = 'public'
             and not exists (select 1 from pg_depend d
                             where d.objid = p.oid and d.deptype = 'e')
           order by p.oid::regprocedure::text"#,
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    let triggers: Vec<(String, String, String)> = sqlx::query_as(
        r#"select t.tgname::text, p.proname::text, pg_get_triggerdef(t.oid) from pg_trigger t
           join pg_proc p on p.oid = t.tgfoid
           join pg_class c on c.oid = t.tgrelid
           join pg_namespace n on n.oid = c.relnamespace
           where not t.tgisinternal and n.nspname = 'public'"#,
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    let mut functions: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, definition) in rows {
        functions.entry(name).or_default().push(definition);
    }
    let triggers = triggers.into_iter().map(|(t, f, d)| (t, (f, d))).collect();
    (functions, triggers)
}

/// What differs between the live functions and triggers and their files: the definitions are
/// read, every file is run again in a transaction, the definitions are read again (PostgreSQL
/// prints both the same way, whatever the spacing of the text that made them) and the
/// transaction is rolled back. Empty when the database runs exactly its files.
async fn drift(conn: &mut PgConnection) -> Vec<String> {
    let files = files();
    let (functions, triggers) = live(conn).await;
    let mut problems = Vec::new();
    for f in functions.keys() {
        if !files.contains_key(f) {
            problems.push(format!(
                "the database has {f}() but migrations/functions/{f}.sql does not exist"
            ));
        }
    }
    for f in files.keys() {
        if !functions.contains_key(f) {
            problems.push(format!("{f}.sql defines nothing the database has"));
        }
    }
    for (trigger, (function, _)) in &triggers {
        if !files
            .get(function)
            .is_some_and(|t| t.contains(&format!("create or replace trigger {trigger} ")))
        {
            problems.push(format!(
                "trigger {trigger} is not defined in migrations/functions/{function}.sql"
            ));
        }
    }
    let mut tx = conn.begin().await.unwrap();
    for (name, text) in &files {
        if let Err(e) = sqlx::raw_sql(text).execute(&mut *tx).await {
            problems.push(format!("{name}.sql does not run: {e}"));
            return problems;
        }
    }
    let (from_files, triggers_from_files) = live(&mut tx).await;
    tx.rollback().await.unwrap();
    for (f, definitions) in &functions {
        if from_files.get(f).is_some_and(|d| d != definitions) {
            problems.push(format!(
                "the database's {f}() is not what migrations/functions/{f}.sql defines \
                 (a migration replaced it with text of its own?): it is\n{}",
                definitions.join("\n")
            ));
        }
    }
    for (trigger, live) in &triggers {
        if triggers_from_files.get(trigger).is_some_and(|d| d != live) {
            problems.push(format!("trigger {trigger} is not as its file defines it"));
        }
    }
    problems
}

#[sqlx::test(migrations = "../migrations")]
async fn every_live_function_and_trigger_is_defined_by_its_file(pool: PgPool) {
    let mut conn = pool.acquire().await.unwrap();
    let (functions, triggers) = live(&mut conn).await;
    assert!(functions.len() >= 10, "{functions:?}");
    assert!(!triggers.is_empty());
    let problems = drift(&mut conn).await;
    assert!(problems.is_empty(), "{problems:#?}");

    // A migration that replaces a function with text of its own, even a body that means the
    // same, or moves a trigger to another event, is caught.
    sqlx::raw_sql(
        "create or replace function judge_is_test_slot(p_served int4, p_every int4, p_position int4) \
         returns bool language sql immutable parallel safe \
         return p_every > 0 and p_served % p_every = (p_position + 0) % p_every",
    )
    .execute(&mut *conn)
    .await
    .unwrap();
    let problems = drift(&mut conn).await.join("\n");
    assert!(problems.contains("judge_is_test_slot()"), "{problems}");
    assert!(!problems.contains("judge_answer()"), "{problems}");
}

/// What is wrong with the bodies of the live functions, as `plpgsql_check` (when the database
/// server has it; a recorded skip, or a failure where it is required, when not) and PostgreSQL's
/// own check of a SQL function's body (run again from every file) find it; empty when nothing
/// is.
async fn body_problems(conn: &mut PgConnection) -> Vec<String> {
    let mut problems = Vec::new();
    let mut tx = conn.begin().await.unwrap();
    sqlx::query("savepoint extension")
        .execute(&mut *tx)
        .await
        .unwrap();
    match sqlx::query("create extension if not exists plpgsql_check")
        .execute(&mut *tx)
        .await
    {
        Err(e) => {
            sqlx::query("rollback to savepoint extension")
                .execute(&mut *tx)
                .await
                .unwrap();
            crate::shared::missing(
                "PLPGSQL_CHECK",
                "the check of every PL/pgSQL body against the schema",
                &format!("plpgsql_check is not installed on the test database server: {e}"),
            );
        }
        Ok(_) => {
            let found: Vec<(String, String, String)> = sqlx::query_as(
                r#"select p.proname::text, c.level, c.message
                   from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                        join pg_language l on l.oid = p.prolang,
                   lateral plpgsql_check_function_tb(
                       p.oid, coalesce((select t.tgrelid from pg_trigger t
                                        where t.tgfoid = p.oid limit 1), 0)) c
                   where n.nspname = 'public' and l.lanname = 'plpgsql'
                     and c.level in ('error', 'warning')"#,
            )
            .fetch_all(&mut *tx)
            .await
            .unwrap();
            problems.extend(
                found
                    .into_iter()
                    .map(|(f, level, m)| format!("{f}: {level}: {m}")),
            );
        }
    }
    // A SQL function's body is checked when it is created: create each again, in a
    // transaction that is rolled back.
    for (name, text) in files() {
        sqlx::query("savepoint again")
            .execute(&mut *tx)
            .await
            .unwrap();
        if let Err(e) = sqlx::raw_sql(&text).execute(&mut *tx).await {
            problems.push(format!("{name}: {e}"));
        }
        sqlx::query("rollback to savepoint again")
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    tx.rollback().await.unwrap();
    problems
}

#[sqlx::test(migrations = "../migrations")]
async fn every_function_body_names_only_columns_and_tables_that_exist(pool: PgPool) {
    let mut conn = pool.acquire().await.unwrap();
    let problems = body_problems(&mut conn).await;
    assert!(problems.is_empty(), "{problems:#?}");

    // The check fails when a later migration renames a column a body names: one a PL/pgSQL
    // function reads (the test pair's explanation, shown on a miss) and one a SQL function
    // reads (the submissions `study_items` counts).
    sqlx::query("alter table judge_pair rename column gold_explanation to explanation")
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::query("alter table apt_submission rename column app_user_id to worker_id")
        .execute(&mut *conn)
        .await
        .unwrap();
    let problems = body_problems(&mut conn).await;
    let text = problems.join("\n");
    // The PL/pgSQL one only where plpgsql_check is installed (required by the test command).
    let checked = std::env::var("PARACROWD_REQUIRE_PLPGSQL_CHECK").is_ok_and(|v| v == "1")
        || text.contains("judge_answer");
    if checked {
        assert!(
            text.contains("judge_answer") && text.contains("gold_explanation"),
            "{text}"
        );
    }
    assert!(text.contains("study_items"), "{text}");
}
