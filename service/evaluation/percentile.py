"""The one percentile of Jiyi's measurements: `jiyi eval` reports and the bench scripts use it.

Nearest rank: the p-th percentile of n values is the smallest value that at
least p % of the values are less than or equal to — the value at rank
⌈p/100 · n⌉ of the sorted values. It is always a value that was measured
(a p99 latency is one some request really took), needs no interpolation, and
is defined for a single value. It can differ from numpy's default (linear
interpolation between ranks) by at most the gap to a neighbouring value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(values: Iterable[float], p: float) -> float:
    """The nearest-rank `p`-th percentile of `values` (0 ≤ p ≤ 100); 0.0 when there are none."""
    if not 0 <= p <= 100:
        raise ValueError(f"percentile must be between 0 and 100, not {p}")
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = math.ceil(p * len(ordered) / 100)
    return float(ordered[max(rank, 1) - 1])
