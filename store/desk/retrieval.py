"""What an agent reads: `memory.recall`, `transition.assess` and `context.prepare`.

Everything is found through indexes (FTS5 over interactions, task cards,
topics and facts), so an item from months ago is as findable as one from a
minute ago, at a cost that follows the query, not the archive.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, TypeVar

import msgspec

from store.core import clock
from store.core.database import Store
from store.desk import facts, fts, hybrid, rows, skills, sql, topics
from store.desk.fusion import Candidate
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
    def of_row(cls, row: Mapping[str, object]) -> Snapshot:
        newest = {m._meta.table_name: int(str(row[f"newest_{i}"] or 0)) for i, m in enumerate(cls.TABLES)}
        return cls(newest, str(row["meta"]) if row["meta"] is not None else "0")

    def of(self, model: Any) -> int | None:
        return self.newest.get(model._meta.table_name)


def _epoch(row: rows.TopicTurn | rows.TaskCard) -> float:
    return clock.parse_iso(row.ts).timestamp()


def turns(store: Store) -> hybrid.Kind[rows.TopicTurn]:
    """Turns as retrieval reads them (with the turns said around them in the same sitting)."""
    return hybrid.Kind(
        InteractionFts._meta.table_name,
        "interaction",
        by_rowid=lambda ids: sql.interactions_by_rowid(store.db, ids),
        by_key=lambda keys: sql.interactions_by_key(store.db, keys),
        key=lambda row: row.interaction_id,
        epoch=_epoch,
        neighbours=lambda keys: sql.interaction_neighbours(store.db, keys),
    )


def cards(store: Store) -> hybrid.Kind[rows.TaskCard]:
    """Task cards as retrieval reads them (the runs of one scheduled task are told apart from other tasks)."""
    return hybrid.Kind(
        TaskCardFts._meta.table_name,
        "task",
        by_rowid=lambda ids: sql.cards_by_rowid(store.db, ids),
        by_key=lambda keys: sql.cards_by_key(store.db, keys),
        key=lambda row: row.task_id,
        epoch=_epoch,
        run_of=lambda row: row.schedule_id or row.title,
    )


def related_interactions(
    store: Store, query: str, limit: int, seen: Snapshot | None = None, dense: hybrid.Dense | None = None
) -> list[Candidate[rows.TopicTurn]]:
    """Turns related to `query` by words and (with `dense`) by meaning, best first (see `hybrid.related`)."""
    newest = seen.of(InteractionFts) if seen else None
    return hybrid.related(store, turns(store), query, limit, newest=newest, dense=dense)


def related_cards(
    store: Store, query: str, limit: int, seen: Snapshot | None = None, dense: hybrid.Dense | None = None
) -> list[Candidate[rows.TaskCard]]:
    """Task cards related to `query` by words and (with `dense`) by meaning, best first (see `hybrid.related`)."""
    newest = seen.of(TaskCardFts) if seen else None
    return hybrid.related(store, cards(store), query, limit, newest=newest, dense=dense)


class _TopicHit(NamedTuple):
    """A topic as related topics are read: the topic row and when it last changed."""

    topic: rows.StoredTopic
    epoch: float


def _topic_hit(*, task_ids: str, updated_epoch: float, **columns: Any) -> _TopicHit:
    return _TopicHit(rows.StoredTopic(task_ids=task_ids.split(), **columns), float(updated_epoch))


def related_topics(
    store: Store, query: str, limit: int, seen: Snapshot | None = None, dense: hybrid.Dense | None = None
) -> list[rows.RecalledTopic]:
    """Topics related to `query`, each with its latest segment (see `hybrid.related`)."""

    def read(where: str, values: Sequence[int] | Sequence[str]) -> list[tuple[Any, _TopicHit]]:
        if not values:
            return []
        return sql.select_keyed(
            store.db,
            _topic_hit,
            f"SELECT id AS _rowid, {TOPIC_COLUMNS}, updated_epoch FROM desk_topic "
            f"WHERE {where} IN ({sql.marks(values)})",
            values,
        )

    topics = hybrid.Kind(
        TopicFts._meta.table_name,
        "topic",
        by_rowid=lambda ids: dict(read("id", ids)),
        by_key=lambda keys: {hit.topic.topic_id: hit for _rowid, hit in read("topic_id", keys)},
        key=lambda hit: hit.topic.topic_id,
        epoch=lambda hit: hit.epoch,
    )
    found = hybrid.related(store, topics, query, limit, newest=seen.of(TopicFts) if seen else None, dense=dense)
    latest = _latest_segments(store, [c.key for c in found])
    return [
        rows.RecalledTopic(
            **msgspec.structs.asdict(c.row.topic), score=c.score, signals=c.scored, latest_segment=latest.get(c.key)
        )
        for c in found
    ]


TOPIC_COLUMNS = "topic_id, title, summary, kind, task_ids, first_workday, last_workday, interactions, updated"


def _latest_segments(store: Store, topic_ids: list[str]) -> dict[str, rows.LatestSegment]:
    if not topic_ids:
        return {}
    found = sql.select_keyed(
        store.db,
        rows.LatestSegment,
        f"SELECT topic_id, workday, summary FROM desk_topic_segment WHERE topic_id IN ({sql.marks(topic_ids)}) "
        "ORDER BY workday",
        topic_ids,
    )
    return {str(topic_id): segment for topic_id, segment in found}


Shown = TypeVar("Shown", rows.TopicTurn, rows.TaskCard)
Answered = TypeVar("Answered", rows.RecalledTurn, rows.RecalledCard)


def _related_then_recent(
    related: list[Candidate[Shown]],
    recent: list[Shown],
    limit: int,
    key: Callable[[Shown], str],
    recalled: Callable[..., Answered],
) -> list[Answered]:
    """Related items first, then the most recent ones not already there, each marked with why it came
    (`recalled` builds the answer's row from an item's fields and its score, signals and reason)."""
    out = [
        recalled(**msgspec.structs.asdict(c.row), score=c.score, signals=c.scored, why="related")
        for c in related[:limit]
    ]
    seen = {key(c.row) for c in related[:limit]}
    for item in recent:
        if key(item) not in seen and len(out) < limit + RECENT:
            out.append(recalled(**msgspec.structs.asdict(item), why="recent"))
            seen.add(key(item))
    return out


def _recalled_turns(
    related: list[Candidate[rows.TopicTurn]], recent: list[rows.TopicTurn], limit: int
) -> list[rows.RecalledTurn]:
    return _related_then_recent(related, recent, limit, lambda t: t.interaction_id, rows.RecalledTurn)


def _recalled_cards(
    related: list[Candidate[rows.TaskCard]], recent: list[rows.TaskCard], limit: int
) -> list[rows.RecalledCard]:
    return _related_then_recent(related, recent, limit, lambda c: c.task_id, rows.RecalledCard)


# Ordered: equal scores keep this order, and without one a server returns rows as they lie (PostgreSQL moves a
# row on each update), so the same memory could answer differently after a `jiyi import desk` or a migration.
BUNDLES = "SELECT bundle_id, key, title, updated FROM desk_bundle ORDER BY updated DESC, bundle_id"


class _BundleName(NamedTuple):
    """A row of `BUNDLES`."""

    bundle_id: str
    key: str
    title: str
    updated: str


def _bundles_for(
    store: Store, query: str, schedule_ids: list[str], limit: int, bundles: list[_BundleName]
) -> list[rows.RecalledBundle]:
    """The bundles of the recalled scheduled tasks and those named like the query (`bundles`: `BUNDLES`' rows)."""
    wanted = {f"schedule/{s}" for s in schedule_ids}
    scored = []
    for row in bundles:
        score = fts.overlap(query, f"{row.title} {row.key}")
        if row.bundle_id in wanted or score > 0:
            scored.append((row.bundle_id in wanted, score, row))
    scored.sort(key=lambda item: (not item[0], -item[1]))
    chosen = [row for _, _, row in scored[:limit]]
    if not chosen:
        return []
    ids = [row.bundle_id for row in chosen]
    docs: dict[str, list[rows.DocumentRef]] = {i: [] for i in ids}
    for bundle_id, doc in sql.select_keyed(
        store.db,
        rows.DocumentRef,
        f"SELECT bundle_id, path, revision FROM desk_bundle_document WHERE bundle_id IN ({sql.marks(ids)}) "
        "AND path NOT LIKE 'runs/%' ORDER BY path",
        ids,
    ):
        docs[bundle_id].append(doc)
    return [
        rows.RecalledBundle(
            bundle_id=row.bundle_id,
            key=row.key,
            title=row.title,
            updated=row.updated,
            documents=docs[row.bundle_id],
            score=round(score, 3),
        )
        for (_, score, row) in scored[:limit]
    ]


def cached_recent_workdays(store: Store, version: str | None = None) -> list[rows.RecentWorkday]:
    """The workday overview, read again only after a segment was written (a counter in `meta` says when).

    `version` is that counter when the caller read it already.
    """
    version = overview_version(store.db) if version is None else version
    cached = store.caches.get("desk:overview")
    if cached is None or cached[0] != version:
        cached = (version, topics.recent_workdays(store))
        store.caches["desk:overview"] = cached
    return list(cached[1])  # frozen rows: shared by every answer until a segment is written


@dataclass(frozen=True)
class Recalled:
    """What the store recalls about a query (`recall`): related items first (each with its fused `score` and
    `signals`), then recent ones; the service adds how it went (`memory.recall`)."""

    query: str
    task_cards: list[rows.RecalledCard]
    interactions: list[rows.RecalledTurn]
    bundles: list[rows.RecalledBundle]
    recent_workdays: list[rows.RecentWorkday]
    related_topics: list[rows.RecalledTopic]
    core_facts: list[rows.CoreFact]
    related_facts: list[rows.RelatedFact]
    relevant_skills: list[rows.RelevantSkill]


def recall(store: Store, query: str, limits: RecallLimits, dense: hybrid.Dense | None = None) -> Recalled:
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
    interactions = _recalled_turns(
        related_interactions(store, query, limit, seen, dense), [rows.TopicTurn(**r) for r in recent_turns], limit
    )
    cards = _recalled_cards(related_cards_(), [rows.TaskCard(**r) for r in recent_cards], limit)
    return Recalled(
        query=query,
        task_cards=cards,
        interactions=interactions,
        bundles=_bundles_for(
            store, query, [c.schedule_id for c in cards if c.schedule_id], limit, [_BundleName(**r) for r in bundles]
        ),
        recent_workdays=cached_recent_workdays(store, seen.overview_version),
        related_topics=related_topics_(),
        core_facts=[facts.core_fact(**r) for r in core],
        related_facts=related_facts_(),
        relevant_skills=skills.relevant_skills(store, query, limit, [rows.Skill(**r) for r in active_skills]),
    )


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
    current: dict[str, object] | None = None
    reference = ""
    if current_topic_id is not None:
        row = Topic.get_or_none(Topic.topic_id == current_topic_id)
        if row is not None:
            latest = _latest_segments(store, [row.topic_id]).get(row.topic_id)
            reference = f"{row.title} {row.summary} {latest.summary if latest else ''}"
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
    other_topics = [t for t in related_topics(store, text, limit, dense=dense) if t.topic_id != current_topic_id]
    other_cards = [
        rows.RelatedCard(**msgspec.structs.asdict(c.row), score=c.score, signals=c.scored)
        for c in related_cards(store, text, limit, dense=dense)
        if c.key != current_task_id
    ]
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
