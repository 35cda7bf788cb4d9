"""Adopted records and where they live: facts in the desk's facts, lessons and procedures as approved
lessons (what `run.start` gives in `on` mode), skill drafts on the skills page (a person activates them).

A fact keeps seed 002's lifecycle when learning writes it (`store.desk.facts.record`): the adoption adds its
evidence (the source's quotations, on the source's workday), so an environment fact stays a candidate until
independent evidence on two valid workdays, and a fact that says what one already here says gets the evidence
instead of a twin. Only the person's own edit confirms one at once.

Every function here runs inside the caller's transaction. A record stays
*managed* (learning may replace or remove it) while its target is as learning
left it; once a person edits it, it is the owner's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, TypedDict

import msgspec

from store.core import clock
from store.core.database import Store
from store.core.errors import Conflict
from store.desk import facts
from store.desk import projection as desk
from store.desk.common import when
from store.desk.facts import Evidence, FactSpec
from store.desk.models import Fact, Interaction, Skill, TaskCard
from store.episodes import lessons
from store.episodes.models import Lesson
from store.learning import sql
from store.learning.models import LearningRecord
from store.learning.projection import DOMAIN
from store.learning.rows import LearningRecord as RecordRow
from store.learning.sources import Source

FACT_SCOPES = {"fact.profile": "profile", "fact.project": "project", "fact.environment": "environment"}
LESSON_KINDS = ("lesson", "procedure")
PROCEDURE_PREFIX = "步骤 / Procedure: "


RECORD_COLUMNS = (
    "record_id, version, kind, content, state, managed, target_ref, provenance, expires_at, created, updated, reason"
)


def record_row(row: LearningRecord | Mapping[str, Any]) -> RecordRow:
    """A record as the socket and the console show it (from a model row or a `RECORD_COLUMNS` row)."""
    values = row.__data__ if isinstance(row, LearningRecord) else row
    return RecordRow(
        id=values["record_id"],
        version=values["version"],
        kind=values["kind"],
        content=values["content"],
        state=values["state"],
        managed=bool(values["managed"]) and values["state"] == "active" and _intact(values["target_ref"]),
        target=values["target_ref"],
        provenance=json.loads(values["provenance"]),
        expires_at=values["expires_at"],
        created=values["created"],
        updated=values["updated"],
        reason=values["reason"],
    )


def record_dict(row: LearningRecord) -> dict[str, object]:
    """`record_row` as JSON: what an adoption's reply (kept in the request ledger) holds."""
    out: dict[str, object] = msgspec.to_builtins(record_row(row))
    return out


def list_records(
    db: Any, state: str | None, limit: int, offset: int, after: tuple[str, str] | None = None
) -> list[RecordRow]:
    """Records, newest first (`updated`, then id); `after` (a record's `[updated, id]`) pages by key: only the
    records after it, so a page asked after an adoption neither repeats a row nor skips one."""
    conditions, args = ["state = ?"] if state is not None else [], [state] if state is not None else []
    if after is not None:
        conditions.append("(updated < ? OR (updated = ? AND record_id > ?))")
        args += [after[0], after[0], after[1]]
    where = f"WHERE {' AND '.join(conditions)} " if conditions else ""
    found = sql.rows(
        db,
        f"SELECT {RECORD_COLUMNS} FROM learning_record {where}ORDER BY updated DESC, record_id LIMIT ? OFFSET ?",
        [*args, limit, offset],
    )
    return [record_row(r) for r in found]


def target_intact(row: LearningRecord) -> bool:
    """Whether the record's target is still as learning left it (no person changed it since)."""
    return row.state == "active" and _intact(row.target_ref)


_TARGETS = {
    # A fact learning placed is a candidate until its second workday, then active: both as learning left it.
    "fact": ("SELECT status FROM desk_fact WHERE fact_id = ?", ("active", "candidate")),
    "lesson": ("SELECT status FROM lesson WHERE lesson_id = ?", ("approved",)),
    "skill": ("SELECT status FROM desk_skill WHERE skill_id = ?", ("draft",)),
}


def _intact(target_ref: str) -> bool:
    where, _, target = target_ref.partition(":")
    if where not in _TARGETS:
        return False
    query, wanted = _TARGETS[where]
    row = sql.one(Fact._meta.database, query, [target])
    return row is not None and row["status"] in wanted


class ManagedRecord(TypedDict):
    """A record learning may still replace or remove, as an extraction snapshot lists it."""

    id: str
    version: int
    kind: str
    content: str


def managed(kinds: tuple[str, ...] | None = None, limit: int = 50) -> list[ManagedRecord]:
    """Records learning may still replace or remove (id + version), newest first."""
    query = LearningRecord.select().where((LearningRecord.state == "active") & (LearningRecord.managed == True))  # noqa: E712
    if kinds is not None:
        query = query.where(LearningRecord.kind.in_(list(kinds)))
    rows = [r for r in query.order_by(LearningRecord.updated.desc()).limit(limit * 2) if target_intact(r)]
    return [{"id": r.record_id, "version": r.version, "kind": r.kind, "content": r.content} for r in rows[:limit]]


def record_id_for(review_id: str) -> str:
    return "rec_" + hashlib.sha256(review_id.encode()).hexdigest()[:16]


# -- placing content -------------------------------------------------------------------


def _workday(source: Source) -> str:
    if source.kind == "interaction":
        row = Interaction.get_or_none(Interaction.interaction_id == source.source_id)
        if row is not None:
            return str(row.workday)
    if source.kind == "task":
        card = TaskCard.get_or_none(TaskCard.task_id == source.source_id)
        if card is not None:
            return str(card.workday)
    return when().workday


def place(store: Store, kind: str, content: str, quotations: list[str], source: Source, *, actor: str) -> str:
    """Write `content` where records of `kind` live; returns the target reference."""
    if kind in FACT_SCOPES:
        return _place_fact(store, kind, content, quotations, source, actor=actor)
    if kind in LESSON_KINDS:
        text = content if kind == "lesson" else PROCEDURE_PREFIX + content
        lesson_id = "les_" + hashlib.sha256(f"{text}\x1f{clock.iso_now()}".encode()).hexdigest()[:16]
        apps = [a for a in source.apps if isinstance(a, str)]
        store.append(lessons.DOMAIN, "lesson_added", {"lesson_id": lesson_id, "text": text, "apps": apps}, actor=actor)
        store.append(lessons.DOMAIN, "lesson_approved", {"lesson_id": lesson_id}, actor=actor)
        return f"lesson:{lesson_id}"
    if kind == "skill_draft":
        name = content.splitlines()[0][:40]
        skill_id = "skill_" + hashlib.sha256(f"{name}\x1f{content}".encode()).hexdigest()[:16]
        if Skill.get_or_none(Skill.skill_id == skill_id) is None:
            store.append(
                desk.DOMAIN,
                "skill_drafted",
                {
                    "skill_id": skill_id,
                    "name": name,
                    "text": content,
                    "source_interaction_id": source.source_id,
                    "quote": quotations[0],
                },
                actor=actor,
            )
        return f"skill:{skill_id}"
    raise ValueError(f"unknown kind {kind!r}")


def _place_fact(
    store: Store,
    kind: str,
    content: str,
    quotations: list[str],
    source: Source,
    *,
    actor: str,
    by_owner: bool = False,
) -> str:
    """Add the fact with its evidence by the rules every fact keeps (`store.desk.facts.record`), or its evidence
    to the fact already here that says the same; `by_owner`: the owner's own edit, which confirms it at once."""
    scope = FACT_SCOPES[kind]
    workday = _workday(source)
    task = source.kind == "task"
    evidence = tuple(
        Evidence("task" if task else "interaction", source.source_id, "task" if task else "user", quote, workday)
        for quote in dict.fromkeys(quotations)
    )
    spec = FactSpec(scope, content, "identity" if scope == "profile" else None, None, evidence)
    found = facts.existing(spec)
    if found is not None and found.status == "inactive" and not by_owner:
        raise Conflict(
            f"the owner deactivated fact {found.fact_id} ({found.content!r}), which says this; learning does not "
            "revive it"
        )
    recorded = facts.record(store, spec, actor=actor, note="edited by the owner" if by_owner else "adopted by learning")
    fact_id = recorded["fact_id"]
    if by_owner and recorded["status"] != "active":
        store.append(
            desk.DOMAIN,
            "fact_status_changed",
            {"fact_id": fact_id, "status": "active", "reason": "edited by the owner"},
            actor=actor,
        )
    return f"fact:{fact_id}"


def withdraw(store: Store, target_ref: str, reason: str, *, actor: str) -> None:
    """Take a record's content out of where it lives (a fact deactivated, a lesson revoked, a draft rejected)."""
    where, _, target = target_ref.partition(":")
    if where == "fact":
        fact = Fact.get_or_none(Fact.fact_id == target)
        if fact is not None and fact.status != "inactive":
            store.append(
                desk.DOMAIN,
                "fact_status_changed",
                {"fact_id": target, "status": "inactive", "reason": reason},
                actor=actor,
            )
    elif where == "lesson":
        lesson = Lesson.get_or_none(Lesson.lesson_id == target)
        if lesson is not None and lesson.status != "revoked":
            store.append(lessons.DOMAIN, "lesson_revoked", {"lesson_id": target}, actor=actor)
    elif where == "skill":
        skill = Skill.get_or_none(Skill.skill_id == target)
        if skill is not None and skill.status == "draft":
            store.append(
                desk.DOMAIN,
                "skill_status_changed",
                {"skill_id": target, "status": "rejected", "from": "draft"},
                actor=actor,
            )


def change(store: Store, row: LearningRecord, state: str, reason: str, *, actor: str) -> None:
    """Move an active record to `state` (revoked / expired / removed), withdrawing its content."""
    if row.managed or state != "expired":
        withdraw(store, row.target_ref, reason, actor=actor)
    store.append(DOMAIN, "record_changed", {"record_id": row.record_id, "state": state, "reason": reason}, actor=actor)


def revoke_from_source(store: Store, kind: str, source_id: str, *, actor: str) -> int:
    """Revoke the managed records adopted from a retracted source; how many."""
    needle = json.dumps(f"{kind}:{source_id}", ensure_ascii=False)
    rows = LearningRecord.select().where(
        (LearningRecord.state == "active")
        & (LearningRecord.managed == True)  # noqa: E712
        & LearningRecord.provenance.contains(needle)
    )
    count = 0
    for row in list(rows):
        change(store, row, "revoked", f"source {kind}:{source_id} was retracted", actor=actor)
        count += 1
    return count


def expire_due(store: Store, *, actor: str = "system") -> int:
    """Expire the managed records past their TTL; how many. Writes only when one is due."""
    now = clock.iso_now()
    due = LearningRecord._meta.database.execute_sql(
        "SELECT COUNT(*) FROM learning_record WHERE state = 'active' AND managed = ? AND expires_at <= ?", (True, now)
    ).fetchone()[0]
    if not due:
        return 0
    rows = LearningRecord.select().where(
        (LearningRecord.state == "active") & (LearningRecord.managed == True) & (LearningRecord.expires_at <= now)  # noqa: E712
    )
    with store.atomic():
        for row in list(rows):
            change(store, row, "expired", "its TTL ran out", actor=actor)
    return int(due)


def edit(store: Store, row: LearningRecord, content: str, *, actor: str) -> str:
    """A person rewrites an adopted record: it becomes the owner's (unmanaged, no expiry by learning)."""
    withdraw(store, row.target_ref, "edited by the owner", actor=actor)
    provenance = json.loads(row.provenance)
    sources = provenance.get("sources") or []
    source = Source("interaction", "", [], None, "")
    if sources:
        kind, _, source_id = str(sources[0]).partition(":")
        source = Source(kind, source_id, [], None, "")
    quotes = [q for q in provenance.get("quotations", []) if isinstance(q, str)]
    if row.kind in FACT_SCOPES:
        target = _place_fact(store, row.kind, content, quotes[:1], source, actor=actor, by_owner=True)
    else:
        target = place(store, row.kind, content, quotes, source, actor=actor)
    store.append(
        DOMAIN,
        "record_changed",
        {
            "record_id": row.record_id,
            "state": "active",
            "managed": False,
            "content": content,
            "target_ref": target,
            "bump": True,
            "reason": "edited by the owner",
        },
        actor=actor,
    )
    return target
