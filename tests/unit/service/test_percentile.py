"""The one percentile (nearest rank) that `jiyi eval` and the bench scripts report."""

from __future__ import annotations

import pytest

from service.evaluation.percentile import percentile


def test_nearest_rank_is_always_a_measured_value() -> None:
    values = [float(v) for v in range(1, 101)]  # 1 … 100
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0  # rank ⌈0.99·100⌉ = 99, not the maximum
    assert percentile(values, 100) == 100.0
    assert percentile(values, 0) == 1.0
    assert percentile(reversed(values), 90) == 90.0  # any order, any iterable


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        ([7.0], 50, 7.0),
        ([7.0], 99, 7.0),
        ([1.0, 2.0, 3.0, 4.0], 50, 2.0),  # ⌈2⌉ = 2: no interpolation to 2.5
        ([1.0, 2.0, 3.0, 4.0, 5.0], 50, 3.0),
        ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], 50, 5.0),
        ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], 99, 10.0),
        ([3.0, 1.0, 2.0], 34, 2.0),
    ],
)
def test_small_samples(values: list[float], p: float, expected: float) -> None:
    assert percentile(values, p) == expected


def test_no_values_and_bad_percentiles() -> None:
    assert percentile([], 99) == 0.0
    with pytest.raises(ValueError, match="between 0 and 100"):
        percentile([1.0], 101)
