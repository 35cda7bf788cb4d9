"""Skills: drafts from the user's guidance; only the user's explicit request activates one.

A draft names the interaction whose user words it came from, and quotes them
verbatim. Executors read active skills only; drafts stay readable for review.
`set_status(..., "active")` by an agent needs `user_request`: the user's own
words of this turn asking for it, recorded in the event log with the change.
"""

from __future__ import annotations

import hashlib
from typing import NotRequired, TypedDict

import msgspec

from store.core.database import Store
from store.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from store.core.redact import Redactor
from store.desk import fts, rows, sql
from store.desk.models import Interaction, Skill
from store.desk.projection import DOMAIN

STATUSES = ("draft", "active", "disabled", "rejected")
MAX_NAME = 80
MAX_TEXT = 4000
MAX_REQUEST = 500


def parse_draft(store: Store, redactor: Redactor, raw: object, where: str) -> dict[str, str]:
    """Check a proposed draft: {name, text, source_interaction_id, quote of the user's guidance}."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where} must be an object")
    unknown = sorted(set(raw) - {"name", "text", "source_interaction_id", "quote"})
    if unknown:
        raise InvalidInput(f"{where} has an unknown field {unknown[0]!r}")
    name, text = raw.get("name"), raw.get("text")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise InvalidInput(f"{where}.name must be 1–{MAX_NAME} characters")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        raise InvalidInput(f"{where}.text must be 1–{MAX_TEXT} characters")
    source, quote = raw.get("source_interaction_id"), raw.get("quote")
    if not isinstance(source, str) or not isinstance(quote, str) or not quote.strip():
        raise InvalidInput(f"{where} needs source_interaction_id and quote: skills come from the user's guidance")
    row = Interaction.get_or_none(Interaction.interaction_id == source)
    if row is None:
        raise InvalidInput(f"{where}: no interaction {source!r}")
    if quote not in row.user_text:
        raise InvalidInput(f"{where}.quote does not appear verbatim in the user's words of {source}")
    clean_name, clean_text = redactor.redact(name.strip()), redactor.redact(text.strip())
    skill_id = "skill_" + hashlib.sha256(f"{clean_name}\x1f{clean_text}".encode()).hexdigest()[:16]
    return {
        "skill_id": skill_id,
        "name": clean_name,
        "text": clean_text,
        "source_interaction_id": source,
        "quote": redactor.redact(quote),
    }


class SkillDrafted(TypedDict):
    """What saving a draft did (a commit's `skills`): `outcome` drafted, or unchanged with its `status`."""

    skill_id: str
    outcome: str
    status: NotRequired[str]


def draft(store: Store, spec: dict[str, str], *, actor: str) -> SkillDrafted:
    """Inside a transaction: save a draft (the same name and text again is a no-op)."""
    existing = Skill.get_or_none(Skill.skill_id == spec["skill_id"])
    if existing is None:
        store.append(DOMAIN, "skill_drafted", spec, actor=actor)
        return {"skill_id": spec["skill_id"], "outcome": "drafted"}
    return {"skill_id": spec["skill_id"], "outcome": "unchanged", "status": existing.status}


def set_status(
    store: Store, skill_id: str, status: str, *, actor: str, user_request: str | None, redactor: Redactor
) -> rows.Skill:
    """Move a skill between draft, active, disabled and rejected.

    Activation by anyone but the user in the console needs `user_request`
    (the user's explicit words this turn); without it the answer is `Forbidden`.
    """
    if status not in STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(STATUSES)}")
    request = (user_request or "").strip()
    if len(request) > MAX_REQUEST:
        raise InvalidInput(f"user_request is at most {MAX_REQUEST} characters")
    if status == "active" and actor != "user" and not request:
        raise Forbidden(
            "only the user can activate a skill: pass user_request with the user's explicit words "
            "from this turn asking to enable it"
        )
    with store.atomic():
        row = Skill.get_or_none(Skill.skill_id == skill_id)
        if row is None:
            raise NotFound(f"no skill {skill_id!r}")
        if row.status == status:
            raise Conflict(f"skill {skill_id} is already {status}")
        payload = {"skill_id": skill_id, "status": status, "from": row.status}
        if request:
            payload["user_request"] = redactor.redact(request)
        if actor == "user":
            payload["approved_in"] = "console"
        store.append(DOMAIN, "skill_status_changed", payload, actor=actor)
    return get_skill(store, skill_id)


def skill_row(row: Skill) -> rows.Skill:
    """A skill as the console shows it."""
    return rows.Skill(
        skill_id=row.skill_id,
        name=row.name,
        text=row.text,
        status=row.status,
        source_interaction_id=row.source_interaction_id,
        source_quote=row.source_quote,
        created=row.created,
        updated=row.updated,
        decided_by=row.decided_by,
        user_request=row.user_request,
    )


def get_skill(store: Store, skill_id: str) -> rows.Skill:
    row = Skill.get_or_none(Skill.skill_id == skill_id)
    if row is None:
        raise NotFound(f"no skill {skill_id!r}")
    return skill_row(row)


def list_skills(store: Store, status: str | None = None, limit: int = 200, offset: int = 0) -> list[rows.Skill]:
    query = Skill.select()
    if status is not None:
        query = query.where(Skill.status == status)
    return [skill_row(r) for r in query.order_by(Skill.updated.desc()).limit(limit).offset(offset)]


ACTIVE_SKILLS = (
    "SELECT skill_id, name, text, status, source_interaction_id, source_quote, created, updated, decided_by, "
    "user_request FROM desk_skill WHERE status = 'active' ORDER BY skill_id"  # ties of score in a set order
)


def relevant_skills(
    store: Store, query: str, limit: int, active: list[rows.Skill] | None = None
) -> list[rows.RelevantSkill]:
    """Active skills by relevance to `query` (there are few: scored in Python); `active`: `ACTIVE_SKILLS`' if
    read."""
    active = sql.select_as(store.db, rows.Skill, ACTIVE_SKILLS) if active is None else active
    scored = [(fts.overlap(query, f"{r.name} {r.text}"), r) for r in active]
    scored = sorted((pair for pair in scored if pair[0] > 0), key=lambda pair: -pair[0])
    return [rows.RelevantSkill(**msgspec.structs.asdict(r), score=round(s, 3)) for s, r in scored[:limit]]
