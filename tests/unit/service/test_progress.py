"""One progress count over work done in phases: a bar moves on through each phase, never back."""

from __future__ import annotations

from service.memory.progress import phased


def test_phases_add_up_into_one_count_that_never_goes_back() -> None:
    heard: list[tuple[int, int]] = []
    records, indexing = phased(lambda done, total: heard.append((done, total)), 2)
    assert records is not None and indexing is not None
    for done in (0, 50, 120):
        records(done, 120)
    for done in (64, 128, 130):
        indexing(done, 130)  # its size is learned only when it runs
    assert heard == [(0, 120), (50, 120), (120, 120), (184, 250), (248, 250), (250, 250)]


def test_a_phase_that_reports_nothing_adds_nothing_and_no_progress_means_no_callbacks() -> None:
    heard: list[tuple[int, int]] = []
    first, _second, third = phased(lambda done, total: heard.append((done, total)), 3)
    assert first is not None and third is not None
    first(3, 3)
    third(1, 2)  # the second phase had nothing to do (an import that added nothing is not indexed)
    assert heard == [(3, 3), (4, 5)]
    assert phased(None, 2) == [None, None]
