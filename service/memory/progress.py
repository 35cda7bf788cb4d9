"""One progress count over work done in phases (records read, then written, then the desk index filled)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

Progress = Callable[[int, int], None]


class PhaseProgress:
    """A progress callback that also hears which phase the count is in and that phase's own count (a job's:
    clients show "writing 3/4 memories" rather than the sum of every phase)."""

    def __init__(self, overall: Progress, phase: Callable[[str, int, int], None]) -> None:
        self._overall = overall
        self._phase = phase

    def __call__(self, done: int, total: int) -> None:
        self._overall(done, total)

    def in_phase(self, name: str, done: int, total: int) -> None:
        self._phase(name, done, total)


def phased(progress: Progress | None, phases: int | Sequence[str]) -> list[Progress | None]:
    """One callback per phase that reports to `progress` as one count: each phase's `(done, total)` is added to
    the totals the earlier phases reported last, so a bar (a job's `done`/`total`) moves on through every phase
    instead of starting again at zero. The phases must run one after the other; each size is learned as it
    runs (the desk index's lag after an import is not known before). Named phases are also told to a
    `PhaseProgress` with their own count. None for each when `progress` is None."""
    names = [f"phase {n + 1}" for n in range(phases)] if isinstance(phases, int) else list(phases)
    if progress is None:
        return [None] * len(names)
    totals = [0] * len(names)

    def phase(number: int) -> Progress:
        def heard(done: int, total: int) -> None:
            totals[number] = total
            before = sum(totals[:number])
            if isinstance(progress, PhaseProgress) and not isinstance(phases, int):
                progress.in_phase(names[number], done, total)
            progress(before + done, before + total)

        return heard

    return [phase(n) for n in range(len(names))]
