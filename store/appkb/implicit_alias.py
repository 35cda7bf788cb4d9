"""Run-local evidence for the implicit-alias contract (docs/protocol.md, run.event).

When `launch_app(name)` fails to resolve, the package names its failure
message offered are kept as evidence for that run only. If the device later
confirms a launch of exactly one of those packages, the failed name may be
learned for it. Evidence lives in memory and is dropped when the run ends:
it never outlives the run and is never persisted.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from store.appkb.entry import normalize_term
from store.appkb.kb import packages_named_in

# Evidence is kept in memory for runs under way; events may name any run id (no run.start is
# required), so both the runs and each run's failed names are bounded: the oldest go first.
MAX_RUNS = 4096
MAX_NAMES_PER_RUN = 64


@dataclass
class _RunEvidence:
    failed: dict[str, tuple[str, set[str]]] = field(default_factory=dict)  # term_norm → (name, packages)
    written: set[str] = field(default_factory=set)


class ImplicitAliasEvidence:
    """Evidence per run id; thread-safe."""

    def __init__(self) -> None:
        self._runs: dict[str, _RunEvidence] = {}
        self._lock = threading.Lock()

    def note_failure(self, run_id: str, name: str, message: str) -> list[str]:
        """Keep the packages named in a failed resolution's message; return them."""
        packages = packages_named_in(message)
        norm = normalize_term(name)
        if not run_id or not norm or not packages:
            return packages
        with self._lock:
            run = self._run(run_id)
            _, known = run.failed.pop(norm, (name, set()))
            run.failed[norm] = (name, known | set(packages))
            while len(run.failed) > MAX_NAMES_PER_RUN:
                del run.failed[next(iter(run.failed))]
        return packages

    def _run(self, run_id: str) -> _RunEvidence:
        """The run's evidence, made when missing; the runs heard of longest ago go past MAX_RUNS (lock held)."""
        run = self._runs.get(run_id)
        if run is None:
            run = self._runs[run_id] = _RunEvidence()
            while len(self._runs) > MAX_RUNS:
                del self._runs[next(iter(self._runs))]
        return run

    def names_for(self, run_id: str, package: str) -> list[str]:
        """Failed names of this run whose evidence names exactly `package`, not yet written."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is None:
                return []
            return [name for norm, (name, pkgs) in run.failed.items() if package in pkgs and norm not in run.written]

    def mark_written(self, run_id: str, name: str) -> None:
        with self._lock:
            self._run(run_id).written.add(normalize_term(name))

    def was_written(self, run_id: str, name: str) -> bool:
        with self._lock:
            run = self._runs.get(run_id)
            return bool(run and normalize_term(name) in run.written)

    def end_run(self, run_id: str) -> None:
        """Forget everything about the run."""
        with self._lock:
            self._runs.pop(run_id, None)

    def active_runs(self) -> list[str]:
        with self._lock:
            return list(self._runs)
