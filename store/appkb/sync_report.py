"""What an inventory sync did: a plain record, light to import (the operation declarations name it)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SyncReport:
    device: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    staled: int = 0
    rejected: list[str] = field(default_factory=list)
