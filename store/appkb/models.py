"""The App-KB's view table (rebuilt from the `app_kb` events)."""

from __future__ import annotations

from peewee import (
    AutoField,
    BooleanField,
    FloatField,
    IntegerField,
    TextField,
)

from store.core.models import BaseModel


class AppEntry(BaseModel):
    """The App-KB view: one row per (term, package, kind, scope)."""

    id = AutoField()
    term = TextField()
    term_norm = TextField(index=True)
    term_pinyin = TextField(default="")  # "full initials" of the term and label, for searching by sound
    name_pinyin = TextField(default="")  # "full initials": the resolver's key of the term (store.core.pinyin)
    label = TextField()
    package = TextField(index=True)
    kind = TextField()
    scope = TextField(index=True)
    confidence = FloatField()
    success_count = IntegerField(default=0)
    first_seen = TextField()
    last_seen = TextField()
    last_success = TextField(null=True)
    stale = BooleanField(default=False)

    class Meta:
        table_name = "app_entry"
        indexes = ((("term", "package", "kind", "scope"), True),)
