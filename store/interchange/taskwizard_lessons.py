"""Import and export the reference's lesson store (`memory/lessons/`): lessons and procedure cards.

`events.jsonl` holds `lesson_proposed`, `lesson_superseded`,
`lesson_approved`, `lesson_revoked` and `lesson_demoted` events (the
reference writes them with sorted keys); each valid line becomes one event of
Jiyi's `lessons` domain, keeping the line (`source_line`) so an export gives it
back byte for byte. A lesson is learned text, so a line in which the redaction
filter finds something sensitive is stored redacted instead, without its line
(its export is the redacted event). Importing again reads only what was
appended (see `GrowingLog`). Jiyi's own lessons are exported as the
reference's proposals and decisions, and `lessons.json` as its view (every
lesson's current version by `(created_ts, lesson_id)`, `indent=2`, sorted keys).
The distiller's bookmark, `distill_state.json`, is kept as its text and
written back as it was.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import UTC, datetime
from pathlib import Path

from store.core.database import Store
from store.core.errors import InvalidInput
from store.core.home.atomic_file import write_text
from store.core.projection import EventRecord
from store.core.redaction.json_values import redact_json_text
from store.core.redaction.redactor import Redactor
from store.episodes import lessons
from store.interchange.import_report import ImportReport
from store.interchange.import_source import GrowingLog, Known, content_identity, parse_object, refuse_links
from store.interchange.json_reading import check_document, load_json, plain
from store.interchange.staged_import import Sink, StagedTo, writing

log = logging.getLogger("jiyi.store.interchange")
REDACTED_FROM = "source_sha256"  # a redacted line's digest: to know the line again, never to read it
DISTILL_STATE = "lesson_distill_state"  # the reference's distill_state.json, as text
STATE_CAP = 64 * 1024  # the distiller's bookmark is a few lines; a larger one is not read


def _distill_state(store: Store) -> str | None:
    state = None
    for event in store.events(lessons.DOMAIN, types=[DISTILL_STATE]):
        state = event.payload.get("text")
    return state if isinstance(state, str) else None


def _parse(line: str) -> tuple[str, dict[str, object]]:
    event = parse_object(line)
    kind = event.pop("type", None)
    if kind not in lessons.REFERENCE_EVENTS:
        raise InvalidInput(f"unknown lesson event {kind!r}")
    if event.get("schema_v") != 1:
        raise InvalidInput("schema_v must be 1")
    if kind in ("lesson_proposed", "lesson_superseded"):
        lessons.reference_lesson(event.get("lesson"))
    else:
        if not isinstance(event.get("lesson_id"), str):
            raise InvalidInput("no lesson_id")
        if not isinstance(event.get("version"), int):
            raise InvalidInput("no version")
    return str(kind), event


def _stamp(value: object) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e11:
        return datetime.fromtimestamp(value, UTC).isoformat()
    return None


def _identity(event: EventRecord) -> dict[str, object]:
    line = event.payload.get(lessons.SOURCE_LINE)
    if isinstance(line, str):
        return parse_object(line)
    if isinstance(event.payload.get(REDACTED_FROM), str):
        return {REDACTED_FROM: event.payload[REDACTED_FROM]}
    return reference_event(event)


def _digest(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def import_lessons(
    store: Store,
    root: Path,
    *,
    redactor: Redactor,
    actor: str = "import",
    replaces: Path | None = None,
    staged: StagedTo | None = None,
) -> ImportReport:
    """Append the reference's lesson log at `root/lessons/`: the lines not imported before, in one transaction,
    or with `staged` prepared and published in slices (`staged_import`). `replaces`: the log this one replaces
    (another place's `events.jsonl`), as `GrowingLog` takes it."""
    folder = Path(root) / "lessons"
    refuse_links(folder)
    with GrowingLog("taskwizard:lessons", folder / "events.jsonl", replaces=replaces) as source:
        return _import_lessons(store, source, folder, redactor, actor, staged)


def _import_lessons(
    store: Store, source: GrowingLog, folder: Path, redactor: Redactor, actor: str, staged: StagedTo | None
) -> ImportReport:
    report = ImportReport(str(source.source))
    _check_view(folder / "lessons.json", report)
    with writing(store, actor, "lessons", str(source.source), staged) as sink:
        _keep_distill_state(store, sink, folder / "distill_state.json", report)
        if source.state == "unchanged":
            report.already_imported, report.moved_from = True, source.moved_from
            return report
        ids: set[str] = set()
        lesson_events = store.events(lessons.DOMAIN, types=[*lessons.STATUS, *lessons.REFERENCE_EVENTS])
        known = Known(_identity(e) for e in lesson_events) if source.compare else None
        for number, line in source.lines(report.skip):
            try:
                kind, payload = _parse(line)
            except InvalidInput as exc:
                report.skip(f"line {number}", str(exc))
                continue
            lesson = payload.get("lesson")
            lesson_id = payload.get("lesson_id", lesson.get("lesson_id") if isinstance(lesson, dict) else None)
            ids.add(str(lesson_id))
            if known is not None and (
                known.take({"type": kind, **payload}) or known.take({REDACTED_FROM: _digest(line)})
            ):
                report.known += 1
                continue
            clean = redact_json_text(redactor, line)
            if clean == line:
                payload[lessons.SOURCE_LINE] = line
            else:
                payload = {k: v for k, v in parse_object(clean).items() if k != "type"}
                payload[REDACTED_FROM] = _digest(line)
            sink.append(lessons.DOMAIN, kind, payload, _stamp(payload.get("ts")))
            report.imported += 1
        identity = content_identity(ids)
        source.recognise(identity)  # a rewritten log moved elsewhere is known by its lessons
        report.rewritten, report.moved_from = source.state == "rewritten", source.moved_from
        report.recognised = source.recognised
        if source.state == "appended":
            identity = content_identity(ids, before=source.previous_identity)
        source.mark_done(sink, identity=identity)
    if report.skipped:
        log.warning("import of %s skipped %d corrupt lines", source.source, report.skipped)
    return report


def _check_view(path: Path, report: ImportReport) -> None:
    """Report a `lessons.json` that cannot be read (the reference rebuilds it from the log)."""
    refuse_links(path)
    if not path.is_file():
        return
    why = check_document(path, "array")
    if why is not None:
        report.damaged_view(path, "not a list of lessons" if why == "not a list" else why)


def _keep_distill_state(store: Store, sink: Sink, path: Path, report: ImportReport) -> None:
    """Keep the distiller's bookmark when it is a JSON object that changed since the last import; a damaged one
    is reported and not kept (the reference's distiller then starts over)."""
    refuse_links(path)
    if not path.is_file():
        return
    with open(path, "rb") as stream:
        data = stream.read(STATE_CAP + 1)
    text = data.decode("utf-8", errors="replace")
    try:
        if len(data) > STATE_CAP:
            raise InvalidInput(f"larger than {STATE_CAP // 1024} KiB")
        valid = isinstance(load_json(data, ""), dict)
        why = "not a JSON object"
    except InvalidInput as exc:
        valid, why = False, plain(exc)
    if not valid:
        report.damaged_view(path, why, "not kept (the one imported before, if any, stays)")
    elif text != _distill_state(store):
        sink.append(lessons.DOMAIN, DISTILL_STATE, {"text": text})


def reference_event(event: EventRecord) -> dict[str, object]:
    """A lessons event as the reference's event (Jiyi's own `lesson_added` as a proposal)."""
    p = {k: v for k, v in event.payload.items() if k not in (lessons.SOURCE_LINE, REDACTED_FROM)}
    ts = datetime.fromisoformat(event.ts).timestamp()
    if event.type in lessons.REFERENCE_EVENTS and "schema_v" in p:
        return {"type": event.type, **p}
    if event.type == "lesson_added":
        apps = [a for a in p.get("apps", []) if isinstance(a, str)]
        lesson = {
            "lesson_id": p.get("lesson_id"),
            "schema_v": 1,
            "version": 1,
            "status": "proposed",
            "text": p.get("text", ""),
            "scope": {"device": None, "app": apps[0] if apps else None, "app_version": None},
            "evidence": [],
            "support_count": 0,
            "task_keys": [],
            "conflicts": [],
            "created_ts": ts,
            "source": "distill",
            "kind": "rule",
            "steps": [],
            "pitfalls": None,
            "app_scope": None,
        }
        return {"type": "lesson_proposed", "schema_v": 1, "ts": ts, "lesson": lesson}
    decision = {"type": event.type, "schema_v": 1, "ts": ts, "lesson_id": p.get("lesson_id"), "version": 1}
    if p.get("reason"):
        decision["reason"] = p["reason"]
    return decision


def export_lessons(store: Store, root: Path) -> dict[str, int]:
    """Write `root/lessons/events.jsonl` and `lessons.json` in the reference's format."""
    folder = Path(root) / "lessons"
    refuse_links(folder, folder / "events.jsonl", folder / "lessons.json")
    lines = []
    for event in store.events(lessons.DOMAIN, types=[*lessons.STATUS, *lessons.REFERENCE_EVENTS]):
        line = event.payload.get(lessons.SOURCE_LINE)
        if not isinstance(line, str):
            line = json.dumps(reference_event(event), ensure_ascii=False, sort_keys=True)
        lines.append(line)
    view = lessons.reference_view(store)
    write_text(folder / "events.jsonl", "".join(line + "\n" for line in lines))
    write_text(folder / "lessons.json", json.dumps(view, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    state = _distill_state(store)
    if state is not None:
        refuse_links(folder / "distill_state.json")
        write_text(folder / "distill_state.json", state)
    return {"events": len(lines), "lessons": len(view)}
