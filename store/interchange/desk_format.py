"""The desk interchange format (`jiyi export desk` / `jiyi import desk`, docs/interchange.md): one JSON Lines
file per kind of desk memory and a `manifest.json` with the format's name, its schema version, and each
file's line count and SHA-256.

`read_export` checks a whole directory before anything is written: the manifest, every file it lists
(present, a regular file, not a link, its checksum and count), and every line (a JSON object with each
field of its kind, of the right type). Any problem is an `InvalidInput` (`NotFound` for a missing file)
that names the file and the line.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from store.core import clock
from store.core.atomic_file import write_text
from store.core.errors import InvalidInput, NotFound
from store.interchange.desk_records import DeskRecord, Manifest, ManifestFile
from store.interchange.import_source import MAX_FILE_BYTES, refuse_links

FORMAT = "jiyi-desk"
SCHEMA_VERSION = 1
MANIFEST = "manifest.json"

Check = Callable[[object], bool]
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _text(value: object) -> bool:
    """a string"""
    return isinstance(value, str)


def _maybe_text(value: object) -> bool:
    """a string or null"""
    return value is None or isinstance(value, str)


def _time(value: object) -> bool:
    """ISO-8601 text"""
    return clock.is_iso(value)


def _day(value: object) -> bool:
    """a workday (YYYY-MM-DD)"""
    return isinstance(value, str) and _DAY.fullmatch(value) is not None


def _number(value: object) -> bool:
    """a number"""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _whole(value: object) -> bool:
    """a whole number"""
    return isinstance(value, int) and not isinstance(value, bool)


def _flag(value: object) -> bool:
    """true or false"""
    return isinstance(value, bool)


def _object(value: object) -> bool:
    """a JSON object"""
    return isinstance(value, dict)


def _maybe_object(value: object) -> bool:
    """a JSON object or null"""
    return value is None or isinstance(value, dict)


def _texts(value: object) -> bool:
    """a list of strings"""
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _list_of(fields: Mapping[str, Check]) -> Check:
    def check(value: object) -> bool:
        return isinstance(value, list) and all(
            isinstance(item, dict) and all(name in item and ok(item[name]) for name, ok in fields.items())
            for item in value
        )

    check.__doc__ = "a list of objects with " + ", ".join(fields)
    return check


_REVISION: dict[str, Check] = {"revision": _whole, "content": _text, "ts": _time, "actor": _text}

FIELDS: dict[str, dict[str, Check]] = {
    "interactions": {
        "interaction_id": _text,
        "ts": _time,
        "epoch": _number,
        "workday": _day,
        "source": _text,
        "user_text": _text,
        "assistant_text": _text,
        "task_id": _maybe_text,
    },
    "task_cards": {
        "task_id": _text,
        "title": _text,
        "status": _text,
        "result": _text,
        "schedule_id": _maybe_text,
        "run_id": _maybe_text,
        "interaction_id": _maybe_text,
        "source": _text,
        "ts": _time,
        "epoch": _number,
        "workday": _day,
    },
    "topics": {
        "topic_id": _text,
        "title": _text,
        "summary": _text,
        "kind": _text,
        "task_ids": _texts,
        "created": _time,
        "updated": _time,
        "updated_epoch": _number,
        "first_workday": _day,
        "interactions": _list_of({"interaction_id": _text, "workday": _day, "epoch": _number}),
        "segments": _list_of({"workday": _day, "summary": _text, "updated": _time}),
    },
    "facts": {
        "fact_id": _text,
        "scope": _text,
        "profile_kind": _maybe_text,
        "project": _maybe_text,
        "content": _text,
        "status": _text,
        "status_reason": _text,
        "first_workday": _day,
        "created": _time,
        "updated": _time,
        "origin": _maybe_object,
        "evidence": _list_of(
            {
                "source_kind": _text,
                "source_id": _text,
                "speaker": _text,
                "quote": _text,
                "workday": _day,
                "ts": _time,
                "counts": _flag,
            }
        ),
    },
    "skills": {
        "skill_id": _text,
        "name": _text,
        "text": _text,
        "status": _text,
        "source_interaction_id": _maybe_text,
        "source_quote": _text,
        "created": _time,
        "updated": _time,
        "decided_by": _text,
        "user_request": _text,
    },
    "bundles": {
        "bundle_id": _text,
        "kind": _text,
        "key": _text,
        "title": _text,
        "created": _time,
        "updated": _time,
        "documents": _list_of({"path": _text, "revisions": _list_of(_REVISION)}),
    },
    "learned": {
        "record_id": _text,
        "version": _whole,
        "grant_id": _text,
        "kind": _text,
        "content": _text,
        "state": _text,
        "managed": _flag,
        "target": _text,
        "provenance": _object,
        "bytes": _whole,
        "expires_at": _time,
        "created": _time,
        "updated": _time,
        "reason": _text,
    },
}
"""Each kind's fields and what each must be; a line needs all of them (others are refused as unknown)."""

KINDS = tuple(FIELDS)
"""The kinds in the order an import writes them (a fact's evidence and a topic's turns come before)."""


def file_name(kind: str) -> str:
    return f"{kind}.jsonl"


def encode(record: DeskRecord) -> str:
    """One line of a kind's file: compact JSON, keys in their declared order, UTF-8 as is."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class Export:
    """A checked export directory: each kind's records, with the line each came from."""

    root: Path
    manifest: Manifest
    records: dict[str, list[tuple[int, DeskRecord]]]  # by kind: a line of `kinds.jsonl` is a `kind` record

    @property
    def total(self) -> int:
        return sum(len(lines) for lines in self.records.values())


OPTIONAL: dict[str, dict[str, Any]] = {
    # An agent's activation of a skill names the user's turn it was asked in (issue 36); written only when set,
    # so that an export without one reads as it did before.
    "skills": {"request_interaction_id": _maybe_text},
}
"""Fields a line of a kind may leave out (added to format version 1 after it was first written)."""


def check_record(kind: str, record: object) -> str | None:
    """Why `record` is not a line of `kind` (None when it is)."""
    if not isinstance(record, dict):
        return "not a JSON object"
    fields = FIELDS[kind]
    for name, ok in fields.items():
        if name not in record:
            return f"the field {name!r} is missing"
        if not ok(record[name]):
            return f"the field {name!r} is not {ok.__doc__}"
    optional = OPTIONAL.get(kind, {})
    for name, ok in optional.items():
        if name in record and not ok(record[name]):
            return f"the field {name!r} is not {ok.__doc__}"
    unknown = sorted(set(record) - set(fields) - set(optional))
    if unknown:
        return f"the field {unknown[0]!r} is not one of the {kind} format's"
    return None


def _read_capped(path: Path) -> bytes:
    """The file's bytes, unless it is larger than `MAX_FILE_BYTES` (it is read whole): then `InvalidInput`."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InvalidInput(f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB, the most an import reads")
    return path.read_bytes()


def _read_manifest(root: Path) -> Manifest:
    path = root / MANIFEST
    refuse_links(path)
    if not path.is_file():
        raise NotFound(f"{path} is missing: {root} is not a Jiyi desk export (`jiyi export desk` writes one)")
    try:
        manifest = json.loads(_read_capped(path).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"{path} is not JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InvalidInput(f"{path} is not a manifest of the {FORMAT!r} format")
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION:
        raise InvalidInput(
            f"{path} has schema version {version!r}; this Jiyi reads version {SCHEMA_VERSION} "
            "(an export by a newer Jiyi needs that Jiyi to import it)"
        )
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise InvalidInput(f"{path} has no 'files' object")
    for name in files:
        if name not in {file_name(kind) for kind in KINDS}:
            raise InvalidInput(f"{path} lists {name!r}, which is not a file of the {FORMAT} format")
    for kind in KINDS:
        entry = files.get(file_name(kind))
        if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str) or not _whole(entry.get("count")):
            raise InvalidInput(f"{path} has no count and sha256 for {file_name(kind)}")
    return cast(Manifest, manifest)  # its format, version and each file's count and checksum checked above


def read_export(root: Path) -> Export:
    """Check the export at `root` whole and return its records; raises before anything could be written."""
    root = Path(root)
    refuse_links(root)
    if not root.is_dir():
        raise NotFound(f"{root} is not a folder: give the folder `jiyi export desk` wrote")
    manifest = _read_manifest(root)
    for kind in KINDS:
        refuse_links(root / file_name(kind))
    records: dict[str, list[tuple[int, DeskRecord]]] = {}
    for kind in KINDS:
        name = file_name(kind)
        path = root / name
        if not path.is_file():
            raise NotFound(f"{path} is missing (the manifest lists it)")
        raw = _read_capped(path)
        expected = manifest["files"][name]
        if hashlib.sha256(raw).hexdigest() != expected["sha256"]:
            raise InvalidInput(f"{path} does not match its SHA-256 in {MANIFEST}: it was changed or cut short")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"{path} is not UTF-8 (byte {exc.start})") from None
        lines: list[tuple[int, DeskRecord]] = []
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{name} line {number}: not JSON ({exc.msg})") from None
            why = check_record(kind, record)
            if why is not None:
                raise InvalidInput(f"{name} line {number}: {why}")
            lines.append((number, cast(DeskRecord, record)))  # each field of its kind, of its type: its record
        if len(lines) != expected["count"]:
            raise InvalidInput(f"{name} has {len(lines)} records; {MANIFEST} says {expected['count']}")
        records[kind] = lines
    return Export(root, manifest, records)


def check_target(root: Path) -> None:
    """Refuse to export into a folder holding anything but a previous desk export (which is replaced)."""
    refuse_links(root)
    if root.exists() and not root.is_dir():
        raise InvalidInput(f"{root} is a file, not a folder; give a folder to export into (it is made if missing)")
    if not root.exists():
        return
    ours = {MANIFEST, *(file_name(kind) for kind in KINDS)}
    present = sorted(p.name for p in root.iterdir())
    if not present:
        return
    others = [name for name in present if name not in ours]
    previous = False
    if MANIFEST in present and not (root / MANIFEST).is_symlink():
        try:
            previous = json.loads((root / MANIFEST).read_text("utf-8")).get("format") == FORMAT
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            previous = False
    if others or not previous:
        shown = ", ".join(others[:5] or present[:5])
        raise InvalidInput(
            f"{root} is not empty ({shown}) and holds no earlier desk export; "
            "give an empty or new folder, or one `jiyi export desk` wrote before (it is replaced)"
        )
    for name in present:
        refuse_links(root / name)


def write_export(
    root: Path, kinds: Mapping[str, Iterable[DeskRecord]], exported_at: str, version: str
) -> dict[str, int]:
    """Write each kind's file (0600) and then the manifest; returns each kind's count."""
    files: dict[str, ManifestFile] = {}
    counts: dict[str, int] = {}
    for kind in KINDS:
        lines = [encode(record) for record in kinds[kind]]
        text = "".join(f"{line}\n" for line in lines)
        write_text(root / file_name(kind), text)
        files[file_name(kind)] = {
            "kind": kind,
            "count": len(lines),
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        }
        counts[kind] = len(lines)
    manifest: Manifest = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "exported_at": exported_at,
        "jiyi_version": version,
        "files": files,
    }
    write_text(root / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
    return counts
