"""Topics, their daily segments, and the maintenance commit that files interactions into them.

A commit is one transaction: it validates everything first (ids exist, every
interaction is listed once, none is already filed, facts' evidence appears
verbatim, skills come from the user's words) and writes nothing unless all
of it holds. An interaction already filed gets `Conflict`, naming the topic
that holds it, so two planners that raced on one batch cannot both win.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, TypedDict

from peewee import fn

from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, NotFound
from store.core.models import tuples
from store.core.redaction.redactor import Redactor
from store.desk import facts, rows, skills, sql
from store.desk.common import When, check_id, safe_text
from store.desk.interactions import card_row, turn_row
from store.desk.models import (
    Consolidation,
    Interaction,
    TaskCard,
    Topic,
    TopicInteraction,
    TopicSegment,
    Unarchived,
)
from store.desk.projection import DOMAIN
from store.desk.workday import is_workday

TOPIC_KINDS = ("task", "chat", "discussion")
MAX_TITLE = 80
MAX_SUMMARY = 600
MAX_SEGMENT = 200
MAX_BATCH = 500
OVERVIEW_WORKDAYS = 3


@dataclass(frozen=True)
class Filed:
    """An interaction being filed: just what the assignment needs."""

    interaction_id: str
    workday: str
    epoch: float


@dataclass(frozen=True)
class TopicRow:
    title: str
    summary: str
    kind: str
    task_ids: str


def stored_topic(store: Store, topic_id: str) -> TopicRow | None:
    row = store.db.execute_sql(
        "SELECT title, summary, kind, task_ids FROM desk_topic WHERE topic_id = ?", (topic_id,)
    ).fetchone()
    return TopicRow(*row) if row else None


@dataclass
class TopicPlan:
    topic_id: str
    new: bool
    title: str
    summary: str | None
    kind: str
    task_ids: list[str]
    interactions: list[Filed] = field(default_factory=list)
    segments: dict[str, str] = field(default_factory=dict)


def topic_row(row: Topic) -> rows.Topic:
    """A topic as the store lists it."""
    return rows.Topic(
        topic_id=row.topic_id,
        title=row.title,
        summary=row.summary,
        kind=row.kind,
        task_ids=row.task_ids.split(),
        first_workday=row.first_workday,
        last_workday=row.last_workday,
        interactions=row.interactions,
        updated=row.updated,
    )


class TopicWritten(TypedDict):
    """What a commit did with one topic (a commit's `topics`)."""

    topic_id: str
    created: bool
    assigned: int  # interactions filed into it


def backlog(store: Store) -> int:
    return int(Unarchived.select().count())


def unarchived(store: Store, limit: int, exclude: Collection[int] = ()) -> list[Interaction]:
    """The oldest interactions no topic holds yet, skipping `exclude` (row ids leased to others)."""
    query = (
        Interaction.select()
        .join(Unarchived, on=(Unarchived.interaction == Interaction.id))
        .order_by(Interaction.id)
        .limit(limit)
    )
    if exclude:
        query = query.where(Interaction.id.not_in(list(exclude)))
    return list(query)


def recent_topics(store: Store, limit: int = 20) -> list[rows.Topic]:
    return [topic_row(t) for t in Topic.select().order_by(Topic.updated_epoch.desc()).limit(limit)]


def _text(redactor: Redactor, value: object, what: str, max_chars: int) -> str:
    text, cut = safe_text(redactor, value, what, max_chars)
    if cut:
        raise InvalidInput(f"{what} is longer than {max_chars} characters; keep it short")
    return text


def _plan_topic(store: Store, redactor: Redactor, raw: object, where: str, at: When) -> TopicPlan:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where} must be an object")
    allowed = {"topic_id", "title", "summary", "kind", "task_ids", "interaction_ids", "segment", "segments"}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise InvalidInput(f"{where} has an unknown field {unknown[0]!r}")
    topic_id = raw.get("topic_id")
    existing = None
    if topic_id is not None:
        check_id(topic_id, f"{where}.topic_id", redactor)
        existing = stored_topic(store, topic_id)
    title = _text(redactor, raw.get("title"), f"{where}.title", MAX_TITLE)
    if existing is None and not title:
        raise InvalidInput(f"{where}.title is required for a new topic")
    summary = None if raw.get("summary") is None else _text(redactor, raw["summary"], f"{where}.summary", MAX_SUMMARY)
    kind = raw.get("kind", existing.kind if existing else "task")
    if kind not in TOPIC_KINDS:
        raise InvalidInput(f"{where}.kind must be one of {', '.join(TOPIC_KINDS)}")
    task_ids = raw.get("task_ids", [])
    if not isinstance(task_ids, list):
        raise InvalidInput(f"{where}.task_ids must be a list of task ids")
    for i, task_id in enumerate(task_ids):
        check_id(task_id, f"{where}.task_ids[{i}]", redactor)
    if topic_id is None:
        seed = f"{title}\x1f{at.iso}\x1f{json.dumps(raw.get('interaction_ids'), default=str)}"
        topic_id = "topic_" + hashlib.sha256(seed.encode()).hexdigest()[:16]
    plan = TopicPlan(
        topic_id=topic_id,
        new=existing is None,
        title=title or (existing.title if existing else ""),
        summary=summary,
        kind=str(kind),
        task_ids=list(task_ids),
    )
    plan.interactions = _filed_interactions(store, raw.get("interaction_ids", []), where)
    plan.segments = _segments(redactor, raw, where, [r.workday for r in plan.interactions] or [at.workday])
    if plan.new and not plan.interactions and not plan.segments:
        raise InvalidInput(f"{where}: a new topic needs interactions or a segment")
    return plan


def _filed_interactions(store: Store, ids: object, where: str) -> list[Filed]:
    """The interactions a topic plan names, in its order; every one must exist."""
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise InvalidInput(f"{where}.interaction_ids must be a list of interaction ids")
    if not ids:
        return []
    rows = {
        r[0]: Filed(*r)
        for r in store.db.execute_sql(
            f"SELECT interaction_id, workday, epoch FROM desk_interaction WHERE interaction_id IN ({sql.marks(ids)})",
            ids,
        ).fetchall()
    }
    missing = [i for i in ids if i not in rows]
    if missing:
        raise InvalidInput(f"{where}: no interaction {missing[0]!r}")
    return [rows[i] for i in ids]


def _segments(redactor: Redactor, raw: dict[str, Any], where: str, days: list[str]) -> dict[str, str]:
    """Workday → segment summary: `segment` applies to every day of the plan's interactions (`days`),
    `segments` names its days."""
    found: dict[str, str] = {}
    segment = raw.get("segment")
    if segment is not None:
        found.update(dict.fromkeys(sorted(set(days)), _text(redactor, segment, f"{where}.segment", MAX_SEGMENT)))
    segments = raw.get("segments", [])
    if not isinstance(segments, list):
        raise InvalidInput(f"{where}.segments must be a list of {{workday, summary}}")
    for i, item in enumerate(segments):
        if not isinstance(item, dict) or not is_workday(item.get("workday")):
            raise InvalidInput(f"{where}.segments[{i}] must be {{workday: YYYY-MM-DD, summary}}")
        found[item["workday"]] = _text(redactor, item.get("summary"), f"{where}.segments[{i}].summary", MAX_SEGMENT)
    return found


def commit(
    store: Store,
    redactor: Redactor,
    request: dict[str, Any],
    *,
    at: When,
    actor: str,
    batch: Collection[str] | None = None,
) -> dict[str, Any]:
    """File interactions into topics and save segments, facts and skill drafts, all or nothing.

    `batch` (the interaction ids of a lease) must be covered completely.
    """
    raw_topics, raw_facts, raw_skills = (request.get(k) or [] for k in ("topics", "facts", "skills"))
    for name, value in (("topics", raw_topics), ("facts", raw_facts), ("skills", raw_skills)):
        if not isinstance(value, list):
            raise InvalidInput(f"params.{name} must be a list")
    if not (raw_topics or raw_facts or raw_skills):
        raise InvalidInput("nothing to commit: give topics, facts or skills")
    note = _text(redactor, request.get("note"), "params.note", MAX_SUMMARY)
    with store.atomic():
        plans = [_plan_topic(store, redactor, t, f"params.topics[{i}]", at) for i, t in enumerate(raw_topics)]
        _check_assignments(store, plans, batch)
        fact_specs = [facts.parse_fact(store, redactor, f, f"params.facts[{i}]") for i, f in enumerate(raw_facts)]
        drafts = [skills.parse_draft(store, redactor, s, f"params.skills[{i}]") for i, s in enumerate(raw_skills)]
        topic_results = [_write_topic(store, plan, at, actor) for plan in plans]
        fact_results = [facts.record(store, spec, actor=actor) for spec in fact_specs]
        skill_results = [skills.draft(store, spec, actor=actor) for spec in drafts]
        assigned = sum(len(p.interactions) for p in plans)
        detail = {"topics": len(plans), "assigned": assigned, "facts": len(fact_specs), "skills": len(drafts)}
        store.append(
            DOMAIN,
            "maintenance_committed",
            {
                "epoch": at.epoch,
                "workday": at.workday,
                "summary": note,
                "detail": detail,
                "batch_id": _batch_id(request.get("batch_id")),
            },
            actor=actor,
        )
    return {
        "topics": topic_results,
        "facts": fact_results,
        "skills": skill_results,
        "assigned": assigned,
        "backlog": backlog(store),
    }


def _batch_id(value: object) -> str | None:
    """A batch id as `plan` makes them, else nothing (the log keeps no free text from here)."""
    return value if isinstance(value, str) and re.fullmatch(r"batch_[0-9a-f]{16}", value) else None


def _check_assignments(store: Store, plans: list[TopicPlan], batch: Collection[str] | None) -> None:
    listed: dict[str, str] = {}
    for plan in plans:
        for row in plan.interactions:
            if row.interaction_id in listed:
                raise InvalidInput(
                    f"interaction {row.interaction_id} is listed twice (topics {listed[row.interaction_id]} "
                    f"and {plan.topic_id}); each is filed exactly once"
                )
            listed[row.interaction_id] = plan.topic_id
    if listed:
        ids = list(listed)
        held = dict(
            store.db.execute_sql(
                "SELECT interaction_id, topic_id FROM desk_topic_interaction "
                f"WHERE interaction_id IN ({sql.marks(ids)})",
                ids,
            ).fetchall()
        )
        if held:
            first = next(iter(held))
            raise Conflict(
                f"interaction {first} is already filed under topic {held[first]}; "
                "each interaction is filed exactly once (plan again for a fresh batch)",
                {"already_filed": held},
            )
    if batch is not None:
        left = [i for i in batch if i not in listed]
        if left:
            raise InvalidInput(
                f"the batch is not fully filed: {', '.join(left[:5])}{' …' if len(left) > 5 else ''} "
                "have no topic; every interaction of a batch is filed exactly once"
            )


def _write_topic(store: Store, plan: TopicPlan, at: When, actor: str) -> TopicWritten:
    first_day = min([r.workday for r in plan.interactions] + list(plan.segments) or [at.workday])
    existing = stored_topic(store, plan.topic_id)
    payload: dict[str, object] = {
        "topic_id": plan.topic_id,
        "title": plan.title,
        "kind": plan.kind,
        "task_ids": plan.task_ids,
        "epoch": at.epoch,
        "workday": first_day,
    }
    if plan.summary is not None:
        payload["summary"] = plan.summary
    changed = existing is None or any(
        [
            plan.title != existing.title,
            plan.summary not in (None, existing.summary),
            plan.kind != existing.kind,
            bool(set(plan.task_ids) - set(existing.task_ids.split())),
        ]
    )
    if changed:
        store.append(DOMAIN, "topic_saved", payload, actor=actor)
    if plan.interactions:
        items = [[r.interaction_id, r.workday, r.epoch] for r in plan.interactions]
        for start in range(0, len(items), MAX_BATCH):
            store.append(
                DOMAIN,
                "interactions_assigned",
                {"topic_id": plan.topic_id, "items": items[start : start + MAX_BATCH]},
                actor=actor,
            )
    for workday, summary in sorted(plan.segments.items()):
        store.append(
            DOMAIN, "segment_saved", {"topic_id": plan.topic_id, "workday": workday, "summary": summary}, actor=actor
        )
    return {"topic_id": plan.topic_id, "created": plan.new, "assigned": len(plan.interactions)}


def get_topic(store: Store, topic_id: str, *, limit: int = 50, offset: int = 0) -> rows.TopicDetail:
    """A topic, its daily segments, its linked task cards, and one page of its interactions (oldest first)."""
    row = Topic.get_or_none(Topic.topic_id == topic_id)
    if row is None:
        raise NotFound(f"no topic {topic_id!r}")
    segments = TopicSegment.select().where(TopicSegment.topic_id == topic_id).order_by(TopicSegment.workday.desc())
    links = list(
        TopicInteraction.select(TopicInteraction.interaction_id)
        .where(TopicInteraction.topic_id == topic_id)
        .order_by(TopicInteraction.epoch, TopicInteraction.interaction_id)
        .limit(limit + 1)
        .offset(offset)
    )
    ids = [link.interaction_id for link in links[:limit]]
    turns = {r.interaction_id: r for r in Interaction.select().where(Interaction.interaction_id.in_(ids))}
    task_ids = row.task_ids.split()
    cards = TaskCard.select().where(TaskCard.task_id.in_(task_ids)) if task_ids else []
    return rows.TopicDetail(
        topic_id=row.topic_id,
        title=row.title,
        summary=row.summary,
        kind=row.kind,
        task_ids=task_ids,
        first_workday=row.first_workday,
        last_workday=row.last_workday,
        interactions=row.interactions,
        updated=row.updated,
        segments=[rows.TopicSegment(workday=s.workday, summary=s.summary, updated=s.updated) for s in segments],
        tasks=[card_row(c) for c in cards],
        items=[turn_row(turns[i], topic_id) for i in ids if i in turns],
        next_offset=offset + limit if len(links) > limit else None,
    )


def recent_workdays(store: Store, count: int = OVERVIEW_WORKDAYS, per_day: int = 20) -> list[rows.RecentWorkday]:
    """The newest `count` workdays with topic segments, each with its (≤ `per_day`) most recent topics."""
    days = [
        row[0]
        for row in store.db.execute_sql(
            "SELECT DISTINCT workday FROM desk_topic_segment ORDER BY workday DESC LIMIT ?", (count,)
        ).fetchall()
    ]
    out = []
    for day in days:
        total = store.db.execute_sql("SELECT count(*) FROM desk_topic_segment WHERE workday = ?", (day,)).fetchone()[0]
        topics = sql.select_as(
            store.db,
            rows.WorkdayTopic,
            "SELECT s.topic_id, t.title, t.kind, s.summary AS segment FROM desk_topic_segment s "
            "JOIN desk_topic t ON t.topic_id = s.topic_id WHERE s.workday = ? "
            "ORDER BY t.updated_epoch DESC LIMIT ?",
            [day, per_day],
        )
        out.append(rows.RecentWorkday(workday=day, topics=topics, total_topics=int(total)))
    return out


def workday_topics(store: Store, workday: str) -> list[rows.Topic]:
    """The topics that have a segment on `workday`, with that day's segment, most recently active first."""
    return sql.select_as(
        store.db,
        rows.Topic,
        "SELECT t.topic_id, t.title, t.kind, t.summary, t.interactions, t.first_workday, t.last_workday, "
        "s.summary AS segment FROM desk_topic_segment s JOIN desk_topic t ON t.topic_id = s.topic_id "
        "WHERE s.workday = ? ORDER BY t.updated_epoch DESC",
        [workday],
    )


def workdays(store: Store, limit: int = 30, offset: int = 0) -> list[rows.Workday]:
    """Workdays with activity, newest first: interactions, topics with segments, whether reviewed."""
    per_day = tuples(
        Interaction.select(Interaction.workday, fn.COUNT(Interaction.id))
        .group_by(Interaction.workday)
        .order_by(Interaction.workday.desc())
        .limit(limit)
        .offset(offset)
    )
    out = []
    for day, count in per_day:
        segs = TopicSegment.select().where(TopicSegment.workday == day).count()
        reviewed = Consolidation.select().where(
            (Consolidation.kind == "workday_review") & (Consolidation.workday == day)
        )
        out.append(rows.Workday(workday=day, interactions=count, segments=segs, reviewed=reviewed.exists()))
    return out


def list_topics(store: Store, *, text: str | None = None, limit: int = 100, offset: int = 0) -> list[rows.Topic]:
    query = Topic.select()
    if text:
        query = query.where(Topic.title.contains(text) | Topic.summary.contains(text))
    return [topic_row(t) for t in query.order_by(Topic.updated_epoch.desc()).limit(limit).offset(offset)]


def last_activity(store: Store) -> float:
    """Epoch seconds of the newest turn, task completion or reported activity (0 when none)."""
    newest = [
        Interaction.select(fn.MAX(Interaction.epoch)).scalar(),
        TaskCard.select(fn.MAX(TaskCard.epoch)).scalar(),
        Consolidation.select(fn.MAX(Consolidation.epoch)).where(Consolidation.kind == "activity").scalar(),
    ]
    return max([float(x) for x in newest if x is not None] or [0.0])


def needs_review(store: Store, workday: str) -> bool:
    """Whether `workday` had activity and has not had its daily review yet."""
    active = (
        Interaction.select().where(Interaction.workday == workday).exists()
        or TaskCard.select().where(TaskCard.workday == workday).exists()
    )
    reviewed = (
        Consolidation.select()
        .where((Consolidation.kind == "workday_review") & (Consolidation.workday == workday))
        .exists()
    )
    return bool(active and not reviewed)


def consolidation_log(store: Store, limit: int = 50) -> list[rows.ConsolidationEntry]:
    return [
        rows.ConsolidationEntry(
            ts=r.ts, kind=r.kind, workday=r.workday, summary=r.summary, detail=json.loads(r.detail), actor=r.actor
        )
        for r in Consolidation.select().order_by(Consolidation.id.desc()).limit(limit)
    ]


def counts(store: Store) -> dict[str, int]:
    return {
        "interactions": int(Interaction.select().count()),
        "task_cards": int(TaskCard.select().count()),
        "topics": int(Topic.select().count()),
        "backlog": backlog(store),
    }
