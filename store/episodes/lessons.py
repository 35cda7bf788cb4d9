"""Lessons: short advice an agent gets in `on` mode, only after a person approved it.

Domain `lessons`: `lesson_added` (proposed), `lesson_approved`, `lesson_revoked`.
Ids have the reference's shape (`les_` + hex) so episodes can record which
lessons were injected. Text is redacted and kept short.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from store.appkb.entry import is_package_name
from store.core import clock
from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, NotFound, SensitiveContent
from store.core.models import BaseModel
from store.core.projection import EventRecord
from store.core.redact import Redactor
from store.episodes.models import Lesson

DOMAIN = "lessons"
MAX_CHARS = 800
STATUS = {"lesson_added": "proposed", "lesson_approved": "approved", "lesson_revoked": "revoked"}


class LessonProjection:
    domain = DOMAIN
    version = 1
    models: Sequence[type[BaseModel]] = (Lesson,)

    def subject_of(self, event_type: str, payload: dict[str, Any]) -> str | None:
        lesson_id = payload.get("lesson_id")
        return lesson_id if isinstance(lesson_id, str) else None

    def apply(self, event: EventRecord) -> None:
        p = event.payload
        lesson_id = p.get("lesson_id")
        if not isinstance(lesson_id, str) or event.type not in STATUS:
            return
        if event.type == "lesson_added":
            Lesson.replace(
                lesson_id=lesson_id,
                text=str(p.get("text", "")),
                apps=" ".join(a for a in p.get("apps", []) if isinstance(a, str)),
                status="proposed",
                created=event.ts,
                updated=event.ts,
            ).execute()
        else:
            Lesson.update(status=STATUS[event.type], updated=event.ts).where(Lesson.lesson_id == lesson_id).execute()


def _row(row: Lesson) -> dict[str, Any]:
    return {
        "lesson_id": row.lesson_id,
        "text": row.text,
        "apps": row.apps.split(),
        "status": row.status,
        "created": row.created,
        "updated": row.updated,
    }


def add(store: Store, text: str, apps: Sequence[str], *, actor: str, redactor: Redactor) -> dict[str, Any]:
    """Propose a lesson; it is given to agents only once approved."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("a lesson needs text")
    clean = redactor.redact(" ".join(text.split()))
    if len(clean) > MAX_CHARS:
        raise InvalidInput(f"a lesson is at most {MAX_CHARS} characters")
    bad = [a for a in apps if not isinstance(a, str) or not is_package_name(a)]
    if bad:
        raise InvalidInput(f"{bad[0]!r} is not a package name")
    # The formats only: a listed word can be part of a real app's package (com.agilebits.onepassword).
    if any(redactor.is_sensitive(a, words=False) for a in apps):
        raise SensitiveContent("a package name of the lesson looks sensitive (a number, token or key)")
    lesson_id = "les_" + hashlib.sha256(f"{clean}\x1f{clock.iso_now()}".encode()).hexdigest()[:16]
    with store.atomic():
        store.append(DOMAIN, "lesson_added", {"lesson_id": lesson_id, "text": clean, "apps": list(apps)}, actor=actor)
    return get(store, lesson_id)


def set_status(store: Store, lesson_id: str, status: str, *, actor: str) -> dict[str, Any]:
    """Approve or revoke a lesson (revoking an approved one takes it away from agents at once)."""
    kinds = {"approved": "lesson_approved", "revoked": "lesson_revoked"}
    if status not in kinds:
        raise InvalidInput("status must be approved or revoked")
    with store.atomic():
        row = Lesson.get_or_none(Lesson.lesson_id == lesson_id)
        if row is None:
            raise NotFound(f"no lesson {lesson_id!r}")
        if row.status == status:
            raise Conflict(f"lesson {lesson_id} is already {status}")
        store.append(DOMAIN, kinds[status], {"lesson_id": lesson_id}, actor=actor)
    return get(store, lesson_id)


def get(store: Store, lesson_id: str) -> dict[str, Any]:
    row = Lesson.get_or_none(Lesson.lesson_id == lesson_id)
    if row is None:
        raise NotFound(f"no lesson {lesson_id!r}")
    return _row(row)


def list_lessons(store: Store, status: str | None = None) -> list[dict[str, Any]]:
    query = Lesson.select().order_by(Lesson.updated.desc())
    if status is not None:
        query = query.where(Lesson.status == status)
    return [_row(r) for r in query]


def for_run(store: Store, apps: Sequence[str], *, limit: int = 3, budget: int = MAX_CHARS) -> list[dict[str, Any]]:
    """Approved lessons for a run: about its likely apps first, then general ones; ≤ `limit`, ≤ `budget` chars."""
    approved = list_lessons(store, "approved")
    wanted = set(apps)
    ranked = [lesson for lesson in approved if set(lesson["apps"]) & wanted]
    ranked += [lesson for lesson in approved if not lesson["apps"]]
    chosen: list[dict[str, Any]] = []
    used = 0
    for lesson in ranked:
        if len(chosen) >= limit or used + len(lesson["text"]) > budget:
            continue
        chosen.append(lesson)
        used += len(lesson["text"])
    return chosen
