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
            run = self._runs.setdefault(run_id, _RunEvidence())
            _, known = run.failed.get(norm, (name, set()))
            run.failed[norm] = (name, known | set(packages))
        return packages

    def names_for(self, run_id: str, package: str) -> list[str]:
        """Failed names of this run whose evidence names exactly `package`, not yet written."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is None:
                return []
            return [name for norm, (name, pkgs) in run.failed.items() if package in pkgs and norm not in run.written]

    def mark_written(self, run_id: str, name: str) -> None:
        with self._lock:
            self._runs.setdefault(run_id, _RunEvidence()).written.add(normalize_term(name))

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
