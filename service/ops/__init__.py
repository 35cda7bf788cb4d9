"""Every socket operation, declared once (`service/ops/declare.py` says what a declaration holds and
what is derived from it), by domain. `DECLARED` holds them all by name.

Imports nothing of the socket's server or client side: both are derived from here.
"""

from __future__ import annotations

from typing import Any

from service.ops import appkb, desk, episode_recall, interchange, learning, lessons, maintenance, runs, status, upkeep
from service.ops.declare import Operation

MODULES = (status, appkb, runs, episode_recall, lessons, desk, maintenance, learning, upkeep, interchange)
"""The domains whose operations are declared (the others are not yet: `docs/architecture.md`)."""

DECLARED: dict[str, Operation[Any, Any]] = {op.name: op for module in MODULES for op in module.OPERATIONS}

ALIASES: dict[str, str] = {alias: op.name for op in DECLARED.values() for alias in op.aliases}
"""Each alias (`Operation.aliases`) with the name of the operation it is another name for."""

_taken = set(DECLARED) & set(ALIASES)
if _taken or len(ALIASES) != sum(len(op.aliases) for op in DECLARED.values()):
    raise ValueError(f"an alias is another operation's name or two operations' alias: {sorted(_taken)}")


def declared(name: str) -> Operation[Any, Any] | None:
    """The operation served under `name`, its own or an alias (None: none is)."""
    return DECLARED.get(ALIASES.get(name, name))
