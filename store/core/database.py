"""The `Store`: one database through peewee (the home's SQLite file or a shared PostgreSQL), its events and views.

The event table is the truth. Every mutation appends events and applies them
to the view tables inside one IMMEDIATE transaction, so a write acknowledged
after `atomic()` returns has been committed with its view. Views can be dropped
and rebuilt by replay; a missing, outdated or inconsistent view is rebuilt on
open.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict, cast

from peewee import IntegrityError

from store.core import acknowledged, clock, model_binding
from store.core.acknowledged import Loss, LossPolicy, MarkFile
from store.core.budget import HomeBudget
from store.core.change_feed import Changed, ChangeFeed
from store.core.connection import JiyiDatabase
from store.core.database_file import FileIdentity
from store.core.database_url import DatabaseTarget
from store.core.errors import InvalidInput, StorageProblem
from store.core.home import DB_NAME, HomeLock
from store.core.identity import read_store_id
from store.core.migrations import schema_version
from store.core.models import TRUTH_MODELS, Event, MetaValue, tuples
from store.core.opening import open_store
from store.core.postgres import JiyiPostgresDatabase
from store.core.projection import EventRecord, Projection
from store.core.readers import Readers
from store.core.transaction import ON_META_CONFLICT, UPSERT_META, Part, Transaction
from store.core.write_stats import WriteStats

log = logging.getLogger("jiyi.store")

Progress = Callable[[int, int], None]
# An event appended where its number is drawn first (PostgreSQL): a transaction's first event names it in `txn`.
_PG_APPEND = (
    "INSERT INTO event (seq, ts, domain, type, schema_v, actor, payload, txn, subject) "
    "SELECT n.seq, ?, ?, ?, ?, ?, ?, coalesce(?, n.seq), ? "
    "FROM (SELECT nextval(pg_get_serial_sequence('event', 'seq')) AS seq) AS n RETURNING seq"
)
REPLAY_BATCH = 500
# What a damaged event makes a projection raise (a missing key, a wrong type, a broken constraint).
REPLAY_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, sqlite3.IntegrityError, IntegrityError)


class ViewState(TypedDict, total=False):
    """Where a domain's view is (`meta` key `view:<domain>`): its definition's version and the last event applied."""

    version: int
    seq: int


class Store:
    """Owns the database of one home. Open with `Store.open`, close with `close`.

    `path` is the SQLite file (None when the store lives on a PostgreSQL
    server); `target` says where the database is, `location` says it for
    people (never with a password).
    """

    def __init__(
        self, home: Path, db: JiyiDatabase | JiyiPostgresDatabase, lock: HomeLock, target: DatabaseTarget
    ) -> None:
        self.home = home
        self.target = target
        self.path: Path | None = None if target.shared else (target.path or home / DB_NAME)
        self.location = str(self.path) if self.path else target.describe()
        self.db: Any = db
        # Reads of one request that may run side by side (recall's kinds), each on a connection of its own.
        self.readers = Readers(db)
        # Names this open store in change notices (a host ignores its own).
        self.origin = uuid.uuid4().hex
        # Where a shared store hears other hosts' commits (`change_feed`); None for a store not shared.
        self._feed_connect: Callable[[], Any] | None = db.listener_connection if db.dialect.shared else None
        self._lock = lock
        self._projections: dict[str, Projection] = {}
        self._local = threading.local()
        self.rebuilt_on_open: list[str] = []
        # Read caches that live and die with this open store (each keyed by what invalidates it).
        self.caches: dict[str, Any] = {}
        # When set, every write transaction asks it first (see `store.core.budget`).
        self.budget: HomeBudget | None = None
        # How this process's write transactions wait for and hold the write lock (`health`, the benchmarks).
        self.write_stats = WriteStats()
        # The SQLite file as opened (None on a server): every commit checks the path still names it.
        self.identity: FileIdentity | None = None
        # What `quick_check` found wrong with the file at open (None: sound); while set, writes are refused.
        self.damaged: str | None = None
        # Why the home takes no writes (`store.core.home.read_only_reason`; None: it does): reads only.
        self.read_only: str | None = None
        # The home's record of the last change it acknowledged (`store.core.acknowledged`), moved forward after
        # each commit; None while opening, and when the store takes no writes.
        self.marks: MarkFile | None = None
        # What the database lacks of what the home acknowledged, when opened to report it (`jiyi doctor`): while
        # set, writes are refused. `accepted_loss`: the loss this open recorded knowingly (`--accept-loss`).
        self.loss: Loss | None = None
        self.accepted_loss: Loss | None = None
        # The newest event the home's mark said it acknowledged, as compared at open (None: no mark yet).
        self.acknowledged_seq: int | None = None

    # -- opening -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        home: Path,
        projections: Sequence[Projection] = (),
        *,
        database_url: str = "",
        password: str | None = None,
        new_database: bool = False,
        loss: LossPolicy = "refuse",
    ) -> Store:
        """Open (creating if needed) the store of `home`, after checking the home, its database and its mark
        of the last change acknowledged (`store.core.opening.open_store` says what, in order)."""
        return open_store(
            cls, home, projections, database_url=database_url, password=password, new_database=new_database, loss=loss
        )

    def open_views(self, projections: Sequence[Projection]) -> None:
        """On a writable open, after migrating: bind the models and keep each projection's view, checked against
        the log and rebuilt when it is missing, outdated or behind (`rebuilt_on_open` names those rebuilt)."""
        self.db.bind(TRUTH_MODELS, bind_refs=False, bind_backrefs=False)
        for projection in projections:
            self._register(projection)

    def open_views_unchecked(self, projections: Sequence[Projection]) -> None:
        """A damaged file or a read-only home: bind the models for reading, check and migrate nothing (both would
        write)."""
        self.db.bind(TRUTH_MODELS, bind_refs=False, bind_backrefs=False)
        for projection in projections:
            self.db.bind(projection.models, bind_refs=False, bind_backrefs=False)
            self._projections[projection.domain] = projection

    def database_problem(self) -> str | None:
        """Why writes are refused now: a read-only home, the file damaged at open, or the path no longer the file
        opened."""
        if self.read_only:
            return f"{self.read_only}: it serves reads, writes are refused"
        if self.damaged:
            return self.damaged
        if self.loss is not None:
            return self.loss.refusal()
        return self.identity.problem() if self.identity is not None else None

    def check_writable(self) -> None:
        """Raise `StorageProblem` (`unavailable`) when a write must not go to this database (see `database_problem`)."""
        if self.read_only:
            raise StorageProblem(
                f"{self.read_only}: it serves reads, writes are refused; to change it, use it where it is writable",
                "SQLITE_READONLY",
            )
        if self.damaged:
            raise StorageProblem(f"the database is unavailable: {self.damaged}", "SQLITE_CORRUPT")
        if self.loss is not None:
            raise acknowledged.refuse(self.loss)
        if self.identity is not None:
            self.identity.check()

    @property
    def _txn(self) -> int | None:
        """The current thread's transaction id: None outside `atomic()`, 0 before its first event."""
        return getattr(self._local, "txn", None)

    @_txn.setter
    def _txn(self, value: int | None) -> None:
        self._local.txn = value

    def take_models(self) -> None:
        """Bind the models to this store again. peewee's models are bound to one database per process: a
        second store opened beside this one (two homes in one process) takes them; each write transaction
        takes them back (see `model_binding`)."""
        self.db.bind(TRUTH_MODELS, bind_refs=False, bind_backrefs=False)
        for projection in self._projections.values():
            self.db.bind(projection.models, bind_refs=False, bind_backrefs=False)

    def bound_models(self) -> list[type[Any]]:
        """One model of the truth's and of each projection's (what `model_binding` compares)."""
        return [TRUTH_MODELS[0], *(p.models[0] for p in self._projections.values() if p.models)]

    def _register(self, projection: Projection) -> None:
        self.db.bind(projection.models, bind_refs=False, bind_backrefs=False)
        self._projections[projection.domain] = projection
        # Checked under the write lock: on a shared server another host may be writing this domain now,
        # and a view state read between its event and its commit would look behind the log.
        with self.db.atomic("IMMEDIATE"):
            reason = self._view_problem(projection)
            if reason and self.last_seq(projection.domain) == 0:
                self.db.create_tables(list(projection.models), safe=True)
                self._set_view_state(projection.domain, {"version": projection.version, "seq": 0})
            elif reason:
                log.warning("rebuilding the %s view: %s", projection.domain, reason)
                self.rebuild(projection.domain)
                self.rebuilt_on_open.append(projection.domain)

    def _view_problem(self, projection: Projection) -> str | None:
        state = self._view_state(projection.domain)
        tables = set(self.db.get_tables())
        missing = [m._meta.table_name for m in projection.models if m._meta.table_name not in tables]
        if missing:
            return f"table {', '.join(missing)} is missing"
        if state.get("version") != projection.version:
            return f"view definition changed ({state.get('version')} -> {projection.version})"
        if state.get("seq") != self.last_seq(projection.domain):
            return f"view is at event {state.get('seq')}, log at {self.last_seq(projection.domain)}"
        return None

    # -- events --------------------------------------------------------------------

    def atomic(self) -> Transaction:
        """A write transaction (BEGIN IMMEDIATE); events appended inside share one txn id."""
        return Transaction(self)

    def part(self, *, fast: bool = True) -> Part:
        """One write of a group sharing this thread's open transaction (see `_Part`)."""
        return Part(self, fast)

    def transaction_failed(self) -> bool:
        """Whether this thread's transaction can only be rolled back (a statement failed on the server)."""
        return bool(self.db.transaction_failed())

    def append(
        self,
        domain: str,
        event_type: str,
        given: Mapping[str, object],
        *,
        actor: str,
        ts: str | None = None,
        schema_v: int = 1,
    ) -> EventRecord:
        """Append one event (its payload as `given` is now: the event keeps a copy) and apply it to its view.
        Must run inside `atomic()`."""
        if self._txn is None:
            raise RuntimeError("Store.append must run inside Store.atomic()")
        payload = dict(given)
        projection = self._projections.get(domain)
        subject = projection.subject_of(event_type, payload) if projection else None
        try:
            # allow_nan=False: NaN and infinity are not JSON; kept in the log, they would break every reader.
            text = json.dumps(payload, ensure_ascii=False, sort_keys=True, allow_nan=False)
        except ValueError as exc:
            raise InvalidInput(f"a {domain} {event_type} event cannot be stored as JSON ({exc})") from None
        stamp = ts or clock.iso_now()
        # Plain SQL: this runs once per event, and peewee's query building would dominate it.
        params = (stamp, domain, event_type, schema_v, actor, text, self._txn if self._txn > 0 else None, subject)
        if self.db.dialect.draws_numbers_first:
            # One round trip while holding the write lock: a transaction's first event is its id.
            cursor = self.db.execute_sql(_PG_APPEND, params)
            seq = int(cursor.fetchone()[0])
            if self._txn == 0:
                self._txn = seq
        else:
            cursor = self.db.execute_sql(
                "INSERT INTO event (ts, domain, type, schema_v, actor, payload, txn, subject) "
                "VALUES (?,?,?,?,?,?,?,?) RETURNING seq",
                params,
            )
            seq = int(cursor.fetchone()[0])
            if self._txn == 0:
                self._txn = seq
                self.db.execute_sql("UPDATE event SET txn = ? WHERE seq = ?", (seq, seq))
        self._local.payload_bytes += len(text.encode("utf-8", "surrogatepass"))
        self._local.events += 1
        self._local.newest = (seq, stamp)  # what the mark records when this commits (`Transaction`)
        record = EventRecord(seq, stamp, domain, event_type, schema_v, actor, payload, self._txn, subject)
        if projection is not None:
            projection.apply(record)
            self._local.views[domain] = seq
            self._local.types.add(event_type)
        return record

    def append_many(
        self, domain: str, items: Sequence[tuple[str, Mapping[str, object]]], *, actor: str, schema_v: int = 1
    ) -> list[EventRecord]:
        """Append many `(type, payload)` events of `domain` at once and apply them to its view.

        The same events, seqs, transaction id and view as calling `append` for
        each in turn, but written with one statement and applied through the
        projection's `apply_many` when it has one (a bulk ingest). Must run
        inside `atomic()`.
        """
        if self._txn is None:
            raise RuntimeError("Store.append_many must run inside Store.atomic()")
        if not items:
            return []
        first_type, first_payload = items[0]
        first = self.append(domain, first_type, first_payload, actor=actor, schema_v=schema_v)
        projection = self._projections.get(domain)
        txn = self._txn
        records = [first]
        rows = []
        for offset, (event_type, given) in enumerate(items[1:], start=1):
            payload = dict(given)  # the event's own copy, as `append` keeps
            subject = projection.subject_of(event_type, payload) if projection else None
            try:
                text = json.dumps(payload, ensure_ascii=False, sort_keys=True, allow_nan=False)
            except ValueError as exc:
                raise InvalidInput(f"a {domain} {event_type} event cannot be stored as JSON ({exc})") from None
            seq = first.seq + offset  # inside BEGIN IMMEDIATE nobody else appends: the seqs follow on
            rows.append((seq, first.ts, domain, event_type, schema_v, actor, text, txn, subject))
            self._local.payload_bytes += len(text.encode("utf-8", "surrogatepass"))
            records.append(EventRecord(seq, first.ts, domain, event_type, schema_v, actor, payload, txn, subject))
        self.db.execute_many(
            "INSERT INTO event (seq, ts, domain, type, schema_v, actor, payload, txn, subject)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            rows,
        )
        catch_up = self.db.dialect.sequence_catch_up
        if rows and catch_up:
            # Explicit numbers do not move a server's identity sequence: the next append must follow them.
            self.db.execute_sql(catch_up, (rows[-1][0],))
        if projection is not None and len(records) > 1:
            apply_many = getattr(projection, "apply_many", None)
            if apply_many is not None:
                apply_many(records[1:])
            else:
                for record in records[1:]:
                    projection.apply(record)
            self._local.views[domain] = records[-1].seq
        self._local.newest = (records[-1].seq, records[-1].ts)
        return records

    def events(
        self,
        domain: str | None = None,
        *,
        subject: str | None = None,
        txn: int | None = None,
        after: int = 0,
        types: Sequence[str] | None = None,
        batch: int = 2000,
    ) -> Iterator[EventRecord]:
        """Yield events in log order, filtered; reads in batches so memory stays flat."""
        last = after
        while True:
            query = Event.select().where(Event.seq > last)
            if domain is not None:
                query = query.where(Event.domain == domain)
            if subject is not None:
                query = query.where(Event.subject == subject)
            if txn is not None:
                query = query.where(Event.txn == txn)
            if types is not None:
                query = query.where(Event.type.in_(list(types)))
            rows = tuples(query.order_by(Event.seq).limit(batch))
            for seq, ts, dom, typ, schema_v, actor, payload, txn_id, subj in rows:
                try:
                    data = json.loads(payload)
                except ValueError:
                    data = None
                if not isinstance(data, dict):
                    # A damaged row (edited by hand, disk trouble): it stays in the log, untouched; readers skip it.
                    log.warning("event %s (%s/%s) has an unreadable payload; skipped", seq, dom, typ)
                    continue
                yield EventRecord(seq, ts, dom, typ, schema_v, actor, data, txn_id, subj)
            if len(rows) < batch:
                return
            last = rows[-1][0]

    def last_seq(self, domain: str | None = None) -> int:
        """The newest event's seq (0 when there is none)."""
        if domain is None:
            row = self.db.execute_sql("SELECT seq FROM event ORDER BY seq DESC LIMIT 1").fetchone()
        else:
            sql = "SELECT max(seq) FROM event WHERE domain = ?"  # one probe of the (domain, seq) index
            row = self.db.execute_sql(sql, (domain,)).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def count_events(self, domain: str | None = None) -> int:
        query = Event.select()
        if domain is not None:
            query = query.where(Event.domain == domain)
        return int(query.count())

    # -- views ---------------------------------------------------------------------

    def rebuild(self, domain: str | None = None, progress: Progress | None = None) -> dict[str, int]:
        """Drop and rebuild the views of `domain` (or all) by replaying the log.

        Returns how many events each domain replayed (and `<domain>_skipped`:
        damaged events the view could not use; they stay in the log). Runs in
        one transaction per domain: a failure leaves the old view as it was.
        """
        names = [domain] if domain else list(self._projections)
        counts: dict[str, int] = {}
        for name in names:
            projection = self._projections.get(name)
            if projection is None:
                raise InvalidInput(f"no view named {name!r}; known: {', '.join(self._projections)}")
            total = self.count_events(name)
            with self.db.atomic("IMMEDIATE"):
                self.db.drop_tables(list(projection.models), safe=True)
                self.db.create_tables(list(projection.models), safe=True)
                done = skipped = 0
                batch: list[EventRecord] = []
                for event in self.events(name):
                    batch.append(event)
                    if len(batch) == REPLAY_BATCH:
                        skipped += self._replay(projection, batch)
                        done, batch = done + len(batch), []
                        if progress is not None:
                            progress(done, total)
                if batch:
                    skipped += self._replay(projection, batch)
                    done += len(batch)
                    if progress is not None:
                        progress(done, total)
                self._set_view_state(name, {"version": projection.version, "seq": self.last_seq(name)})
            counts[name] = done
            if skipped:
                counts[f"{name}_skipped"] = skipped
        return counts

    def _replay(self, projection: Projection, batch: list[EventRecord]) -> int:
        """Apply `batch` to the view; returns how many damaged events had to be left out.

        One savepoint for the batch; only when it fails is the batch replayed
        event by event, each in its own savepoint, so a bad event leaves no
        half-applied rows and the rest still count.
        """
        try:
            with self.db.atomic():
                for event in batch:
                    projection.apply(event)
            return 0
        except REPLAY_ERRORS:
            pass
        skipped = 0
        for event in batch:
            try:
                with self.db.atomic():
                    projection.apply(event)
            except REPLAY_ERRORS as exc:
                skipped += 1
                log.warning(
                    "event %s (%s/%s) cannot be applied (%r); the view goes on without it",
                    event.seq,
                    event.domain,
                    event.type,
                    exc,
                )
        return skipped

    def _view_state(self, domain: str) -> ViewState:
        """Where the domain's view is, as `_set_view_state` kept it (empty when unreadable: it is rebuilt)."""
        row = MetaValue.get_or_none(MetaValue.key == f"view:{domain}")
        if row is None:
            return {}
        try:
            value = json.loads(row.value)
        except ValueError:
            return {}
        return cast(ViewState, value) if isinstance(value, dict) else {}  # its values are only compared

    def _set_view_state(self, domain: str, state: ViewState) -> None:
        self.db.execute_sql(f"{UPSERT_META} (?, ?) {ON_META_CONFLICT}", (f"view:{domain}", json.dumps(state)))

    # -- facts ---------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        return schema_version(self.db)

    @property
    def store_id(self) -> str | None:
        """The id every host of this store shares (`store.core.identity`); None before schema 6."""
        if "store_id" not in self.caches:  # written once, never changed: read once per open store
            self.caches["store_id"] = read_store_id(self.db)
        found: str | None = self.caches["store_id"]
        return found

    @property
    def domains(self) -> list[str]:
        """The domains whose views this store keeps."""
        return list(self._projections)

    def change_feed(self, on_change: Changed, on_resync: Callable[[], None]) -> ChangeFeed | None:
        """Start hearing other hosts' commits (`on_change(domain, seq, event_types)`); None for a store not shared."""
        if self._feed_connect is None:
            return None
        feed = ChangeFeed(self._feed_connect, self.origin, on_change, on_resync)
        feed.start()
        return feed

    def integrity_check(self) -> str:
        """SQLite's own verdict on the file: 'ok' when sound (a server: 'ok' when it answers)."""
        return str(self.db.integrity_check(self.location))

    def close(self) -> None:
        """Close the database and release the home (idempotent); the models go to the newest store still open."""
        model_binding.closed(self)
        self.readers.close()
        self.db.close_all()
        if self.marks is not None:
            self.marks.close()
            self.marks = None
        self._lock.release()
