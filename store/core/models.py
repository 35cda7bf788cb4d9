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


class BaseModel(Model):
    class Meta:
        database = None
        legacy_table_names = False


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
