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

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path

from store.appkb.entry import AppKbEntry, sort_key
from store.appkb.kb import list_entries
from store.appkb.projection import DOMAIN, MemoryView, Put, changes_for
from store.core import clock
from store.core.database import Store
from store.core.errors import InvalidInput, NotFound
from store.core.home.atomic_file import write_text
from store.core.redaction.json_values import redact_json
from store.core.redaction.redactor import Redactor, default_words
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
from store.interchange.json_reading import VIEW_VALUE_CAP, JsonDocument, check_document
from store.interchange.staged_import import Sink, StagedTo, writing

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


def import_appkb(
    store: Store,
    root: Path,
    *,
    actor: str = "import",
    redactor: Redactor | None = None,
    replaces: Path | None = None,
    staged: StagedTo | None = None,
) -> ImportReport:
    """Append the reference App-KB at `root` to the store: the log's lines not imported before (or the view,
    once per content), through `redactor` (the shipped word list when None): in one transaction, or with
    `staged` prepared and published in slices (`staged_import`). `replaces`: the log this one replaces
    (another place's `events.jsonl`), as `GrowingLog` takes it."""
    redactor = redactor or Redactor(default_words())
    folder = appkb_dir(root)
    events_path, kb_path = folder / "events.jsonl", folder / "kb.json"
    refuse_links(events_path, kb_path)
    if events_path.is_file() and events_path.stat().st_size > 0:
        with GrowingLog("taskwizard:app_kb", events_path, replaces=replaces) as source:
            return _import_log(store, source, actor, kb_path, redactor, staged)
    if not kb_path.is_file():
        raise NotFound(f"{folder} has neither a non-empty events.jsonl nor kb.json")
    once = ImportOnce("taskwizard:app_kb", kb_path)
    report = ImportReport(str(kb_path))
    if once.done_before:
        report.already_imported = True
        return report
    with writing(store, actor, "app_kb", str(kb_path), staged) as sink:
        _import_view(sink, kb_path, report, redactor)
        once.mark_done(sink)
    return report


APPKB_IDENTITY_LIMIT = 1_000_000  # every entry: the identity also says which entries a directory put


def identity_of(keys: Iterable[tuple[str, str, str, str]]) -> list[str]:
    """An App-KB's content identity: its entry keys (see `content_identity`)."""
    return content_identity((json.dumps(list(k), ensure_ascii=False) for k in keys), APPKB_IDENTITY_LIMIT)


def _marks(op: str, payload: Mapping[str, object]) -> set[str]:
    """What a line of an App-KB log is known by across rewrites (its lineage's marks): the birth of the entry it
    puts (its key and first-seen time: TaskWizard keeps `first_seen` through every upsert, device sync, merge
    and compaction) and, for an alias change, the change (op, time, term, package: a compaction keeps every
    alias change, marked `audit_only`). Digests only, never the text."""
    marks: set[str] = set()
    entry = payload.get("entry")
    fields = ("term", "package", "kind", "scope", "first_seen")
    if isinstance(entry, dict) and all(isinstance(entry.get(f), str) for f in fields):
        marks.add("b" + _mark([entry[f] for f in fields]))
    if op in ALIAS_OPS:
        term = payload.get("term", entry.get("term") if isinstance(entry, dict) else None)
        package = entry.get("package") if isinstance(entry, dict) else None
        marks.add("h" + _mark([op, payload.get("ts"), term, package]))
    return marks


ALIAS_OPS = ("alias_user_set", "alias_forgotten", "alias_overwritten")


def _mark(values: list[object]) -> str:
    return hashlib.sha256(json.dumps(values, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _say(shared: set[str]) -> str:
    """What two App-KB logs' shared marks are, in words."""
    births = sum(1 for m in shared if m.startswith("b"))
    changes = len(shared) - births
    said = []
    if births:
        said.append(f"{births} {'entry keeps' if births == 1 else 'entries keep'} the first-seen time it had there")
    if changes:
        said.append(f"{changes} alias {'change' if changes == 1 else 'changes'} of its history")
    return " and ".join(said)


def _derived_lineage(store: Store, actor: str, identity: set[str]) -> list[str]:
    """The lineage of a directory an earlier Jiyi imported without keeping one: the marks of the lines imports
    put whose entries that directory held (its `identity`)."""
    marks: set[str] = set()
    for event in store.events(DOMAIN):
        if event.actor != actor:
            continue
        entry = event.payload.get("entry")
        if isinstance(entry, dict) and {"term", "package", "kind", "scope"} <= set(entry):
            key = (str(entry["term"]), str(entry["package"]), str(entry["kind"]), str(entry["scope"]))
            if identity_of([key])[0] in identity:
                marks |= _marks(event.type, event.payload)
    return sorted(marks)


def _import_log(
    store: Store, source: GrowingLog, actor: str, kb_path: Path, redactor: Redactor, staged: StagedTo | None
) -> ImportReport:
    report = ImportReport(str(source.source))
    _check_view(kb_path, report)
    if source.state == "unchanged":
        report.already_imported = True
        report.moved_from, report.recognised = source.moved_from, source.recognised
        return report
    # Read once to know the log: what it holds (its entries, as TaskWizard replays them) and its lineage.
    theirs = MemoryView()
    marks: set[str] = set()
    for number, line in source.lines(report.skip):
        try:
            op, payload = _parse_event(line, redactor)
        except InvalidInput as exc:
            report.skip(f"line {number}", str(exc))
            continue
        theirs.apply(op, payload)
        marks |= _marks(op, payload)
    keys = set(identity_of(theirs.entries))
    if source.state == "new":
        # A path never imported: a log of a directory imported from elsewhere, moved and compacted since, is
        # known by its lineage; a record an earlier Jiyi kept has none: it is derived from what it put.
        for _key, record in source.elsewhere:
            identity = record.get("identity")
            if "lineage" not in record and isinstance(identity, list):
                record["lineage"] = _derived_lineage(store, actor, set(identity))
        source.recognise_lineage(marks, _say)
    unknown = [r for _key, r in source.elsewhere if not isinstance(r.get("identity"), list)]
    if source.state == "new" and unknown:
        # A record of a Jiyi that kept neither: the entries imports put stand for it (most of them still here).
        put = identity_of(_imported_keys(store, actor))
        for record in unknown:
            record["identity"] = put
        source.recognise(sorted(keys))
    report.rewritten, report.moved_from = source.state == "rewritten", source.moved_from
    report.recognised, report.suggestion = source.recognised, source.suggestion
    with writing(store, actor, "app_kb", str(source.source), staged) as sink:
        known = None
        if source.compare:
            known = Known({"op": e.type, **e.payload} for e in store.events(DOMAIN))
        for _number, line in source.lines():
            try:
                op, payload = _parse_event(line, redactor)
            except InvalidInput:
                continue  # said when the log was read first
            if known is not None and known.take({"op": op, **payload}):
                report.known += 1
                continue
            stamp = payload.get("ts")
            ts = stamp if isinstance(stamp, str) and clock.is_iso(stamp) else None
            sink.append(DOMAIN, op, payload, ts)
            report.imported += 1
        before = source.previous_identity
        if source.state == "rewritten":
            directory = set(before) - source.other_identities() if before else None
            report.removed = _drop_gone(store, sink, theirs, actor, directory)
        elif source.state == "appended":
            keys |= set(before)  # only the appended lines were read: the entries before them are the directory's too
        source.mark_done(sink, identity=sorted(keys), lineage=sorted(marks))
    if report.skipped:
        log.warning("import of %s skipped %d corrupt lines", source.source, report.skipped)
    return report


def _check_view(path: Path, report: ImportReport) -> None:
    """Report a `kb.json` beside the log that cannot be read: the reference rebuilds it from the log."""
    if not path.is_file():
        return
    why = check_document(path, "array")
    if why is not None:
        report.damaged_view(path, "not a list of entries" if why == "not a list" else why)


def _imported_keys(store: Store, actor: str) -> set[tuple[str, str, str, str]]:
    """The keys of the entries imports ever put."""
    keys: set[tuple[str, str, str, str]] = set()
    for event in store.events(DOMAIN):
        if event.actor == actor:
            keys.update(c.entry.key for c in changes_for(event.type, event.payload) if isinstance(c, Put))
    return keys


def _drop_gone(store: Store, sink: Sink, theirs: MemoryView, actor: str, directory: set[str] | None) -> int:
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
        sink.append(DOMAIN, "delete", {"entry": entry.to_dict(), "ts": now})
    return len(gone)


def _import_view(sink: Sink, path: Path, report: ImportReport, redactor: Redactor) -> None:
    """Each entry of `kb.json` as an `upsert`, streamed (an entry at most `VIEW_VALUE_CAP`); a file that is not
    a list of entries imports nothing."""
    now = clock.iso_now()
    try:
        with JsonDocument.open(path, path.name, VIEW_VALUE_CAP) as document:
            first = document.peek()
            if first != "[":
                if first == "{":
                    why = check_document(path, "object")
                    if why is not None:
                        raise InvalidInput(why)
                else:
                    document.value("the file")  # not JSON at all, or a lone value
                raise InvalidInput(f"{report.source} must hold a list of entries")
            document.expect("[", "a list")
            for index, data in document.items(lambda n: f"entry {n}"):
                try:
                    entry = _filtered(AppKbEntry.from_dict(data), redactor)
                except InvalidInput as exc:
                    report.skip(f"entry {index}", str(exc))
                    continue
                sink.append(DOMAIN, "upsert", {"entry": entry.to_dict(), "ts": now})
                report.imported += 1
            document.end()
    except InvalidInput as exc:
        if str(exc).startswith(report.source):
            raise
        raise InvalidInput(f"{report.source} is not JSON ({exc}); nothing imported") from None


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
