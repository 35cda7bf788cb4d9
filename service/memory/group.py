"""Group commit: several independent writes in one write transaction, each answered only after it commits.

One transaction takes the write lock once (on a shared PostgreSQL store, the
advisory lock every host's writers take turns on) and commits once for all
of them, so the lock is held for the writes' own statements and not for a
BEGIN, a lock, the views' bookkeeping, a notice and a COMMIT each. The writes
run one after the other in the order given, so each sees the ones before it
(an idempotency key repeated inside a group is still a repeat).

What a write may do to join a group (the socket methods marked `grouped`):
write the store only through `Store.append` inside `Store.atomic()`, and
have no other effect than publishing its changes. Then:

- a write that fails before appending anything (a refused input, a
  conflict) gets its own error and the others go on in the same transaction;
- a write that fails after appending something gets its own error, the
  whole transaction is rolled back, and the others are run again in a new
  one (nothing of theirs was acknowledged, and running them again is what
  the contract above makes safe); all of the failed write is undone, even
  a block of it that had finished (alone, that block would have committed);
- when the commit itself fails (the server went away), every write that had
  succeeded gets that error: none of them is acknowledged.

Changes are published, and outcomes returned, only after the commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from service.memory.parts import Parts
from store.core.errors import EnvironmentProblem, JiyiError


@dataclass(frozen=True)
class Outcome:
    """What one write of a group came to: its result, or the exception that refused it."""

    value: Any = None
    error: BaseException | None = None


class _RollBack(Exception):
    """A write failed after appending: the group's transaction must not commit."""


def run_group(parts: Parts, calls: Sequence[Callable[[], Any]]) -> list[Outcome]:
    """Run `calls` as one write transaction (see the module's docstring); their outcomes, in order."""
    settled: dict[int, Outcome] = {}
    todo = list(range(len(calls)))
    careful = False  # savepoints around each write's own block (after one caught its own half-write)
    while todo:
        done: dict[int, Outcome] = {}
        parts.hold_changes()
        committed = False
        try:
            with parts.writes, parts.store.atomic():
                for index in todo:
                    done[index], verdict = _run_one(parts, calls[index], careful)
                    if verdict == "failed":
                        settled[index] = done[index]
                        raise _RollBack
                    if verdict == "broken":
                        careful = True
                        raise _RollBack
            committed = True
        except _RollBack:
            todo = [i for i in todo if i not in settled]
            continue
        except Exception as exc:  # BEGIN or COMMIT failed: nothing of this transaction is acknowledged
            for index in todo:
                failed = done.get(index)
                settled[index] = failed if failed is not None and failed.error is not None else Outcome(error=exc)
            todo = []
        finally:
            parts.release_changes(publish=committed)
        if committed:
            settled.update(done)
            todo = []
    return [settled[i] for i in range(len(calls))]


def _run_one(parts: Parts, call: Callable[[], Any], careful: bool) -> tuple[Outcome, str]:
    """Run one write inside the group's transaction: its outcome, and what the group must do.

    "ok": go on; "failed": this write failed and may have left something
    behind (or the database refused a statement): roll back, settle it, run
    the others again; "broken": it succeeded but caught a failure of its own
    block after that block appended: roll back and run again with savepoints.
    """
    part = parts.store.part(fast=not careful)
    try:
        with part:
            value = call()
    except Exception as exc:
        refused = isinstance(exc, JiyiError) and not isinstance(exc, EnvironmentProblem)
        refused = refused and not parts.store.transaction_failed()
        return Outcome(error=exc), "ok" if refused and not part.wrote else "failed"
    return Outcome(value=value), "broken" if part.broken else "ok"
