"""Plain SQL for the read paths an agent hits every turn.

peewee builds each query anew (about a millisecond apiece here); the few
queries `memory.recall` runs per call are written out once instead. They
read the same view tables the models define.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from peewee import SqliteDatabase

from store.core.dialect import dialect_of
from store.desk.rows import TaskCard, TopicTurn

T = TypeVar("T")

INTERACTION_COLUMNS = (
    "i.interaction_id, i.ts, i.workday, i.source, i.user_text, i.assistant_text, i.task_id, t.topic_id"
)
INTERACTION_FROM = "desk_interaction i LEFT JOIN desk_topic_interaction t ON t.interaction_id = i.interaction_id"
CARD_COLUMNS = "task_id, title, status, result, schedule_id, run_id, interaction_id, source, ts, epoch, workday"


def select(db: SqliteDatabase, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """Rows as dicts keyed by column name."""
    cursor = db.execute_sql(sql, list(args))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def select_as(db: SqliteDatabase, build: Callable[..., T], sql: str, args: Sequence[Any] = ()) -> list[T]:
    """Rows as `build` makes them from their columns, passed by name (a row type, or a function)."""
    cursor = db.execute_sql(sql, list(args))
    names = [d[0] for d in cursor.description]
    return [build(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def select_keyed(
    db: SqliteDatabase, build: Callable[..., T], sql: str, args: Sequence[Any] = ()
) -> list[tuple[Any, T]]:  # Any: the first column's value, as the database gives it
    """(the first column, the row `build` makes of the others) for each row (a rowid, a key it was read for)."""
    cursor = db.execute_sql(sql, list(args))
    names = [d[0] for d in cursor.description][1:]
    return [(row[0], build(**dict(zip(names, row[1:], strict=True)))) for row in cursor.fetchall()]


def select_together(db: Any, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[list[dict[str, Any]]]:
    """Several reads' rows as dicts: one round trip on a server (pipelined), one after the other in SQLite."""
    if not dialect_of(db).pipelined_reads:
        return [select(db, sql, args) for sql, args in statements]
    return [[dict(zip(names, row, strict=True)) for row in rows] for names, rows in db.select_together(statements)]


def marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def interactions_by_rowid(db: SqliteDatabase, rowids: Sequence[int]) -> dict[int, TopicTurn]:
    if not rowids:
        return {}
    rows = select_keyed(
        db,
        TopicTurn,
        f"SELECT i.id AS _rowid, {INTERACTION_COLUMNS} FROM {INTERACTION_FROM} WHERE i.id IN ({marks(rowids)})",
        rowids,
    )
    return {rowid: r for rowid, r in rows}


def interactions_by_key(db: SqliteDatabase, keys: Sequence[str]) -> dict[str, TopicTurn]:
    if not keys:
        return {}
    rows = select_as(
        db,
        TopicTurn,
        f"SELECT {INTERACTION_COLUMNS} FROM {INTERACTION_FROM} WHERE i.interaction_id IN ({marks(keys)})",
        keys,
    )
    return {r.interaction_id: r for r in rows}


SITTING_GAP = 1800.0  # seconds: turns further apart than this were said in different sittings


# The turn said just before / after `h` from the same source (one conversation: several agent windows write
# through one service at once, so the row stored next may be another's), within the sitting's gap; by time,
# then by id (a turn synced late still takes its place in time; ids have gaps on PostgreSQL).
_BEFORE = (
    "(SELECT p.id FROM desk_interaction p WHERE p.source = h.source AND p.epoch >= h.epoch - ? "
    "AND (p.epoch < h.epoch OR (p.epoch = h.epoch AND p.id < h.id)) ORDER BY p.epoch DESC, p.id DESC LIMIT 1)"
)
_AFTER = (
    "(SELECT n.id FROM desk_interaction n WHERE n.source = h.source AND n.epoch <= h.epoch + ? "
    "AND (n.epoch > h.epoch OR (n.epoch = h.epoch AND n.id > h.id)) ORDER BY n.epoch, n.id LIMIT 1)"
)


def interaction_neighbours(db: SqliteDatabase, keys: Sequence[str]) -> list[tuple[str, TopicTurn]]:
    """(key, row) of the turns said just before and after each of `keys` from the same source (one
    conversation), when said within `SITTING_GAP` of it."""
    if not keys:
        return []
    rows = select_keyed(
        db,
        TopicTurn,
        f"SELECT h.interaction_id AS _of, {INTERACTION_COLUMNS} FROM desk_interaction h "
        f"JOIN desk_interaction i ON (i.id = {_BEFORE} OR i.id = {_AFTER}) "
        "LEFT JOIN desk_topic_interaction t ON t.interaction_id = i.interaction_id "
        f"WHERE h.interaction_id IN ({marks(keys)})",
        [SITTING_GAP, SITTING_GAP, *keys],
    )
    return [(str(of), r) for of, r in rows]


RECENT_INTERACTIONS = f"SELECT {INTERACTION_COLUMNS} FROM {INTERACTION_FROM} ORDER BY i.epoch DESC, i.id DESC LIMIT ?"
RECENT_CARDS = f"SELECT {CARD_COLUMNS} FROM desk_task_card ORDER BY epoch DESC, id DESC LIMIT ?"


def recent_interactions(db: SqliteDatabase, limit: int) -> list[TopicTurn]:
    """The newest turns by when they were said (a turn synced late still takes its place in time)."""
    return select_as(db, TopicTurn, RECENT_INTERACTIONS, [limit])


def cards_by_rowid(db: SqliteDatabase, rowids: Sequence[int]) -> dict[int, TaskCard]:
    if not rowids:
        return {}
    rows = select_keyed(
        db, TaskCard, f"SELECT id AS _rowid, {CARD_COLUMNS} FROM desk_task_card WHERE id IN ({marks(rowids)})", rowids
    )
    return {rowid: r for rowid, r in rows}


def cards_by_key(db: SqliteDatabase, keys: Sequence[str]) -> dict[str, TaskCard]:
    if not keys:
        return {}
    rows = select_as(db, TaskCard, f"SELECT {CARD_COLUMNS} FROM desk_task_card WHERE task_id IN ({marks(keys)})", keys)
    return {r.task_id: r for r in rows}


def recent_cards(db: SqliteDatabase, limit: int) -> list[TaskCard]:
    return select_as(db, TaskCard, RECENT_CARDS, [limit])
