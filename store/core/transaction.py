"""A store's write transaction (`Store.atomic()`) and one write's part of a shared one (`Store.part()`).

The outer transaction takes the write lock (SQLite's IMMEDIATE, PostgreSQL's
advisory lock), numbers the change by its first event, writes the views'
bookkeeping once with the commit (on a shared store, with the change notice),
records how long the lock was waited for and held, and, once committed and
before the caller can acknowledge it, moves the home's mark of the last
acknowledged change to its newest event (`store.core.acknowledged`).
"""

from __future__ import annotations

import json
import time
from contextlib import AbstractContextManager
from typing import Any

from store.core import model_binding
from store.core.change_feed import CHANNEL, notice

# The `Store` these run for (store/core/database.py imports this module, so it is not imported back).
Store = Any

UPSERT_META = "INSERT INTO meta (key, value) VALUES"
ON_META_CONFLICT = "ON CONFLICT (key) DO UPDATE SET value = excluded.value"


class Transaction(AbstractContextManager[Any]):
    """BEGIN IMMEDIATE around a group of appends that share one txn id."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._atomic: Any = None
        self._outer = False
        self._id = 0
        self._locked_at = 0.0
        self._waited = 0.0
        self._trips = 0
        self._part: Part | None = None  # set when this is a fast part's own transaction (no savepoint)
        self._events = 0
        self._newest: tuple[int, str] | None = None  # a savepoint's: the newest event before it (restored on rollback)
        self._views: dict[str, int] | None = None  # a savepoint's: the views' bookkeeping when it began

    @property
    def id(self) -> int:
        """The transaction's id: the seq of its first event (0 before any append)."""
        return self._store._txn or self._id

    def __enter__(self) -> Transaction:
        self._outer = self._store._txn is None
        if self._outer:
            self._store.check_writable()  # a damaged or vanished file takes no write
            model_binding.hold(self._store)  # the views are written through the models: this home's
        if self._outer and self._store.budget is not None:
            self._store.budget.check()
        part: Part | None = getattr(self._store._local, "part", None)
        if not self._outer and part is not None and part.fast and not part.depth:
            # A write's own transaction inside a group: the group's rules stand in for a savepoint.
            self._part, self._events = part, self._store._local.events
            part.depth += 1
            return self
        self._atomic = self._store.db.atomic("IMMEDIATE") if self._outer else self._store.db.atomic()
        if not self._outer:
            self._views = dict(self._store._local.views)
            self._newest = self._store._local.newest
        started = time.perf_counter()
        self._atomic.__enter__()
        if self._outer:
            self._locked_at = time.perf_counter()
            self._waited = self._locked_at - started
            self._trips = self._round_trips()
            self._store._txn = 0
            self._store._local.views = {}
            self._store._local.types = set()
            self._store._local.payload_bytes = 0
            self._store._local.events = 0
            self._store._local.newest = None
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._part is not None:
            self._part.depth -= 1
            if exc[0] is not None and self._store._local.events != self._events:
                self._part.broken = True  # half of it appended: only a rollback of the group undoes that
            self._part = None
            return
        committed = False
        if not self._outer and exc[0] is not None and self._views is not None:
            # Rolled back to the savepoint: the views are where they were (not at an event that is gone), and
            # so is the newest event the mark will record.
            self._store._local.views = self._views
            self._store._local.newest = self._newest
        try:
            if self._outer and exc[0] is None:
                try:
                    self._record_views()
                    self._store.check_writable()  # moved away meanwhile: roll back rather than commit there
                except BaseException as failure:
                    self._atomic.__exit__(type(failure), failure, failure.__traceback__)
                    raise
            self._atomic.__exit__(*exc)
            committed = self._outer and exc[0] is None
        finally:
            if self._outer:
                self._id = self._store._txn or 0
                self._store._txn = None
        if committed:
            # Committed into a file moved away during the commit: not acknowledged (the caller answers
            # `unavailable`), since the home's database path no longer holds it.
            self._store.check_writable()
            held = time.perf_counter() - self._locked_at
            self._store.write_stats.record(self._waited, held, self._round_trips() - self._trips)
            newest, marks = self._store._local.newest, self._store.marks
            if newest is not None and marks is not None:
                marks.advance(*newest)  # before the caller acknowledges it
        if committed and self._store.budget is not None:
            self._store.budget.wrote(self._store._local.payload_bytes)

    def _round_trips(self) -> int:
        return int(self._store.db.round_trips())

    def _record_views(self) -> None:
        """The views' bookkeeping: written once per transaction and committed with it.

        On a shared store, other hosts hear of it by a notice the server sends when this commits.
        """
        store = self._store
        views = store._local.views
        states = [
            (f"view:{domain}", json.dumps({"version": store._projections[domain].version, "seq": seq}))
            for domain, seq in views.items()
        ]
        if states and store._feed_connect is not None:
            # One round trip while holding the write lock: the views' states and the notice together.
            payload = notice(store.origin, views, sorted(store._local.types))
            store.db.execute_sql(
                f"WITH v AS ({UPSERT_META} {','.join(['(?, ?)'] * len(states))} {ON_META_CONFLICT}) "
                "SELECT pg_notify(?, ?)",
                (*(value for state in states for value in state), CHANNEL, payload),
            )
            return
        for key, value in states:
            store.db.execute_sql(f"{UPSERT_META} (?, ?) {ON_META_CONFLICT}", (key, value))


class Part(AbstractContextManager[Any]):
    """One write among several that share an open write transaction (a host's group commit).

    Its events get a transaction id of their own, as if it had committed
    alone, so history and undo still see one change per write; they are
    committed, like the others', only with the transaction. `wrote` says
    whether it appended anything.

    A fast part saves two round trips while holding the write lock: the
    write's own `atomic()` block takes no savepoint. If that block raises
    after appending, `broken` is set: what it appended is still in the
    transaction, and only rolling the whole group back undoes it (the group
    then runs again with savepoints). Blocks nested deeper keep theirs.
    """

    def __init__(self, store: Store, fast: bool) -> None:
        self._store = store
        self.fast = fast
        self.depth = 0
        self.broken = False
        self.wrote = False
        self._events = 0

    def __enter__(self) -> Part:
        store = self._store
        if store._txn is None:
            raise RuntimeError("Store.part must run inside Store.atomic()")
        store._txn = 0
        store._local.part = self
        self._events = store._local.events
        return self

    def __exit__(self, *exc: Any) -> None:
        self._store._txn = 0
        self._store._local.part = None
        self.wrote = self._store._local.events != self._events
