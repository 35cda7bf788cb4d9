"""Each device's recall calibration, and the scored recalls it is computed from.

A derived table beside the term counts, not a view of the event log: a
calibration is recomputed from the `recall_eval` view (and, for a device with
few evaluations, from its past runs) whenever it is needed, so it is never
replayed. One row per device and embedder: the chosen threshold, where it came
from (`evaluations`, `leave-one-out`, `default`), how many runs it rests on,
the budget it holds, when it was computed and its curve (JSON).
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

from store.core.database import Store
from store.core.models import tuples
from store.episodes.models import RecallEval

_TABLE = (
    "CREATE TABLE IF NOT EXISTS recall_calibration ("
    " device_scope TEXT NOT NULL, embedder TEXT NOT NULL, threshold REAL NOT NULL, source TEXT NOT NULL,"
    " sample_size INTEGER NOT NULL, budget REAL NOT NULL, computed_at REAL NOT NULL, curve TEXT NOT NULL,"
    " PRIMARY KEY (device_scope, embedder)) WITHOUT ROWID"
)
_COLUMNS = ("device_scope", "embedder", "threshold", "source", "sample_size", "budget", "computed_at", "curve")


class KeptPoint(TypedDict):
    """A point of a kept curve (`recall.calibration.CurvePoint`)."""

    threshold: float
    hit_at_1: float
    contamination: float
    bound: float
    recalled: int


class KeptCalibration(TypedDict):
    """One device's calibration as the table keeps it (`recall.calibration.Calibration`, by device scope)."""

    device_scope: str
    embedder: str
    threshold: float
    source: str
    sample_size: int
    budget: float
    computed_at: float
    curve: list[KeptPoint]


def ensure(store: Store) -> None:
    """Create the table if it is missing."""
    store.db.execute_sql(_TABLE)


def put(store: Store, row: KeptCalibration) -> None:
    """Keep one device's calibration, replacing the one before."""
    values = [
        row["device_scope"],
        row["embedder"],
        row["threshold"],
        row["source"],
        row["sample_size"],
        row["budget"],
        row["computed_at"],
        json.dumps(row["curve"], ensure_ascii=False),
    ]
    with store.db.atomic("IMMEDIATE"):
        ensure(store)
        marks = ", ".join("?" * len(_COLUMNS))
        updates = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS[2:])
        store.db.execute_sql(
            f"INSERT INTO recall_calibration ({', '.join(_COLUMNS)}) VALUES ({marks}) "
            f"ON CONFLICT (device_scope, embedder) DO UPDATE SET {updates}",
            values,
        )


def _row(values: tuple[Any, ...]) -> KeptCalibration:
    scope, embedder, threshold, source, sample_size, budget, computed_at, curve = values
    return KeptCalibration(
        device_scope=str(scope),
        embedder=str(embedder),
        threshold=float(threshold),
        source=str(source),
        sample_size=int(sample_size),
        budget=float(budget),
        computed_at=float(computed_at),
        curve=json.loads(curve),
    )


def get(store: Store, device_scope: str, embedder: str) -> KeptCalibration | None:
    """The device's calibration for `embedder`, or None."""
    found = store.db.execute_sql(
        f"SELECT {', '.join(_COLUMNS)} FROM recall_calibration WHERE device_scope = ? AND embedder = ?",
        (device_scope, embedder),
    ).fetchone()
    return _row(found) if found else None


def every(store: Store, embedder: str) -> list[KeptCalibration]:
    """Every device's calibration for `embedder`, by device."""
    rows = store.db.execute_sql(
        f"SELECT {', '.join(_COLUMNS)} FROM recall_calibration WHERE embedder = ? ORDER BY device_scope", (embedder,)
    )
    return [_row(r) for r in rows]


def clear(store: Store) -> None:
    """Forget every calibration (they are recomputed when next needed)."""
    ensure(store)
    with store.db.atomic("IMMEDIATE"):
        store.db.execute_sql("DELETE FROM recall_calibration")


def recent_traces(store: Store, device_scope: str, embedder: str, limit: int) -> list[dict[str, Any]]:
    """The device's `limit` latest scored recalls made with `embedder`, oldest first."""
    query = (
        RecallEval.select(RecallEval.trace)
        .where((RecallEval.device_scope == device_scope) & (RecallEval.embedder == embedder))
        .order_by(RecallEval.ts.desc(), RecallEval.run_id.desc())
        .limit(limit)
    )
    return [json.loads(str(trace)) for (trace,) in reversed(tuples(query))]


def evaluated_scopes(store: Store) -> list[str]:
    """Device scopes with scored recalls."""
    query = RecallEval.select(RecallEval.device_scope).distinct().order_by(RecallEval.device_scope)
    return [str(scope) for (scope,) in tuples(query) if scope]
