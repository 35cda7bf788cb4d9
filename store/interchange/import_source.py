"""What every import shares: safe reading, a report of skipped lines, doing a view file once per content,
and reading an append-only log again from where the last import stopped (`GrowingLog`)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, NotRequired, TypedDict, cast

from store.core import clock
from store.core.errors import InvalidInput, NotFound
from store.core.models import MetaValue
from store.interchange.json_reading import MiB, load_json, mib, read_lines
from store.interchange.staged_import import Sink

log = logging.getLogger("jiyi.store.interchange")

MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest file of a desk export or of another system's memory an import reads (streamed, line by line)."""
LINE_CAP = 1024 * 1024
"""The longest line of a TaskWizard log an import reads (its lines are a few hundred bytes)."""


class ImportProgress(TypedDict):
    """How far a `GrowingLog` was imported, as kept in `meta` (only `bytes` is sure in one an older Jiyi wrote)."""

    bytes: int  # how many of the file's bytes were imported
    sha256: NotRequired[str]  # of those bytes
    ts: NotRequired[str]  # when
    source: NotRequired[str]  # the file's path then
    identity: NotRequired[list[str]]  # what its content is known by (`content_identity`)
    lineage: NotRequired[list[str]]  # what it was ever known by across rewrites (`recognise_lineage`)


def refuse_links(*paths: Path) -> None:
    """Refuse any of `paths` that is a symlink (to a file or to a folder)."""
    for path in paths:
        if path.is_symlink():
            kind = "folder" if path.is_dir() else "file"
            raise InvalidInput(f"{path} is a symlink to a {kind}; Jiyi does not read or write through links")


def export_root(root: Path) -> Path:
    """`root` as a folder to export into: it may be missing (it is made) but must not be a file or a link."""
    root = Path(root)
    refuse_links(root)
    if root.exists() and not root.is_dir():
        raise InvalidInput(f"{root} is a file, not a folder; give a folder to export into (it is made if missing)")
    return root


def subfolder(root: Path, name: str, *markers: str) -> Path:
    """`root/name` when it is a folder (never through a link), else `root` itself when it holds one of `markers`.

    The folder the user names may be reached through a link; nothing inside it may be one.
    """
    root = Path(root)
    inner = root / name
    refuse_links(inner)
    if inner.is_dir():
        return inner
    if any((root / marker).exists() or (root / marker).is_symlink() for marker in markers):
        return root
    raise NotFound(f"{root} has no {' or '.join(f'{name}/{marker}' for marker in markers)}")


class ImportOnce:
    """A source file imported once per content (a view such as `kb.json`, read when its log is missing): the store
    remembers, in the same transaction as the import, the SHA-256 of what was imported."""

    def __init__(self, kind: str, source: Path) -> None:
        refuse_links(source)
        if not source.is_file():
            raise NotFound(f"{source} is missing or not a file")
        self.source = source
        self.marker = f"import:{kind}:{file_digest(source)}"

    @property
    def done_before(self) -> bool:
        return MetaValue.get_or_none(MetaValue.key == self.marker) is not None

    def mark_done(self, sink: Sink) -> None:
        sink.meta(self.marker, json.dumps({"ts": clock.iso_now(), "source": str(self.source)}))


def file_digest(path: Path) -> str:
    """SHA-256 of the file's bytes, read a MiB at a time."""
    with open(path, "rb") as stream:
        return stream_digest(stream, os.fstat(stream.fileno()).st_size)


def stream_digest(stream: IO[bytes], size: int) -> str:
    """SHA-256 of the first `size` bytes of `stream`, read a MiB at a time."""
    digest = hashlib.sha256()
    stream.seek(0)
    left = size
    while left > 0:
        chunk = stream.read(min(MiB, left))
        if not chunk:
            break
        digest.update(chunk)
        left -= len(chunk)
    return digest.hexdigest()


def parse_object(line: str) -> dict[str, object]:
    """One JSON Lines record, or `InvalidInput` naming why not (not JSON, nested too deep: `load_json`)."""
    try:
        value = load_json(line, "")
    except InvalidInput as exc:
        raise InvalidInput(str(exc).removeprefix(": ")) from None
    if not isinstance(value, dict):
        raise InvalidInput("not a JSON object")
    return value


def canonical(record: Mapping[str, object]) -> str:
    """A record's identity for telling a line already imported: its JSON with sorted keys, compact."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class Known:
    """A multiset of canonical records already in the store: a rewritten log's line is new only when
    there are more of it than the store holds."""

    def __init__(self, records: Iterable[Mapping[str, object]]) -> None:
        self._counts = Counter(canonical(r) for r in records)

    def take(self, record: Mapping[str, object]) -> bool:
        """True (and counted off) when the store already holds `record`."""
        key = canonical(record)
        if self._counts[key] > 0:
            self._counts[key] -= 1
            return True
        return False


class GrowingLog:
    """An append-only JSON Lines file imported again and again.

    Per file the store remembers, in the import's transaction, how many bytes
    were imported and the SHA-256 of those bytes, under the file's resolved
    path and with what the importer says identifies the directory's content
    (`mark_done(identity=...)`: an App-KB's entry keys). Read again: when the
    file still starts with exactly those bytes, only what follows is new
    (`appended`, or `unchanged` when nothing follows); when it does not (the
    reference compacted or rewrote its log), the whole file is read and each
    line is compared with what the store holds (`rewritten`).

    A file at a path never imported is recognised by its content: when it
    starts with the bytes imported from another path (the directory was
    moved, restored or synced elsewhere), it continues that import; when it
    does not, `elsewhere` holds the other paths' records, for the importer to
    tell a compacted log of a known directory by its content (`adopt`).
    A log whose reference compacts it also carries a *lineage*: marks of
    what it held that a rewrite keeps (an App-KB entry's birth, its alias
    changes), gathered over every import of it. A log at a new path that
    shares marks with a log imported from a path where that log is no longer
    (moved, then compacted) continues that import (`recognise_lineage`);
    where the other is still there, the new one may be a copy: it is taken
    as a log of its own, and the report says so (`suggestion`). `replaces`
    names the other place outright.

    A last line without its newline is left for next time unless it is a
    whole JSON object (a writer may be in the middle of it). The file is
    streamed: a line longer than `cap` is skipped (and said), not read.
    """

    def __init__(self, kind: str, source: Path, cap: int = LINE_CAP, replaces: Path | None = None) -> None:
        refuse_links(source)
        if not source.is_file():
            raise NotFound(f"{source} is missing or not a file")
        self.source = source
        self.cap = cap
        # Read through one open file: a log TaskWizard replaces meanwhile (a compaction) is read as it was.
        self._stream = open(source, "rb")  # noqa: SIM115 - closed by `close` (the import's `with`)
        self.size = os.fstat(self._stream.fileno()).st_size
        self._digests: dict[int, str] = {}
        self.prefix = f"import-progress:{kind}:"
        self.key = f"{self.prefix}{source.resolve()}"
        self.end = self._complete_end()
        self.start = 0
        self.state = "new"
        self.moved_from: str | None = None
        self.previous: ImportProgress | None = None  # the record this import continues
        self.elsewhere: list[tuple[str, ImportProgress]] = []  # (its key, the record) of logs at other paths
        self.recognised: str | None = None  # what this log was taken for, and why (for the report)
        self.suggestion: str | None = None  # what the person may want to say (`--replaces`), when unsure
        self.superseded: str | None = None  # the key of a record this log replaces (removed with `mark_done`)
        self.replaced: ImportProgress | None = None  # that record, when this log has one of its own too
        row = MetaValue.get_or_none(MetaValue.key == self.key)
        previous = _record(row.value) if row is not None else None
        others = self._others()
        self.others = others
        # Copies of one directory imported from two places may both have what one of them appended.
        self.copies = bool(others)
        replaced = None
        if replaces is not None:
            named = f"{self.prefix}{Path(replaces).resolve()}"
            replaced = next(((k, r) for k, r in others if k == named), None)
        if previous is not None:
            self.previous = previous
            if replaced is not None:
                # Imported from here before, and now said to replace the other: read whole, so that what the
                # other put and this one does not hold goes.
                self.superseded, self.replaced = replaced
                self.recognised = f"it replaces {replaced[1].get('source', replaces)}, as asked (--replaces)"
                self.state = "rewritten"
            elif not self._continue(previous):
                self.state = "rewritten"
            return
        if replaced is not None:
            self._replace(*replaced, f"it replaces {replaced[1].get('source', replaces)}, as asked (--replaces)")
            return
        for key, other in others:
            if self._continue(other):
                self.previous, self.moved_from = other, str(other.get("source", ""))
                return
            self.elsewhere.append((key, other))

    @property
    def compare(self) -> bool:
        """Whether each line read must be compared with what the store holds (not only counted new): a log
        read whole, or one appended to while a copy of it was imported from another path."""
        return self.state in ("new", "rewritten") or (self.state == "appended" and self.copies)

    @property
    def previous_identity(self) -> list[str]:
        """What the log this import continues (and the one it replaces) was known by (nothing when none)."""
        return _strings(self.previous, "identity") + _strings(self.replaced, "identity")

    def _others(self) -> list[tuple[str, ImportProgress]]:
        """The progress records of this kind of log imported from other paths (with their keys), newest first."""
        rows = MetaValue.select().where(MetaValue.key.startswith(self.prefix) & (MetaValue.key != self.key))
        records = [(str(row.key), r) for row in rows if (r := _record(row.value)) is not None]
        return sorted(records, key=lambda kr: str(kr[1].get("ts", "")), reverse=True)

    def _replace(self, key: str, record: ImportProgress, why: str) -> None:
        """Continue the import of the log `record` describes (at another path, or gone): from its bytes when
        this file still starts with them, else as its rewrite. Its record goes once this import is done."""
        self.previous, self.moved_from, self.superseded = record, str(record.get("source", "")), key
        if not self._continue(record):
            self.state = "rewritten"
        self.recognised = why

    def still_there(self, key: str) -> bool:
        """Whether the log a record (by its key) was imported from is still where it was."""
        return Path(key[len(self.prefix) :]).exists()

    def recognise_lineage(self, marks: set[str], say: Callable[[set[str]], str]) -> None:
        """A log at a new path that shares `marks` (its lineage, see the class docstring) with a log imported
        from elsewhere: that log rewritten (continued, as its rewrite), when that one is no longer where it
        was; else a log of its own, with a `suggestion` to say otherwise. `say(shared)` words what they share.
        A record without a lineage (an earlier Jiyi's) is left to `recognise`."""
        if self.state != "new" or not marks:
            return
        sharing = [(key, r, marks & set(r.get("lineage") or ())) for key, r in self.elsewhere]
        sharing = sorted((s for s in sharing if s[2]), key=lambda s: len(s[2]), reverse=True)
        if not sharing:
            return
        key, record, shared = sharing[0]
        source = str(record.get("source", key[len(self.prefix) :]))
        if self.still_there(key):
            self.suggestion = (
                f"{self.source} shares {say(shared)} with {source}, which is still there: a copy? It was imported "
                f"as a log of its own (nothing of the other's taken away). If it replaces that one, import it "
                f"again with --replaces {_folder_of(source)}"
            )
            return
        if len(sharing) > 1 and len(sharing[1][2]) == len(shared):
            others = ", ".join(str(s[1].get("source", s[0])) for s in sharing[:3])
            self.suggestion = (
                f"{self.source} shares as much with each of {others} (all gone from where they were): imported "
                f"as a log of its own; if it replaces one, import it again with --replaces naming its folder"
            )
            return
        self._replace(key, record, f"it is {source}, moved and rewritten since (compacted): {say(shared)}")

    @property
    def previous_lineage(self) -> list[str]:
        """What the log this import continues (and the one it replaces) was ever known by (nothing when none)."""
        return _strings(self.previous, "lineage") + _strings(self.replaced, "lineage")

    def _continue(self, record: ImportProgress) -> bool:
        """Start after `record`'s bytes when the file still begins with them (True), else leave it whole."""
        done = record["bytes"]
        if done <= self.size and self._digest(done) == record.get("sha256"):
            self.start = done
            self.state = "unchanged" if self.end <= done else "appended"
            return True
        return False

    def recognise(self, identity: list[str]) -> None:
        """A log at a new path whose content (`identity`, see `content_identity`) is that of a log imported
        from elsewhere is that log rewritten (a compaction, then a move): its import continues that one."""
        if self.state != "new":
            return
        theirs = set(identity)
        match = max(
            (r for _key, r in self.elsewhere if same_content(theirs, set(r.get("identity") or ()))),
            key=lambda r: len(theirs & set(r.get("identity") or ())),
            default=None,
        )
        if match is not None:
            self.previous, self.moved_from, self.state = match, str(match.get("source", "")), "rewritten"
            self.recognised = f"it is {self.moved_from} rewritten since: most of what it holds was there"

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> GrowingLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def other_identities(self) -> set[str]:
        """What the logs of this kind imported from other paths hold (but the one this log replaces)."""
        held: set[str] = set()
        for key, record in self.others:
            identity = record.get("identity")
            if key != self.superseded and isinstance(identity, list):
                held.update(d for d in identity if isinstance(d, str))
        return held

    def _digest(self, size: int) -> str:
        """SHA-256 of the file's first `size` bytes (read again, a MiB at a time, once per size)."""
        if size not in self._digests:
            self._digests[size] = stream_digest(self._stream, size)
        return self._digests[size]

    def _complete_end(self) -> int:
        """Where the lines to read end: the file's end, unless its last line lacks its newline and is not a whole
        JSON object (a writer is in the middle of it): then that line's start. Only the file's tail is read."""
        if self.size == 0:
            return 0
        back = min(self.size, self.cap + 1)
        self._stream.seek(self.size - back)
        tail = self._stream.read(back)
        if tail.endswith(b"\n"):
            return self.size
        cut = tail.rfind(b"\n")
        if cut < 0 and back < self.size:
            return self.size  # a last line past the cap: read (and skipped as too long) as it is
        try:
            whole = isinstance(load_json(tail[cut + 1 :], ""), dict)
        except InvalidInput:
            whole = False
        return self.size if whole else self.size - back + cut + 1

    def lines(self, skip: Callable[[str, str], None] | None = None) -> Iterator[tuple[int, str]]:
        """(line number, line) of the non-blank lines to import now; a line longer than the cap is not read but
        told to `skip(where, why)`."""
        first = 1
        stream = self._stream
        stream.seek(0)
        left = self.start
        while left > 0:
            chunk = stream.read(min(MiB, left))
            if not chunk:
                break
            first += chunk.count(b"\n")
            left -= len(chunk)
        for line in read_lines(stream, self.cap, start=self.start, first=first):
            if line.offset >= self.end:
                return
            if line.data is None:
                if skip is not None:
                    skip(f"line {line.number}", f"{line.size:,} bytes, longer than {mib(self.cap)} (not read)")
                continue
            text = line.data.decode("utf-8", errors="replace")
            if text.strip():
                yield line.number, text

    def mark_done(self, sink: Sink, identity: list[str] | None = None, lineage: list[str] | None = None) -> None:
        """Remember how far the file was imported (and `identity`, what its content is known by; `lineage`, what
        it was ever known by), with the import's writes (`sink`). The record of a log this one replaces goes."""
        done = max(self.end, self.start)
        progress: ImportProgress = {
            "bytes": done,
            "sha256": self._digest(done),
            "ts": clock.iso_now(),
            "source": str(self.source),
        }
        if identity is None and self.previous is not None and "identity" in self.previous:
            identity = self.previous["identity"]  # an append that was not read whole keeps what it had
        if identity is not None:
            progress["identity"] = identity
        if lineage is not None:
            progress["lineage"] = sorted(set(lineage) | set(self.previous_lineage))
        sink.meta(self.key, json.dumps(progress))
        if self.superseded is not None:
            sink.meta(self.superseded, None)


def _folder_of(log: str) -> Path:
    """The TaskWizard `memory/` folder a log of it is in (`memory/app_kb/events.jsonl`: `memory`)."""
    path = Path(log)
    return path.parent.parent if path.parent.name in ("app_kb", "experience", "lessons") else path.parent


def _strings(record: ImportProgress | None, name: str) -> list[str]:
    """A record's list of digests (`identity`, `lineage`), or nothing."""
    values = record.get(name) if record is not None else None
    return [d for d in values if isinstance(d, str)] if isinstance(values, list) else []


def _record(value: str) -> ImportProgress | None:
    """A stored progress record, or None when it is not one."""
    try:
        record = json.loads(value)
    except json.JSONDecodeError:
        return None
    if isinstance(record, dict) and isinstance(record.get("bytes"), int) and not isinstance(record["bytes"], bool):
        return cast(ImportProgress, record)  # its other fields are read with care (`.get`, `str()`)
    return None


def content_identity(values: Iterable[str], limit: int = 4096, before: Iterable[str] | None = None) -> list[str]:
    """What a log's content is known by: digests of what it holds (an App-KB's entry keys, an archive's run
    ids), never the text itself, with those of `before` (an identity the log had before an append); at most
    `limit`, the smallest digests, so that two logs holding much the same things keep much the same ones."""
    digests = {hashlib.sha256(value.encode("utf-8")).hexdigest()[:16] for value in values}
    digests.update(d for d in before or () if isinstance(d, str))
    return sorted(digests)[:limit]


def same_content(theirs: set[str], known: set[str]) -> bool:
    """Whether a log whose content is identified by `theirs` is a rewrite of one identified by `known`: most of
    what it holds was in the other (at least 80 %), and most of the other is still in it (at least half; a
    compaction drops only what was deleted)."""
    shared = len(theirs & known)
    return bool(theirs) and shared >= 0.8 * len(theirs) and shared >= 0.5 * len(known)


def replaced_logs(folder: Path, parts: Iterable[str]) -> dict[str, Path]:
    """The logs of the TaskWizard folder an import replaces (`--replaces`), by part: those this home imported
    from there (the folder may be gone since). `NotFound` when it imported none from there."""
    found: dict[str, Path] = {}
    for part in parts:
        for path in (folder / part / "events.jsonl", folder / "events.jsonl"):
            if MetaValue.get_or_none(MetaValue.key == f"import-progress:taskwizard:{part}:{path.resolve()}"):
                found[part] = path
                break
    if not found:
        raise NotFound(f"nothing was imported from {folder}: --replaces names a folder imported before")
    return found
