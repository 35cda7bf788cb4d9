"""The last change a home acknowledged, kept outside its database: the mark `jiyi.acked`.

A write is acknowledged only after it committed, and the event log is the
truth. Yet a database can come back holding less than it acknowledged, and
say nothing: its WAL file deleted, cut short or garbled while the service
was stopped (SQLite then opens the older state it finds, sound), the file
replaced by an older copy, a server restored from a backup or failed over to
a replica that had not received the last commits. Nothing inside the
database can tell, so the home keeps a small record beside it, written
after every commit that appended events and before the write is
acknowledged (`store.core.transaction`): which database (its place and the
store's id), the number and time of the newest event acknowledged, and an
epoch: a random token this home wrote into the database (`meta`,
`acked_epoch:<the mark's id>`) when it last opened it, checkpointed into
the file itself, so that a copy made before that open (a restored backup)
is told from a WAL lost since.

On open (`Store.open`) the database must still hold the event the mark
names, with its time. When it does not, the store is refused
(`ChangesMissing`, exit 3) naming how many events are missing and the ways
forward; `jiyi doctor` opens it to report it (writes refused), and
`jiyi serve --accept-loss` records the loss as an event (`store` /
`loss_accepted`: who, when, how many) and goes on from what the database
holds. A home without a mark (new, or from before the mark) gets one.

Durability. The mark is one `pwrite` of a fixed 512-byte record (one
sector) over the file's start, not fsynced (bench/acknowledged_mark.py
measures both). After `kill -9` the kernel still holds it. After a power
cut it may be older than the last commit (or torn: its checksum then fails,
and a new mark is started), never newer: SQLite's `synchronous=FULL` has
fsynced the WAL at every commit before the mark is written. So the mark can
miss a loss after a power cut, never report one that did not happen.

On PostgreSQL the server owns durability: a commit it acknowledged is on its
disk (or its synchronous replicas'). Each host's home keeps a mark of what
*it* acknowledged, and a host refuses when the server holds less: restored
from a backup, or failed over to a replica that lacked the last commits.
Several hosts sharing one store each compare against their own mark; a
host's newest acknowledged event is never beyond the server's newest, so
none refuses while the server keeps everything. Event numbers drawn from a
sequence can skip (a rolled-back transaction), so a server's count is "up to".
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import json
import logging
import os
import socket
import sqlite3
import sys
import threading
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from peewee import DatabaseError

from store.core import clock
from store.core.errors import ChangesMissing, EnvironmentProblem, StorageProblem, UnsafePath, os_problem
from store.core.home import DB_NAME, check_private_file, platform
from store.core.transaction import ON_META_CONFLICT, UPSERT_META

# The `Store` these run for (store/core/database.py imports this module, so it is not imported back).
Store = Any

log = logging.getLogger("jiyi.store.acknowledged")

MARK_NAME = "jiyi.acked"
RECORD_BYTES = 512  # one sector: a write of it is not torn by a power cut on the disks that matter
EPOCH_KEY = "acked_epoch:"  # + the mark's id: the epoch this home last wrote into the database (`meta`)
DOMAIN = "store"  # the event log's domain of what happens to the store itself (no view)
LOSS_ACCEPTED = "loss_accepted"
_VERSION = 1
_WHERE_MAX = 200  # a longer place (a deep path) is kept as its digest

LossKind = Literal["lost", "older copy", "another store", "database missing"]
LossPolicy = Literal["refuse", "report", "accept"]
"""What opening does with a loss: refuse (raise `ChangesMissing`), report (open, writes refused: `jiyi doctor`),
accept (record the loss as an event and go on: `jiyi serve --accept-loss`)."""


@dataclass(frozen=True)
class Mark:
    """The newest event a home acknowledged (`seq`, its `ts`) in one database (`where`, `store`), and the epoch
    the home last wrote there. `mark_id` names this home's epoch in a database several hosts share."""

    mark_id: str
    where: str
    store: str
    epoch: str
    seq: int
    ts: str

    def encode(self) -> bytes:
        """The fixed-size record: a CRC-32 of the JSON, the JSON, padded with spaces, a newline. (After every
        commit: the part that changes between two commits is all that is formatted then.)"""
        fixed = _fixed_part(self.mark_id, self.where, self.store, self.epoch)
        text = f'{fixed},"seq":{self.seq},"ts":{json.dumps(self.ts)}}}'
        line = f"{zlib.crc32(text.encode()):08x} {text}".encode()
        if len(line) >= RECORD_BYTES:
            raise ValueError(f"the acknowledgement mark would take {len(line)} bytes (at most {RECORD_BYTES - 1})")
        return line.ljust(RECORD_BYTES - 1) + b"\n"

    @classmethod
    def decode(cls, data: bytes) -> Mark:
        """The mark `encode` wrote; `ValueError` naming what is wrong with anything else."""
        crc, _, text = data.strip().decode("ascii").partition(" ")
        if f"{zlib.crc32(text.encode()):08x}" != crc:
            raise ValueError("its checksum does not match (torn or edited)")
        found = json.loads(text)
        if not isinstance(found, dict) or found.pop("v", None) != _VERSION:
            raise ValueError("not a mark of this Jiyi's")
        mark = cls(**found)
        texts = (mark.mark_id, mark.where, mark.store, mark.epoch, mark.ts)
        if not all(isinstance(t, str) for t in texts) or type(mark.seq) is not int or mark.seq < 0:
            raise ValueError("a field has the wrong type")
        return mark


@functools.lru_cache(maxsize=4)
def _fixed_part(mark_id: str, where: str, store: str, epoch: str) -> str:
    """The record's JSON up to the fields a commit changes (the same from one open of the home to the next)."""
    fixed = {"v": _VERSION, "mark_id": mark_id, "where": where, "store": store, "epoch": epoch}
    return json.dumps(fixed, ensure_ascii=True, separators=(",", ":"))[:-1]


@dataclass(frozen=True)
class Loss:
    """What the database lacks of what the home acknowledged.

    `missing` events (None: not countable, another store or another history), `exact` False where event
    numbers can skip (a server's sequence): then up to that many. `message` says it for people; `location` is the
    database it is about.
    """

    kind: LossKind
    acknowledged: int
    held: int
    missing: int | None
    exact: bool
    store: str
    message: str
    location: str = ""  # the database: its file, or the server as `DatabaseTarget.describe` says it

    def refusal(self, *, doctor: bool = True) -> str:
        """The message with the ways forward (what `ChangesMissing` says; `doctor` False: what `jiyi doctor` says)."""
        see = "Run `jiyi doctor` to see it; restore" if doctor else "Restore"
        return (
            f"{self.message}. Nothing was changed. {see} the database from a backup (for SQLite, {DB_NAME} with "
            f"its {DB_NAME}-wal); or go on from what it holds, knowingly: `jiyi serve --accept-loss` (the loss is "
            "recorded in the event log)"
        )

    def count(self) -> str:
        """ "57 of the 121 events" / "up to 57 of the 121 events" as the message puts it."""
        if self.missing is None:
            return f"the {self.acknowledged} events"
        return f"{'' if self.exact else 'up to '}{self.missing} of the {self.acknowledged} events"


class MarkFile:
    """The home's `jiyi.acked`: read when the home opens, moved forward after each commit.

    A private regular file (0600, never through a link, like the database). `mark` is what it held when
    opened (None: none, or unreadable: `unreadable` says why). `advance` is called by every committing
    thread; it never moves the mark back.
    """

    def __init__(self, home: Path, *, read_only: bool = False) -> None:
        self.path = home / MARK_NAME
        self.mark: Mark | None = None
        self.unreadable: str | None = None
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._current: Mark | None = None  # what was last written (None until `reset`: nothing advances before)
        self._failed = False  # a write failed (logged once until one succeeds again)
        check_private_file(self.path, "acknowledgement mark")
        try:
            self._fd = platform.open_file(self.path, os.O_RDONLY if read_only else os.O_RDWR | os.O_CREAT, 0o600)
        except FileNotFoundError:
            return  # a read-only home without a mark: nothing to compare
        except OSError as exc:
            if exc.errno == getattr(os, "ELOOP", -1):
                raise UnsafePath(f"acknowledgement mark {self.path} is a symlink; Jiyi refuses to follow it") from None
            raise os_problem(exc, f"acknowledgement mark {self.path}") from exc
        data = platform.read_at(self._fd, RECORD_BYTES + 1, 0)
        if not data.strip():
            return
        try:
            self.mark = Mark.decode(data)
        except (ValueError, TypeError, UnicodeDecodeError) as exc:
            self.unreadable = str(exc)
            log.warning("the acknowledgement mark %s is unreadable (%s); a new one is started", self.path, exc)

    def reset(self, mark: Mark) -> None:
        """Write `mark` whatever the file held (the home opened, or a loss was accepted)."""
        with self._lock:
            self._current = mark
            self._write(mark)

    def advance(self, seq: int, ts: str) -> None:
        """A commit acknowledged events up to `seq` (at `ts`): record it unless a newer one is recorded."""
        with self._lock:
            current = self._current
            if current is None or seq <= current.seq:
                return
            self._current = Mark(current.mark_id, current.where, current.store, current.epoch, seq, ts)
            self._write(self._current)

    @property
    def current(self) -> Mark | None:
        return self._current

    def _write(self, mark: Mark) -> None:
        if self._fd is None:
            return
        try:
            platform.write_at(self._fd, mark.encode(), 0)  # the same bytes' place every time: the file never grows
        except OSError as exc:
            # Committed already: the write stands. The mark stays behind, which can only miss a later loss.
            if not self._failed:
                log.warning("could not record the last acknowledged change in %s: %s", self.path, exc.strerror)
            self._failed = True
            return
        if self._failed:
            log.info("the acknowledgement mark %s is written again", self.path)
            self._failed = False

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def where_of(home: Path, location: str, shared: bool) -> str:
    """Which database, as the mark names it: a file in the home by its name (a home moved keeps its mark),
    another file by its absolute path, a server by its description (never a password)."""
    if not shared:
        path = Path(location)
        location = path.name if path.parent == home else str(path)
    if len(json.dumps(location)) > _WHERE_MAX:  # as the record holds it (a CJK character takes six bytes there)
        location = "sha256:" + hashlib.sha256(location.encode()).hexdigest()
    return location


def newest_event(db: Any) -> tuple[int, str]:
    """The newest event's seq and time ((0, "") for an empty log)."""
    row = db.execute_sql("SELECT seq, ts FROM event ORDER BY seq DESC LIMIT 1").fetchone()
    return (int(row[0]), str(row[1])) if row else (0, "")


def starting_point(db: Any, mark: Mark | None, where: str, shared: bool, *, accepted: Loss | None) -> tuple[int, str]:
    """Where the mark starts when the home opens: the newest event of a file only this home writes; on a
    store several hosts share, the newest this host acknowledged (kept across opens; none yet for a new mark),
    so that what other hosts wrote never makes it refuse. After an accepted loss, the log's newest: its record."""
    if not shared or accepted is not None:
        return newest_event(db)
    if mark is not None and mark.where == where:
        return mark.seq, mark.ts
    return 0, ""


def read_epoch(db: Any, mark_id: str) -> str | None:
    row = db.execute_sql("SELECT value FROM meta WHERE key = ?", (EPOCH_KEY + mark_id,)).fetchone()
    return str(row[0]) if row else None


def compare(
    db: Any, mark: Mark | None, *, where: str, store_id: str | None, location: str, shared: bool
) -> Loss | None:
    """What the database lacks of what `mark` acknowledged (None: nothing, or a mark of another database).

    The database must hold the newest event acknowledged, with its time: the log is append-only, so holding
    it, it holds every one before. Only when it does not do the store's id and the epoch say what happened.
    """
    if mark is None or mark.where != where or mark.seq == 0:
        return None  # no mark yet, nothing acknowledged, or the home now uses another database (`jiyi migrate`)
    row = db.execute_sql("SELECT ts FROM event WHERE seq = ?", (mark.seq,)).fetchone()
    if row is not None and str(row[0]) == mark.ts:
        return None
    held, _ts = newest_event(db)
    if mark.store != (store_id or ""):
        theirs = (store_id or "none")[:8]
        return Loss(
            "another store",
            mark.seq,
            held,
            None,
            False,
            mark.store,
            f"the database {location} is another store's (id {theirs}…), not the one this home acknowledged "
            f"{mark.seq} events in (id {mark.store[:8]}…)",
            location,
        )
    missing = mark.seq - held if held < mark.seq else None
    exact = not shared
    if read_epoch(db, mark.mark_id) != mark.epoch:
        kind: LossKind = "older copy"
        what = f"the database {location} is an older copy of the one this home last opened (restored from a backup?)"
    else:
        kind = "lost"
        cause = (
            f"its WAL file {Path(location).name}-wal was probably deleted, cut short or damaged while the service "
            "was stopped"
            if not shared
            else "the server was probably restored from a backup, or failed over to a replica that lacked them"
        )
        what = f"the database {location} holds less than this home acknowledged; {cause}"
    loss = Loss(kind, mark.seq, held, missing, exact, mark.store, "")
    if missing is None:
        tail = f"event {mark.seq}, the newest acknowledged, is not the one there now (its history differs)"
    else:
        tail = f"{loss.count()} acknowledged are missing (it ends at event {held})"
    return Loss(kind, mark.seq, held, missing, exact, mark.store, f"{what}: {tail}", location)


def missing_database(mark: Mark | None, *, where: str, location: str) -> Loss | None:
    """The loss of a database file that is gone (or empty) although the home acknowledged events in it."""
    if mark is None or mark.where != where or mark.seq == 0:
        return None
    return Loss(
        "database missing",
        mark.seq,
        0,
        mark.seq,
        True,
        mark.store,
        f"the database {location} is missing or empty, but this home acknowledged {mark.seq} events in it",
        location,
    )


def refuse(loss: Loss) -> ChangesMissing:
    """The refusal of a home whose database lacks what it acknowledged: the message for people, and the loss's
    parts for the console's box (`gui/refusal.py`)."""
    return ChangesMissing(
        loss.refusal(),
        loss.missing,
        kind=loss.kind,
        acknowledged=loss.acknowledged,
        exact=loss.exact,
        location=loss.location,
    )


def loss_payload(loss: Loss, command: list[str] | None = None) -> dict[str, object]:
    """What the `loss_accepted` event records: what was missing, and who accepted it where and how."""
    return {
        "kind": loss.kind,
        "acknowledged_seq": loss.acknowledged,
        "held_seq": loss.held,
        "missing": loss.missing,
        "missing_exact": loss.exact,
        "store_id": loss.store,
        "message": loss.message,
        "by": _who(),
        "command": " ".join((command if command is not None else sys.argv)[:4])[:200],
        "at": clock.iso_now(),
    }


def _who() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid
        user = platform.current_user()
    return f"{user}@{socket.gethostname()} (pid {os.getpid()})"


def settle(store: Store, marks: MarkFile, where: str, policy: LossPolicy, gone: Loss | None) -> None:
    """At the end of a writable open: compare the database with the home's mark, act on a loss as `policy`
    says, then write a new epoch into the database (checkpointed into the file) and the mark after it, and
    hand the mark to the store (its commits move it from then on)."""
    previous = marks.mark
    store.acknowledged_seq = previous.seq if previous is not None and previous.where == where else None
    found = gone or compare(
        store.db, previous, where=where, store_id=store.store_id, location=store.location, shared=store.target.shared
    )
    if found is not None and policy == "refuse":
        raise refuse(found)
    if found is not None and policy == "report":
        store.loss = found  # writes are refused while it is set
        marks.close()
        return
    if found is not None:
        with store.atomic():  # the store has no mark yet: this event moves none; the mark below starts after it
            record = store.append(DOMAIN, LOSS_ACCEPTED, loss_payload(found), actor="user")
        store.accepted_loss = found
        log.warning("accepted knowingly, recorded as event %s: %s", record.seq, found.message)
    if previous is not None and previous.where != where:
        log.info("this home now uses the database %s (its mark named %s): a new mark", where, previous.where)
    mark_id = previous.mark_id if previous is not None else uuid.uuid4().hex[:16]
    epoch = _new_epoch(store, mark_id)
    seq, ts = starting_point(store.db, previous, where, store.target.shared, accepted=found)
    marks.reset(Mark(mark_id, where, store.store_id or "", epoch, seq, ts))
    store.marks = marks


def _new_epoch(store: Store, mark_id: str) -> str:
    """Write a new epoch for this home into the database and, on a file, checkpoint it into the file itself:
    a WAL lost later keeps it, a copy made before this open has another. A disk too full for it costs only
    that telling apart (an older copy may be called a lost WAL): the home opens all the same, as before."""
    epoch = uuid.uuid4().hex
    try:
        with store.db.atomic("IMMEDIATE"):
            store.db.execute_sql(f"{UPSERT_META} (?, ?) {ON_META_CONFLICT}", (EPOCH_KEY + mark_id, epoch))
        if not store.target.shared:
            # TRUNCATE: the WAL then takes no room beside the file (the home's size budget counts both);
            # nothing else reads this file yet (the home is locked, the store's readers start later).
            store.db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    except (sqlite3.Error, DatabaseError, EnvironmentProblem) as exc:
        log.warning("could not record this open of the database in it (%s); it opens all the same", exc)
        return read_epoch(store.db, mark_id) or ""
    return epoch


def judge(store: Store, marks: MarkFile, where: str, policy: LossPolicy) -> None:
    """On a store that takes no writes (damaged, read-only): a loss is refused, or noted to report it
    (`policy` "report"); one cannot be accepted there, where nothing can be recorded. The mark is not moved."""
    previous = marks.mark
    store.acknowledged_seq = previous.seq if previous is not None and previous.where == where else None
    try:
        found = compare(
            store.db,
            previous,
            where=where,
            store_id=store.store_id,
            location=store.location,
            shared=store.target.shared,
        )
    except (sqlite3.DatabaseError, DatabaseError, StorageProblem) as exc:  # too damaged to read: said already
        log.warning("the database could not be compared with the acknowledgement mark: %s", exc)
        return
    if found is not None and policy != "report":
        raise refuse(found)
    store.loss = found
