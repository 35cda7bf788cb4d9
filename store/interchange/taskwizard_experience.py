"""Import and export the reference's episode archive (`memory/experience/`).

`events.jsonl` holds `experience_event`, `episode_outcome` and
`episode_archived` records; each valid line becomes one event of the
`experience` domain with the validated record as its payload and the line
itself as `source_line`, so an export writes every imported line back byte
for byte. Records pass the same validation as live ones, except that optional
outcome fields the line does not have stay absent; strings are kept verbatim,
as the reference keeps them. Lines Jiyi wrote itself are exported in the
reference's field order and `json.dumps` settings (`ensure_ascii=False`,
default separators). Corrupt lines are skipped and counted. Importing again
reads only what was appended (see `GrowingLog`). `episodes.json` is written as
the reference's view (`indent=2`, sorted keys).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from store.core.database import Store
from store.core.errors import InvalidInput
from store.core.home.atomic_file import write_text
from store.core.projection import EventRecord
from store.episodes.archive import DOMAIN, SOURCE_LINE, episode_view, view_record
from store.episodes.folding import aggregate_record
from store.episodes.run_event import ExperienceEvent, check_run_id
from store.episodes.schema import EpisodeOutcome
from store.interchange.import_report import ImportReport
from store.interchange.import_source import GrowingLog, Known, content_identity, parse_object, refuse_links, subfolder
from store.interchange.json_reading import check_document
from store.interchange.staged_import import Sink, StagedTo, writing

log = logging.getLogger("jiyi.store.interchange")

EVENT_FIELDS: tuple[str, ...] = ("type", "schema_v", "run_id", "step", "ts", "tool", "result_class", "app_package")
EVENT_FIELDS += ("device_scope", "intent", "note")
ARCHIVED_FIELDS = ("type", "schema_v", "ts", "run_ids", "aggregates")
OUTCOME_FIELDS = tuple(EpisodeOutcome("-").to_dict())  # the reference's order: the dataclass follows it


def experience_dir(root: Path) -> Path:
    """The `experience` folder inside a reference memory dir (or the folder itself); a symlinked one is refused."""
    return subfolder(Path(root), "experience", "events.jsonl")


def _record(line: str) -> dict[str, object]:
    data = parse_object(line)
    kind = data.get("type")
    if kind == "experience_event":
        return ExperienceEvent.coerce(data, device=None, now=0.0).to_dict()
    if kind == "episode_outcome":
        return EpisodeOutcome.coerce(data, keep_absent=True).to_dict()
    if kind == "episode_archived":
        run_ids = data.get("run_ids")
        if not isinstance(run_ids, list) or not all(isinstance(r, str) for r in run_ids):
            raise InvalidInput("episode_archived needs a list of run_ids")
        for run_id in run_ids:
            check_run_id(run_id)
        if not isinstance(data.get("aggregates", {}), dict):
            raise InvalidInput("episode_archived aggregates must be an object")
        return data
    raise InvalidInput(f"unknown record type {kind!r}")


def _identity(payload: dict[str, object]) -> dict[str, object]:
    """What a stored record is, for telling whether a line of a rewritten log is already in the store."""
    line = payload.get(SOURCE_LINE)
    if isinstance(line, str):
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    return reference_record(view_record(payload))


def import_experience(
    store: Store,
    root: Path,
    *,
    actor: str = "import",
    replaces: Path | None = None,
    staged: StagedTo | None = None,
) -> ImportReport:
    """Append the reference's experience log at `root`: the lines not imported before, in one transaction, or
    with `staged` prepared and published in slices (`staged_import`). `replaces`: the log this one replaces
    (another place's `events.jsonl`), as `GrowingLog` takes it."""
    folder = experience_dir(root)
    with GrowingLog("taskwizard:experience", folder / "events.jsonl", replaces=replaces) as source:
        return _import_experience(store, source, folder, actor, staged)


def _import_experience(
    store: Store, source: GrowingLog, folder: Path, actor: str, staged: StagedTo | None
) -> ImportReport:
    report = ImportReport(str(source.source))
    check_view(folder / "episodes.json", report)
    if source.state == "unchanged":
        report.already_imported, report.moved_from = True, source.moved_from
        return report
    report.recognised = source.recognised
    with writing(store, actor, "experience", str(source.source), staged) as sink:
        known = None
        if source.compare:
            known = Known(_identity(e.payload) for e in store.events(DOMAIN))
        records: list[dict[str, object]] = []
        run_ids: set[str] = set()
        for number, line in source.lines(report.skip):
            try:
                record = _record(line)
            except InvalidInput as exc:
                report.skip(f"line {number}", str(exc))
                continue
            run_ids.update(_run_ids(record))
            if known is not None and known.take(parse_object(line)):
                report.known += 1
                continue
            records.append({**record, SOURCE_LINE: line})
            if len(records) == 10_000:  # the bulk path, a slice at a time: memory stays flat
                report.imported += write_records(sink, records)
                records = []
        report.imported += write_records(sink, records)
        identity = content_identity(run_ids)
        source.recognise(identity)  # a rewritten log moved elsewhere is known by its runs
        report.rewritten, report.moved_from = source.state == "rewritten", source.moved_from
        report.recognised = source.recognised
        if source.state == "appended":  # only the appended lines were read: the runs before them count too
            identity = content_identity(run_ids, before=source.previous_identity)
        source.mark_done(sink, identity=identity)
    if report.skipped:
        log.warning("import of %s skipped %d corrupt lines", source.source, report.skipped)
    return report


def check_view(path: Path, report: ImportReport) -> None:
    """Report an `episodes.json` that cannot be read (the reference's reader rebuilds it from the log, and the
    export writes it afresh)."""
    refuse_links(path)
    if not path.is_file():
        return
    why = check_document(path, "object")
    if why is not None:
        report.damaged_view(path, "not an object keyed by run_id" if why == "not an object" else why)


def _run_ids(record: Mapping[str, object]) -> list[str]:
    """The runs a validated record is about: an archival's run ids, else its own run."""
    ids = record["run_ids"] if "run_ids" in record else [record["run_id"]]
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def write_records(sink: Sink, records: Sequence[dict[str, object]]) -> int:
    """Append parsed, validated records (each with its `type`) to the archive, in order; the one place the
    import writes episodes, through the bulk path (`Store.append_many`, as `archive.record_many`)."""
    sink.append_many(DOMAIN, [(str(r["type"]), r) for r in records])
    return len(records)


def _ordered(record: Mapping[str, object], order: Sequence[str]) -> dict[str, object]:
    head = {k: record[k] for k in order if k in record}
    return {**head, **{k: record[k] for k in sorted(record) if k not in head}}


def reference_record(payload: Mapping[str, object], event_type: str | None = None) -> dict[str, object]:
    """A record Jiyi wrote, in the reference's field order (its envelope first)."""
    record = dict(payload) if "type" in payload else {"type": event_type, **payload}
    kind = record.get("type")
    if kind == "episode_outcome":
        order: Sequence[str] = OUTCOME_FIELDS
    elif kind == "experience_event":
        order = EVENT_FIELDS
    elif kind == "episode_archived":
        order = ARCHIVED_FIELDS
        record = {**record, "schema_v": record.get("schema_v", 1)}
        aggregates = record.get("aggregates")
        if isinstance(aggregates, dict):
            record["aggregates"] = {
                key.removeprefix("aggregate:"): value if value.get("type") else aggregate_record(key, value)
                for key, value in aggregates.items()
                if isinstance(value, dict)
            }
    else:
        order = ("type",)
    return _ordered(record, order)


def export_line(event: EventRecord) -> str:
    """The line an archive event is exported as: the imported line itself, else the record in the reference's
    field order and `json.dumps` settings."""
    line = event.payload.get(SOURCE_LINE)
    if isinstance(line, str):
        return line
    return json.dumps(reference_record(event.payload, event.type), ensure_ascii=False)


def export_experience(store: Store, root: Path) -> dict[str, int]:
    """Write `root/experience/events.jsonl` and `episodes.json` in the reference's format."""
    folder = Path(root) / "experience"
    refuse_links(folder, folder / "events.jsonl", folder / "episodes.json")
    lines = [export_line(event) for event in store.events(DOMAIN)]
    view = episode_view(store)
    write_text(folder / "events.jsonl", "".join(line + "\n" for line in lines))
    write_text(folder / "episodes.json", json.dumps(view, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    return {"records": len(lines), "episodes": sum(1 for key in view if not key.startswith("aggregate:"))}
