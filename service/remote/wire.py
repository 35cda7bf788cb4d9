"""From the socket's JSON back to the facade's types, and from error codes back to Jiyi's errors."""

from __future__ import annotations

from typing import Any

from recall.verdict import Candidate, Resolution
from service.memory.appkb import LearnAliasOutcome
from store.appkb.entry import AppKbEntry
from store.appkb.history import HistoryItem, UndoResult
from store.appkb.kb import ForgetAliasResult, LearnAliasResult
from store.core.errors import (
    Busy,
    Conflict,
    EnvironmentProblem,
    Forbidden,
    InvalidInput,
    JiyiError,
    NotFound,
)

ERRORS: dict[str, type[JiyiError]] = {
    "invalid_params": InvalidInput,
    "not_found": NotFound,
    "forbidden": Forbidden,
    "unavailable": EnvironmentProblem,
}


def error_for(code: str, message: str, data: Any = None) -> JiyiError:
    """The error a local `Memory` would have raised for a failure the service answered with `code`."""
    if code == "conflict":
        return Conflict(message, data if isinstance(data, dict) else None)
    if code == "busy":
        return Busy(message, data if isinstance(data, dict) else {})
    kind = ERRORS.get(code)
    if kind is None:
        return JiyiError(f"the service answered {code}: {message}")
    return kind(message)


def entry(data: dict[str, Any]) -> AppKbEntry:
    return AppKbEntry.from_dict(data)


def entries(rows: list[dict[str, Any]]) -> list[AppKbEntry]:
    return [AppKbEntry.from_dict(row) for row in rows]


def _candidate(data: dict[str, Any]) -> Candidate:
    return Candidate(
        package=data["package"],
        label=data["label"],
        name=data["name"],
        source=data["source"],
        evidence=data["evidence"],
        route=data["route"],
        similarity=float(data["similarity"]),
        prior=float(data["prior"]),
        score=float(data["score"]),
        installed=data["installed"],
    )


def resolution(data: dict[str, Any]) -> Resolution:
    return Resolution(
        query=data["query"],
        normalized=data["normalized"],
        state=data["state"],
        package=data["package"],
        reason=data["reason"],
        candidates=[_candidate(c) for c in data["candidates"]],
        not_installed=[_candidate(c) for c in data["not_installed"]],
        device=data.get("device"),
        elapsed_ms=float(data.get("elapsed_ms", 0.0)),
    )


def learned(data: dict[str, Any]) -> LearnAliasOutcome:
    result = LearnAliasResult(
        changed=bool(data["changed"]),
        entry=entry(data["entry"]),
        replaced=entries(data["replaced"]),
        txn=data["change"],
    )
    return LearnAliasOutcome(result, list(data["installed_on"]), list(data["missing_on"]))


def forgotten(data: dict[str, Any]) -> ForgetAliasResult:
    return ForgetAliasResult(term=data["term"], removed=entries(data["removed"]), txn=data["change"])


def undone(data: dict[str, Any]) -> UndoResult:
    return UndoResult(
        txn=data["change"],
        reverted_txn=data["reverted"],
        removed=entries(data["removed"]),
        restored=entries(data["restored"]),
    )


def history_items(rows: list[dict[str, Any]]) -> list[HistoryItem]:
    return [HistoryItem(r["seq"], r["ts"], r["actor"], r["type"], r["change"], r["payload"]) for r in rows]
