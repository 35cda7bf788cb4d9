"""Projections turn the event log into view tables.

Each domain registers one projection: the view tables it owns, a version of
their definition, how to reset them and how to apply one event. Appending an
event applies it in the same transaction; rebuilding replays the whole domain.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from store.core.models import BaseModel


@dataclass(frozen=True)
class EventRecord:
    """One event as read back from the log."""

    seq: int
    ts: str
    domain: str
    type: str
    schema_v: int
    actor: str
    payload: dict[str, Any]
    txn: int | None
    subject: str | None


class Projection(Protocol):
    """What a domain's view must provide to the store."""

    domain: str
    version: int
    models: Sequence[type[BaseModel]]

    def apply(self, event: EventRecord) -> None:
        """Update the view tables for one event (inside the caller's transaction)."""
        ...

    def subject_of(self, event_type: str, payload: dict[str, Any]) -> str | None:
        """Return the history key an event belongs to (e.g. a normalized term)."""
        ...


def first_text(payload: Mapping[str, object], keys: Sequence[str]) -> str | None:
    """The first of `keys` whose value in `payload` is text: the subject of a domain that names it several ways."""
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str):
            return value
    return None


def dispatch(handlers: Mapping[str, Callable[[EventRecord], None]], event: EventRecord) -> None:
    """Apply `event` with its type's handler; a type the view does not keep is ignored."""
    handler = handlers.get(event.type)
    if handler is not None:
        handler(event)
