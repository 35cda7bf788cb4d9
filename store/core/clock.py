"""Time as the store writes it: aware UTC, ISO-8601 text."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """Return the current time, aware, in UTC."""
    return datetime.now(UTC)


def iso_now() -> str:
    """Return the current time as ISO-8601 text in UTC."""
    return now().isoformat()


def parse_iso(value: str) -> datetime:
    """Parse ISO-8601 text (a trailing Z accepted); naive values are taken as UTC."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def is_iso(value: object) -> bool:
    """Tell whether `value` is ISO-8601 text."""
    if not isinstance(value, str) or not value.strip():
        return False
    try:
        parse_iso(value.strip())
    except ValueError:
        return False
    return True
