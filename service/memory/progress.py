"""One progress count over work done in phases (records written, then the desk index filled)."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, int], None]


def phased(progress: Progress | None, phases: int) -> list[Progress | None]:
    """`phases` callbacks that report to `progress` as one count: each phase's `(done, total)` is added to the
    totals the earlier phases reported last, so a bar (a job's `done`/`total`) moves on through every phase
    instead of starting again at zero. The phases must run one after the other; each size is learned as it
    runs (the desk index's lag after an import is not known before). None for each when `progress` is None."""
    if progress is None:
        return [None] * phases
    totals = [0] * phases

    def phase(number: int) -> Progress:
        def heard(done: int, total: int) -> None:
            totals[number] = total
            before = sum(totals[:number])
            progress(before + done, before + total)

        return heard

    return [phase(n) for n in range(phases)]
