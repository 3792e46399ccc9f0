#!/usr/bin/env python3
"""Writes the migration that brings the database's functions and triggers up to their files.

Every function the database runs (and its trigger, if it is a trigger function) is defined in
one file of migrations/functions/, named for it: that file is the definition to read, review
and change. A database gets a definition through a migration, and migrations already applied
never change (sqlx checks their checksums), so after changing files, run

    scripts/sql-functions.py            write a new migration with every changed file
    scripts/sql-functions.py --check    say which files differ from what the migrations define

The migration holds each changed file verbatim between two marker lines, in the order their
`-- needs:` lines ask for. The test command fails while a file differs from the last copy the
migrations hold (tests/api/sql_functions.rs), and when the database has a function with no file.
A function no longer wanted is dropped by a migration written by hand, and its file deleted.
"""
import datetime
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MIGRATIONS = ROOT / "migrations"
FUNCTIONS = MIGRATIONS / "functions"
BEGIN = "-- definition: "
END = "-- end of definition: "


def defined():
    """The last copy of each file the migrations hold, by name."""
    last = {}
    for m in sorted(MIGRATIONS.glob("*.sql")):
        lines = m.read_text().split("\n")
        i = 0
        while i < len(lines):
            if lines[i].startswith(BEGIN):
                name = lines[i][len(BEGIN):].split()[0]
                j = lines.index(END + name, i + 1)
                last[name] = "\n".join(lines[i + 1:j]) + "\n"
                i = j
            i += 1
    return last


def files():
    return {f.stem: f.read_text() for f in sorted(FUNCTIONS.glob("*.sql"))}


def needs(text):
    out = []
    for line in text.split("\n"):
        if line.startswith("-- needs:"):
            out += [n.strip() for n in line[len("-- needs:"):].split(",") if n.strip()]
    return out


def ordered(changed, texts):
    done, out = set(), []

    def visit(name, path):
        if name in done:
            return
        if name in path:
            sys.exit(f"migrations/functions: a cycle of `-- needs:` through {name}")
        for n in needs(texts[name]):
            if n not in texts:
                sys.exit(f"migrations/functions/{name}.sql needs {n}, which has no file")
            if n in changed:
                visit(n, path + [name])
        done.add(name)
        out.append(name)

    for name in sorted(changed):
        visit(name, [])
    return out


def next_version():
    last = sorted(m.name for m in MIGRATIONS.glob("*.sql"))[-1]
    day, seq = last[:8], int(last[8:14])
    day = datetime.datetime.strptime(day, "%Y%m%d") + datetime.timedelta(days=1)
    return f"{day:%Y%m%d}{seq + 1:06d}"


def main():
    texts, last = files(), defined()
    changed = [n for n, t in texts.items() if last.get(n) != t]
    if "--check" in sys.argv:
        for n in changed:
            print(f"migrations/functions/{n}.sql differs from what the migrations define")
        sys.exit(1 if changed else 0)
    if not changed:
        print("every file in migrations/functions/ is what the migrations define")
        return
    names = ordered(changed, texts)
    path = MIGRATIONS / f"{next_version()}_functions.sql"
    parts = [
        "-- Written by scripts/sql-functions.py: the definitions below are copies of their files in\n"
        "-- migrations/functions/, which are the ones to read and change\n"
        "-- (docs/decisions/sql-functions.md).\n"
    ]
    for n in names:
        parts.append(f"\n{BEGIN}{n}\n{texts[n]}{END}{n}\n")
    path.write_text("".join(parts))
    print(f"wrote {path.relative_to(ROOT)} ({len(names)} definitions: {', '.join(names)})")


if __name__ == "__main__":
    main()
