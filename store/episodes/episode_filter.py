"""`EpisodeFilter`: which runs a listing keeps (a plain record, importable without the database)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EpisodeFilter:
    """What `list_episodes` keeps; every field narrows, None means any."""

    text: str | None = None
    app: str | None = None
    device: str | None = None
    success: bool | None = None
    since: float | None = None
    until: float | None = None
    revoked: bool | None = None
