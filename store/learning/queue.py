"""Reads of the learning views as the socket and the console show them: the queue of intents, one intent with
its leases and verdicts, the failure history, the records a system prompt holds, the counts of `status`.

Every query the learning service answers with lives here (or in its siblings), so the service composes
store functions and never builds SQL or peewee queries itself.
"""

from __future__ import annotations

from typing import TypedDict

import msgspec

from store.core import clock
from store.core.errors import NotFound
from store.learning import records, sources, sql
from store.learning.models import LearningIntent, LearningOperation, LearningRecord, LearningReview
from store.learning.rows import IntentOperation, IntentReview, LearningCandidate, LearningIntentDetail
from store.learning.rows import LearningIntent as IntentRow

FAILED_STATES = ("failed", "stopped", "refused")
PROMPT_RECORDS = 200


def intent_row(row: LearningIntent) -> IntentRow:
    """An intent as the socket shows it."""
    return IntentRow(
        intent_id=row.intent_id,
        grant_id=row.grant_id,
        feed=row.feed,
        source_kind=row.source_kind,
        source_id=row.source_id,
        source_fp=row.source_fp,
        state=row.state,
        reason=row.reason,
        candidate=msgspec.json.decode(row.candidate, type=LearningCandidate) if row.candidate else None,
        queued=row.queued,
        updated=row.updated,
    )


def intents(state: str | None, limit: int, offset: int, after: tuple[str, str] | None = None) -> list[IntentRow]:
    """Intents, newest first (`updated`, then id), optionally of one state; `after` (an intent's
    `[updated, intent_id]`) pages by key: only the intents after it in that order."""
    query = LearningIntent.select()
    if state is not None:
        query = query.where(LearningIntent.state == state)
    if after is not None:
        updated, intent_id = after
        query = query.where(
            (LearningIntent.updated < updated)
            | ((LearningIntent.updated == updated) & (LearningIntent.intent_id > intent_id))
        )
    rows = query.order_by(LearningIntent.updated.desc(), LearningIntent.intent_id).limit(limit).offset(offset)
    return [intent_row(r) for r in rows]


def intent_detail(intent_id: str) -> LearningIntentDetail:
    """One intent with its source as stored now, its leases and verdicts; `NotFound` naming an unknown id."""
    row = LearningIntent.get_or_none(LearningIntent.intent_id == intent_id)
    if row is None:
        raise NotFound(f"no learning intent {intent_id!r}")
    source = sources.read(row.source_kind, row.source_id)
    ops = LearningOperation.select().where(LearningOperation.intent_id == intent_id).order_by(LearningOperation.created)
    revs = LearningReview.select().where(LearningReview.intent_id == intent_id).order_by(LearningReview.created)
    return LearningIntentDetail(
        **msgspec.structs.asdict(intent_row(row)),
        source=None if source is None else source.row(),
        source_changed=source is None or source.fingerprint != row.source_fp,
        operations=[
            IntentOperation(operation_id=o.operation_id, state=o.state, reason=o.reason, created=o.created) for o in ops
        ],
        reviews=[
            IntentReview(review_id=r.review_id, reviewer=r.reviewer, state=r.state, reason=r.reason, created=r.created)
            for r in revs
        ],
    )


def intent_state(intent_id: object) -> str | None:
    """The state of one intent (None when there is none of that id)."""
    row = LearningIntent.get_or_none(LearningIntent.intent_id == intent_id)
    return None if row is None else str(row.state)


def failures(limit: int) -> list[IntentRow]:
    """Intents that failed, were stopped or refused at adoption, newest first."""
    rows = (
        LearningIntent.select()
        .where(LearningIntent.state.in_(FAILED_STATES))
        .order_by(LearningIntent.updated.desc())
        .limit(limit)
    )
    return [intent_row(r) for r in rows]


class PromptRecord(TypedDict):
    """An adopted record as a system prompt holds it."""

    id: str
    kind: str  # fact / lesson / procedure
    content: str
    target: str  # fact:<id> / lesson:<id>


def prompt_records() -> list[PromptRecord]:
    """Active, unexpired adopted facts, lessons and procedures whose targets are intact, newest first."""
    rows = (
        LearningRecord.select()
        .where(
            (LearningRecord.state == "active")
            & (LearningRecord.expires_at > clock.iso_now())
            & (LearningRecord.kind != "skill_draft")
        )
        .order_by(LearningRecord.updated.desc())
        .limit(PROMPT_RECORDS)
    )
    return [
        {"id": r.record_id, "kind": r.kind, "content": r.content, "target": r.target_ref}
        for r in rows
        if records.target_intact(r)
    ]


def record_row(record_id: str) -> LearningRecord:
    """One adopted record; `NotFound` naming an unknown id."""
    row = LearningRecord.get_or_none(LearningRecord.record_id == record_id)
    if row is None:
        raise NotFound(f"no adopted record {record_id!r}")
    return row


def state_counts(states: tuple[str, ...]) -> dict[str, int]:
    """How many intents are in each of `states` (every one named, zero when none)."""
    counts = dict.fromkeys(states, 0)
    db = LearningIntent._meta.database
    for group in sql.rows(db, "SELECT state, COUNT(*) AS n FROM learning_intent GROUP BY state"):
        counts[group["state"]] = int(group["n"])
    return counts


def active_records() -> int:
    """How many adopted records are active."""
    db = LearningRecord._meta.database
    return int(db.execute_sql("SELECT COUNT(*) FROM learning_record WHERE state = 'active'").fetchone()[0])
