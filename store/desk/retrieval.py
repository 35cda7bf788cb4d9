"""What an agent reads: `memory.recall`, `transition.assess` and `context.prepare`.

Everything is found through indexes (FTS5 over interactions, task cards,
topics and facts), so an item from months ago is as findable as one from a
minute ago, at a cost that follows the query, not the archive.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from store.core import clock
from store.core.database import Store
from store.desk import facts, fts, hybrid, skills, sql, topics
from store.desk.models import (
    FactFts,
    Interaction,
    InteractionFts,
    TaskCard,
    TaskCardFts,
    Topic,
    TopicFts,
)
from store.desk.projection import OVERVIEW_VERSION_KEY, overview_version

RECENT = 3
SWITCH_CUES = ("换个", "另外", "先不", "别管", "新任务", "另一个", "不说这个", "换一个", "顺便", "对了")
CONTINUE_AT = 0.34
SWITCH_BELOW = 0.12


@dataclass(frozen=True)
class RecallLimits:
    limit: int = 8
    core_facts: int = 5


def _table(store: Store, model: Any) -> fts.FtsTable:
    return fts.FtsTable(store.db, model._meta.table_name)


@dataclass(frozen=True)
class Snapshot:
    """What every recall asks first: each search table's newest row and the overview's version."""

    newest: dict[str, int]
    overview_version: str

    TABLES: ClassVar[tuple[Any, ...]] = (InteractionFts, TaskCardFts, TopicFts, FactFts)

    @classmethod
    def statement(cls) -> tuple[str, list[Any]]:
        return fts.newest_rows([m._meta.table_name for m in cls.TABLES], meta_key=OVERVIEW_VERSION_KEY)

    @classmethod
    def of_row(cls, row: dict[str, Any]) -> Snapshot:
        newest = {m._meta.table_name: int(row[f"newest_{i}"] or 0) for i, m in enumerate(cls.TABLES)}
        return cls(newest, str(row["meta"]) if row["meta"] is not None else "0")

    def of(self, model: Any) -> int | None:
        return self.newest.get(model._meta.table_name)


def _epoch(row: dict[str, Any]) -> float:
    return clock.parse_iso(row["ts"]).timestamp()


def related_interactions(
    store: Store, query: str, limit: int, seen: Snapshot | None = None, dense: hybrid.Dense | None = None
) -> list[dict[str, Any]]:
    """Turns related to `query` by words and (with `dense`) by meaning, best first (see `hybrid.related`)."""
    return hybrid.related(
        store,
        InteractionFts._meta.table_name,
        "interaction",
        query,
        limit,
        newest=seen.of(InteractionFts) if seen else None,
        dense=dense,
        by_rowid=lambda ids: sql.interactions_by_rowid(store.db, ids),
        by_key=lambda keys: sql.interactions_by_key(store.db, keys),
        key="interaction_id",
        epoch=_epoch,
        neighbours=lambda keys: sql.interaction_neighbours(store.db, keys),
    )


def related_cards(
    store: Store, query: str, limit: int, seen: Snapshot | None = None, dense: hybrid.Dense | None = None
) -> list[dict[str, Any]]:
    """Task cards related to `query` by words and (with `dense`) by meaning, best first (see `hybrid.related`)."""
    return hybrid.related(
        store,
        TaskCardFts._meta.table_name,
        "task",
        query,
        limit,
        newest=seen.of(TaskCardFts) if seen else None,
        dense=dense,
        by_rowid=lambda ids: sql.cards_by_rowid(store.db, ids),
        by_key=lambda keys: sql.cards_by_key(store.db, keys),
        key="task_id",
        epoch=_epoch,
    )


def related_topics(
    store: Store, query: str, limit: int, seen: Snapshot | None = None, dense: hybrid.Dense | None = None
) -> list[dict[str, Any]]:
    """Topics related to `query`, each with its latest segment (see `hybrid.related`)."""

    def rows(where: str, values: Sequence[Any]) -> list[dict[str, Any]]:
        if not values:
            return []
        return sql.select(
            store.db,
            f"SELECT id AS _rowid, {TOPIC_COLUMNS}, updated_epoch FROM desk_topic "
            f"WHERE {where} IN ({sql.marks(values)})",
            values,
        )

    found = hybrid.related(
        store,
        TopicFts._meta.table_name,
        "topic",
        query,
        limit,
        newest=seen.of(TopicFts) if seen else None,
        dense=dense,
        by_rowid=lambda ids: {r.pop("_rowid"): r for r in rows("id", ids)},
        by_key=lambda keys: {r["topic_id"]: r for r in rows("topic_id", keys)},
        key="topic_id",
        epoch=lambda row: float(row["updated_epoch"]),
    )
    latest = _latest_segments(store, [t["topic_id"] for t in found])
    return [
        {
            **_topic({k: v for k, v in t.items() if k not in ("_rowid", "updated_epoch")}),
            "latest_segment": latest.get(t["topic_id"]),
        }
        for t in found
    ]


TOPIC_COLUMNS = "topic_id, title, summary, kind, task_ids, first_workday, last_workday, interactions, updated"


def _topic(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "task_ids": row["task_ids"].split()}


def _latest_segments(store: Store, topic_ids: list[str]) -> dict[str, dict[str, str]]:
    if not topic_ids:
        return {}
    rows = sql.select(
        store.db,
        f"SELECT topic_id, workday, summary FROM desk_topic_segment WHERE topic_id IN ({sql.marks(topic_ids)}) "
        "ORDER BY workday",
        topic_ids,
    )
    return {r["topic_id"]: {"workday": r["workday"], "summary": r["summary"]} for r in rows}


def _merge(related: list[dict[str, Any]], recent: list[dict[str, Any]], key: str, limit: int) -> list[dict[str, Any]]:
    """Related items first, then the most recent ones not already there, each marked with why it came."""
    out = [{**item, "why": "related"} for item in related[:limit]]
    seen = {item[key] for item in out}
    for item in recent:
        if item[key] not in seen and len(out) < limit + RECENT:
            out.append({**item, "why": "recent"})
            seen.add(item[key])
    return out


# Ordered: equal scores keep this order, and without one a server returns rows as they lie (PostgreSQL moves a
# row on each update), so the same memory could answer differently after a `jiyi import desk` or a migration.
BUNDLES = "SELECT bundle_id, key, title, updated FROM desk_bundle ORDER BY updated DESC, bundle_id"


def _bundles_for(
    store: Store, query: str, schedule_ids: list[str], limit: int, bundles: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The bundles of the recalled scheduled tasks and those named like the query (`bundles`: `BUNDLES`' rows)."""
    wanted = {f"schedule/{s}" for s in schedule_ids}
    scored = []
    for row in bundles:
        score = fts.overlap(query, f"{row['title']} {row['key']}")
        if row["bundle_id"] in wanted or score > 0:
            scored.append((row["bundle_id"] in wanted, score, row))
    scored.sort(key=lambda item: (not item[0], -item[1]))
    chosen = [row for _, _, row in scored[:limit]]
    if not chosen:
        return []
    ids = [row["bundle_id"] for row in chosen]
    docs: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
    for doc in sql.select(
        store.db,
        f"SELECT bundle_id, path, revision FROM desk_bundle_document WHERE bundle_id IN ({sql.marks(ids)}) "
        "AND path NOT LIKE 'runs/%' ORDER BY path",
        ids,
    ):
        docs[doc.pop("bundle_id")].append(doc)
    return [
        {**row, "documents": docs[row["bundle_id"]], "score": round(score, 3)} for (_, score, row) in scored[:limit]
    ]


def cached_recent_workdays(store: Store, version: str | None = None) -> list[dict[str, Any]]:
    """The workday overview, read again only after a segment was written (a counter in `meta` says when).

    `version` is that counter when the caller read it already.
    """
    version = overview_version(store.db) if version is None else version
    cached = store.caches.get("desk:overview")
    if cached is None or cached[0] != version:
        cached = (version, topics.recent_workdays(store))
        store.caches["desk:overview"] = cached
    return copy.deepcopy(cached[1])


def recall(store: Store, query: str, limits: RecallLimits, dense: hybrid.Dense | None = None) -> dict[str, Any]:
    """Related and recent interactions and task cards, bundles, workdays, topics, facts and skills.

    `dense`: the query's nearest items in the desk index (None: by full text alone).
    """
    limit = limits.limit
    # On a server each statement is a round trip: what does not depend on the query is read in one.
    snapshot, recent_turns, recent_cards, bundles, core, active_skills = sql.select_together(
        store.db,
        [
            Snapshot.statement(),
            (sql.RECENT_INTERACTIONS, [RECENT]),
            (sql.RECENT_CARDS, [RECENT]),
            (BUNDLES, []),
            (facts.CORE_FACTS, [limits.core_facts]),
            (skills.ACTIVE_SKILLS, []),
        ],
    )
    seen = Snapshot.of_row(snapshot[0])
    # The kinds are searched side by side (`store.core.readers`), the turns on this thread.
    related_cards_ = store.readers.aside(lambda: related_cards(store, query, limit, seen, dense))
    related_topics_ = store.readers.aside(lambda: related_topics(store, query, limit, seen, dense))
    related_facts_ = store.readers.aside(lambda: facts.related_facts(store, query, limit, seen.of(FactFts), dense))
    interactions = _merge(related_interactions(store, query, limit, seen, dense), recent_turns, "interaction_id", limit)
    cards = _merge(related_cards_(), recent_cards, "task_id", limit)
    return {
        "query": query,
        "task_cards": cards,
        "interactions": interactions,
        "bundles": _bundles_for(store, query, [c["schedule_id"] for c in cards if c["schedule_id"]], limit, bundles),
        "recent_workdays": cached_recent_workdays(store, seen.overview_version),
        "related_topics": related_topics_(),
        "core_facts": facts.core_facts_of(core),
        "related_facts": related_facts_(),
        "relevant_skills": skills.relevant_skills(store, query, limit, active_skills),
    }


def assess_transition(
    store: Store,
    text: str,
    *,
    current_task_id: str | None,
    current_topic_id: str | None,
    limit: int = 5,
    dense: hybrid.Dense | None = None,
) -> dict[str, Any]:
    """Hint whether `text` continues the current task/topic or switches to another. Decides nothing.

    The related topics and tasks come from the same retrieval as `recall` (`dense` as there).
    """
    current: dict[str, Any] | None = None
    reference = ""
    if current_topic_id is not None:
        row = Topic.get_or_none(Topic.topic_id == current_topic_id)
        if row is not None:
            latest = _latest_segments(store, [row.topic_id]).get(row.topic_id, {})
            reference = f"{row.title} {row.summary} {latest.get('summary', '')}"
            current = {"kind": "topic", "topic_id": row.topic_id, "title": row.title}
    if current is None and current_task_id is not None:
        card = TaskCard.get_or_none(TaskCard.task_id == current_task_id)
        if card is not None:
            reference = f"{card.title} {card.result}"
            current = {"kind": "task", "task_id": card.task_id, "title": card.title}
    if current is None:
        last = list(Interaction.select().order_by(Interaction.id.desc()).limit(RECENT))
        reference = " ".join(f"{r.user_text} {r.assistant_text}" for r in last)
        if last:
            current = {"kind": "recent_interactions", "interaction_ids": [r.interaction_id for r in last]}
    similarity = fts.overlap(text, reference) if reference else 0.0
    cues = [c for c in SWITCH_CUES if c in text]
    other_topics = [t for t in related_topics(store, text, limit, dense=dense) if t["topic_id"] != current_topic_id]
    other_cards = [c for c in related_cards(store, text, limit, dense=dense) if c["task_id"] != current_task_id]
    if current is None:
        assessment = "new"
    elif similarity >= CONTINUE_AT and not cues:
        assessment = "continue"
    elif similarity < SWITCH_BELOW or cues:
        assessment = "switch"
    else:
        assessment = "unclear"
    return {
        "assessment": assessment,
        "similarity": round(similarity, 3),
        "cues": cues,
        "current": current,
        "related_topics": other_topics,
        "related_tasks": other_cards,
        "note": "a hint only: whether experiences merge is decided by maintenance, not here",
    }
