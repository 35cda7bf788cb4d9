"""Procedure-card selection for a run, the reference's way (`VecIndex.select_procedure`).

A card is a procedure lesson a run may be given (store.episodes.lessons.procedure_cards). For a goal, and an
app when one is known, the selection is: hard filters first — the device gate (a card scoped to another
device is never a candidate; a card with no device is for every device), then the app gate (exact
`app_scope` equality with the app; with no app, only `general` cards) — then the one card whose document
(its title, then its steps, joined by " | ") is nearest the goal, kept when its cosine clears
`PROCEDURE_MIN_SCORE`. The outcome is the reference's `ProcedureSelection.to_dict()`, with its `reason`:
`empty_query`, `no_cards`, `device_scope_mismatch`, `app_scope_mismatch`, `below_threshold` or `hit`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from recall.embedders import Embedder

if TYPE_CHECKING:  # the vectors are the embedder's arrays: numpy comes with the model
    import numpy as np

PROCEDURE_MIN_SCORE = 0.30  # the reference's threshold (its module constant)
GENERAL_APP_SCOPE = "general"
_GLOBAL = "global"

Card = Mapping[str, object]
"""A procedure card: a lesson in the reference's schema (`text` its title, `steps`, `pitfalls`, `app_scope`,
`scope.device`), as the lessons' view keeps it (`store.episodes.lessons.procedure_cards`)."""


class ProcedureSelection(TypedDict):
    """The reference's `ProcedureSelection.to_dict()`: what one selection chose (or why none), as the
    `procedure_selected` event and the reference's `latest_procedure` keep it."""

    lesson_id: object  # the card's id (None when none was selected)
    title: str
    steps: list[str]
    pitfalls: object  # as the card gives it
    app_scope: object  # as the card gives it
    device_scope: str | None
    score: float
    candidates: int
    filtered: int
    reason: str  # empty_query / no_cards / device_scope_mismatch / app_scope_mismatch / below_threshold / hit
    selected: bool


def _steps(card: Card) -> list[object]:
    steps = card.get("steps")
    return list(steps) if isinstance(steps, list | tuple) else []


def card_document(card: Card) -> str:
    """A card's retrieval document: its title, then its non-empty steps, joined by " | "."""
    title = str(card.get("text") or "").strip()
    steps = [str(step).strip() for step in _steps(card) if str(step).strip()]
    return " | ".join([title, *steps]) if steps else title


def _device_of(card: Card) -> str:
    scope = card.get("scope")
    device = scope.get("device") if isinstance(scope, dict) else None
    return str(device or "").strip() or _GLOBAL


def _device_scopes(device: str | None) -> tuple[str, ...]:
    serial = " ".join(str(device or "").split()).removeprefix("device:")
    if not serial or serial == "unknown":
        return (_GLOBAL,)
    return (serial, _GLOBAL)


def _app_matches(app_scope: object, app_package: str | None) -> bool:
    if app_package:
        return str(app_scope or "") == app_package
    return str(app_scope or "") == GENERAL_APP_SCOPE


def selection(
    card: Card | None = None,
    *,
    score: float = 0.0,
    candidates: int = 0,
    filtered: int = 0,
    reason: str = "no_cards",
) -> ProcedureSelection:
    """The reference's `ProcedureSelection.to_dict()` (a hit when `card` is given)."""
    scope = card.get("scope") if card else None
    device = scope.get("device") if isinstance(scope, dict) else None
    return {
        "lesson_id": card.get("lesson_id") if card else None,
        "title": str(card.get("text") or "") if card else "",
        "steps": [str(step) for step in _steps(card)] if card else [],
        "pitfalls": card.get("pitfalls") if card else None,
        "app_scope": card.get("app_scope") if card else None,
        "device_scope": (str(device or "") or _GLOBAL) if card else None,
        "score": round(float(score), 6),
        "candidates": int(candidates),
        "filtered": int(filtered),
        "reason": reason,
        "selected": bool(card),
    }


class CardVectors:
    """Card documents' vectors, embedded once per document and embedder (cards change rarely)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._vectors: dict[tuple[str, str], np.ndarray] = {}

    def of(self, embedder: Embedder, documents: Sequence[str]) -> list[np.ndarray]:
        with self._lock:
            missing = [d for d in dict.fromkeys(documents) if (embedder.id, d) not in self._vectors]
        if missing:
            vectors = embedder.passages(missing)
            with self._lock:
                if len(self._vectors) > 4096:  # cards edited again and again: start over rather than grow
                    self._vectors.clear()
                self._vectors.update({(embedder.id, d): v for d, v in zip(missing, vectors, strict=True)})
        with self._lock:
            return [self._vectors[(embedder.id, d)] for d in documents]


def select_card(
    cards: Sequence[Card],
    goal: str,
    query: np.ndarray | None,
    *,
    app_package: str | None,
    device: str | None,
    embedder: Embedder | None,
    vectors: CardVectors,
    min_score: float = PROCEDURE_MIN_SCORE,
) -> ProcedureSelection:
    """Select one card for `goal` (its query vector `query`, or None to embed it) on `device`, for
    `app_package` (None: only general cards), as the reference does; see the module's docstring. `embedder`
    is needed only when some card passes the filters."""
    if not goal.strip():
        return selection(reason="empty_query")
    documented = [card for card in cards if card_document(card)]
    if not documented:
        return selection(reason="no_cards")
    scopes = _device_scopes(device)
    in_device = [card for card in documented if _device_of(card) in scopes]
    if not in_device:
        return selection(reason="device_scope_mismatch")
    wanted = str(app_package or "").strip() or None
    pool = [card for card in in_device if _app_matches(card.get("app_scope"), wanted)]
    if not pool:
        return selection(candidates=len(in_device), reason="app_scope_mismatch")
    if embedder is None:
        raise ValueError("selecting among procedure cards needs an embedder")
    if query is None:
        query = embedder.queries([goal])[0]
    scored = [
        (max(0.0, min(1.0, float(query @ vector))), str(card["lesson_id"]), card)
        for card, vector in zip(pool, vectors.of(embedder, [card_document(c) for c in pool]), strict=True)
    ]
    score, _lesson_id, best = min(scored, key=lambda item: (-item[0], item[1]))
    if score < min_score:
        return selection(score=score, candidates=len(in_device), filtered=len(pool), reason="below_threshold")
    return selection(best, score=score, candidates=len(in_device), filtered=len(pool), reason="hit")
