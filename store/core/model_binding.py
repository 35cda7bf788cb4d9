"""Which open store peewee's models write through.

peewee binds a model to one database for the whole process (`Database.bind`), and the projections write
their views through their models' database. So with two homes open in one process (a library user, a
test), a write of one home could reach the views of the other: its event in its own log, the view rows in
the other's tables. These functions keep the models with the store that uses them:

- `opened`: a store that opens takes the models (its `open` binds them) and is remembered;
- `hold`: a write transaction of a store takes them back first if another store holds them;
- `closed`: a store that closes while holding them hands them to the newest store still open.

A service holds one home per process, so none of this moves anything there. Two homes written at the same
moment from two threads of one process are not supported (the binding is one per process).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any, Protocol


class Binder(Protocol):
    db: Any

    def bound_models(self) -> Sequence[type[Any]]:
        """One model of each group the store binds (the truth's, each projection's)."""

    def take_models(self) -> None:
        """Bind every model to this store's database."""


_lock = threading.Lock()
_open: list[weakref.ref[Binder]] = []  # oldest first (a store never closed is not kept alive here)


def holds(store: Binder) -> bool:
    """Whether every model `store` binds writes through its database now."""
    return all(model._meta.database is store.db for model in store.bound_models())


def opened(store: Binder) -> None:
    with _lock:
        _open.append(weakref.ref(store))


def hold(store: Binder) -> None:
    """Bind the models to `store` unless they already are (once per write transaction: a compare per model)."""
    if holds(store):
        return
    with _lock:
        store.take_models()


def closed(store: Binder) -> None:
    with _lock:
        _open[:] = [ref for ref in _open if ref() is not None and ref() is not store]
        newest = _open[-1]() if _open else None
        if newest is not None and holds(store):
            newest.take_models()
