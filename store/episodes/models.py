"""The episode archive's view tables: episodes, their apps and tool events, folded aggregates, scored
recall and lessons (rebuilt from the `experience`, `recall` and `lesson` events)."""

from __future__ import annotations

from peewee import (
    BooleanField,
    FloatField,
    IntegerField,
    TextField,
)

from store.core.models import BaseModel


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
    record = TextField(default="{}")  # the aggregate as the archive record gave it (type, schema_v ...), JSON

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


class RecallBaseline(BaseModel):
    """Recall counters imported from the reference's `recall_stats.json` (the newest import), which
    Jiyi's own evaluations add to."""

    source = TextField(primary_key=True)  # "taskwizard"
    seq = IntegerField()
    stats = TextField()  # the file's object, JSON

    class Meta:
        table_name = "recall_baseline"


class RecallErrorCount(BaseModel):
    """Recall failures per namespace (`episode`, `app_alias`, `procedure`), persisted as events."""

    namespace = TextField(primary_key=True)
    count = IntegerField()

    class Meta:
        table_name = "recall_error_count"


class RecallProcedureCount(BaseModel):
    """Jiyi's own procedure-card selections, summed (`runs`, `hits`, `candidates`, `filtered`, `reason:<why>`),
    from the `procedure_selected` events."""

    name = TextField(primary_key=True)
    count = IntegerField()

    class Meta:
        table_name = "recall_procedure_count"


# Covering indexes for the console's reads at 100k (docs/console-speed.md); migration 3 gives them to the views
# of homes made before (store/core/migrations.py, same names and columns).
Episode.add_index(Episode.index(Episode.ts_end, Episode.run_id, Episode.goal_text, name="episode_recent"))
RecallEval.add_index(
    RecallEval.index(
        RecallEval.ts,
        RecallEval.recalled,
        RecallEval.hit,
        RecallEval.hit_at_1,
        RecallEval.contaminated,
        RecallEval.true_positives,
        RecallEval.predictions,
        RecallEval.actuals,
        RecallEval.run_id,
        name="recall_eval_counters",
    )
)
RecallEvalApp.add_index(
    RecallEvalApp.index(
        RecallEvalApp.package,
        RecallEvalApp.recalled,
        RecallEvalApp.actual,
        RecallEvalApp.run_id,
        name="recall_eval_app_counts",
    )
)


class Lesson(BaseModel):
    """A lesson an agent may be given in `on` mode, once a person approved it (domain `lessons`)."""

    lesson_id = TextField(primary_key=True)
    text = TextField()
    apps = TextField()  # space-separated packages it is about ("" for any)
    status = TextField(index=True)  # see store.episodes.lessons.STATUSES
    created = TextField()
    updated = TextField()
    kind = TextField(default="rule")  # rule, or procedure (a card of steps)
    version = IntegerField(default=1)
    record = TextField(default="")  # the reference's lesson object for one imported from it (JSON), else ""

    class Meta:
        table_name = "lesson"
