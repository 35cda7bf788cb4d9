"""Peewee models. Tables are bound to a database by `Store.open`, never at import.

`Event` and `MetaValue` are the truth and change only through migrations;
every other table is a view that can be dropped and rebuilt from `Event`,
and lives with its domain (`store.appkb.models`, `store.episodes.models`,
`store.desk.models`).
"""

from __future__ import annotations

from typing import Any

from peewee import (
    AutoField,
    IntegerField,
    Model,
    TextField,
)

from store.core.dialect import dialect_of


class BaseModel(Model):
    class Meta:
        database = None
        legacy_table_names = False

    @classmethod
    def replace(cls, __data: Any = None, **insert: Any) -> Any:
        """INSERT OR REPLACE on SQLite; on PostgreSQL the same as an upsert on the primary key."""
        return _replacing(cls, cls.insert(__data, **insert))


def _replacing(model: type[BaseModel], query: Any) -> Any:
    if dialect_of(model._meta.database).insert_or_replace:
        return query.on_conflict("REPLACE")
    keys = list(model._meta.get_primary_keys())
    names = {f.name for f in keys}  # by name: a field's == builds an SQL expression
    rest = [f for f in model._meta.sorted_fields if f.name not in names]
    return query.on_conflict(conflict_target=keys, preserve=rest) if rest else query.on_conflict_ignore()


class Event(BaseModel):
    """One appended fact. `subject` is a per-domain key for fast history reads."""

    seq = AutoField()
    ts = TextField()
    domain = TextField()
    type = TextField()
    schema_v = IntegerField(default=1)
    actor = TextField()
    payload = TextField()
    txn = IntegerField(null=True)
    subject = TextField(null=True)

    class Meta:
        table_name = "event"
        indexes = ((("domain", "subject"), False), (("txn",), False))


class MetaValue(BaseModel):
    key = TextField(primary_key=True)
    value = TextField()

    class Meta:
        table_name = "meta"


TRUTH_MODELS: list[type[BaseModel]] = [Event, MetaValue]


def tuples(query: Any) -> list[tuple[Any, ...]]:
    """Run `query` and return plain tuples (peewee's stubs type `.tuples()` as model rows)."""
    return [tuple(row) for row in query.tuples()]
