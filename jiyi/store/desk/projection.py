"""The `desk` projection: each event type and what it does to the view tables.

Every decision (a fact's new status, a topic's id, a document's revision) is
made when the event is written and carried in its payload, so replaying the
log rebuilds exactly the same views.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from jiyi.store.desk import fts
from jiyi.store.desk.models import (
    DESK_MODELS,
    Bundle,
    BundleDocument,
    Consolidation,
    Fact,
    FactEvidence,
    Interaction,
    Skill,
    TaskCard,
    Topic,
    TopicInteraction,
    TopicSegment,
    Unarchived,
)
from jiyi.store.models import BaseModel
from jiyi.store.projection import EventRecord

DOMAIN = "desk"
SEGMENTS_INDEXED = 12  # a topic's newest segments that its search row holds

FTS_TABLES = {
    "interaction": "desk_interaction_fts",
    "task": "desk_task_card_fts",
    "topic": "desk_topic_fts",
    "fact": "desk_fact_fts",
}

SUBJECT_KEYS = ("interaction_id", "task_id", "topic_id", "fact_id", "skill_id", "bundle_id")


class DeskProjection:
    domain = DOMAIN
    version = 1
    models: Sequence[type[BaseModel]] = DESK_MODELS

    def __init__(self) -> None:
        self._apply: dict[str, Callable[[EventRecord], None]] = {
            "interaction_remembered": self._interaction,
            "task_completed": self._task,
            "topic_saved": self._topic,
            "interactions_assigned": self._assigned,
            "segment_saved": self._segment,
            "fact_added": self._fact_added,
            "fact_evidence_added": self._fact_evidence,
            "fact_status_changed": self._fact_status,
            "skill_drafted": self._skill_drafted,
            "skill_status_changed": self._skill_status,
            "bundle_created": self._bundle_created,
            "bundle_document_put": self._document_put,
            "consolidation_recorded": self._consolidation,
            "maintenance_committed": self._consolidation,
            "workday_reviewed": self._consolidation,
        }

    def subject_of(self, event_type: str, payload: dict[str, Any]) -> str | None:
        for key in SUBJECT_KEYS:
            value = payload.get(key)
            if isinstance(value, str):
                return value
        return None

    def apply(self, event: EventRecord) -> None:
        handler = self._apply.get(event.type)
        if handler is not None:
            handler(event)

    @staticmethod
    def _fts(kind: str) -> fts.FtsTable:
        return fts.FtsTable(Interaction._meta.database, FTS_TABLES[kind])

    def _interaction(self, event: EventRecord) -> None:
        p = event.payload
        db = Interaction._meta.database
        row_id = db.execute_sql(
            "INSERT INTO desk_interaction (interaction_id, ts, epoch, workday, source, user_text, assistant_text, "
            "task_id) VALUES (?,?,?,?,?,?,?,?)",
            (
                p["interaction_id"],
                p["ts"],
                p["epoch"],
                p["workday"],
                p.get("source", ""),
                p.get("user_text", ""),
                p.get("assistant_text", ""),
                p.get("task_id"),
            ),
        ).lastrowid
        db.execute_sql("INSERT INTO desk_unarchived (interaction) VALUES (?)", (row_id,))
        text = fts.index_text(p.get("user_text"), p.get("assistant_text"))
        if text:  # a new row: nothing to delete first
            db.execute_sql(f"INSERT INTO {FTS_TABLES['interaction']} (rowid, tokens) VALUES (?, ?)", (row_id, text))

    def _task(self, event: EventRecord) -> None:
        p = event.payload
        fields = {
            "title": p["title"],
            "status": p["status"],
            "result": p.get("result", ""),
            "schedule_id": p.get("schedule_id"),
            "run_id": p.get("run_id"),
            "interaction_id": p.get("interaction_id"),
            "source": p.get("source", ""),
            "ts": p["ts"],
            "epoch": p["epoch"],
            "workday": p["workday"],
        }
        card = TaskCard.get_or_none(TaskCard.task_id == p["task_id"])
        if card is None:
            row_id = TaskCard.insert(task_id=p["task_id"], **fields).execute()
        else:
            TaskCard.update(**fields).where(TaskCard.id == card.id).execute()
            row_id = card.id
        self._fts("task").put(row_id, fts.index_text(p["title"], p.get("result")))

    def _topic(self, event: EventRecord) -> None:
        p = event.payload
        topic = Topic.get_or_none(Topic.topic_id == p["topic_id"])
        if topic is None:
            Topic.insert(
                topic_id=p["topic_id"],
                title=p["title"],
                summary=p.get("summary", ""),
                kind=p.get("kind", "task"),
                task_ids=" ".join(p.get("task_ids", [])),
                created=event.ts,
                updated=event.ts,
                updated_epoch=p["epoch"],
                first_workday=p["workday"],
                last_workday=p["workday"],
            ).execute()
        else:
            task_ids = list(dict.fromkeys([*topic.task_ids.split(), *p.get("task_ids", [])]))
            Topic.update(
                title=p["title"],
                summary=p.get("summary", topic.summary),
                kind=p.get("kind", topic.kind),
                task_ids=" ".join(task_ids),
                updated=event.ts,
                updated_epoch=max(topic.updated_epoch, p["epoch"]),
            ).where(Topic.id == topic.id).execute()
        self._index_topic(p["topic_id"])

    def _assigned(self, event: EventRecord) -> None:
        p = event.payload
        items = p["items"]
        if not items:
            return
        TopicInteraction.insert_many(
            [{"interaction_id": i, "topic_id": p["topic_id"], "workday": w, "epoch": e} for i, w, e in items]
        ).execute()
        ids = [i for i, _, _ in items]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = Interaction.select(Interaction.id).where(Interaction.interaction_id.in_(chunk))
            Unarchived.delete().where(Unarchived.interaction.in_(rows)).execute()
        workdays = [w for _, w, _ in items]
        topic = Topic.get(Topic.topic_id == p["topic_id"])
        Topic.update(
            interactions=Topic.interactions + len(items),
            updated_epoch=max(topic.updated_epoch, *(e for _, _, e in items)),
            first_workday=min(topic.first_workday, *workdays),
            last_workday=max(topic.last_workday, *workdays),
        ).where(Topic.id == topic.id).execute()

    def _segment(self, event: EventRecord) -> None:
        p = event.payload
        TopicSegment.insert(
            topic_id=p["topic_id"], workday=p["workday"], summary=p["summary"], updated=event.ts
        ).on_conflict(
            conflict_target=[TopicSegment.topic_id, TopicSegment.workday],
            update={TopicSegment.summary: p["summary"], TopicSegment.updated: event.ts},
        ).execute()
        topic = Topic.get(Topic.topic_id == p["topic_id"])
        Topic.update(
            first_workday=min(topic.first_workday, p["workday"]), last_workday=max(topic.last_workday, p["workday"])
        ).where(Topic.id == topic.id).execute()
        self._index_topic(p["topic_id"])

    def _index_topic(self, topic_id: str) -> None:
        topic = Topic.get(Topic.topic_id == topic_id)
        segments = [
            s.summary
            for s in TopicSegment.select(TopicSegment.summary)
            .where(TopicSegment.topic_id == topic_id)
            .order_by(TopicSegment.workday.desc())
            .limit(SEGMENTS_INDEXED)
        ]
        self._fts("topic").put(topic.id, fts.index_text(topic.title, topic.summary, *segments))

    def _fact_added(self, event: EventRecord) -> None:
        p = event.payload
        row_id = Fact.insert(
            fact_id=p["fact_id"],
            scope=p["scope"],
            profile_kind=p.get("profile_kind"),
            project=p.get("project"),
            content=p["content"],
            status=p["status"],
            status_reason=p.get("reason", ""),
            created=event.ts,
            updated=event.ts,
            first_workday=p["workday"],
            last_evidence_workday=p["workday"],
        ).execute()
        self._fts("fact").put(row_id, fts.index_text(p["content"], p.get("project")))

    def _fact_evidence(self, event: EventRecord) -> None:
        p = event.payload
        FactEvidence.insert(
            fact_id=p["fact_id"],
            source_kind=p["source_kind"],
            source_id=p["source_id"],
            speaker=p["speaker"],
            quote=p["quote"],
            workday=p["workday"],
            ts=event.ts,
            counts=bool(p["counts"]),
        ).execute()
        fact = Fact.get(Fact.fact_id == p["fact_id"])
        days = set(fact.valid_workdays.split())
        if p["counts"]:
            days.add(p["workday"])
        Fact.update(
            valid_workdays=" ".join(sorted(days)),
            last_evidence_workday=max(fact.last_evidence_workday, p["workday"]),
            updated=event.ts,
        ).where(Fact.id == fact.id).execute()

    def _fact_status(self, event: EventRecord) -> None:
        p = event.payload
        Fact.update(status=p["status"], status_reason=p.get("reason", ""), updated=event.ts).where(
            Fact.fact_id == p["fact_id"]
        ).execute()

    def _skill_drafted(self, event: EventRecord) -> None:
        p = event.payload
        Skill.insert(
            skill_id=p["skill_id"],
            name=p["name"],
            text=p["text"],
            status="draft",
            source_interaction_id=p.get("source_interaction_id"),
            created=event.ts,
            updated=event.ts,
        ).execute()

    def _skill_status(self, event: EventRecord) -> None:
        p = event.payload
        Skill.update(
            status=p["status"],
            updated=event.ts,
            decided_by=event.actor,
            user_request=p.get("user_request") or "",
        ).where(Skill.skill_id == p["skill_id"]).execute()

    def _bundle_created(self, event: EventRecord) -> None:
        p = event.payload
        Bundle.insert(
            bundle_id=p["bundle_id"],
            kind=p["kind"],
            key=p["key"],
            title=p.get("title", ""),
            created=event.ts,
            updated=event.ts,
        ).execute()

    def _document_put(self, event: EventRecord) -> None:
        p = event.payload
        BundleDocument.insert(
            bundle_id=p["bundle_id"],
            path=p["path"],
            revision=p["revision"],
            content=p["content"],
            updated=event.ts,
            actor=event.actor,
        ).on_conflict(
            conflict_target=[BundleDocument.bundle_id, BundleDocument.path],
            update={
                BundleDocument.revision: p["revision"],
                BundleDocument.content: p["content"],
                BundleDocument.updated: event.ts,
                BundleDocument.actor: event.actor,
            },
        ).execute()
        Bundle.update(updated=event.ts).where(Bundle.bundle_id == p["bundle_id"]).execute()

    def _consolidation(self, event: EventRecord) -> None:
        p = event.payload
        kind = {"maintenance_committed": "commit", "workday_reviewed": "workday_review"}.get(event.type)
        Consolidation.insert(
            ts=event.ts,
            epoch=p["epoch"],
            kind=kind or p["kind"],
            workday=p.get("workday"),
            summary=p.get("summary", ""),
            detail=json.dumps(p.get("detail", {}), ensure_ascii=False, sort_keys=True),
            actor=event.actor,
        ).execute()
