"""Which apps own which words: term counts over the episodes recall can find.

A derived index beside the vector collections, not a view of the event log:
it holds exactly the episodes the `episode` collections hold (the service
adds and drops both together, and rebuilds both with `jiyi rebuild-vec`).
Per device it keeps how many indexed episodes contain a term, and how many of
them belong to each app, so recall can ask "of the past runs that said 黄历,
how many were 万年历?" in one indexed lookup, whatever the archive's size.

The terms themselves come from recall (`recall.term_ownership`); this
module only counts them. Each episode's terms are kept with it, so an upsert
of an unchanged episode changes nothing and a changed one is corrected.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from store.core.database import Store

VERSION = "1"
_CHUNK = 400
_META_KEY = "recall_terms:version"
TABLES = ("recall_term_doc", "recall_term_scope", "recall_term_df", "recall_term_app")
_TABLES = (
    "CREATE TABLE IF NOT EXISTS recall_term_doc ("
    " run_id TEXT PRIMARY KEY, device_scope TEXT NOT NULL, apps TEXT NOT NULL, terms TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS recall_term_doc_scope ON recall_term_doc (device_scope)",
    "CREATE TABLE IF NOT EXISTS recall_term_scope (device_scope TEXT PRIMARY KEY, docs INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS recall_term_df ("
    " device_scope TEXT NOT NULL, term TEXT NOT NULL, n INTEGER NOT NULL,"
    " PRIMARY KEY (device_scope, term)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS recall_term_app ("
    " device_scope TEXT NOT NULL, term TEXT NOT NULL, package TEXT NOT NULL, n INTEGER NOT NULL,"
    " PRIMARY KEY (device_scope, term, package)) WITHOUT ROWID",
)


@dataclass(frozen=True)
class TermDoc:
    """One indexed episode: its device, apps and distinct terms."""

    run_id: str
    device_scope: str
    apps: tuple[str, ...]
    terms: tuple[str, ...]


@dataclass(frozen=True)
class TermStats:
    """Counts for one query on one device: episodes in all, per term, and per term and app."""

    documents: int = 0
    df: dict[str, int] = field(default_factory=dict)
    owners: dict[str, dict[str, int]] = field(default_factory=dict)


def ensure(store: Store) -> bool:
    """Create the tables if needed; True when they are current (False: fill them with `rebuild`).

    Not current: never built, built by another version, or a table was missing (dropped by hand).
    """
    with store.db.atomic("IMMEDIATE"):
        present = {name for name in store.db.get_tables() if name.startswith("recall_term")}
        for statement in _TABLES:
            store.db.execute_sql(statement)
        row = store.db.execute_sql("SELECT value FROM meta WHERE key = ?", (_META_KEY,)).fetchone()
    return bool(row and row[0] == VERSION) and set(TABLES) <= present


def current(store: Store) -> bool:
    """Whether the tables are there and current, found without writing (a read-only home: `ensure` would write)."""
    if not set(TABLES) <= set(store.db.get_tables()):
        return False
    row = store.db.execute_sql("SELECT value FROM meta WHERE key = ?", (_META_KEY,)).fetchone()
    return bool(row and row[0] == VERSION)


def put(store: Store, docs: Iterable[TermDoc]) -> int:
    """Add or correct episodes; returns how many changed (an unchanged episode costs one lookup).

    The counts are summed in memory and written once per (scope, term, app), so
    a bulk ingest of many episodes costs one statement per distinct count. An
    episode listed twice counts as its last listing.
    """
    latest = {doc.run_id: doc for doc in docs}
    db = store.db
    scope_delta: dict[str, int] = {}
    df_delta: dict[tuple[str, str], int] = {}
    app_delta: dict[tuple[str, str, str], int] = {}

    def count(scope: str, apps: Sequence[str], terms: Sequence[str], delta: int) -> None:
        scope_delta[scope] = scope_delta.get(scope, 0) + delta
        for term in terms:
            df_delta[(scope, term)] = df_delta.get((scope, term), 0) + delta
            for app in dict.fromkeys(apps):
                app_delta[(scope, term, app)] = app_delta.get((scope, term, app), 0) + delta

    with db.atomic("IMMEDIATE"):
        ids = list(latest)
        known: dict[str, tuple[str, str, str]] = {}
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            rows = db.execute_sql(
                "SELECT run_id, device_scope, apps, terms FROM recall_term_doc"
                f" WHERE run_id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            known.update((r[0], (r[1], r[2], r[3])) for r in rows)
        changed: list[tuple[str, str, str, str]] = []
        for doc in latest.values():
            apps, terms = " ".join(doc.apps), " ".join(sorted(set(doc.terms)))
            row = known.get(doc.run_id)
            if row == (doc.device_scope, apps, terms):
                continue
            if row is not None:
                count(row[0], row[1].split(), row[2].split(), -1)
            count(doc.device_scope, apps.split(), terms.split(), +1)
            changed.append((doc.run_id, doc.device_scope, apps, terms))
        db.execute_many(
            "INSERT INTO recall_term_doc (run_id, device_scope, apps, terms) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (run_id) DO UPDATE SET device_scope = excluded.device_scope, apps = excluded.apps, "
            "terms = excluded.terms",
            changed,
        )
        db.execute_many(
            "INSERT INTO recall_term_scope (device_scope, docs) VALUES (?, ?)"
            " ON CONFLICT (device_scope) DO UPDATE SET docs = recall_term_scope.docs + excluded.docs",
            list(scope_delta.items()),
        )
        db.execute_many(
            "INSERT INTO recall_term_df (device_scope, term, n) VALUES (?, ?, ?)"
            " ON CONFLICT (device_scope, term) DO UPDATE SET n = recall_term_df.n + excluded.n",
            [(*key, n) for key, n in df_delta.items() if n],
        )
        db.execute_many(
            "INSERT INTO recall_term_app (device_scope, term, package, n) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (device_scope, term, package) DO UPDATE SET n = recall_term_app.n + excluded.n",
            [(*key, n) for key, n in app_delta.items() if n],
        )
        db.execute_many(
            "DELETE FROM recall_term_df WHERE device_scope = ? AND term = ? AND n <= 0",
            [key for key, n in df_delta.items() if n < 0],
        )
        db.execute_many(
            "DELETE FROM recall_term_app WHERE device_scope = ? AND term = ? AND package = ? AND n <= 0",
            [key for key, n in app_delta.items() if n < 0],
        )
    return len(changed)


def remove(store: Store, device_scope: str, run_ids: Sequence[str]) -> int:
    """Drop episodes (revoked, folded); returns how many were there."""
    removed = 0
    db = store.db
    with db.atomic("IMMEDIATE"):
        for run_id in run_ids:
            row = db.execute_sql(
                "SELECT apps, terms FROM recall_term_doc WHERE run_id = ? AND device_scope = ?", (run_id, device_scope)
            ).fetchone()
            if row is None:
                continue
            _count(store, device_scope, row[0].split(), row[1].split(), -1)
            db.execute_sql("DELETE FROM recall_term_doc WHERE run_id = ?", (run_id,))
            removed += 1
    return removed


def clear(store: Store) -> None:
    """Empty the index (before a rebuild); `mark_built` records that it is whole again."""
    with store.db.atomic("IMMEDIATE"):
        for table in TABLES:
            store.db.execute_sql(f"DELETE FROM {table}")
        store.db.execute_sql("DELETE FROM meta WHERE key = ?", (_META_KEY,))


def mark_built(store: Store) -> None:
    with store.db.atomic("IMMEDIATE"):
        store.db.execute_sql(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (_META_KEY, VERSION),
        )


def run_ids(store: Store, device_scope: str) -> list[str]:
    rows = store.db.execute_sql("SELECT run_id FROM recall_term_doc WHERE device_scope = ?", (device_scope,))
    return [r[0] for r in rows]


def scopes(store: Store) -> list[str]:
    """Device scopes with indexed episodes: none before the index was first built (`ensure` makes its tables)."""
    if not store.db.table_exists("recall_term_scope"):
        return []
    return [r[0] for r in store.db.execute_sql("SELECT device_scope FROM recall_term_scope WHERE docs > 0")]


def consistent(store: Store) -> bool:
    """Whether every device's episode count matches the episodes kept (a cheap check for drift)."""
    kept = dict(store.db.execute_sql("SELECT device_scope, count(*) FROM recall_term_doc GROUP BY device_scope"))
    counted = dict(store.db.execute_sql("SELECT device_scope, docs FROM recall_term_scope WHERE docs != 0"))
    return kept == counted


def stats(store: Store, device_scope: str, terms: Sequence[str], packages: Sequence[str] | None) -> TermStats:
    """The counts recall needs for `terms`, with owners limited to `packages` (the apps it is weighing;
    None: every app, when recall has only the words to go by)."""
    db = store.db
    row = db.execute_sql("SELECT docs FROM recall_term_scope WHERE device_scope = ?", (device_scope,)).fetchone()
    if not row or not terms:
        return TermStats(int(row[0]) if row else 0)
    df: dict[str, int] = {}
    owners: dict[str, dict[str, int]] = {}
    package_marks = ",".join("?" * len(packages or ()))
    for start in range(0, len(terms), _CHUNK):  # a long task has thousands of terms; SQLite caps the parameters
        chunk = list(terms[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        found = db.execute_sql(
            f"SELECT term, n FROM recall_term_df WHERE device_scope = ? AND term IN ({marks})",
            (device_scope, *chunk),
        ).fetchall()
        df.update(found)
        if packages is None and found:
            cursor = db.execute_sql(
                "SELECT term, package, n FROM recall_term_app WHERE device_scope = ?"
                f" AND term IN ({','.join('?' * len(found))})",
                (device_scope, *(t for t, _ in found)),
            )
            for term, package, n in cursor:
                owners.setdefault(term, {})[package] = n
        elif packages and found:
            cursor = db.execute_sql(
                "SELECT term, package, n FROM recall_term_app WHERE device_scope = ?"
                f" AND term IN ({','.join('?' * len(found))}) AND package IN ({package_marks})",
                (device_scope, *(t for t, _ in found), *packages),
            )
            for term, package, n in cursor:
                owners.setdefault(term, {})[package] = n
    return TermStats(int(row[0]), df, owners)


def _count(store: Store, scope: str, apps: Sequence[str], terms: Sequence[str], delta: int) -> None:
    db = store.db
    db.execute_sql(
        "INSERT INTO recall_term_scope (device_scope, docs) VALUES (?, ?)"
        " ON CONFLICT (device_scope) DO UPDATE SET docs = recall_term_scope.docs + excluded.docs",
        (scope, delta),
    )
    db.execute_many(
        "INSERT INTO recall_term_df (device_scope, term, n) VALUES (?, ?, ?)"
        " ON CONFLICT (device_scope, term) DO UPDATE SET n = recall_term_df.n + excluded.n",
        [(scope, term, delta) for term in terms],
    )
    db.execute_many(
        "INSERT INTO recall_term_app (device_scope, term, package, n) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (device_scope, term, package) DO UPDATE SET n = recall_term_app.n + excluded.n",
        [(scope, term, app, delta) for term in terms for app in dict.fromkeys(apps)],
    )
    if delta < 0:
        db.execute_many(
            "DELETE FROM recall_term_df WHERE device_scope = ? AND term = ? AND n <= 0", [(scope, t) for t in terms]
        )
        db.execute_many(
            "DELETE FROM recall_term_app WHERE device_scope = ? AND term = ? AND n <= 0", [(scope, t) for t in terms]
        )
