"""The App-KB's one reply on the wire that is not declared beside its operation (`service/ops/appkb.py` holds
the others, with their conversions): what an inventory sync did."""

from __future__ import annotations

from dataclasses import dataclass, field


# No docstring: a class's docstring is its JSON Schema's description, and `jiyi schema` says this one as it was.
@dataclass(frozen=True)
class SyncReport:
    device: str
    added: int = 0  # apps new to the device's list
    updated: int = 0  # apps whose label changed
    unchanged: int = 0
    staled: int = 0  # apps gone from the list, kept as stale
    rejected: list[str] = field(default_factory=list)  # why each refused app was refused
