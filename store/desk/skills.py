"""Skills: drafts from the user's guidance; only the user's explicit request activates one.

A draft names the interaction whose user words it came from, and quotes them
verbatim. Executors read active skills only; drafts stay readable for review.
The person decides a skill's status (the console, the CLI). Seed 002 leaves an
agent one path: `set_status(..., "active")` on a draft, when the user asked for
it in their latest turn. The request names that turn (`interaction_id`) and
quotes the user's words from it (`user_request`); the turn must exist, be the
user's latest, and contain the words. The change records both, and the console
shows them with one click to revert.
"""

from __future__ import annotations

import hashlib
import unicodedata
from typing import NotRequired, TypedDict

import msgspec

from store.core.database import Store
from store.core.errors import Conflict, Forbidden, InvalidInput, NotFound
from store.core.names import strip_invisible
from store.core.redaction.redactor import Redactor
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
    store: Store,
    skill_id: str,
    status: str,
    *,
    actor: str,
    user_request: str | None,
    redactor: Redactor,
    interaction_id: str | None = None,
) -> rows.Skill:
    """Move a skill between draft, active, disabled and rejected.

    Activation by anyone but the user needs the user's request of their latest turn (the module docstring):
    `interaction_id` and `user_request`; without them, or when the turn does not hold up, `Forbidden`.
    """
    if status not in STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(STATUSES)}")
    request = (user_request or "").strip()
    if len(request) > MAX_REQUEST:
        raise InvalidInput(f"user_request is at most {MAX_REQUEST} characters")
    on_request = status == "active" and actor != "user"
    if on_request and not (request and interaction_id):
        raise Forbidden(
            "only the user activates a skill: an agent may activate a draft only when the user asked in their "
            "latest turn; pass interaction_id (that turn) and user_request (the user's words from it)"
        )
    with store.atomic():
        row = Skill.get_or_none(Skill.skill_id == skill_id)
        if row is None:
            raise NotFound(f"no skill {skill_id!r}")
        if row.status == status:
            raise Conflict(f"skill {skill_id} is already {status}")
        payload: dict[str, object] = {"skill_id": skill_id, "status": status, "from": row.status}
        if on_request:
            assert interaction_id is not None
            if row.status != "draft":
                raise Forbidden(
                    f"skill {skill_id} is {row.status}, not a draft: only the person enables it again (the console)"
                )
            payload["user_request"] = _check_request(redactor.redact(request), interaction_id)
            payload["interaction_id"] = interaction_id
        elif request:
            payload["user_request"] = redactor.redact(request)
        if actor == "user":
            payload["approved_in"] = "console"
        store.append(DOMAIN, "skill_status_changed", payload, actor=actor)
    return get_skill(store, skill_id)


MIN_REQUEST_CHARS = 2  # a quote of one character would be found in almost any turn


def _check_request(request: str, interaction_id: str) -> str:
    """The user's request as quoted, once its turn holds up: the interaction exists, is the user's latest turn,
    and its user words contain the quote (compared without whitespace, invisible marks, width or case)."""
    turn = Interaction.get_or_none(Interaction.interaction_id == interaction_id)
    if turn is None:
        raise Forbidden(
            f"no interaction {interaction_id!r}: name the user's turn in which they asked (remember it first)"
        )
    latest = (
        Interaction.select(Interaction.interaction_id)
        .where(Interaction.user_text != "")
        .order_by(Interaction.epoch.desc(), Interaction.id.desc())
        .first()
    )
    if latest is None or latest.interaction_id != interaction_id:
        newer = latest.interaction_id if latest is not None else "none"
        raise Forbidden(
            f"interaction {interaction_id} is not the user's latest turn ({newer} is): a skill is activated "
            "only on a request of the current turn"
        )
    quoted = _comparable(request)
    if len(quoted) < MIN_REQUEST_CHARS:
        raise Forbidden(f"user_request quotes too little of the user's words (at least {MIN_REQUEST_CHARS} characters)")
    if quoted not in _comparable(turn.user_text):
        raise Forbidden(
            f"the user's words in interaction {interaction_id} do not contain user_request: quote what they said"
        )
    return request


def _comparable(text: str) -> str:
    """`text` as a quote is compared: NFKC (full and half width alike), invisible marks dropped, no whitespace,
    case folded."""
    return "".join(strip_invisible(unicodedata.normalize("NFKC", text)).casefold().split())


def skill_row(row: Skill) -> rows.Skill:
    """A skill as the store reads it."""
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
        request_interaction_id=row.request_interaction_id,
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
    "user_request, request_interaction_id FROM desk_skill WHERE status = 'active' ORDER BY skill_id"  # ties in order
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
