"""The `desk` projection: each event type and what it does to the view tables.

Every decision (a fact's new status, a topic's id, a document's revision) is
made when the event is written and carried in its payload, so replaying the
log rebuilds exactly the same views.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from store.core.dialect import dialect_of
from store.core.models import BaseModel
from store.core.projection import EventRecord, dispatch, first_text
from store.desk import fts
from store.desk.bundle_names import refusal
from store.desk.fact_likeness import marks_key
from store.desk.models import (
    DESK_MODELS,
    Bundle,
    BundleDocument,
    Consolidation,
    Fact,
    FactEvidence,
    Interaction,
    RefusedBundleEvent,
    Skill,
    TaskCard,
    Topic,
)

log = logging.getLogger("jiyi.store.desk")

DOMAIN = "desk"
SEGMENTS_INDEXED = 12  # a topic's newest segments that its search row holds

FTS_TABLES = {
    "interaction": "desk_interaction_fts",
    "task": "desk_task_card_fts",
    "topic": "desk_topic_fts",
    "fact": "desk_fact_fts",
}

SUBJECT_KEYS = ("interaction_id", "task_id", "topic_id", "fact_id", "skill_id", "bundle_id")


OVERVIEW_VERSION_KEY = "desk:overview_version"
ENQUEUE = (
    "INSERT INTO desk_embed_queue (kind, item, seq) VALUES (?, ?, ?) "
    "ON CONFLICT (kind, item) DO UPDATE SET seq = excluded.seq"
)
_INSERT_INTERACTION = (
    "INSERT INTO desk_interaction (interaction_id, ts, epoch, workday, source, user_text, assistant_text, task_id) "
    "VALUES (?,?,?,?,?,?,?,?)"
)


def bump_overview_version(db: Any) -> None:
    """Count segment writes (in `meta`, committed with them): the workday overview is cached per value."""
    db.execute_sql(
        "INSERT INTO meta (key, value) VALUES (?, '1') "
        "ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT)",
        (OVERVIEW_VERSION_KEY,),
    )


def overview_version(db: Any) -> str:
    row = db.execute_sql("SELECT value FROM meta WHERE key = ?", (OVERVIEW_VERSION_KEY,)).fetchone()
    return str(row[0]) if row else "0"


class DeskProjection:
    domain = DOMAIN
    # 2: skills keep the quote of the user guidance they came from; 3: bundle events naming a path outside
    # the bundles folder are refused (`desk_refused_bundle_event`), not applied; English words stemmed in the
    # search tables, and every searchable item queued for the desk index (`desk_embed_queue`); 4: both of
    # those 3s, which two branches made at once (a home that had either rebuilds its desk view again); 5: a
    # skill keeps the user's turn an agent's activation named (`request_interaction_id`), and a fact its marks
    # (`fact_likeness.marks_key`: a near-duplicate is looked for among the facts with the same)
    version = 5
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

    def subject_of(self, event_type: str, payload: Mapping[str, object]) -> str | None:
        return first_text(payload, SUBJECT_KEYS)

    def apply(self, event: EventRecord) -> None:
        dispatch(self._apply, event)

    @staticmethod
    def _fts(kind: str) -> fts.FtsTable:
        return fts.FtsTable(Interaction._meta.database, FTS_TABLES[kind])

    @staticmethod
    def _queue(kind: str, row_id: int, event: EventRecord) -> None:
        Interaction._meta.database.execute_sql(ENQUEUE, (kind, row_id, event.seq))

    def _interaction(self, event: EventRecord) -> None:
        p = event.payload
        db = Interaction._meta.database
        row = (
            p["interaction_id"],
            p["ts"],
            p["epoch"],
            p["workday"],
            p.get("source", ""),
            p.get("user_text", ""),
            p.get("assistant_text", ""),
            p.get("task_id"),
        )
        text = fts.index_text(p.get("user_text"), p.get("assistant_text"))
        if dialect_of(db).chained_inserts:
            # One round trip for the row, its "not yet filed" mark and its search row (every remembered
            # turn runs this while holding the shared write lock).
            search = f"INSERT INTO {FTS_TABLES['interaction']} (rowid, tokens) SELECT id, ? FROM r"
            db.execute_sql(
                f"WITH r AS ({_INSERT_INTERACTION} RETURNING id), "
                "u AS (INSERT INTO desk_unarchived (interaction) SELECT id FROM r), "
                "q AS (INSERT INTO desk_embed_queue (kind, item, seq) SELECT 'interaction', id, ? FROM r) "
                + (search if text else "SELECT id FROM r"),
                (*row, event.seq, text) if text else (*row, event.seq),
            )
            return
        row_id = db.execute_sql(f"{_INSERT_INTERACTION} RETURNING id", row).fetchone()[0]
        db.execute_sql("INSERT INTO desk_unarchived (interaction) VALUES (?)", (row_id,))
        if text:  # a new row: nothing to delete first
            db.execute_sql(f"INSERT INTO {FTS_TABLES['interaction']} (rowid, tokens) VALUES (?, ?)", (row_id, text))
        self._queue("interaction", row_id, event)

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
        self._queue("task", row_id, event)

    # Topics, assignments and segments: plain SQL, since a maintenance commit applies hundreds of them.

    def _topic(self, event: EventRecord) -> None:
        p = event.payload
        db = Topic._meta.database
        row = db.execute_sql(
            "SELECT id, summary, kind, task_ids, updated_epoch FROM desk_topic WHERE topic_id = ?", (p["topic_id"],)
        ).fetchone()
        if row is None:
            db.execute_sql(
                "INSERT INTO desk_topic (topic_id, title, summary, kind, task_ids, created, updated, updated_epoch, "
                "first_workday, last_workday, interactions) VALUES (?,?,?,?,?,?,?,?,?,?,0)",
                (
                    p["topic_id"],
                    p["title"],
                    p.get("summary", ""),
                    p.get("kind", "task"),
                    " ".join(p.get("task_ids", [])),
                    event.ts,
                    event.ts,
                    p["epoch"],
                    p["workday"],
                    p["workday"],
                ),
            )
        else:
            row_id, summary, kind, task_ids, updated_epoch = row
            merged = " ".join(dict.fromkeys([*task_ids.split(), *p.get("task_ids", [])]))
            db.execute_sql(
                "UPDATE desk_topic SET title = ?, summary = ?, kind = ?, task_ids = ?, updated = ?, updated_epoch = ? "
                "WHERE id = ?",
                (
                    p["title"],
                    p.get("summary", summary),
                    p.get("kind", kind),
                    merged,
                    event.ts,
                    max(updated_epoch, p["epoch"]),
                    row_id,
                ),
            )
        self._index_topic(p["topic_id"], event)

    def _assigned(self, event: EventRecord) -> None:
        p = event.payload
        items = p["items"]
        if not items:
            return
        db = Topic._meta.database
        db.execute_sql(
            "INSERT INTO desk_topic_interaction (interaction_id, topic_id, workday, epoch) VALUES "
            + ",".join("(?,?,?,?)" for _ in items),
            [value for i, w, e in items for value in (i, p["topic_id"], w, e)],
        )
        ids = [i for i, _, _ in items]
        db.execute_sql(
            "DELETE FROM desk_unarchived WHERE interaction IN "
            f"(SELECT id FROM desk_interaction WHERE interaction_id IN ({','.join('?' * len(ids))}))",
            ids,
        )
        days = [w for _, w, _ in items]
        first, last, epoch = min(days), max(days), max(e for _, _, e in items)
        # CASE, not min()/max(): SQLite's two-argument min is PostgreSQL's LEAST, and neither has the other's.
        db.execute_sql(
            "UPDATE desk_topic SET interactions = interactions + ?, "
            "first_workday = CASE WHEN first_workday <= ? THEN first_workday ELSE ? END, "
            "last_workday = CASE WHEN last_workday >= ? THEN last_workday ELSE ? END, "
            "updated_epoch = CASE WHEN updated_epoch >= ? THEN updated_epoch ELSE ? END WHERE topic_id = ?",
            (len(items), first, first, last, last, epoch, epoch, p["topic_id"]),
        )

    def _segment(self, event: EventRecord) -> None:
        p = event.payload
        db = Topic._meta.database
        db.execute_sql(
            "INSERT INTO desk_topic_segment (topic_id, workday, summary, updated) VALUES (?,?,?,?) "
            "ON CONFLICT (topic_id, workday) DO UPDATE SET summary = excluded.summary, updated = excluded.updated",
            (p["topic_id"], p["workday"], p["summary"], event.ts),
        )
        db.execute_sql(
            "UPDATE desk_topic SET first_workday = CASE WHEN first_workday <= ? THEN first_workday ELSE ? END, "
            "last_workday = CASE WHEN last_workday >= ? THEN last_workday ELSE ? END WHERE topic_id = ?",
            (p["workday"], p["workday"], p["workday"], p["workday"], p["topic_id"]),
        )
        self._index_topic(p["topic_id"], event)
        bump_overview_version(db)

    def _index_topic(self, topic_id: str, event: EventRecord) -> None:
        db = Topic._meta.database
        row_id, title, summary = db.execute_sql(
            "SELECT id, title, summary FROM desk_topic WHERE topic_id = ?", (topic_id,)
        ).fetchone()
        segments = [
            r[0]
            for r in db.execute_sql(
                "SELECT summary FROM desk_topic_segment WHERE topic_id = ? ORDER BY workday DESC LIMIT ?",
                (topic_id, SEGMENTS_INDEXED),
            ).fetchall()
        ]
        self._fts("topic").put(row_id, fts.index_text(title, summary, *segments))
        self._queue("topic", row_id, event)

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
            marks=marks_key(p["content"]),
        ).execute()
        self._fts("fact").put(row_id, fts.index_text(p["content"], p.get("project")))
        self._queue("fact", row_id, event)

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
        # the index hears it: a deactivated fact's vector is removed, a confirmed one's made again
        self._queue("fact", Fact.get(Fact.fact_id == p["fact_id"]).id, event)

    def _skill_drafted(self, event: EventRecord) -> None:
        p = event.payload
        Skill.insert(
            skill_id=p["skill_id"],
            name=p["name"],
            text=p["text"],
            status="draft",
            source_interaction_id=p.get("source_interaction_id"),
            source_quote=p.get("quote", ""),
            created=event.ts,
            updated=event.ts,
        ).execute()

    def _skill_status(self, event: EventRecord) -> None:
        p = event.payload
        Skill.update(
            status=p["status"],
            updated=event.ts,
            # An imported decision names who made it in the home it came from (its event's actor is `import`).
            decided_by=p.get("decided_by") or event.actor,
            user_request=p.get("user_request") or "",
            request_interaction_id=p.get("interaction_id"),
        ).where(Skill.skill_id == p["skill_id"]).execute()

    @staticmethod
    def _refused(event: EventRecord, path: object = None) -> bool:
        """Refuse a bundle event whose names Jiyi never writes (`bundle_names.refusal`): it is recorded, not
        applied. The socket checks names before storing them; an event from a restored or migrated database,
        or from another host of a shared store, is checked here, as it is replayed."""
        p = event.payload
        why = refusal(p.get("bundle_id"), path)
        if why is None:
            return False
        log.warning("event %s (%s): %s; refused, the view goes on without it", event.seq, event.type, why)
        RefusedBundleEvent.insert(
            seq=event.seq,
            type=event.type,
            bundle_id=str(p.get("bundle_id"))[:200],
            path=str(path or "")[:200],
            reason=why[:500],
            ts=event.ts,
        ).on_conflict_ignore().execute()
        return True

    def _bundle_created(self, event: EventRecord) -> None:
        p = event.payload
        if self._refused(event):
            return
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
        if self._refused(event, p.get("path") or ""):
            return
        # An imported revision names who wrote it in the home it came from (its event's actor is `import`).
        writer = p.get("written_by") or event.actor
        BundleDocument.insert(
            bundle_id=p["bundle_id"],
            path=p["path"],
            revision=p["revision"],
            content=p["content"],
            updated=event.ts,
            actor=writer,
        ).on_conflict(
            conflict_target=[BundleDocument.bundle_id, BundleDocument.path],
            update={
                BundleDocument.revision: p["revision"],
                BundleDocument.content: p["content"],
                BundleDocument.updated: event.ts,
                BundleDocument.actor: writer,
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
