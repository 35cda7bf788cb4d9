"""What every import shares: safe reading, a report of skipped lines, doing a view file once per content,
and reading an append-only log again from where the last import stopped (`GrowingLog`)."""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import NotRequired, TypedDict, cast

from store.core import clock
from store.core.errors import InvalidInput, NotFound
from store.core.models import MetaValue

log = logging.getLogger("jiyi.store.interchange")

MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest file an import reads (each is read whole): a desk export's, another system's memory file."""


class ImportProgress(TypedDict):
    """How far a `GrowingLog` was imported, as kept in `meta` (only `bytes` is sure in one an older Jiyi wrote)."""

    bytes: int  # how many of the file's bytes were imported
    sha256: NotRequired[str]  # of those bytes
    ts: NotRequired[str]  # when
    source: NotRequired[str]  # the file's path then
    identity: NotRequired[list[str]]  # what its content is known by (`content_identity`)


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
    """Reads a source file and remembers (in the same transaction as the import) that it was imported."""

    def __init__(self, kind: str, source: Path) -> None:
        refuse_links(source)
        if not source.is_file():
            raise NotFound(f"{source} is missing or not a file")
        self.source = source
        self.raw = source.read_bytes()
        self.marker = f"import:{kind}:{hashlib.sha256(self.raw).hexdigest()}"

    @property
    def done_before(self) -> bool:
        return MetaValue.get_or_none(MetaValue.key == self.marker) is not None

    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")

    def lines(self) -> Iterator[tuple[int, str]]:
        """(line number, line) of the non-blank lines."""
        for number, line in enumerate(self.text().splitlines(), start=1):
            if line.strip():
                yield number, line

    def mark_done(self) -> None:
        MetaValue.replace(
            key=self.marker, value=json.dumps({"ts": clock.iso_now(), "source": str(self.source)})
        ).execute()


def parse_object(line: str) -> dict[str, object]:
    """One JSON Lines record, or `InvalidInput` naming why not."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"not JSON ({exc.msg})") from None
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
    A last line without its newline is left for next time unless it is a
    whole JSON object (a writer may be in the middle of it).
    """

    def __init__(self, kind: str, source: Path) -> None:
        refuse_links(source)
        if not source.is_file():
            raise NotFound(f"{source} is missing or not a file")
        self.source = source
        self.raw = source.read_bytes()
        self.prefix = f"import-progress:{kind}:"
        self.key = f"{self.prefix}{source.resolve()}"
        self.end = self._complete_end()
        self.start = 0
        self.state = "new"
        self.moved_from: str | None = None
        self.previous: ImportProgress | None = None  # the record this import continues
        self.elsewhere: list[ImportProgress] = []
        row = MetaValue.get_or_none(MetaValue.key == self.key)
        previous = _record(row.value) if row is not None else None
        others = self._others()
        # Copies of one directory imported from two places may both have what one of them appended.
        self.copies = bool(others)
        if previous is not None:
            self.previous = previous
            if not self._continue(previous):
                self.state = "rewritten"
            return
        for other in others:
            if self._continue(other):
                self.previous, self.moved_from = other, str(other.get("source", ""))
                return
            self.elsewhere.append(other)

    @property
    def compare(self) -> bool:
        """Whether each line read must be compared with what the store holds (not only counted new): a log
        read whole, or one appended to while a copy of it was imported from another path."""
        return self.state in ("new", "rewritten") or (self.state == "appended" and self.copies)

    @property
    def previous_identity(self) -> list[str]:
        """What the log this import continues was known by (nothing when it continues none)."""
        identity = self.previous.get("identity") if self.previous is not None else None
        return [d for d in identity if isinstance(d, str)] if isinstance(identity, list) else []

    def _others(self) -> list[ImportProgress]:
        """The progress records of this kind of log imported from other paths, newest first."""
        rows = MetaValue.select().where(MetaValue.key.startswith(self.prefix) & (MetaValue.key != self.key))
        records = [r for r in (_record(row.value) for row in rows) if r is not None]
        return sorted(records, key=lambda r: str(r.get("ts", "")), reverse=True)

    def _continue(self, record: ImportProgress) -> bool:
        """Start after `record`'s bytes when the file still begins with them (True), else leave it whole."""
        done = record["bytes"]
        if done <= len(self.raw) and self._digest(done) == record.get("sha256"):
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
            (r for r in self.elsewhere if same_content(theirs, set(r.get("identity") or ()))),
            key=lambda r: len(theirs & set(r.get("identity") or ())),
            default=None,
        )
        if match is not None:
            self.previous, self.moved_from, self.state = match, str(match.get("source", "")), "rewritten"

    def _digest(self, size: int) -> str:
        """SHA-256 of the file's first `size` bytes (without copying them)."""
        return hashlib.sha256(memoryview(self.raw)[:size]).hexdigest()

    def _complete_end(self) -> int:
        if not self.raw or self.raw.endswith(b"\n"):
            return len(self.raw)
        cut = self.raw.rfind(b"\n") + 1
        try:
            whole = isinstance(json.loads(self.raw[cut:].decode("utf-8")), dict)
        except (UnicodeDecodeError, json.JSONDecodeError):
            whole = False
        return len(self.raw) if whole else cut

    def lines(self) -> Iterator[tuple[int, str]]:
        """(line number, line) of the non-blank lines to import now."""
        first = self.raw.count(b"\n", 0, self.start) + 1
        text = self.raw[self.start : self.end].decode("utf-8", errors="replace")
        for number, line in enumerate(text.split("\n"), start=first):
            if line.strip():
                yield number, line

    def mark_done(self, identity: list[str] | None = None) -> None:
        """Remember how far the file was imported (and `identity`, what its content is known by)."""
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
        MetaValue.replace(key=self.key, value=json.dumps(progress)).execute()


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
