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
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from peewee import IntegrityError

from store.core import clock
from store.core.database import Store
from store.core.errors import EnvironmentProblem, JiyiError
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


@dataclass(frozen=True)
class Group:
    """One record's events, published together or not at all."""

    kind: str  # the report's kind (`interactions`, `facts`, …)
    where: str  # where it came from (a file and line), for a refusal
    events: list[StagedEvent]


class Staging:
    """The prepared groups of one import, written to a new file of the home's staging folder as they come."""

    def __init__(self, folder: Path, label: str) -> None:
        folder.mkdir(mode=0o700, exist_ok=True)
        self.label = label
        self.path = folder / f"{uuid.uuid4().hex}.staged"
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        self._file = os.fdopen(descriptor, "w", encoding="utf-8")
        _running(self.path, True)
        self.groups = 0
        self.events = 0

    def add(self, group: Group) -> None:
        """Stage `group` (its payloads must be JSON: NaN and infinities were refused when read)."""
        record = {"kind": group.kind, "where": group.where, "events": [list(e) for e in group.events]}
        self._file.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
        self.groups += 1
        self.events += len(group.events)

    def close(self) -> None:
        """Flush and sync the file: what is published is on disk first."""
        if self._file.closed:
            return
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()

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
            yield offset, Group(str(data["kind"]), str(data["where"]), events)


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
                    domains.update(event[0] for event in group.events)
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
            for domain, event_type, payload, ts in group.events:
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
