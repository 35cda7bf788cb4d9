"""Read the desk memory out of the views (and the bundles' revisions and the facts' origins out of the log)
as the records of the desk interchange format (`desk_format`), each kind in a stable order: the order the
home stored them in (its rows' ids) where it has one, so that an import stores them in that order again
(recall breaks ties of time by it), else by when they were made."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from store.core.database import Store
from store.core.dialect import dialect_of
from store.desk import sql
from store.desk.projection import DOMAIN as DESK
from store.learning.models import LearningRecord


def interactions(store: Store) -> list[dict[str, Any]]:
    return sql.select(
        store.db,
        "SELECT interaction_id, ts, epoch, workday, source, user_text, assistant_text, task_id "
        "FROM desk_interaction ORDER BY id",
    )


def task_cards(store: Store) -> list[dict[str, Any]]:
    return sql.select(
        store.db,
        "SELECT task_id, title, status, result, schedule_id, run_id, interaction_id, source, ts, epoch, workday "
        "FROM desk_task_card ORDER BY id",
    )


def topics(store: Store) -> list[dict[str, Any]]:
    """Each topic with the turns filed under it and its daily segments."""
    filed: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in sql.select(
        store.db,
        "SELECT topic_id, interaction_id, workday, epoch FROM desk_topic_interaction ORDER BY epoch, interaction_id",
    ):
        filed[row.pop("topic_id")].append(row)
    segments: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in sql.select(
        store.db, "SELECT topic_id, workday, summary, updated FROM desk_topic_segment ORDER BY workday"
    ):
        segments[row.pop("topic_id")].append(row)
    out = []
    for row in sql.select(
        store.db,
        "SELECT topic_id, title, summary, kind, task_ids, created, updated, updated_epoch, first_workday "
        "FROM desk_topic ORDER BY id",
    ):
        row["task_ids"] = row["task_ids"].split()
        row["interactions"] = filed.get(row["topic_id"], [])
        row["segments"] = segments.get(row["topic_id"], [])
        out.append(row)
    return out


def facts(store: Store) -> list[dict[str, Any]]:
    """Each fact with its lifecycle state, its evidence, and `origin`: where an imported fact came from."""
    origins: dict[str, Any] = {}
    for event in store.events(DESK, types=["fact_added"]):
        if isinstance(event.payload.get("origin"), dict):
            origins[event.payload["fact_id"]] = event.payload["origin"]
    evidence: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in sql.select(
        store.db,
        "SELECT fact_id, source_kind, source_id, speaker, quote, workday, ts, counts "
        "FROM desk_fact_evidence ORDER BY id",
    ):
        row["counts"] = bool(row["counts"])
        evidence[row.pop("fact_id")].append(row)
    out = []
    for row in sql.select(
        store.db,
        "SELECT fact_id, scope, profile_kind, project, content, status, status_reason, first_workday, created, updated "
        "FROM desk_fact ORDER BY id",
    ):
        row["origin"] = origins.get(row["fact_id"])
        row["evidence"] = evidence.get(row["fact_id"], [])
        out.append(row)
    return out


def skills(store: Store) -> list[dict[str, Any]]:
    rows = sql.select(
        store.db,
        "SELECT skill_id, name, text, status, source_interaction_id, source_quote, created, updated, decided_by, "
        "user_request FROM desk_skill ORDER BY created, skill_id",
    )
    return rows


def bundles(store: Store) -> list[dict[str, Any]]:
    """Each bundle with every revision of each of its documents (from the log; refused events left out)."""
    refused = {r["seq"] for r in sql.select(store.db, "SELECT seq FROM desk_refused_bundle_event")}
    revisions: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
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
    out = []
    for row in sql.select(
        store.db, "SELECT bundle_id, kind, key, title, created, updated FROM desk_bundle ORDER BY created, bundle_id"
    ):
        row["documents"] = [
            {"path": path, "revisions": revisions.get((row["bundle_id"], path), [])}
            for path in paths.get(row["bundle_id"], [])
        ]
        out.append(row)
    return out


def learned(store: Store) -> list[dict[str, Any]]:
    """The records learning adopted, with their provenance (their content lives in the facts, skills and
    lessons they were placed in)."""
    out = []
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


def export_records(store: Store) -> dict[str, list[dict[str, Any]]]:
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
