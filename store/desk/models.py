"""The `desk` domain's view tables (rebuilt from the event log like every view).

Raw interactions are never rewritten: topics link to them through
`TopicInteraction`, whose unique `interaction_id` makes "assigned exactly
once" a property of the database. `Unarchived` lists the interactions no
topic holds yet, so the backlog costs its own size, not the archive's.
"""

from __future__ import annotations

from typing import ClassVar

from peewee import AutoField, BooleanField, CompositeKey, FloatField, IntegerField, TextField
from playhouse.sqlite_ext import FTS5Model, SearchField

from store.core.models import BaseModel


class Interaction(BaseModel):
    id = AutoField()
    interaction_id = TextField(unique=True)
    ts = TextField()
    epoch = FloatField(index=True)
    workday = TextField(index=True)
    source = TextField(default="")
    user_text = TextField(default="")
    assistant_text = TextField(default="")
    task_id = TextField(null=True, index=True)

    class Meta:
        table_name = "desk_interaction"


class Unarchived(BaseModel):
    interaction = IntegerField(primary_key=True)  # Interaction.id

    class Meta:
        table_name = "desk_unarchived"


class TaskCard(BaseModel):
    id = AutoField()
    task_id = TextField(unique=True)
    title = TextField()
    status = TextField(index=True)
    result = TextField(default="")
    schedule_id = TextField(null=True, index=True)
    run_id = TextField(null=True)
    interaction_id = TextField(null=True)
    source = TextField(default="")
    ts = TextField()
    epoch = FloatField(index=True)
    workday = TextField(index=True)

    class Meta:
        table_name = "desk_task_card"


class Topic(BaseModel):
    id = AutoField()
    topic_id = TextField(unique=True)
    title = TextField()
    summary = TextField(default="")
    kind = TextField(default="task")  # task / chat / discussion
    task_ids = TextField(default="")  # space-separated execution task ids
    created = TextField()
    updated = TextField()
    updated_epoch = FloatField(index=True)
    first_workday = TextField()
    last_workday = TextField(index=True)
    interactions = IntegerField(default=0)

    class Meta:
        table_name = "desk_topic"


class TopicInteraction(BaseModel):
    interaction_id = TextField(primary_key=True)  # exactly one topic per interaction
    topic_id = TextField(index=True)
    workday = TextField()
    epoch = FloatField()

    class Meta:
        table_name = "desk_topic_interaction"
        indexes = ((("topic_id", "epoch"), False),)


class TopicSegment(BaseModel):
    id = AutoField()
    topic_id = TextField()
    workday = TextField(index=True)
    summary = TextField()
    updated = TextField()

    class Meta:
        table_name = "desk_topic_segment"
        indexes = ((("topic_id", "workday"), True),)


class Fact(BaseModel):
    id = AutoField()
    fact_id = TextField(unique=True)
    scope = TextField(index=True)  # profile / project / environment
    profile_kind = TextField(null=True)
    project = TextField(null=True)
    content = TextField()
    status = TextField(index=True)  # candidate / active / inactive
    status_reason = TextField(default="")
    created = TextField()
    updated = TextField()
    first_workday = TextField()
    last_evidence_workday = TextField()
    valid_workdays = TextField(default="")  # space-separated workdays with independent evidence
    used = IntegerField(default=0)
    marks = TextField(default="", index=True)  # `fact_likeness.marks_key`: where its near-duplicates are looked for

    class Meta:
        table_name = "desk_fact"


class FactEvidence(BaseModel):
    id = AutoField()
    fact_id = TextField(index=True)
    source_kind = TextField()  # interaction / task
    source_id = TextField()
    speaker = TextField()  # user / assistant / task
    quote = TextField()
    workday = TextField()
    ts = TextField()
    counts = BooleanField()  # independent evidence (user words or a task result), not a restatement

    class Meta:
        table_name = "desk_fact_evidence"


class Skill(BaseModel):
    skill_id = TextField(primary_key=True)
    name = TextField()
    text = TextField()
    status = TextField(index=True)  # draft / active / disabled / rejected
    source_interaction_id = TextField(null=True)
    source_quote = TextField(default="")  # the user's guidance it came from, verbatim
    created = TextField()
    updated = TextField()
    decided_by = TextField(default="")
    user_request = TextField(default="")
    request_interaction_id = TextField(null=True)  # the user's turn an agent's activation named

    class Meta:
        table_name = "desk_skill"


class Bundle(BaseModel):
    bundle_id = TextField(primary_key=True)  # "<kind>/<key>"
    kind = TextField(index=True)
    key = TextField()
    title = TextField(default="")
    created = TextField()
    updated = TextField()

    class Meta:
        table_name = "desk_bundle"


class BundleDocument(BaseModel):
    id = AutoField()
    bundle_id = TextField()
    path = TextField()
    revision = IntegerField()
    content = TextField()
    updated = TextField()
    actor = TextField()

    class Meta:
        table_name = "desk_bundle_document"
        indexes = ((("bundle_id", "path"), True),)


class RefusedBundleEvent(BaseModel):
    """A bundle event the view refused to apply: its bundle id or path is none Jiyi writes (one climbing
    out of the bundles folder, from a restored database or another host). It stays in the log."""

    seq = IntegerField(primary_key=True)  # the event's
    type = TextField()
    bundle_id = TextField()  # as stored, cut to 200 characters
    path = TextField(default="")
    reason = TextField()
    ts = TextField()

    class Meta:
        table_name = "desk_refused_bundle_event"


class Consolidation(BaseModel):
    id = AutoField()
    ts = TextField()
    epoch = FloatField(index=True)
    kind = TextField(index=True)
    workday = TextField(null=True, index=True)
    summary = TextField(default="")
    detail = TextField(default="{}")  # JSON
    actor = TextField()

    class Meta:
        table_name = "desk_consolidation"


class EmbedQueue(BaseModel):
    """Items whose text changed since the desk index last embedded them (the index lag)."""

    kind = TextField()  # interaction / task / topic / fact
    item = IntegerField()  # the row's id in its view table
    seq = IntegerField()  # the event that changed it: a dequeue removes only what it embedded

    class Meta:
        table_name = "desk_embed_queue"
        primary_key = CompositeKey("kind", "item")


class InteractionFts(FTS5Model):  # type: ignore[misc]  # playhouse ships no types: FTS5Model is Any
    tokens = SearchField()

    class Meta:
        table_name = "desk_interaction_fts"
        options: ClassVar[dict[str, str]] = {"tokenize": "unicode61"}


class TaskCardFts(FTS5Model):  # type: ignore[misc]  # playhouse ships no types: FTS5Model is Any
    tokens = SearchField()

    class Meta:
        table_name = "desk_task_card_fts"
        options: ClassVar[dict[str, str]] = {"tokenize": "unicode61"}


class TopicFts(FTS5Model):  # type: ignore[misc]  # playhouse ships no types: FTS5Model is Any
    tokens = SearchField()

    class Meta:
        table_name = "desk_topic_fts"
        options: ClassVar[dict[str, str]] = {"tokenize": "unicode61"}


class FactFts(FTS5Model):  # type: ignore[misc]  # playhouse ships no types: FTS5Model is Any
    tokens = SearchField()

    class Meta:
        table_name = "desk_fact_fts"
        options: ClassVar[dict[str, str]] = {"tokenize": "unicode61"}


DESK_MODELS = (
    Interaction,
    Unarchived,
    TaskCard,
    Topic,
    TopicInteraction,
    TopicSegment,
    Fact,
    FactEvidence,
    Skill,
    Bundle,
    BundleDocument,
    RefusedBundleEvent,
    Consolidation,
    EmbedQueue,
    InteractionFts,
    TaskCardFts,
    TopicFts,
    FactFts,
)
