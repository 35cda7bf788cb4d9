"""The back ends' differences as dialect facts: each fact holds on its own back end, and no domain module
asks which back end it runs on (only `store/core` knows them)."""

from __future__ import annotations

import json
import re

import pytest

from store.core.database import Store
from store.core.dialect import POSTGRESQL, SQLITE, dialect_of
from store.desk import sql
from tests.conftest import REPO

# The store's own folders that hold domain rules (everything but `store/core`, which knows the back ends).
DOMAINS = ("store/appkb", "store/desk", "store/episodes", "store/learning", "store/interchange", "recall", "service")


def test_the_store_names_its_dialect(store: Store, backend: str) -> None:
    assert store.db.dialect is (POSTGRESQL if backend == "postgresql" else SQLITE)
    assert dialect_of(store.db).name == backend


def test_the_json_array_function_builds_an_array(store: Store) -> None:
    array = store.db.dialect.json_array
    value = store.db.execute_sql(f"SELECT {array}(1, 2, 'three')").fetchone()[0]
    assert (value if isinstance(value, list) else json.loads(value)) == [1, 2, "three"]


def test_reads_together_answer_as_reads_one_by_one(store: Store) -> None:
    statements = [("SELECT 1 AS a, 'x' AS b", ()), ("SELECT ? AS n", (7,))]
    assert sql.select_together(store.db, statements) == [[{"a": 1, "b": "x"}], [{"n": 7}]]


def test_the_methods_both_databases_answer(store: Store) -> None:
    assert store.db.round_trips() >= 0
    assert store.db.transaction_failed() is False
    assert store.integrity_check() == "ok"
    with store.atomic():
        store.append("appkb", "probe_ignored", {}, actor="system")
    # A server counts the statements it was sent; a file counts none.
    assert (store.db.round_trips() > 0) is store.db.dialect.shared


def test_an_explicitly_numbered_log_is_followed_by_the_next_append(store: Store) -> None:
    """`append_many` numbers rows itself; the sequence (a server's) must catch up, or the next append collides."""
    with store.atomic():
        store.append_many("appkb", [("probe_ignored", {"n": i}) for i in range(3)], actor="system")
    with store.atomic():
        record = store.append("appkb", "probe_ignored", {"n": 3}, actor="system")
    assert record.seq == store.last_seq()
    assert [r[0] for r in store.db.execute_sql("SELECT seq FROM event ORDER BY seq").fetchall()][-4:] == list(
        range(record.seq - 3, record.seq + 1)
    )


@pytest.mark.parametrize("folder", DOMAINS)
def test_no_domain_module_asks_which_back_end_it_runs_on(folder: str) -> None:
    """A back end is named only in `store/core`: elsewhere code asks the dialect for the fact it needs."""
    check = re.compile(
        r"""backend["']?\s*(,\s*["']sqlite["']\s*\))?\s*[!=]=|isinstance\([^)]*Postgres|== ?["']postgresql["']"""
    )
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in sorted((REPO / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if check.search(line)
    ]
    assert found == []


def test_both_database_classes_say_their_contract() -> None:
    from store.core.connection import JiyiDatabase
    from store.core.postgres import JiyiPostgresDatabase

    # `JiyiDatabase`'s docstring once followed an assignment, and so was no docstring at all.
    assert JiyiDatabase.__doc__ and JiyiDatabase.__doc__.startswith("peewee's SQLite database")
    assert JiyiPostgresDatabase.__doc__ and JiyiPostgresDatabase.__doc__.startswith("peewee's PostgreSQL database")
