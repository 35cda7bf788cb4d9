"""Import and export the reference's App-KB directory (`memory/app_kb/`).

`events.jsonl` is read line by line into Jiyi's event log (domain `app_kb`,
`op` → event type, the rest as payload), so an export writes the same lines
back: round trips are lossless. Importing again reads only what was appended
(see `GrowingLog`); a rewritten log (the reference's compaction) is read whole,
only its lines the store does not hold are added, and an entry it no longer
has is deleted when it came to Jiyi only from the reference (the deletion
that preceded the compaction is not in the log any more). When the log is missing
or empty, `kb.json` is imported as one `upsert` per entry, once per content.
Corrupt lines are skipped and counted.

Every entry passes the redaction filter like any other way in: an entry or
`alias_forgotten` whose term looks sensitive is skipped (counted, with the
reason), a sensitive label is replaced by the package name (as an inventory
sync does), and the sensitive parts of the event's other strings are redacted.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from store.appkb.entry import AppKbEntry, sort_key
from store.appkb.kb import list_entries
from store.appkb.projection import DOMAIN, MemoryView, Put, changes_for
from store.core import clock
from store.core.atomic_file import write_text
from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.core.redact import Redactor, default_words
from store.core.redact_json import redact_json
from store.interchange.import_report import ImportReport
from store.interchange.import_source import (
    GrowingLog,
    ImportOnce,
    Known,
    content_identity,
    parse_object,
    refuse_links,
    subfolder,
)

log = logging.getLogger("jiyi.store.interchange")

ENTRY_OPS = {"upsert", "mark_stale", "delete", "alias_overwritten", "alias_user_set"}


def appkb_dir(root: Path) -> Path:
    """The `app_kb` folder inside a reference memory dir (or the folder itself); a symlinked one is refused."""
    return subfolder(Path(root), "app_kb", "events.jsonl", "kb.json")


def _parse_event(line: str, redactor: Redactor) -> tuple[str, dict[str, object]]:
    """A line of the reference's log: its op and its payload (the event's other fields), filtered."""
    event = parse_object(line)
    op = event.pop("op", None)
    if not isinstance(op, str) or not op:
        raise InvalidInput("no 'op'")
    entry = event.pop("entry", None)
    if op in ENTRY_OPS:
        parsed = AppKbEntry.from_dict(entry)
        if _filtered(parsed, redactor) != parsed and isinstance(entry, dict):
            entry = {**entry, "label": parsed.package}  # the rest of the reference's entry stays as it was
    term = event.get("term")
    if op == "alias_forgotten" and not (isinstance(term, str) and term.strip()):
        raise InvalidInput("alias_forgotten without a term")
    if op == "alias_forgotten" and isinstance(term, str) and redactor.is_sensitive(term):
        raise InvalidInput("the term looks sensitive (a credential, number or listed word); not imported")
    payload: dict[str, object] = redact_json(redactor, event)
    if entry is not None:
        payload["entry"] = entry
    return op, payload


def _filtered(entry: AppKbEntry, redactor: Redactor) -> AppKbEntry:
    """`entry` as the filter lets it in: refused when its term looks sensitive, its label replaced by the
    package when that does."""
    if redactor.is_sensitive(entry.term):
        raise InvalidInput("the term looks sensitive (a credential, number or listed word); not imported")
    return entry.with_(label=entry.package) if redactor.is_sensitive(entry.label) else entry


def import_appkb(store: Store, root: Path, *, actor: str = "import", redactor: Redactor | None = None) -> ImportReport:
    """Append the reference App-KB at `root` to the store: the log's lines not imported before (or the view,
    once per content), in one transaction, through `redactor` (the shipped word list when None)."""
    redactor = redactor or Redactor(default_words())
    folder = appkb_dir(root)
    events_path, kb_path = folder / "events.jsonl", folder / "kb.json"
    refuse_links(events_path, kb_path)
    if events_path.is_file() and events_path.stat().st_size > 0:
        return _import_log(store, GrowingLog("taskwizard:app_kb", events_path), actor, kb_path, redactor)
    if not kb_path.is_file():
        raise NotFound(f"{folder} has neither a non-empty events.jsonl nor kb.json")
    once = ImportOnce("taskwizard:app_kb", kb_path)
    report = ImportReport(str(kb_path))
    if once.done_before:
        report.already_imported = True
        return report
    with store.atomic():
        _import_view(store, once.text(), report, actor, redactor)
        once.mark_done()
    return report


APPKB_IDENTITY_LIMIT = 1_000_000  # every entry: the identity also says which entries a directory put


def identity_of(keys: Iterable[tuple[str, str, str, str]]) -> list[str]:
    """An App-KB's content identity: its entry keys (see `content_identity`)."""
    return content_identity((json.dumps(list(k), ensure_ascii=False) for k in keys), APPKB_IDENTITY_LIMIT)


def _import_log(store: Store, source: GrowingLog, actor: str, kb_path: Path, redactor: Redactor) -> ImportReport:
    report = ImportReport(str(source.source))
    _check_view(kb_path, report)
    if source.state == "unchanged":
        report.already_imported = True
        report.moved_from = source.moved_from
        return report
    with store.atomic():
        theirs = MemoryView()
        lines: list[tuple[int, str, dict[str, object]]] = []
        for number, line in source.lines():
            try:
                op, payload = _parse_event(line, redactor)
            except InvalidInput as exc:
                report.skip(f"line {number}", str(exc))
                continue
            theirs.apply(op, payload)
            lines.append((number, op, payload))
        keys = set(identity_of(theirs.entries))
        # A path never imported: a compacted log of a directory imported from elsewhere is known by its
        # entries (a compaction keeps one upsert per live entry), and handled as that directory's rewrite.
        # A record an earlier Jiyi kept has no identity: the entries imports put stand for it.
        unknown = [r for r in source.elsewhere if not isinstance(r.get("identity"), list)]
        if source.state == "new" and unknown:
            put = identity_of(_imported_keys(store, actor))
            for record in unknown:
                record["identity"] = put
        source.recognise(sorted(keys))
        report.rewritten, report.moved_from = source.state == "rewritten", source.moved_from
        known = None
        if source.compare:
            known = Known({"op": e.type, **e.payload} for e in store.events(DOMAIN))
        for _number, op, payload in lines:
            if known is not None and known.take({"op": op, **payload}):
                report.known += 1
                continue
            stamp = payload.get("ts")
            ts = stamp if isinstance(stamp, str) and clock.is_iso(stamp) else None
            store.append(DOMAIN, op, payload, actor=actor, ts=ts)
            report.imported += 1
        before = source.previous_identity
        if source.state == "rewritten":
            report.removed = _drop_gone(store, theirs, actor, set(before) or None)
        elif source.state == "appended":
            keys |= set(before)  # only the appended lines were read: the entries before them are the directory's too
        source.mark_done(identity=sorted(keys))
    if report.skipped:
        log.warning("import of %s skipped %d corrupt lines", source.source, report.skipped)
    return report


def _check_view(path: Path, report: ImportReport) -> None:
    """Report a `kb.json` beside the log that cannot be read: the reference rebuilds it from the log."""
    if not path.is_file():
        return
    try:
        entries = json.loads(path.read_bytes().decode("utf-8"))
        if not isinstance(entries, list):
            raise ValueError("not a list of entries")
    except (UnicodeDecodeError, ValueError) as exc:
        why = f"not JSON: {exc.msg}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        report.damaged_view(path, why)


def _imported_keys(store: Store, actor: str) -> set[tuple[str, str, str, str]]:
    """The keys of the entries imports ever put."""
    keys: set[tuple[str, str, str, str]] = set()
    for event in store.events(DOMAIN):
        if event.actor == actor:
            keys.update(c.entry.key for c in changes_for(event.type, event.payload) if isinstance(c, Put))
    return keys


def _drop_gone(store: Store, theirs: MemoryView, actor: str, directory: set[str] | None) -> int:
    """Delete the entries the rewritten log no longer has that only imports ever put (an entry Jiyi itself
    wrote or changed is kept) and, when known, that this directory put (`directory`: their identities);
    returns how many."""
    imported: set[tuple[str, str, str, str]] = set()
    local: set[tuple[str, str, str, str]] = set()
    for event in store.events(DOMAIN):
        keys = {c.entry.key for c in changes_for(event.type, event.payload) if isinstance(c, Put)}
        (imported if event.actor == actor else local).update(keys)
    gone = [
        e
        for e in list_entries(store)
        if e.key in imported - local
        and e.key not in theirs.entries
        and (directory is None or identity_of([e.key])[0] in directory)
    ]
    now = clock.iso_now()
    for entry in gone:
        store.append(DOMAIN, "delete", {"entry": entry.to_dict(), "ts": now}, actor=actor)
    return len(gone)


def _import_view(store: Store, text: str, report: ImportReport, actor: str, redactor: Redactor) -> None:
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{report.source} is not JSON ({exc.msg}); nothing imported") from None
    if not isinstance(entries, list):
        raise InvalidInput(f"{report.source} must hold a list of entries")
    now = clock.iso_now()
    for index, data in enumerate(entries):
        try:
            entry = _filtered(AppKbEntry.from_dict(data), redactor)
        except InvalidInput as exc:
            report.skip(f"entry {index}", str(exc))
            continue
        store.append(DOMAIN, "upsert", {"entry": entry.to_dict(), "ts": now}, actor=actor)
        report.imported += 1


def export_appkb(store: Store, root: Path) -> dict[str, int]:
    """Write `root/app_kb/events.jsonl` and `kb.json` in the reference's format."""
    folder = Path(root) / "app_kb"
    refuse_links(folder, folder / "events.jsonl", folder / "kb.json")
    lines = []
    for event in store.events(DOMAIN):
        lines.append(json.dumps({"op": event.type, **event.payload}, ensure_ascii=False, sort_keys=True))
    entries = sorted(list_entries(store), key=sort_key)
    view = json.dumps([e.to_dict() for e in entries], ensure_ascii=False, indent=2, sort_keys=True)
    write_text(folder / "events.jsonl", "".join(line + "\n" for line in lines))
    write_text(folder / "kb.json", view + "\n")
    return {"events": len(lines), "entries": len(entries)}
