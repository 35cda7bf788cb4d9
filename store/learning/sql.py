"""Plain SQL for the learning paths that run per event or per request.

peewee builds each query anew (about a millisecond apiece here), which made a
scan read a few hundred events a second; these are written out once. Standard
SQL with `?` placeholders, as the rest of Jiyi's own SQL (the PostgreSQL store
turns them into its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from peewee import Database

T = TypeVar("T")


def rows(db: Database, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The rows of `sql` as dicts keyed by column name."""
    cursor = db.execute_sql(sql, list(args))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def one(db: Database, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
    found = rows(db, sql, args)
    return found[0] if found else None


def one_as(db: Database, build: Callable[..., T], sql: str, args: Sequence[Any] = ()) -> T | None:
    """The first row of `sql` as `build` makes it from its columns, passed by name (a row type); None: no row."""
    cursor = db.execute_sql(sql, list(args))
    names = [d[0] for d in cursor.description]
    found = cursor.fetchall()
    return build(**dict(zip(names, found[0], strict=True))) if found else None


def marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))
