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


class NameKey(BaseModel):
    """The resolver's pinyin key (`store.core.pinyin`) of each Chinese name the App-KB's view has held, by the
    name as the resolver indexes it (`name_forms.normalize(term).alnum`): a pure function of the name, kept so
    that resolving loads no pypinyin. A table of its own, so that a view an older Jiyi wrote, read as it is on a
    read-only home, lacks only this."""

    alnum = TextField(primary_key=True)
    full = TextField()
    initials = TextField()

    class Meta:
        table_name = "app_name_key"
