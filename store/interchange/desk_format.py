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
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import msgspec

from store.core import clock
from store.core.errors import InvalidInput, NotFound
from store.core.home.atomic_file import write_text
from store.desk.rows import TaskCard
from store.interchange.desk_records import DeskRecord, Manifest, ManifestFile
from store.interchange.import_source import MAX_FILE_BYTES, refuse_links
from store.interchange.json_reading import MiB, load_file, load_json, mib, read_lines, too_long

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
    plain = msgspec.structs.asdict(record) if isinstance(record, msgspec.Struct) else record  # a task card
    return json.dumps(plain, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


LINE_CAPS: dict[str, int] = {
    "interactions": MiB,
    "task_cards": MiB,
    "topics": 16 * MiB,  # a topic lists every turn filed under it
    "facts": 4 * MiB,
    "skills": MiB,
    "bundles": 64 * MiB,  # a bundle holds every revision of every document (256,000 characters each at most)
    "learned": MiB,
}
"""The longest line each kind's file may hold: a longer one is refused before it is read whole."""
MANIFEST_CAP = MiB


@dataclass(frozen=True)
class Export:
    """A checked export directory: its manifest and each kind's count. `records()` reads the records again, in the
    order an import writes them, each checked as `read_export` checked it."""

    root: Path
    manifest: Manifest
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def records(self) -> Iterator[tuple[str, int, DeskRecord]]:
        """(kind, line number, record) for every record; `InvalidInput` when a file no longer is what was checked
        (changed meanwhile: it is said when its end is reached, before the caller commits anything of it)."""
        for kind in KINDS:
            yield from ((kind, number, record) for number, record in _scan(self.root, kind, self.manifest))


def _record(kind: str, checked: object) -> DeskRecord:
    """A line `check_record` passed as its kind's record: each field of its kind, of its type, and no other (a
    task card's record is the store's own row, made of it here)."""
    return msgspec.convert(checked, TaskCard) if kind == "task_cards" else cast(DeskRecord, checked)


def _scan(root: Path, kind: str, manifest: Manifest) -> Iterator[tuple[int, DeskRecord]]:
    """The records of `kind`'s file, streamed: each line at most its kind's cap, parsed and checked. The file's
    SHA-256 and count are compared with the manifest at its end; a line's problem is said after that (a file
    that is not what the manifest says is that, whatever its lines hold)."""
    name = file_name(kind)
    path = root / name
    refuse_links(path)
    if not path.is_file():
        raise NotFound(f"{path} is missing (the manifest lists it)")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InvalidInput(f"{path} is larger than {MAX_FILE_BYTES // MiB} MiB, the most an import reads")
    expected = manifest["files"][name]
    digest = hashlib.sha256()
    problem: str | None = None
    count = 0
    with open(path, "rb") as stream:
        for line in read_lines(stream, LINE_CAPS[kind], seen=digest.update):
            if problem is not None:
                continue  # read on for the checksum only
            if line.data is None:
                problem = too_long(name, line, LINE_CAPS[kind])
                continue
            if not line.data.strip():
                continue
            try:
                record = load_json(line.data, f"{name} line {line.number}")
            except InvalidInput as exc:
                problem = str(exc)
                continue
            why = check_record(kind, record)
            if why is not None:
                problem = f"{name} line {line.number}: {why}"
                continue
            try:
                checked = _record(kind, record)
            except msgspec.ValidationError as exc:  # a number beyond a float's range, say
                problem = f"{name} line {line.number}: {exc}"
                continue
            count += 1
            yield line.number, checked
    if digest.hexdigest() != expected["sha256"]:
        raise InvalidInput(f"{path} does not match its SHA-256 in {MANIFEST}: it was changed or cut short")
    if problem is not None:
        raise InvalidInput(problem)
    if count != expected["count"]:
        raise InvalidInput(f"{name} has {count} records; {MANIFEST} says {expected['count']}")


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


def _read_manifest(root: Path) -> Manifest:
    path = root / MANIFEST
    refuse_links(path)
    if not path.is_file():
        raise NotFound(f"{path} is missing: {root} is not a Jiyi desk export (`jiyi export desk` writes one)")
    if path.stat().st_size > MANIFEST_CAP:
        raise InvalidInput(f"{path} is larger than {mib(MANIFEST_CAP)}: not a manifest {FORMAT!r} writes")
    try:
        manifest = load_json(path.read_bytes(), str(path))
    except InvalidInput as exc:
        raise InvalidInput(f"{path} is not JSON ({str(exc).removeprefix(f'{path}: ')})") from None
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
    """Check the export at `root` whole, streaming each file (nothing of it is kept); raises before anything
    could be written. Its records are read again, as they are written, by `Export.records`."""
    root = Path(root)
    refuse_links(root)
    if not root.is_dir():
        raise NotFound(f"{root} is not a folder: give the folder `jiyi export desk` wrote")
    manifest = _read_manifest(root)
    for kind in KINDS:
        refuse_links(root / file_name(kind))
    counts: dict[str, int] = {}
    for kind in KINDS:
        counts[kind] = sum(1 for _ in _scan(root, kind, manifest))
    return Export(root, manifest, counts)


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
            manifest = load_file(root / MANIFEST, MANIFEST, MANIFEST_CAP)
            previous = isinstance(manifest, dict) and manifest.get("format") == FORMAT
        except (OSError, InvalidInput):
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
