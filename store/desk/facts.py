"""Long-term facts: scoped, evidenced verbatim, with a lifecycle (docs/protocol.md, memory.maintenance.commit).

- `profile`: stable identity, communication preferences and ways of working,
  only from the user's own words, with a `profile_kind`. Active at once.
- `project`: the work under way; offered by relevance only. Active at once.
- `environment`: the controlled devices. A `candidate` until independent
  evidence (the user's words or a task result, not the assistant's
  restatement) on two valid workdays makes it `active`; a candidate with no
  corroboration for three workdays is deactivated by the daily review.

The lifecycle holds whoever writes the fact: a planner's commit, learning's
adoption (`store/learning/records.py`), an import. A fact that says what one
already here says (`fact_likeness`: the same marks, negations and nearly the
same words) is that fact: its evidence is added there, never a second fact.

An `inactive` fact is never revived by maintenance: new evidence is kept, its
status is not touched; only a person (the console) can confirm it again.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import msgspec

from store.core import clock
from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, NotFound
from store.core.models import tuples
from store.core.redaction.redactor import Redactor
from store.desk import fact_likeness, hybrid, rows, sql
from store.desk.common import check_id, when
from store.desk.fact_terms import PROFILE_KINDS, SCOPES
from store.desk.models import Fact, FactEvidence, FactFts, Interaction, TaskCard
from store.desk.projection import DOMAIN
from store.desk.workday import days_between

MAX_FACT_CHARS = 300
MAX_QUOTE_CHARS = 500
CORROBORATION_DAYS = 2
CANDIDATE_EXPIRY_DAYS = 3


@dataclass(frozen=True)
class Evidence:
    source_kind: str  # interaction / task
    source_id: str
    speaker: str  # user / assistant / task
    quote: str
    workday: str

    @property
    def counts(self) -> bool:
        """Independent evidence: the user's words or a task's result, not the assistant restating."""
        return self.speaker in ("user", "task")


@dataclass(frozen=True)
class FactSpec:
    scope: str
    content: str
    profile_kind: str | None
    project: str | None
    evidence: tuple[Evidence, ...]

    @property
    def fact_id(self) -> str:
        key = f"{self.scope}\x1f{self.project or ''}\x1f{_fold(self.content)}"
        return "fact_" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def check_terms(
    redactor: Redactor, scope: object, content: object, kind: object, project: object, where: str
) -> tuple[str, str]:
    """The rules every fact meets however it comes (proposed or imported): a scope, non-empty content of at
    most `MAX_FACT_CHARS`, a `profile_kind` from `PROFILE_KINDS` on a profile fact and on no other, a
    project (an id, never sensitive) only on a project fact; the scope and content, else `InvalidInput`
    naming the field."""
    if scope not in SCOPES:
        raise InvalidInput(f"{where}.scope must be one of {', '.join(SCOPES)}")
    if not isinstance(content, str) or not content.strip():
        raise InvalidInput(f"{where}.content must be non-empty text")
    if len(content) > MAX_FACT_CHARS:
        raise InvalidInput(f"{where}.content is longer than {MAX_FACT_CHARS} characters; a fact is one short sentence")
    if scope == "profile" and kind not in PROFILE_KINDS:
        raise InvalidInput(f"{where}.profile_kind must be one of {', '.join(PROFILE_KINDS)} for a profile fact")
    if scope != "profile" and kind is not None:
        raise InvalidInput(f"{where}.profile_kind belongs to profile facts only")
    if project is not None:
        if scope != "project":
            raise InvalidInput(f"{where}.project belongs to project facts only")
        check_id(project, f"{where}.project", redactor)
    return str(scope), content


def parse_fact(store: Store, redactor: Redactor, raw: object, where: str) -> FactSpec:
    """Check one proposed fact and its evidence against the stored interactions and task cards."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where} must be an object")
    unknown = sorted(set(raw) - {"scope", "content", "profile_kind", "project", "evidence"})
    if unknown:
        raise InvalidInput(f"{where} has an unknown field {unknown[0]!r}")
    kind, project = raw.get("profile_kind"), raw.get("project")
    scope, content = check_terms(redactor, raw.get("scope"), raw.get("content"), kind, project, where)
    clean = " ".join(redactor.redact(content).split())  # redacted first: a key wrapped over lines is one
    if clean != " ".join(content.split()):
        raise InvalidInput(f"{where}.content holds sensitive text; facts never store it")
    items = raw.get("evidence")
    if not isinstance(items, list) or not items:
        raise InvalidInput(f"{where}.evidence must list at least one {{interaction_id or task_id, quote}}")
    evidence = tuple(_evidence(item, f"{where}.evidence[{i}]", scope) for i, item in enumerate(items))
    return FactSpec(scope, clean, kind, project, evidence)


def _evidence(raw: object, where: str, scope: str) -> Evidence:
    if not isinstance(raw, dict) or not isinstance(raw.get("quote"), str) or not raw["quote"].strip():
        raise InvalidInput(f"{where} must be {{interaction_id or task_id, quote}} with a non-empty quote")
    unknown = sorted(set(raw) - {"interaction_id", "task_id", "quote"})
    if unknown:
        raise InvalidInput(f"{where} has an unknown field {unknown[0]!r}")
    quote = raw["quote"]
    if len(quote) > MAX_QUOTE_CHARS:
        raise InvalidInput(f"{where}.quote is longer than {MAX_QUOTE_CHARS} characters")
    if ("interaction_id" in raw) == ("task_id" in raw):
        raise InvalidInput(f"{where} names exactly one source: interaction_id or task_id")
    if "task_id" in raw:
        card = TaskCard.get_or_none(TaskCard.task_id == raw["task_id"])
        if card is None:
            raise InvalidInput(f"{where}: no task card {raw['task_id']!r}")
        if quote not in card.result and quote not in card.title:
            raise InvalidInput(f"{where}.quote does not appear verbatim in task {card.task_id}'s result")
        if scope == "profile":
            raise InvalidInput(f"{where}: a profile fact comes only from the user's own words, not a task result")
        return Evidence("task", card.task_id, "task", quote, card.workday)
    row = Interaction.get_or_none(Interaction.interaction_id == raw["interaction_id"])
    if row is None:
        raise InvalidInput(f"{where}: no interaction {raw['interaction_id']!r}")
    if quote in row.user_text:
        speaker = "user"
    elif quote in row.assistant_text:
        speaker = "assistant"
    else:
        raise InvalidInput(f"{where}.quote does not appear verbatim in interaction {row.interaction_id}")
    if scope == "profile" and speaker != "user":
        raise InvalidInput(f"{where}: a profile fact comes only from the user's own words")
    return Evidence("interaction", row.interaction_id, speaker, quote, row.workday)


class FactRecorded(TypedDict):
    """What recording a fact did (a commit's `facts`): `outcome` added / evidence_added / activated /
    kept_inactive, and the fact's status after it."""

    fact_id: str
    outcome: str
    status: str


STATUS_ORDER = ("active", "candidate", "inactive")  # which of several alike facts takes the evidence


def existing(spec: FactSpec) -> Fact | None:
    """The fact already here that `spec` states: the one of its id, else one that says the same thing in other
    words (`fact_likeness.alike`) in its scope (and project, and profile kind), an active one first."""
    fact = Fact.get_or_none(Fact.fact_id == spec.fact_id)
    if fact is not None:
        return fact
    # Alike facts have the same marks: only those are read (an index), and as tuples (no model per row).
    query = Fact.select(Fact.fact_id, Fact.content, Fact.status).where(
        (Fact.marks == fact_likeness.marks_key(spec.content))
        & (Fact.scope == spec.scope)
        & (Fact.project == spec.project)
        & (Fact.profile_kind == spec.profile_kind)
    )
    alike = [row for row in tuples(query.order_by(Fact.id)) if fact_likeness.alike(spec.content, row[1])]
    if not alike:
        return None
    alike.sort(key=lambda row: STATUS_ORDER.index(row[2]) if row[2] in STATUS_ORDER else len(STATUS_ORDER))
    return Fact.get(Fact.fact_id == alike[0][0])


def record(store: Store, spec: FactSpec, *, actor: str, note: str = "") -> FactRecorded:
    """Inside a transaction: add the fact (or new evidence to it, or to the fact that says the same thing) and
    move its status as the rules say. `note` says who wrote it, in a new fact's status reason."""
    fact = existing(spec)
    fact_id = spec.fact_id if fact is None else str(fact.fact_id)
    first = min((e.workday for e in spec.evidence), default=when().workday)
    outcome = "evidence_added"
    if fact is None:
        status = "candidate" if spec.scope == "environment" else "active"
        waiting = "awaiting evidence on a second workday" if status == "candidate" else ""
        store.append(
            DOMAIN,
            "fact_added",
            {
                "fact_id": fact_id,
                "scope": spec.scope,
                "profile_kind": spec.profile_kind,
                "project": spec.project,
                "content": spec.content,
                "status": status,
                "workday": first,
                "reason": "; ".join(part for part in (note, waiting) if part),
            },
            actor=actor,
        )
        outcome = "added"
    seen = {
        (e.source_id, e.quote)
        for e in FactEvidence.select(FactEvidence.source_id, FactEvidence.quote).where(FactEvidence.fact_id == fact_id)
    }
    for item in spec.evidence:
        if (item.source_id, item.quote) in seen:
            continue
        seen.add((item.source_id, item.quote))
        store.append(
            DOMAIN,
            "fact_evidence_added",
            {
                "fact_id": fact_id,
                "source_kind": item.source_kind,
                "source_id": item.source_id,
                "speaker": item.speaker,
                "quote": item.quote,
                "workday": item.workday,
                "counts": item.counts,
            },
            actor=actor,
        )
    fact = Fact.get(Fact.fact_id == fact_id)
    days = fact.valid_workdays.split()
    if fact.status == "candidate" and len(days) >= CORROBORATION_DAYS:
        store.append(
            DOMAIN,
            "fact_status_changed",
            {"fact_id": fact_id, "status": "active", "reason": f"independent evidence on {', '.join(days[-2:])}"},
            actor=actor,
        )
        outcome = "activated"
    elif fact.status == "inactive":
        outcome = "kept_inactive"
    return {"fact_id": fact_id, "outcome": outcome, "status": Fact.get(Fact.fact_id == fact_id).status}


def review(store: Store, workday: str, *, actor: str) -> list[str]:
    """Inside a transaction: the daily review of `workday`; deactivates stale candidates, returns their ids."""
    stale = []
    for fact in Fact.select().where(Fact.status == "candidate"):
        days = fact.valid_workdays.split()
        last = days[-1] if days else fact.first_workday
        if days_between(last, workday) >= CANDIDATE_EXPIRY_DAYS:
            stale.append(fact.fact_id)
            store.append(
                DOMAIN,
                "fact_status_changed",
                {
                    "fact_id": fact.fact_id,
                    "status": "inactive",
                    "reason": f"no corroboration for {CANDIDATE_EXPIRY_DAYS} workdays (reviewed {workday})",
                },
                actor=actor,
            )
    return stale


def set_status(store: Store, fact_id: str, status: str, reason: str, *, actor: str) -> rows.Fact:
    """A person confirms (active) or deactivates (inactive) a fact."""
    if status not in ("active", "inactive"):
        raise InvalidInput("a fact can be set active (confirmed) or inactive")
    with store.atomic():
        fact = Fact.get_or_none(Fact.fact_id == fact_id)
        if fact is None:
            raise NotFound(f"no fact {fact_id!r}")
        if fact.status == status:
            raise Conflict(f"fact {fact_id} is already {status}")
        text = reason.strip() or ("confirmed by hand" if status == "active" else "deactivated by hand")
        store.append(DOMAIN, "fact_status_changed", {"fact_id": fact_id, "status": status, "reason": text}, actor=actor)
    return get_fact(store, fact_id)


def fact_row(row: Fact, evidence: list[FactEvidence]) -> rows.Fact:
    """A fact with its evidence, as the store reads it."""
    return rows.Fact(
        fact_id=row.fact_id,
        scope=row.scope,
        profile_kind=row.profile_kind,
        project=row.project,
        content=row.content,
        status=row.status,
        status_reason=row.status_reason,
        workdays=row.valid_workdays.split(),
        first_workday=row.first_workday,
        updated=row.updated,
        evidence=[
            rows.FactEvidence(
                source_kind=e.source_kind,
                source_id=e.source_id,
                speaker=e.speaker,
                quote=e.quote,
                workday=e.workday,
                counts=e.counts,
            )
            for e in evidence
        ],
    )


def get_fact(store: Store, fact_id: str) -> rows.Fact:
    row = Fact.get_or_none(Fact.fact_id == fact_id)
    if row is None:
        raise NotFound(f"no fact {fact_id!r}")
    evidence = list(FactEvidence.select().where(FactEvidence.fact_id == fact_id).order_by(FactEvidence.id))
    return fact_row(row, evidence)


def list_facts(
    store: Store,
    *,
    scope: str | None = None,
    status: str | None = None,
    text: str | None = None,
    limit: int = 200,
    offset: int = 0,
) -> list[rows.Fact]:
    query = Fact.select()
    if scope is not None:
        query = query.where(Fact.scope == scope)
    if status is not None:
        query = query.where(Fact.status == status)
    if text:
        query = query.where(Fact.content.contains(text) | Fact.project.contains(text))
    found = list(query.order_by(Fact.updated.desc()).limit(limit).offset(offset))
    evidence: dict[str, list[FactEvidence]] = {r.fact_id: [] for r in found}
    if found:
        for e in FactEvidence.select().where(FactEvidence.fact_id.in_(list(evidence))).order_by(FactEvidence.id):
            evidence[e.fact_id].append(e)
    return [fact_row(r, evidence[r.fact_id]) for r in found]


CORE_COLUMNS = (
    "fact_id, scope, profile_kind, project, content, status, status_reason, valid_workdays, first_workday, updated"
)
CORE_FACTS = (
    f"SELECT {CORE_COLUMNS} FROM desk_fact WHERE scope = 'profile' AND status = 'active' ORDER BY updated DESC LIMIT ?"
)


def core_fact(*, valid_workdays: str, **columns: Any) -> rows.CoreFact:
    """A row of `CORE_COLUMNS` as a fact recall answers (its workdays a list)."""
    return rows.CoreFact(workdays=valid_workdays.split(), **columns)


def core_facts(store: Store, limit: int) -> list[rows.CoreFact]:
    """The few global profile facts that always come back."""
    return sql.select_as(store.db, core_fact, CORE_FACTS, [limit])


def related_facts(
    store: Store, query: str, limit: int, newest: int | None = None, dense: hybrid.Dense | None = None
) -> list[rows.RelatedFact]:
    """Active project and environment facts by relevance to `query` (`newest`: the search table's `rows()`;
    `dense`: the desk index, see `hybrid.related`)."""
    recallable = (
        f"SELECT id AS _rowid, {CORE_COLUMNS} FROM desk_fact "
        "WHERE status = 'active' AND scope IN ('project', 'environment')"
    )

    def by_rowid(ids: Sequence[int]) -> dict[int, rows.CoreFact]:
        found = sql.select_keyed(store.db, core_fact, f"{recallable} AND id IN ({sql.marks(ids)})", list(ids))
        return dict(found)

    def by_key(keys: Sequence[str]) -> dict[str, rows.CoreFact]:
        found = sql.select_keyed(store.db, core_fact, f"{recallable} AND fact_id IN ({sql.marks(keys)})", list(keys))
        return {r.fact_id: r for _rowid, r in found}

    kind = hybrid.Kind(
        FactFts._meta.table_name,
        "fact",
        by_rowid=by_rowid,
        by_key=by_key,
        key=lambda row: row.fact_id,
        epoch=lambda row: clock.parse_iso(row.updated).timestamp(),
    )
    return [
        rows.RelatedFact(**msgspec.structs.asdict(c.row), score=c.score, signals=c.scored)
        for c in hybrid.related(store, kind, query, limit, newest=newest, dense=dense)
    ]
