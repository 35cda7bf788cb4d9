"""The `learning` domain's view tables, rebuilt from its events like every view.

Plain peewee models with portable types (text, integers, booleans): the
same tables work on SQLite and PostgreSQL.
"""

from __future__ import annotations

from peewee import BooleanField, IntegerField, TextField

from store.core.models import BaseModel


class LearningGrant(BaseModel):
    """One registered grant (immutable for its id) and its three quotas' use."""

    grant_id = TextField(primary_key=True)
    owner = TextField()
    parts = TextField()  # JSON: the validated extraction/review/adoption parts
    fingerprints = TextField()  # JSON: part -> sha256
    expires_at = TextField()
    registered = TextField()
    extractions_used = IntegerField(default=0)
    reviews_used = IntegerField(default=0)
    mutations_used = IntegerField(default=0)
    bytes_used = IntegerField(default=0)

    class Meta:
        table_name = "learning_grant"


class LearningCursor(BaseModel):
    """How far a feed has read the event log (the seq of the last event consumed)."""

    feed = TextField(primary_key=True)  # completion / objective
    seq = IntegerField()
    updated = TextField()

    class Meta:
        table_name = "learning_cursor"


class LearningIntent(BaseModel):
    """One source waiting to be learned from, and where it stands; at most one candidate."""

    intent_id = TextField(primary_key=True)
    grant_id = TextField(index=True)
    feed = TextField()
    source_kind = TextField()  # interaction / task / run
    source_id = TextField()
    source_fp = TextField()
    source_ts = TextField()
    state = TextField(index=True)
    reason = TextField(default="")
    candidate = TextField(null=True)  # JSON
    queued = TextField()
    updated = TextField()

    class Meta:
        table_name = "learning_intent"
        indexes = ((("source_kind", "source_id"), False),)


class LearningOperation(BaseModel):
    """One extraction lease: its persisted snapshot, deadline and outcome."""

    operation_id = TextField(primary_key=True)
    intent_id = TextField(index=True)
    grant_id = TextField()
    request_id = TextField()
    snapshot = TextField()  # JSON
    deadline = TextField()
    state = TextField(index=True)  # leased / submitted / failed
    reason = TextField(default="")
    created = TextField()
    updated = TextField()

    class Meta:
        table_name = "learning_operation"


class LearningReview(BaseModel):
    """One review lease and its verdict."""

    review_id = TextField(primary_key=True)
    intent_id = TextField(index=True)
    grant_id = TextField()
    request_id = TextField()
    reviewer = TextField()  # worker / owner
    deadline = TextField()
    state = TextField(index=True)  # leased / approved / rejected / failed
    reason = TextField(default="")
    created = TextField()
    updated = TextField()

    class Meta:
        table_name = "learning_review"


class LearningRecord(BaseModel):
    """An adopted record: where it went, its provenance, its expiry; `managed` until a person edits it."""

    record_id = TextField(primary_key=True)
    version = IntegerField()
    grant_id = TextField()
    kind = TextField(index=True)
    content = TextField()
    state = TextField(index=True)  # active / removed / revoked / expired
    managed = BooleanField(default=True)
    target_ref = TextField()  # fact:<id> / lesson:<id> / skill:<id>
    provenance = TextField()  # JSON
    bytes = IntegerField()
    expires_at = TextField(index=True)
    created = TextField()
    updated = TextField()
    reason = TextField(default="")

    class Meta:
        table_name = "learning_record"


class LearningRequest(BaseModel):
    """The ledger of answered requests: the same request_id gets the same reply."""

    request_id = TextField(primary_key=True)
    method = TextField()
    fingerprint = TextField()
    reply = TextField()  # JSON
    ts = TextField()

    class Meta:
        table_name = "learning_request"


# The learning page's tables, newest first and paged by key (`updated DESC, id`), all rows or one state's, read
# from the index without a sort; migration 5 gives them to the views of homes made before (store/core/migrations.py,
# `LEARNING_PAGE_INDEXES`: same names and columns).
LearningIntent.add_index(
    LearningIntent.index(LearningIntent.updated.desc(), LearningIntent.intent_id, name="learning_intent_page")
)
LearningIntent.add_index(
    LearningIntent.index(
        LearningIntent.state, LearningIntent.updated.desc(), LearningIntent.intent_id, name="learning_intent_state_page"
    )
)
LearningRecord.add_index(
    LearningRecord.index(LearningRecord.updated.desc(), LearningRecord.record_id, name="learning_record_page")
)
LearningRecord.add_index(
    LearningRecord.index(
        LearningRecord.state, LearningRecord.updated.desc(), LearningRecord.record_id, name="learning_record_state_page"
    )
)

LEARNING_MODELS = (
    LearningGrant,
    LearningCursor,
    LearningIntent,
    LearningOperation,
    LearningReview,
    LearningRecord,
    LearningRequest,
)
