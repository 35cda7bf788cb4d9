"""Peewee models. Tables are bound to a database by `Store.open`, never at import.

`Event` and `MetaValue` are the truth and change only through migrations;
every other table is a view that can be dropped and rebuilt from `Event`.
"""

from __future__ import annotations

from typing import Any

from peewee import (
    AutoField,
    BooleanField,
    FloatField,
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


TRUTH_MODELS: list[type[BaseModel]] = [Event, MetaValue]


def tuples(query: Any) -> list[tuple[Any, ...]]:
    """Run `query` and return plain tuples (peewee's stubs type `.tuples()` as model rows)."""
    return [tuple(row) for row in query.tuples()]


class Episode(BaseModel):
    """The episode view: one row per archived run (the newest outcome wins)."""

    run_id = TextField(primary_key=True)
    ts_start = FloatField()
    ts_end = FloatField(index=True)
    device_scope = TextField(index=True)
    goal_text = TextField()
    first_app = TextField(null=True, index=True)
    success = BooleanField()
    reason = TextField()
    steps = IntegerField()
    tokens_total = IntegerField()
    verifier = TextField()
    revoked = BooleanField(default=False)
    record = TextField()  # the whole validated outcome, JSON

    class Meta:
        table_name = "episode"


class EpisodeApp(BaseModel):
    """Which apps an episode used (for filtering by app)."""

    run_id = TextField(index=True)
    package = TextField(index=True)

    class Meta:
        table_name = "episode_app"
        indexes = ((("package", "run_id"), True),)


class ToolEvent(BaseModel):
    """The tool-event timeline of runs (experience_event records)."""

    seq = IntegerField(primary_key=True)
    run_id = TextField(index=True)
    step = IntegerField()
    ts = FloatField()
    tool = TextField()
    result_class = TextField()
    app_package = TextField(null=True)
    intent = TextField(null=True)
    note = TextField(null=True)

    class Meta:
        table_name = "tool_event"


class EpisodeAggregate(BaseModel):
    """Folded episodes per task category (`aggregate:<category>`)."""

    category = TextField(primary_key=True)
    episodes = IntegerField()
    successes = IntegerField()
    success_rate = FloatField()
    ts_start = FloatField()
    ts_end = FloatField()

    class Meta:
        table_name = "episode_aggregate"


class RecallEval(BaseModel):
    """One run's recall, scored at run end (domain `recall`)."""

    run_id = TextField(primary_key=True)
    ts = FloatField(index=True)
    device_scope = TextField()
    mode = TextField()
    embedder = TextField()
    recalled = IntegerField()  # 1 when anything was recalled
    hit = IntegerField()
    hit_at_1 = IntegerField()
    contaminated = IntegerField()
    true_positives = IntegerField()
    predictions = IntegerField()
    actuals = IntegerField()
    trace = TextField()  # JSON: query, candidates, recalled/top1/actual apps, latency

    class Meta:
        table_name = "recall_eval"


class RecallEvalApp(BaseModel):
    """Per package of one evaluation: recalled and/or actually launched."""

    run_id = TextField(index=True)
    package = TextField(index=True)
    recalled = BooleanField()
    actual = BooleanField()

    class Meta:
        table_name = "recall_eval_app"


class Lesson(BaseModel):
    """A lesson an agent may be given in `on` mode, once a person approved it (domain `lessons`)."""

    lesson_id = TextField(primary_key=True)
    text = TextField()
    apps = TextField()  # space-separated packages it is about ("" for any)
    status = TextField(index=True)  # proposed / approved / revoked
    created = TextField()
    updated = TextField()

    class Meta:
        table_name = "lesson"
