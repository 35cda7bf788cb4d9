"""Read the desk memory out of the views (and the bundles' revisions and the facts' origins out of the log)
as the records of the desk interchange format (`desk_format`), each kind in a stable order: the order the
home stored them in (its rows' ids) where it has one, so that an import stores them in that order again
(recall breaks ties of time by it), else by when they were made."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import cast

from store.core.database import Store
from store.core.dialect import dialect_of
from store.desk import sql
from store.desk.projection import DOMAIN as DESK
from store.desk.rows import TaskCard
from store.interchange.desk_records import (
    BundleRecord,
    DeskRecord,
    EvidenceRecord,
    FactRecord,
    FiledTurn,
    InteractionRecord,
    LearnedRecord,
    RevisionRecord,
    SkillRecord,
    TopicRecord,
    TopicSegment,
)
from store.learning.models import LearningRecord


def interactions(store: Store) -> list[InteractionRecord]:
    # The columns are the record's fields, in its order (and so are the flat kinds' below).
    return cast(
        list[InteractionRecord],
        sql.select(
            store.db,
            "SELECT interaction_id, ts, epoch, workday, source, user_text, assistant_text, task_id "
            "FROM desk_interaction ORDER BY id",
        ),
    )


def task_cards(store: Store) -> list[TaskCard]:
    return sql.select_as(store.db, TaskCard, f"SELECT {sql.CARD_COLUMNS} FROM desk_task_card ORDER BY id")


def topics(store: Store) -> list[TopicRecord]:
    """Each topic with the turns filed under it and its daily segments."""
    filed: dict[str, list[FiledTurn]] = defaultdict(list)
    for row in sql.select(
        store.db,
        "SELECT topic_id, interaction_id, workday, epoch FROM desk_topic_interaction ORDER BY epoch, interaction_id",
    ):
        filed[row["topic_id"]].append(
            {"interaction_id": row["interaction_id"], "workday": row["workday"], "epoch": row["epoch"]}
        )
    segments: dict[str, list[TopicSegment]] = defaultdict(list)
    for row in sql.select(
        store.db, "SELECT topic_id, workday, summary, updated FROM desk_topic_segment ORDER BY workday"
    ):
        segments[row["topic_id"]].append(
            {"workday": row["workday"], "summary": row["summary"], "updated": row["updated"]}
        )
    out: list[TopicRecord] = []
    for row in sql.select(
        store.db,
        "SELECT topic_id, title, summary, kind, task_ids, created, updated, updated_epoch, first_workday "
        "FROM desk_topic ORDER BY id",
    ):
        out.append(
            {
                "topic_id": row["topic_id"],
                "title": row["title"],
                "summary": row["summary"],
                "kind": row["kind"],
                "task_ids": row["task_ids"].split(),
                "created": row["created"],
                "updated": row["updated"],
                "updated_epoch": row["updated_epoch"],
                "first_workday": row["first_workday"],
                "interactions": filed.get(row["topic_id"], []),
                "segments": segments.get(row["topic_id"], []),
            }
        )
    return out


def facts(store: Store) -> list[FactRecord]:
    """Each fact with its lifecycle state, its evidence, and `origin`: where an imported fact came from."""
    origins: dict[str, dict[str, object]] = {}
    for event in store.events(DESK, types=["fact_added"]):
        if isinstance(event.payload.get("origin"), dict):
            origins[event.payload["fact_id"]] = event.payload["origin"]
    evidence: dict[str, list[EvidenceRecord]] = defaultdict(list)
    for row in sql.select(
        store.db,
        "SELECT fact_id, source_kind, source_id, speaker, quote, workday, ts, counts "
        "FROM desk_fact_evidence ORDER BY id",
    ):
        evidence[row["fact_id"]].append(
            {
                "source_kind": row["source_kind"],
                "source_id": row["source_id"],
                "speaker": row["speaker"],
                "quote": row["quote"],
                "workday": row["workday"],
                "ts": row["ts"],
                "counts": bool(row["counts"]),
            }
        )
    out: list[FactRecord] = []
    for row in sql.select(
        store.db,
        "SELECT fact_id, scope, profile_kind, project, content, status, status_reason, first_workday, created, updated "
        "FROM desk_fact ORDER BY id",
    ):
        out.append(
            {
                "fact_id": row["fact_id"],
                "scope": row["scope"],
                "profile_kind": row["profile_kind"],
                "project": row["project"],
                "content": row["content"],
                "status": row["status"],
                "status_reason": row["status_reason"],
                "first_workday": row["first_workday"],
                "created": row["created"],
                "updated": row["updated"],
                "origin": origins.get(row["fact_id"]),
                "evidence": evidence.get(row["fact_id"], []),
            }
        )
    return out


def skills(store: Store) -> list[SkillRecord]:
    """Each skill; `request_interaction_id` only on one an agent activated on the user's request."""
    rows = sql.select(
        store.db,
        "SELECT skill_id, name, text, status, source_interaction_id, source_quote, created, updated, decided_by, "
        "user_request, request_interaction_id FROM desk_skill ORDER BY created, skill_id",
    )
    for row in rows:
        if row["request_interaction_id"] is None:
            del row["request_interaction_id"]
    return cast(list[SkillRecord], rows)


def bundles(store: Store) -> list[BundleRecord]:
    """Each bundle with every revision of each of its documents (from the log; refused events left out)."""
    refused = {r["seq"] for r in sql.select(store.db, "SELECT seq FROM desk_refused_bundle_event")}
    revisions: dict[tuple[str, str], list[RevisionRecord]] = defaultdict(list)
    for event in store.events(DESK, types=["bundle_document_put"]):
        if event.seq in refused:
            continue
        p = event.payload
        revisions[(p["bundle_id"], p["path"])].append(
            {
                "revision": p["revision"],
                "content": p["content"],
                "ts": event.ts,
                "actor": p.get("written_by") or event.actor,  # an imported revision: its writer where it came from
            }
        )
    paths: dict[str, list[str]] = defaultdict(list)
    for row in sql.select(store.db, "SELECT bundle_id, path FROM desk_bundle_document ORDER BY bundle_id, path"):
        paths[row["bundle_id"]].append(row["path"])
    out: list[BundleRecord] = []
    for row in sql.select(
        store.db, "SELECT bundle_id, kind, key, title, created, updated FROM desk_bundle ORDER BY created, bundle_id"
    ):
        out.append(
            {
                "bundle_id": row["bundle_id"],
                "kind": row["kind"],
                "key": row["key"],
                "title": row["title"],
                "created": row["created"],
                "updated": row["updated"],
                "documents": [
                    {"path": path, "revisions": revisions.get((row["bundle_id"], path), [])}
                    for path in paths.get(row["bundle_id"], [])
                ],
            }
        )
    return out


def learned(store: Store) -> list[LearnedRecord]:
    """The records learning adopted, with their provenance (their content lives in the facts, skills and
    lessons they were placed in)."""
    out: list[LearnedRecord] = []
    for row in LearningRecord.select().order_by(LearningRecord.created, LearningRecord.record_id):
        out.append(
            {
                "record_id": row.record_id,
                "version": row.version,
                "grant_id": row.grant_id,
                "kind": row.kind,
                "content": row.content,
                "state": row.state,
                "managed": bool(row.managed),
                "target": row.target_ref,
                "provenance": json.loads(row.provenance),
                "bytes": row.bytes,
                "expires_at": row.expires_at,
                "created": row.created,
                "updated": row.updated,
                "reason": row.reason,
            }
        )
    return out


def export_records(store: Store) -> dict[str, Sequence[DeskRecord]]:
    """Every kind's records, read in one transaction from one snapshot so that they agree with each other
    (where a transaction's reads would otherwise each see the latest commit, it is asked to keep one)."""
    with store.db.atomic():
        snapshot = dialect_of(store.db).snapshot_reads
        if snapshot is not None:
            store.db.execute_sql(snapshot)
        return {
            "interactions": interactions(store),
            "task_cards": task_cards(store),
            "topics": topics(store),
            "facts": facts(store),
            "skills": skills(store),
            "bundles": bundles(store),
            "learned": learned(store),
        }
