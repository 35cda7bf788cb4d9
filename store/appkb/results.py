"""What the App-KB's operations answer: plain records, importable without the database.

`store.appkb.kb` and `store.appkb.history` return them; the commands and the
console attached to a running service decode the service's answers into them
(a command through a service imports neither peewee nor recall).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from store.appkb.entry import AppKbEntry


@dataclass(frozen=True)
class LearnAliasResult:
    changed: bool
    entry: AppKbEntry
    replaced: list[AppKbEntry]
    txn: int


@dataclass(frozen=True)
class ForgetAliasResult:
    term: str
    removed: list[AppKbEntry]
    txn: int


@dataclass
class SyncReport:
    device: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    staled: int = 0
    rejected: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HistoryItem:
    """One event in a name's history."""

    seq: int
    ts: str
    actor: str
    type: str
    txn: int | None
    payload: dict[str, Any]

    @property
    def undo_of(self) -> int | None:
        value = self.payload.get("undo_of")
        return value if isinstance(value, int) else None

    @property
    def package(self) -> str | None:
        entry = self.payload.get("entry")
        return entry.get("package") if isinstance(entry, dict) else None

    @property
    def kind(self) -> str | None:
        entry = self.payload.get("entry")
        return entry.get("kind") if isinstance(entry, dict) else None


@dataclass(frozen=True)
class UndoResult:
    txn: int
    reverted_txn: int
    removed: list[AppKbEntry]
    restored: list[AppKbEntry]
