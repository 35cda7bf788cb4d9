"""Lessons: short advice an agent gets in `on` mode, only after a person approved it.

Domain `lessons`. Jiyi's own events: `lesson_added` (proposed),
`lesson_approved`, `lesson_revoked`. Lessons and procedure cards imported from
the reference keep its lifecycle (`lesson_proposed`, `lesson_superseded`,
`lesson_approved`, `lesson_revoked`, `lesson_demoted`, each with the lesson's
`version`) and its statuses: proposed, needs_review, auto_approved, approved,
revoked, superseded. Their events carry the imported line (`source_line`) so
an export gives it back. Only `approved` lessons reach an agent (a person's
decision; an `auto_approved` card waits for one). Ids have the reference's
shape (`les_` + hex) so episodes can record which lessons were injected.
Jiyi's own text is redacted and kept short.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence

from store.appkb.entry import is_package_name
from store.core import clock
from store.core.database import Store
from store.core.errors import Conflict, InvalidInput, NotFound, SensitiveContent
from store.core.models import BaseModel
from store.core.projection import EventRecord
from store.core.redaction.redactor import Redactor
from store.episodes.models import Episode, Lesson
from store.episodes.rows import Lesson as LessonRow
from store.episodes.rows import LessonRun, LessonRuns
from store.episodes.run_event import check_run_id

DOMAIN = "lessons"
MAX_CHARS = 800
MAX_SOURCE_RUNS = 50  # the runs a lesson was learned from
STATUSES = ("proposed", "needs_review", "auto_approved", "approved", "revoked", "superseded")
STATUS = {"lesson_added": "proposed", "lesson_approved": "approved", "lesson_revoked": "revoked"}
REFERENCE_EVENTS = ("lesson_proposed", "lesson_superseded", "lesson_approved", "lesson_revoked", "lesson_demoted")
LESSON_ID = re.compile(r"^les_[0-9a-f]{12,64}$")
APPROVABLE = ("proposed", "needs_review")
DEMOTABLE = ("approved", "auto_approved")
SOURCE_LINE = "source_line"


def reference_lesson(lesson: object) -> dict[str, object]:
    """A reference lesson object checked for what Jiyi relies on, or `InvalidInput` naming the problem."""
    if not isinstance(lesson, dict):
        raise InvalidInput("lesson must be an object")
    lesson_id = lesson.get("lesson_id")
    if not isinstance(lesson_id, str) or not LESSON_ID.fullmatch(lesson_id):
        raise InvalidInput("lesson_id must be les_<12-64 lowercase hex>")
    if lesson.get("status") not in STATUSES:
        raise InvalidInput(f"lesson status must be one of {', '.join(STATUSES)}")
    text = lesson.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("lesson text must be non-empty")
    version = lesson.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InvalidInput("lesson version must be a positive integer")
    if lesson.get("kind", "rule") not in ("rule", "procedure"):
        raise InvalidInput("lesson kind must be rule or procedure")
    return lesson


def _apps_of(lesson: Mapping[str, object]) -> str:
    scope = lesson.get("scope")
    apps = [scope.get("app")] if isinstance(scope, dict) else []
    apps.append(lesson.get("app_scope"))
    return " ".join(dict.fromkeys(a for a in apps if isinstance(a, str) and is_package_name(a)))


class LessonProjection:
    domain = DOMAIN
    version = 2
    models: Sequence[type[BaseModel]] = (Lesson,)

    def subject_of(self, event_type: str, payload: Mapping[str, object]) -> str | None:
        lesson_id, lesson = payload.get("lesson_id"), payload.get("lesson")
        if not isinstance(lesson_id, str) and isinstance(lesson, dict):
            lesson_id = lesson.get("lesson_id")
        return lesson_id if isinstance(lesson_id, str) else None

    def apply(self, event: EventRecord) -> None:
        p = event.payload
        if event.type in ("lesson_proposed", "lesson_superseded"):
            self._propose(event)
            return
        lesson_id = p.get("lesson_id")
        if not isinstance(lesson_id, str):
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
            return
        row = Lesson.get_or_none(Lesson.lesson_id == lesson_id)
        if row is None:
            return
        if "version" in p:
            # The reference's lifecycle: a decision applies to the version it was made on.
            if p["version"] != row.version:
                return
            if event.type == "lesson_approved" and row.status in APPROVABLE:
                self._set(row, "approved", event.ts)
            elif event.type == "lesson_revoked" and row.status != "revoked":
                self._set(row, "revoked", event.ts)
            elif event.type == "lesson_demoted" and row.status in DEMOTABLE:
                self._set(row, "needs_review" if row.kind == "procedure" else "proposed", event.ts)
        elif event.type in STATUS:
            self._set(row, STATUS[event.type], event.ts)

    @staticmethod
    def _propose(event: EventRecord) -> None:
        p = event.payload
        lesson = p.get("lesson")
        try:
            lesson = reference_lesson(lesson)
        except InvalidInput:
            return
        prior = Lesson.get_or_none(Lesson.lesson_id == lesson["lesson_id"])
        if event.type == "lesson_proposed" and (prior is not None or lesson["version"] != 1):
            return
        if event.type == "lesson_superseded" and (
            prior is None
            or p.get("lesson_id") != lesson["lesson_id"]
            or p.get("from_version") != prior.version
            or lesson["version"] != prior.version + 1
        ):
            return
        Lesson.replace(
            lesson_id=lesson["lesson_id"],
            text=lesson["text"],
            apps=_apps_of(lesson),
            status=lesson["status"],
            created=prior.created if prior is not None else event.ts,
            updated=event.ts,
            kind=lesson.get("kind", "rule"),
            version=lesson["version"],
            record=json.dumps(lesson, ensure_ascii=False),
        ).execute()

    @staticmethod
    def _set(row: Lesson, status: str, ts: str) -> None:
        record = row.record
        if record:
            record = json.dumps({**json.loads(record), "status": status}, ensure_ascii=False)
        Lesson.update(status=status, updated=ts, record=record).where(Lesson.lesson_id == row.lesson_id).execute()


def _row(row: Lesson) -> LessonRow:
    return LessonRow(
        lesson_id=row.lesson_id,
        text=row.text,
        apps=row.apps.split(),
        status=row.status,
        kind=row.kind,
        version=row.version,
        created=row.created,
        updated=row.updated,
    )


def add(
    store: Store,
    text: str,
    apps: Sequence[str],
    *,
    actor: str,
    redactor: Redactor,
    runs: Sequence[str] = (),
) -> LessonRow:
    """Propose a lesson, learned from `runs` (their ids, optional); it is given to agents only once approved."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("a lesson needs text")
    clean = " ".join(redactor.redact(text).split())  # redacted first: a key wrapped over lines is one
    if len(clean) > MAX_CHARS:
        raise InvalidInput(f"a lesson is at most {MAX_CHARS} characters")
    bad = [a for a in apps if not isinstance(a, str) or not is_package_name(a)]
    if bad:
        raise InvalidInput(f"{bad[0]!r} is not a package name")
    # The formats only: a listed word can be part of a real app's package (com.agilebits.onepassword).
    if any(redactor.is_sensitive(a, words=False) for a in apps):
        raise SensitiveContent("a package name of the lesson looks sensitive (a number, token or key)")
    if len(runs) > MAX_SOURCE_RUNS:
        raise InvalidInput(f"a lesson names at most {MAX_SOURCE_RUNS} runs it was learned from")
    sources = list(dict.fromkeys(check_run_id(run) for run in runs))
    lesson_id = "les_" + hashlib.sha256(f"{clean}\x1f{clock.iso_now()}".encode()).hexdigest()[:16]
    payload: dict[str, object] = {"lesson_id": lesson_id, "text": clean, "apps": list(apps)}
    if sources:
        payload["runs"] = sources
    with store.atomic():
        store.append(DOMAIN, "lesson_added", payload, actor=actor)
    return get(store, lesson_id)


def set_status(store: Store, lesson_id: str, status: str, *, actor: str) -> LessonRow:
    """Approve or revoke a lesson (revoking an approved one takes it away from agents at once).

    A lesson imported from the reference follows its rules: only a proposed or needs_review one can be
    approved, and the decision names the version it was made on."""
    kinds = {"approved": "lesson_approved", "revoked": "lesson_revoked"}
    if status not in kinds:
        raise InvalidInput("status must be approved or revoked")
    with store.atomic():
        row = Lesson.get_or_none(Lesson.lesson_id == lesson_id)
        if row is None:
            raise NotFound(f"no lesson {lesson_id!r}")
        if row.status == status:
            raise Conflict(f"lesson {lesson_id} is already {status}")
        payload: dict[str, object] = {"lesson_id": lesson_id}
        if row.record:
            if status == "approved" and row.status not in APPROVABLE:
                raise Conflict(f"lesson {lesson_id} is {row.status}; only a proposed or needs_review one is approved")
            payload = {"schema_v": 1, "ts": clock.now().timestamp(), "lesson_id": lesson_id, "version": row.version}
        store.append(DOMAIN, kinds[status], payload, actor=actor)
    return get(store, lesson_id)


def get(store: Store, lesson_id: str) -> LessonRow:
    row = Lesson.get_or_none(Lesson.lesson_id == lesson_id)
    if row is None:
        raise NotFound(f"no lesson {lesson_id!r}")
    return _row(row)


def runs_of(store: Store, lesson_id: str, *, limit: int = 50) -> LessonRuns:
    """The runs behind a lesson: `learned_from` (the runs its proposer named, in that order) and
    `given_to` (runs it was injected into, newest first, at most `limit`). Each is the run's id with its
    goal, end time and success when the archive still has it (`archived: false` otherwise)."""
    get(store, lesson_id)
    sources: list[str] = []
    for event in store.events(DOMAIN, subject=lesson_id, types=["lesson_added"]):
        sources = [r for r in event.payload.get("runs", []) if isinstance(r, str)]
    known = {row.run_id: row for row in Episode.select().where(Episode.run_id.in_(sources))} if sources else {}
    # The outcome keeps `injected_lessons` inside its JSON record; a lesson id is specific enough to search for.
    given = (
        Episode.select().where(Episode.record.contains(f'"{lesson_id}"')).order_by(Episode.ts_end.desc()).limit(limit)
    )
    return LessonRuns(
        learned_from=[_run(run_id, known.get(run_id)) for run_id in sources],
        given_to=[_run(row.run_id, row) for row in given],
    )


def _run(run_id: str, row: Episode | None) -> LessonRun:
    if row is None:
        return LessonRun(run_id=run_id, archived=False)
    return LessonRun(
        run_id=run_id, archived=True, goal_text=row.goal_text, ts_end=row.ts_end, success=bool(row.success)
    )


def reference_view(store: Store) -> list[dict[str, object]]:
    """The reference's `lessons.json`: every lesson's current version, by (created_ts, lesson_id); Jiyi's
    own lessons as the reference's proposals (see `as_reference`)."""
    lessons = [as_reference(row) for row in Lesson.select()]
    return sorted(lessons, key=lambda item: (_number(item.get("created_ts")), str(item.get("lesson_id"))))


def as_reference(row: Lesson) -> dict[str, object]:
    """A lesson in the reference's schema (a Jiyi lesson: a rule with no evidence, from `source` distill,
    scoped to its first app)."""
    if row.record:
        record: dict[str, object] = json.loads(row.record)
        return record
    apps = row.apps.split()
    return {
        "lesson_id": row.lesson_id,
        "schema_v": 1,
        "version": row.version,
        "status": row.status,
        "text": row.text,
        "scope": {"device": None, "app": apps[0] if apps else None, "app_version": None},
        "evidence": [],
        "support_count": 0,
        "task_keys": [],
        "conflicts": [],
        "created_ts": clock.parse_iso(row.created).timestamp(),
        "source": "distill",
        "kind": "rule",
        "steps": [],
        "pitfalls": None,
        "app_scope": None,
    }


def list_lessons(store: Store, status: str | None = None) -> list[LessonRow]:
    query = Lesson.select().order_by(Lesson.updated.desc())
    if status is not None:
        query = query.where(Lesson.status == status)
    return [_row(r) for r in query]


def for_run(store: Store, apps: Sequence[str], *, limit: int = 3, budget: int = MAX_CHARS) -> list[LessonRow]:
    """Approved lessons for a run: about its likely apps first, then general ones; ≤ `limit`, ≤ `budget` chars."""
    approved = list_lessons(store, "approved")
    wanted = set(apps)
    ranked = [lesson for lesson in approved if set(lesson.apps) & wanted]
    ranked += [lesson for lesson in approved if not lesson.apps]
    chosen: list[LessonRow] = []
    used = 0
    for lesson in ranked:
        if len(chosen) >= limit or used + len(lesson.text) > budget:
            continue
        chosen.append(lesson)
        used += len(lesson.text)
    return chosen


def _number(value: object) -> float:
    """A reference lesson's `created_ts` as a number to sort by (0 when it has none)."""
    return float(value) if isinstance(value, int | float) else 0.0


INJECTABLE = ("approved", "auto_approved")  # the reference's `lesson_injectable`: a person's or the grader's yes


def procedure_cards(store: Store) -> list[dict[str, object]]:
    """The procedure cards a run may be given (kind `procedure`, approved or auto-approved), in the reference's
    lesson schema (`text` the title, `steps`, `pitfalls`, `app_scope`, `scope.device`), by lesson id."""
    query = Lesson.select().where((Lesson.kind == "procedure") & Lesson.status.in_(INJECTABLE))
    return [as_reference(row) for row in query.order_by(Lesson.lesson_id)]
