"""An import in two steps, so that it never holds the write lock for long and is never in a home in part.

1. **Prepared** without the write lock: the source is read, checked, filtered and compared with the home,
   and each record that is to be written becomes a *group* of events (its `interaction_remembered`, its
   `fact_added` and evidence, …), appended to a staging file in the home (`imports/`, 0600) as it comes.
   Memory stays flat however large the source: only the file grows.
2. **Published**: the groups are appended to the log in slices, one short transaction each (about
   `SLICE_S` of work), the write lock let go between two, so that other clients' writes go on while a
   large import is written. A group is written whole or not at all (a savepoint): one that the home
   refuses at that moment (another client wrote the same id meanwhile) is refused, its reason kept.

Where publishing stands (the staging file and how far into it) is written in each slice's own
transaction (`meta`, key `import-publishing:<name>`), and removed by the last. So after a `kill -9`:
before the first slice nothing of the import is in the home (the staging file is thrown away when the home
is next opened); after it, `resume` finishes publishing from the last committed slice when the home is
next opened. An import is in the home whole, or not at all, once the home is open again. While a large
import is being published, a reader may see part of it, as it would see any other writes that come one
after another.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from peewee import IntegrityError

from store.core import clock
from store.core.database import Store
from store.core.errors import EnvironmentProblem, JiyiError, os_problem
from store.core.home import platform
from store.core.models import MetaValue
from store.core.transaction import ON_META_CONFLICT, UPSERT_META

log = logging.getLogger("jiyi.store.interchange")

FOLDER = "imports"
"""The home's folder of staging files."""
KEY = "import-publishing:"
SLICE_S = 0.1
"""About how long one slice of a publish holds the write lock (a group is never cut)."""
BREATHE_S = 0.005
"""How long a publish lets go of the lock between two slices: long enough for a waiting writer to take it."""

StagedEvent = tuple[str, str, dict[str, object], str | None]
"""One event of a group: its domain, type, payload (as it is to be stored) and time (None: when published)."""
Refused = Callable[[str, str, str], None]
"""Hears a group the home refused when it was published: its kind, where it came from, why."""
Committed = Callable[[set[str]], None]
"""Hears, after each slice committed, the domains it wrote."""
Progress = Callable[[int, int], None]

_ACTIVE: set[Path] = set()
"""The staging files of the imports this process runs now: `resume` leaves them to their import."""
_ACTIVE_LOCK = threading.Lock()


def _running(path: Path, running: bool) -> None:
    with _ACTIVE_LOCK:
        if running:
            _ACTIVE.add(path)
        else:
            _ACTIVE.discard(path)


META = "meta"
"""The domain of a group's "event" that sets (`put`, payload `{key, value}`) or removes (`delete`, `{key}`) a
`meta` value in the same transaction as the group: an import's own bookkeeping (how far a log was read)."""


@dataclass(frozen=True)
class Group:
    """One record's events, published together or not at all."""

    kind: str  # the report's kind (`interactions`, `facts`, …)
    where: str  # where it came from (a file and line), for a refusal
    events: list[StagedEvent]
    bulk: bool = False  # events of one domain, stamped when written: appended at once (`Store.append_many`)


class Staging:
    """The prepared groups of one import, written to a new file of the home's staging folder as they come."""

    def __init__(self, folder: Path, label: str) -> None:
        self.label = label
        self.path = folder / f"{uuid.uuid4().hex}.staged"
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
            self._file = os.fdopen(platform.open_file(self.path, flags, 0o600), "w", encoding="utf-8")
        except OSError as exc:
            raise os_problem(exc, f"the home's staging folder {folder}") from None
        _running(self.path, True)
        self.groups = 0
        self.events = 0

    def add(self, group: Group) -> None:
        """Stage `group` (its payloads must be JSON: NaN and infinities were refused when read)."""
        record: dict[str, object] = {
            "kind": group.kind,
            "where": group.where,
            "events": [list(e) for e in group.events],
        }
        if group.bulk:
            record["bulk"] = True
        try:
            self._file.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        except OSError as exc:  # a full disk: the import stops here, nothing of it written to the home
            raise os_problem(exc, f"the staging file {self.path}") from None
        self.groups += 1
        self.events += len(group.events)

    def close(self) -> None:
        """Flush and sync the file: what is published is on disk first."""
        if self._file.closed:
            return
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
        except OSError as exc:
            raise os_problem(exc, f"the staging file {self.path}") from None

    def discard(self) -> None:
        """Close and remove the file (the import was refused, or nothing is to be written)."""
        if not self._file.closed:
            self._file.close()
        self.path.unlink(missing_ok=True)
        _running(self.path, False)

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            self.discard()


def _groups(path: Path, offset: int) -> Iterator[tuple[int, Group]]:
    """The groups of a staging file from `offset`, each with the offset after it."""
    with open(path, "rb") as stream:
        stream.seek(offset)
        for line in iter(stream.readline, b""):
            offset += len(line)
            data = json.loads(line)
            events = [(str(d), str(t), dict(p), ts) for d, t, p, ts in data["events"]]
            yield offset, Group(str(data["kind"]), str(data["where"]), events, bool(data.get("bulk")))


def _progress_record(path: Path, offset: int, label: str, done: int, total: int) -> str:
    return json.dumps(
        {"file": str(path), "offset": offset, "label": label, "done": done, "total": total, "ts": clock.iso_now()},
        ensure_ascii=False,
    )


def publish(
    store: Store,
    staging: Staging | Path,
    *,
    lock: AbstractContextManager[object],
    actor: str,
    refused: Refused,
    committed: Committed,
    progress: Progress | None = None,
    total: int | None = None,
    label: str = "",
) -> int:
    """Append the staged groups to the log in slices (see the module docstring); how many groups were written.

    From where an earlier publish of the same file stopped, when one did (`resume`). The staging file is
    removed once the last slice committed. An `EnvironmentProblem` (a full disk, the server gone) stops it
    with the slices before committed and their place kept: it is finished when the home is opened next."""
    path = staging.path if isinstance(staging, Staging) else staging
    if isinstance(staging, Staging):
        staging.close()
        total, label = staging.groups, label or staging.label
    try:
        return _publish(store, path, lock, actor, refused, committed, progress, total, label)
    finally:
        _running(path, False)  # done, or stopped: a later `resume` of this process may take it up


def _publish(
    store: Store,
    path: Path,
    lock: AbstractContextManager[object],
    actor: str,
    refused: Refused,
    committed: Committed,
    progress: Progress | None,
    total: int | None,
    label: str,
) -> int:
    key = f"{KEY}{path.stem}"
    offset, done, written = 0, 0, 0
    row = MetaValue.get_or_none(MetaValue.key == key)
    if row is not None:
        kept = json.loads(row.value)
        offset, done = int(kept["offset"]), int(kept.get("done", 0))
        total = int(kept.get("total", total or 0))
        label = str(kept.get("label", label))
    total = total or 0
    groups = _groups(path, offset)
    finished = False
    while not finished:
        domains: set[str] = set()
        with lock, store.atomic():
            deadline = time.monotonic() + SLICE_S
            while time.monotonic() < deadline:
                step = next(groups, None)
                if step is None:
                    finished = True
                    break
                offset, group = step
                done += 1
                if _write(store, group, actor, refused):
                    written += 1
                    domains.update(event[0] for event in group.events if event[0] != META)
            if finished:
                store.db.execute_sql("DELETE FROM meta WHERE key = ?", (key,))
            else:
                where = _progress_record(path, offset, label, done, total)
                store.db.execute_sql(f"{UPSERT_META} (?, ?) {ON_META_CONFLICT}", (key, where))
        committed(domains)
        if progress is not None:
            progress(done, max(total, done))
        if not finished:
            time.sleep(BREATHE_S)  # let a writer waiting for the lock take it before the next slice
    path.unlink(missing_ok=True)
    return written


def _write(store: Store, group: Group, actor: str, refused: Refused) -> bool:
    """Append one group inside a savepoint; False (and `refused` told) when the home refuses it now."""
    try:
        with store.atomic():
            if group.bulk and group.events:
                domain = group.events[0][0]
                store.append_many(
                    domain, [(event_type, payload) for _d, event_type, payload, _ts in group.events], actor=actor
                )
            else:
                for domain, event_type, payload, ts in group.events:
                    if domain == META:
                        _meta(store, event_type, payload)
                    else:
                        store.append(domain, event_type, payload, actor=actor, ts=ts)
    except EnvironmentProblem:
        raise
    except (IntegrityError, JiyiError) as exc:
        if store.transaction_failed():
            raise
        why = "the home holds it already: it was written by another client while this import ran (the home's kept)"
        refused(group.kind, group.where, why if isinstance(exc, IntegrityError) else str(exc))
        return False
    return True


def _meta(store: Store, op: str, payload: Mapping[str, object]) -> None:
    if op == "put":
        store.db.execute_sql(f"{UPSERT_META} (?, ?) {ON_META_CONFLICT}", (str(payload["key"]), str(payload["value"])))
    else:
        store.db.execute_sql("DELETE FROM meta WHERE key = ?", (str(payload["key"]),))


class Sink(Protocol):
    """Where an import writes: straight into the store, inside the caller's transaction (`Direct`), or into a
    staging file published in slices afterwards (`Staged`). The importer appends events and sets its `meta`
    bookkeeping through it alike."""

    def append(self, domain: str, event_type: str, payload: Mapping[str, object], ts: str | None = None) -> None: ...

    def append_many(self, domain: str, items: list[tuple[str, dict[str, object]]]) -> None: ...

    def meta(self, key: str, value: str | None) -> None:
        """Set `meta` `key` to `value` (remove it when None) with the import's writes."""
        ...


class Direct:
    """Writes into the store now: the caller holds `store.atomic()` around the import."""

    def __init__(self, store: Store, actor: str) -> None:
        self.store, self.actor = store, actor

    def append(self, domain: str, event_type: str, payload: Mapping[str, object], ts: str | None = None) -> None:
        self.store.append(domain, event_type, payload, actor=self.actor, ts=ts)

    def append_many(self, domain: str, items: list[tuple[str, dict[str, object]]]) -> None:
        self.store.append_many(domain, items, actor=self.actor)

    def meta(self, key: str, value: str | None) -> None:
        _meta(self.store, "put" if value is not None else "delete", {"key": key, "value": value})


class Staged:
    """Writes into a staging file, `BATCH` events a group; `close` stages what is left (meta last)."""

    BATCH = 100  # events a group: a group is never cut, so this bounds how long a slice may run over

    def __init__(self, staging: Staging, kind: str, where: str) -> None:
        self.staging, self.kind, self.where = staging, kind, where
        self._events: list[StagedEvent] = []
        self._bulk: tuple[str, list[StagedEvent]] | None = None
        self._meta: list[StagedEvent] = []

    def append(self, domain: str, event_type: str, payload: Mapping[str, object], ts: str | None = None) -> None:
        self._flush_bulk()
        self._events.append((domain, event_type, dict(payload), ts))
        if len(self._events) >= self.BATCH:
            self._flush()

    def append_many(self, domain: str, items: list[tuple[str, dict[str, object]]]) -> None:
        self._flush()
        for event_type, payload in items:
            if self._bulk is not None and self._bulk[0] != domain:
                self._flush_bulk()
            if self._bulk is None:
                self._bulk = (domain, [])
            self._bulk[1].append((domain, event_type, dict(payload), None))
            if len(self._bulk[1]) >= self.BATCH:
                self._flush_bulk()

    def meta(self, key: str, value: str | None) -> None:
        self._meta.append((META, "put" if value is not None else "delete", {"key": key, "value": value}, None))

    def _flush(self) -> None:
        if self._events:
            self.staging.add(Group(self.kind, self.where, self._events))
            self._events = []

    def _flush_bulk(self) -> None:
        if self._bulk is not None and self._bulk[1]:
            self.staging.add(Group(self.kind, self.where, self._bulk[1], bulk=True))
        self._bulk = None

    def close(self) -> None:
        self._flush_bulk()
        self._events.extend(self._meta)  # the bookkeeping goes with the last events, in the last slice
        self._meta = []
        self._flush()


@dataclass(frozen=True)
class StagedTo:
    """Where and how an import that writes through a `Sink` stages and publishes (`writing`)."""

    folder: Path  # the home's staging folder
    lock: AbstractContextManager[object]  # the write lock, taken per slice
    committed: Committed


@contextmanager
def writing(store: Store, actor: str, kind: str, label: str, staged: StagedTo | None) -> Iterator[Sink]:
    """The sink an import writes through: without `staged`, the store itself inside one transaction (the caller
    holds whatever lock it needs); with it, a staging file published in slices once the block ends (nothing of
    it is written when the block raises)."""
    if staged is None:
        with store.atomic():
            yield Direct(store, actor)
        return
    with Staging(staged.folder, label) as staging:
        sink = Staged(staging, kind, label)
        yield sink
        sink.close()
    if not staging.groups:
        staging.discard()
        return

    def refused(kind: str, where: str, why: str) -> None:
        log.warning("import of %s: a part of %s (%s) was refused as it was written: %s", label, where, kind, why)

    publish(store, staging, lock=staged.lock, actor=actor, refused=refused, committed=staged.committed)


def pending(store: Store, folder: Path) -> list[tuple[str, Path, Mapping[str, object]]]:
    """The publishes of this home's staging folder that were stopped half-way: (key, file, where it stood)."""
    found = []
    for row in MetaValue.select().where(MetaValue.key.startswith(KEY)):
        try:
            kept = json.loads(row.value)
            path = Path(str(kept["file"]))
        except (ValueError, KeyError, TypeError):
            log.warning("%s is not a record of a stopped import; left as it is", row.key)
            continue
        if path.parent == folder:
            found.append((str(row.key), path, kept))
    return found


def resume(
    store: Store, folder: Path, *, lock: AbstractContextManager[object], actor: str, committed: Committed
) -> list[str]:
    """Finish publishing what a stopped import left in this home (see the module docstring), and remove staging
    files no publish began (an import stopped while it was prepared: nothing of it is in the home). Says, per
    import, what was done."""
    said: list[str] = []
    if not folder.is_dir():
        return said
    with _ACTIVE_LOCK:
        active = set(_ACTIVE)
    started = {path for _key, path, _kept in pending(store, folder)}
    for key, path, kept in pending(store, folder):
        if path in active:
            continue  # an import of this process is publishing it now
        label = str(kept.get("label", path.name))
        if not path.is_file():
            # Its staging file is gone (removed by hand): what was published stays, the rest cannot be.
            with lock, store.atomic():
                store.db.execute_sql("DELETE FROM meta WHERE key = ?", (key,))
            message = f"the import of {label} was stopped half-way and its staging file {path} is gone: part is in"
            log.error("%s the home (%s of %s records)", message, kept.get("done"), kept.get("total"))
            said.append(f"{message} the home")
            continue

        def refused(kind: str, where: str, why: str, label: str = label) -> None:
            log.warning("import of %s, finished after a stop: %s (%s) refused: %s", label, where, kind, why)

        _running(path, True)
        written = publish(store, path, lock=lock, actor=actor, refused=refused, committed=committed)
        log.warning("the import of %s was stopped half-way; finished now (%d more records)", label, written)
        said.append(f"finished the import of {label}, stopped half-way before ({written} more records)")
    for path in folder.glob("*.staged"):
        if path not in started and path not in active:
            path.unlink(missing_ok=True)
            log.info("removed %s: an import stopped before it wrote anything", path)
    return said
