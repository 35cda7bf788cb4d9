"""Correcting wrong learned aliases from what runs showed (docs/cli.md, Dream; docs/protocol.md, run.event).

Evidence: `tool_observed` App-KB events that `run.event` records for
`launch_app` and `back` — the step, whether it succeeded, the spoken term,
the package, and only the configured word that marked a wrong launch (never
the model's note).

The signature, per run, in step order: a successful launch of A with a term;
within a step gap of at most 2, the first successful `back` or launch of
another package whose note carried a marker word; then the next successful
launch of B ≠ A. Its fingerprint (run, normalized term, A, B and the three
steps) is handled once. No change when a global user alias exists for the
term, when learned entries exist but none points to A, or when the one
learned entry already points to B. Otherwise the term's global learned entries
are replaced by one learned entry for B (0.9, one success), as an
`alias_overwritten` event.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from store.appkb.entry import AppKbEntry, normalize_term
from store.appkb.kb import entries_for_term
from store.appkb.projection import DOMAIN
from store.core import clock
from store.core.database import Store

STEP_GAP = 2


@dataclass(frozen=True)
class Signature:
    run_id: str
    term: str
    old_package: str
    new_package: str
    steps: tuple[int, int, int]
    marker: str

    @property
    def fingerprint(self) -> str:
        parts = [self.run_id, normalize_term(self.term), self.old_package, self.new_package, *map(str, self.steps)]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class Correction:
    """What a signature does (or would do, in a dry run), or why it does nothing."""

    signature: Signature
    action: str  # "overwrite", or the reason for none: handled / user_alias / not_learned_for_old / already_new
    removed: list[AppKbEntry]
    written: AppKbEntry | None

    def to_dict(self) -> dict[str, Any]:
        s = self.signature
        return {
            "run_id": s.run_id,
            "term": s.term,
            "old_package": s.old_package,
            "new_package": s.new_package,
            "steps": list(s.steps),
            "marker": s.marker,
            "fingerprint": s.fingerprint,
            "action": self.action,
            "removed": [e.to_dict() for e in self.removed],
            "written": self.written.to_dict() if self.written else None,
        }


def record_observation(
    store: Store,
    *,
    run_id: str,
    step: int,
    tool: str,
    success: bool,
    term: str | None,
    package: str | None,
    marker: str | None,
    actor: str,
) -> dict[str, object]:
    """Append one `tool_observed` evidence event (the reference's shape; evidence only, no view change)."""
    payload: dict[str, object] = {
        "run_id": run_id,
        "step": max(0, step),
        "tool": tool,
        "success": success,
        "ts": clock.iso_now(),
    }
    if term:
        payload["term"] = term
    if package:
        payload["package"] = package
    if marker:
        payload["note_marker"] = marker
    with store.atomic():
        store.append(DOMAIN, "tool_observed", payload, actor=actor)
    return payload


def find_signatures(store: Store) -> list[Signature]:
    """Every correction signature in the stored evidence, run by run."""
    runs: dict[str, list[Mapping[str, object]]] = defaultdict(list)
    for event in store.events(DOMAIN, types=["tool_observed"]):
        p = event.payload
        if isinstance(p.get("run_id"), str) and isinstance(p.get("step"), int):
            runs[p["run_id"]].append(p)
    return signatures_in(runs)


@dataclass(frozen=True)
class _Observed:
    """A `tool_observed` payload as the signature reads it (a field it lacks, or of another type: None)."""

    step: int
    tool: str | None
    success: bool
    term: str | None
    package: str | None
    marker: str | None


def _observed(payload: Mapping[str, object]) -> _Observed | None:
    def text(key: str) -> str | None:
        value = payload.get(key)
        return value if isinstance(value, str) and value else None

    step = payload.get("step")
    if not isinstance(step, int):
        return None
    success = bool(payload.get("success"))
    return _Observed(step, text("tool"), success, text("term"), text("package"), text("note_marker"))


def signatures_in(runs: Mapping[str, Sequence[Mapping[str, object]]]) -> list[Signature]:
    """The signatures in the given runs' evidence (`tool_observed` payloads)."""
    found = []
    for run_id, payloads in runs.items():
        events = sorted((e for e in map(_observed, payloads) if e is not None), key=lambda e: e.step)
        for i, first in enumerate(events):
            if not (first.tool == "launch_app" and first.success and first.term and first.package):
                continue
            old = first.package
            mark = None  # the index of the exit that marked the launch wrong
            for j in range(i + 1, len(events)):
                e = events[j]
                if e.step - first.step > STEP_GAP:
                    break
                exit_ = e.tool == "back" or (e.tool == "launch_app" and e.package not in (None, old))
                if e.success and e.marker and exit_:
                    mark = j
                    break
            if mark is None:
                continue
            marker = events[mark].marker
            for later in events[mark + 1 :]:
                if later.tool == "launch_app" and later.success and later.package is not None and later.package != old:
                    steps = (first.step, events[mark].step, later.step)
                    found.append(Signature(run_id, first.term, old, later.package, steps, marker or ""))
                    break
    return found


def correct(
    store: Store, *, dry_run: bool, actor: str = "system", signatures: list[Signature] | None = None
) -> list[Correction]:
    """Apply (or, with `dry_run`, only list) the corrections of `signatures` (default: all the evidence).

    A fingerprint already handled is skipped, so a second pass changes nothing.
    """
    handled = {e.payload.get("signature_fingerprint") for e in store.events(DOMAIN, types=["alias_overwritten"])}
    out: list[Correction] = []
    # A term's learned entries as the pass has left them so far: a dry run lists what the real pass would do,
    # where a later signature of an overwritten term finds the new entry, not the old ones it replaced.
    overwritten: dict[str, list[AppKbEntry]] = {}
    with store.atomic():
        for signature in find_signatures(store) if signatures is None else signatures:
            if signature.fingerprint in handled:
                out.append(Correction(signature, "handled", [], None))
                continue
            same = [e for e in entries_for_term(store, signature.term) if e.scope == "global"]
            learned = overwritten.get(normalize_term(signature.term), [e for e in same if e.kind == "learned"])
            if any(e.kind == "user" for e in same):
                out.append(Correction(signature, "user_alias", [], None))
                continue
            if learned and not any(e.package == signature.old_package for e in learned):
                out.append(Correction(signature, "not_learned_for_old", [], None))
                continue
            if len(learned) == 1 and learned[0].package == signature.new_package and not learned[0].stale:
                out.append(Correction(signature, "already_new", [], None))
                continue
            now = clock.iso_now()
            first_seen = min((e.first_seen for e in learned), key=clock.parse_iso, default=now)
            entry = AppKbEntry(
                signature.term,
                signature.new_package,
                signature.new_package,
                "learned",
                "global",
                0.9,
                1,
                first_seen,
                now,
                last_success=now,
            )
            out.append(Correction(signature, "overwrite", learned, entry))
            handled.add(signature.fingerprint)
            overwritten[normalize_term(signature.term)] = [entry]
            if dry_run:
                continue
            store.append(
                DOMAIN,
                "alias_overwritten",
                {
                    "entry": entry.to_dict(),
                    "old_package": signature.old_package,
                    "old_packages": sorted({e.package for e in learned}),
                    "new_package": signature.new_package,
                    "evidence_run_id": signature.run_id,
                    "signature_fingerprint": signature.fingerprint,
                    "note_marker": signature.marker,
                    "ts": now,
                },
                actor=actor,
            )
    return out
