"""The resolver's verdict: candidates ranked by score and trust, and the three-state decision.

A name resolves only on strong, device-fact evidence that clearly beats the
rest (`MARGIN`); the App-KB's trust order (`AUTHORITY`) settles exact ties.
See docs/protocol.md (app.resolve) for what each reason means.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

STRONG = frozenset(
    {
        "exact_alias",
        "exact_label",
        "exact_package",
        "exact_package_segment",
        "registered_containment",
    }
)
SOURCE_PRIOR = {"device": 1.0, "user": 1.0, "registry": 0.95, "learned": 0.9, "alias": 0.9}
DEFAULT_PRIOR = 0.85
AUTHORITY = {
    "user": 0,
    "device": 1,
    "learned": 2,
    "alias": 3,
    "registry": 4,
    "package": 5,
    "embedding": 6,
}
MARGIN = 0.08
UNKNOWN_BELOW = 0.90
MAX_CANDIDATES = 10


@dataclass(frozen=True)
class Candidate:
    """A package the name may mean, and why."""

    package: str
    label: str
    name: str
    source: str
    evidence: str
    route: str
    similarity: float
    prior: float
    score: float
    installed: bool | None
    contained: bool = False  # the candidate's name is a strict part of the query

    @property
    def strong(self) -> bool:
        return self.evidence in STRONG

    def to_dict(self) -> dict[str, object]:
        return {
            "package": self.package,
            "label": self.label,
            "name": self.name,
            "source": self.source,
            "evidence": self.evidence,
            "strong": self.strong,
            "route": self.route,
            "similarity": round(self.similarity, 4),
            "prior": round(self.prior, 4),
            "score": round(self.score, 4),
            "installed": self.installed,
        }


@dataclass(frozen=True)
class Resolution:
    """The decision for one name."""

    query: str
    normalized: str
    state: str  # resolved / ambiguous / unknown
    package: str | None
    reason: str
    candidates: list[Candidate]
    not_installed: list[Candidate] = field(default_factory=list)
    device: str | None = None
    elapsed_ms: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "query": self.query,
            "normalized": self.normalized,
            "state": self.state,
            "package": self.package,
            "reason": self.reason,
            "device": self.device,
            "candidates": [c.to_dict() for c in self.candidates],
            "not_installed": [c.to_dict() for c in self.not_installed],
            "elapsed_ms": round(self.elapsed_ms, 3),
        }


def rank_key(candidate: Candidate) -> tuple[float, int, int, str]:
    return (
        -round(candidate.score, 9),
        0 if candidate.strong else 1,
        AUTHORITY.get(candidate.source, 9),
        candidate.package,
    )


def better(new: Candidate, old: Candidate) -> bool:
    return rank_key(new) < rank_key(old)


def verdict(
    present: list[Candidate], absent: list[Candidate], deny: Callable[[str], bool] | None
) -> tuple[str, str, str | None]:
    """(state, reason, chosen package) from the installed candidates and the best absent ones."""
    state, reason = _decide(present)
    chosen = present[0].package if state == "resolved" else None
    if state == "resolved" and absent and absent[0].score > present[0].score and absent[0].strong:
        # The name says another app more exactly, and that app is not installed.
        state, reason, chosen = "unknown", "not_installed", None
    if chosen and deny is not None and deny(chosen):
        state, reason, chosen = "unknown", "launch_policy", None
    if state != "resolved" and absent and absent[0].strong and (not present or absent[0].score > present[0].score):
        reason = "not_installed"
    return state, reason, chosen


def _decide(ranked: list[Candidate]) -> tuple[str, str]:
    """The reference's decision, with the App-KB's trust order settling exact ties."""
    if not ranked:
        return "unknown", "no_candidates"
    top = ranked[0]
    if not any(c.strong for c in ranked):
        return ("unknown" if top.score < UNKNOWN_BELOW else "ambiguous"), "weak_evidence"
    if not top.strong:
        return "ambiguous", "top_not_strong"
    contenders = [c for c in ranked[1:] if top.score - c.score < MARGIN]
    if contenders and not _outranks(top, contenders):
        return "ambiguous", "low_margin"
    return "resolved", "exact"


def _outranks(top: Candidate, contenders: list[Candidate]) -> bool:
    """Whether an exact match may stand although others score close to it.

    Two cases only: the App-KB's trust order on the same exact name (a user alias
    beats a device label, both beat learned ones); and a contender that matched
    only because its shorter name is part of the query ("中国移动" inside
    "中国移动云盘"), when the top matched the whole query exactly.
    """
    if top.route != "exact" or top.similarity < 1.0:
        return False
    rank = AUTHORITY.get(top.source, 9)
    for other in contenders:
        if other.contained and not other.strong:
            continue
        trusted_tie = top.source in ("user", "device") and other.route == "exact" and other.strong
        if not (trusted_tie and AUTHORITY.get(other.source, 9) > rank):
            return False
    return True
