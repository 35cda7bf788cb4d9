"""Interactions (completed question-and-answer turns) and task cards.

An interaction is written once per `interaction_id`: a repeat with the same
content is a no-op, a repeat with different content is a `Conflict` (raw
records are never rewritten). `source` is kept as metadata and never filters
a search. Every text passes the safe-text filter first.
"""

from __future__ import annotations

from dataclasses import dataclass

from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, NotFound
from store.core.redaction.redactor import Redactor
from store.desk import rows
from store.desk.common import When, check_id, check_name, safe_text
from store.desk.models import Interaction, TaskCard, TopicInteraction
from store.desk.projection import DOMAIN

MAX_TURN_CHARS = 8000
MAX_RESULT_CHARS = 4000
TASK_STATUSES = ("succeeded", "failed", "cancelled", "partial")


@dataclass(frozen=True)
class RememberResult:
    interaction_id: str
    created: bool
    workday: str
    truncated: bool


def turn_row(row: Interaction, topic_id: str | None = None) -> rows.TopicTurn:
    """An interaction as the store reads it (`topic_id`: the topic that holds it, if any)."""
    return rows.TopicTurn(
        interaction_id=row.interaction_id,
        ts=row.ts,
        workday=row.workday,
        source=row.source,
        user_text=row.user_text,
        assistant_text=row.assistant_text,
        task_id=row.task_id,
        topic_id=topic_id,
    )


def card_row(row: TaskCard) -> rows.TaskCard:
    """A task card as the store reads it."""
    return rows.TaskCard(
        task_id=row.task_id,
        title=row.title,
        status=row.status,
        result=row.result,
        schedule_id=row.schedule_id,
        run_id=row.run_id,
        interaction_id=row.interaction_id,
        source=row.source,
        ts=row.ts,
        epoch=row.epoch,
        workday=row.workday,
    )


@dataclass(frozen=True)
class Turn:
    """An interaction checked and filtered, ready to be written (`prepare_turn`, then `write_turn`)."""

    interaction_id: str
    user_text: str
    assistant_text: str
    source: str
    task_id: str | None
    at: When
    actor: str
    truncated: bool


def prepare_turn(
    redactor: Redactor,
    *,
    interaction_id: str,
    user_text: object,
    assistant_text: object,
    source: object,
    task_id: object,
    at: When,
    actor: str,
) -> Turn:
    """Check and filter a turn; needs no database (so a host does it before taking the write lock)."""
    check_id(interaction_id, "interaction_id", redactor)
    if task_id is not None:
        check_id(task_id, "task_id", redactor)
    if source is not None and not isinstance(source, str):
        raise InvalidInput("source must be a string")
    user, cut_user = safe_text(redactor, user_text, "user_text", MAX_TURN_CHARS)
    reply, cut_reply = safe_text(redactor, assistant_text, "assistant_text", MAX_TURN_CHARS)
    if not user and not reply:
        raise InvalidInput("an interaction needs user_text or assistant_text")
    src = redactor.redact(str(source or "").strip())[:64]
    task = task_id if isinstance(task_id, str) else None
    return Turn(interaction_id, user, reply, src, task, at, actor, cut_user or cut_reply)


def write_turn(store: Store, turn: Turn) -> RememberResult:
    """Keep a prepared turn (idempotent by its id: the same text again is a no-op, other text a `Conflict`)."""
    with store.atomic():
        old = store.db.execute_sql(
            "SELECT user_text, assistant_text, workday FROM desk_interaction WHERE interaction_id = ?",
            (turn.interaction_id,),
        ).fetchone()
        if old is not None:
            if (old[0], old[1]) != (turn.user_text, turn.assistant_text):
                raise Conflict(
                    f"interaction {turn.interaction_id} is already remembered with other text; "
                    "raw interactions are never rewritten"
                )
            return RememberResult(turn.interaction_id, False, old[2], turn.truncated)
        store.append(
            DOMAIN,
            "interaction_remembered",
            {
                "interaction_id": turn.interaction_id,
                "ts": turn.at.iso,
                "epoch": turn.at.epoch,
                "workday": turn.at.workday,
                "source": turn.source,
                "user_text": turn.user_text,
                "assistant_text": turn.assistant_text,
                "task_id": turn.task_id,
            },
            actor=turn.actor,
        )
    return RememberResult(turn.interaction_id, True, turn.at.workday, turn.truncated)


def remember(
    store: Store,
    redactor: Redactor,
    *,
    interaction_id: str,
    user_text: object,
    assistant_text: object,
    source: object,
    task_id: object,
    at: When,
    actor: str,
) -> RememberResult:
    """Keep one completed turn: `prepare_turn` then `write_turn`."""
    turn = prepare_turn(
        redactor,
        interaction_id=interaction_id,
        user_text=user_text,
        assistant_text=assistant_text,
        source=source,
        task_id=task_id,
        at=at,
        actor=actor,
    )
    return write_turn(store, turn)


def get_interaction(store: Store, interaction_id: str) -> rows.TopicTurn:
    row = Interaction.get_or_none(Interaction.interaction_id == interaction_id)
    if row is None:
        raise NotFound(f"no interaction {interaction_id!r}")
    link = TopicInteraction.get_or_none(TopicInteraction.interaction_id == interaction_id)
    return turn_row(row, link.topic_id if link else None)


def complete_task(
    store: Store,
    redactor: Redactor,
    *,
    task_id: str,
    title: object,
    status: object,
    result: object,
    schedule_id: object,
    run_id: object,
    interaction_id: object,
    source: object,
    at: When,
    actor: str,
) -> tuple[rows.TaskCard, bool]:
    """Save the task card of a finished task; (card, whether anything changed)."""
    check_id(task_id, "task_id", redactor)
    # A schedule and its runs name the bundle's folders: they must fit a file name.
    for value, what, check in (
        (schedule_id, "schedule_id", check_name),
        (run_id, "run_id", check_name),
        (interaction_id, "interaction_id", check_id),
    ):
        if value is not None:
            check(value, what, redactor)
    if schedule_id is not None and run_id is None:
        raise InvalidInput("a scheduled task needs its run_id (the bundle keeps one summary per run)")
    if status not in TASK_STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(TASK_STATUSES)}")
    clean_title, _ = safe_text(redactor, title, "title", 200)
    if not clean_title:
        raise InvalidInput("a task card needs a title")
    clean_result, _ = safe_text(redactor, result, "result", MAX_RESULT_CHARS)
    payload = {
        "task_id": task_id,
        "title": clean_title,
        "status": status,
        "result": clean_result,
        "schedule_id": schedule_id,
        "run_id": run_id,
        "interaction_id": interaction_id,
        "source": redactor.redact(str(source or "").strip())[:64],
    }
    with store.atomic():
        old = TaskCard.get_or_none(TaskCard.task_id == task_id)
        if old is not None and all(getattr(old, k) == v for k, v in payload.items()):
            return card_row(old), False
        store.append(
            DOMAIN, "task_completed", {**payload, "ts": at.iso, "epoch": at.epoch, "workday": at.workday}, actor=actor
        )
    return card_row(TaskCard.get(TaskCard.task_id == task_id)), True


def list_tasks(
    store: Store, *, status: str | None = None, schedule_id: str | None = None, limit: int = 50, offset: int = 0
) -> list[rows.TaskCard]:
    query = TaskCard.select()
    if status is not None:
        query = query.where(TaskCard.status == status)
    if schedule_id is not None:
        query = query.where(TaskCard.schedule_id == schedule_id)
    return [card_row(r) for r in query.order_by(TaskCard.epoch.desc(), TaskCard.id.desc()).limit(limit).offset(offset)]
