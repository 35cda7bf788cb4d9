"""The owner's learning grant: the `[learning]` section of `config.toml`, validated before the database opens.

Three parts, each fingerprinted on its own: `extraction` (the owner, the
extraction authority, the expiry, the admission and queue bounds, the
owner's policy, the input/output/time bounds, the optional model),
`review` (the review authority and its admissions) and `adoption` (the
adoption authority, the allowed kinds and operations, the record and byte
quotas and the TTL of adopted records). A grant is immutable for its id
(the extraction `authority_id`): a change is a new grant.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any

from store.core import clock
from store.core.errors import InvalidInput

KINDS = ("fact.profile", "fact.project", "fact.environment", "lesson", "procedure", "skill_draft")
OPERATIONS = ("add", "replace", "remove")
DAY = 86_400
MAX_ID_CHARS = 128
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": DAY}
_DURATION = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")


class GrantError(InvalidInput):
    """The `[learning]` section is incomplete, has an unknown key or a value out of its bounds."""


@dataclass(frozen=True)
class ReviewGrant:
    authority_id: str
    admissions: int


@dataclass(frozen=True)
class AdoptionGrant:
    authority_id: str
    kinds: tuple[str, ...]
    operations: tuple[str, ...]
    max_records: int
    max_bytes: int
    ttl: int  # seconds


@dataclass(frozen=True)
class Grant:
    """A validated grant. `id` is the extraction authority id."""

    owner: str
    authority_id: str
    expires_at: str  # ISO-8601, UTC
    max_extractions: int
    max_pending: int
    lookback: int  # seconds
    policy: str
    max_input_bytes: int
    max_output_tokens: int
    timeout: int  # seconds
    model: str | None
    review: ReviewGrant
    adoption: AdoptionGrant

    @property
    def id(self) -> str:
        return self.authority_id

    def parts(self) -> dict[str, dict[str, object]]:
        """The three validated parts, as plain JSON values."""
        whole = asdict(self)
        review, adoption = whole.pop("review"), whole.pop("adoption")
        adoption["kinds"], adoption["operations"] = list(adoption["kinds"]), list(adoption["operations"])
        return {"extraction": whole, "review": review, "adoption": adoption}

    def fingerprints(self) -> dict[str, str]:
        """sha256 of each part's canonical JSON: what Jiyi stores and compares on every open."""
        return {name: fingerprint(part) for name, part in self.parts().items()}

    def expired(self, now: datetime | None = None) -> bool:
        return (now or clock.now()) >= clock.parse_iso(self.expires_at)

    @classmethod
    def from_parts(cls, parts: Mapping[str, Mapping[str, Any]]) -> Grant:
        """Rebuild a grant from `parts()` (as stored with its registration)."""
        review = ReviewGrant(**parts["review"])
        adoption = dict(parts["adoption"])
        adoption["kinds"], adoption["operations"] = tuple(adoption["kinds"]), tuple(adoption["operations"])
        return cls(**parts["extraction"], review=review, adoption=AdoptionGrant(**adoption))


def fingerprint(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


# -- field parsers: each raises ValueError with what it expected -------------------------


def _ident(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("expected a non-empty id")
    text = value.strip()
    if len(text) > MAX_ID_CHARS or any(c.isspace() or ord(c) < 32 for c in text):
        raise ValueError(f"expected an id of at most {MAX_ID_CHARS} characters without spaces")
    return text


def _whole(low: int, high: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"expected a whole number from {low:,} to {high:,}")
        return value

    return parse


def _duration(low: int, high: int, what: str) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError(f"expected {what}")
        if isinstance(value, int):
            seconds = value
        elif isinstance(value, str) and (match := _DURATION.match(value)):
            seconds = int(match.group(1)) * _UNITS[match.group(2) or "s"]
        else:
            raise ValueError(f"expected {what}")
        if not low <= seconds <= high:
            raise ValueError(f"expected {what}")
        return seconds

    return parse


def _moment(value: Any) -> str:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    elif isinstance(value, str) and "T" in value and clock.is_iso(value):
        moment = clock.parse_iso(value.strip())
    else:
        raise ValueError("expected a finite timestamp such as 2026-12-31T00:00:00Z")
    return moment.astimezone(UTC).isoformat()


def _policy(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("expected the owner's learning rules as non-empty text")
    if len(value.encode()) > 8 * 1024:
        raise ValueError("expected at most 8 KiB of text")
    return value.strip()


def _model(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise ValueError("expected a model name")
    return value.strip()


def _subset(options: tuple[str, ...]) -> Callable[[Any], tuple[str, ...]]:
    def parse(value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise ValueError(f"expected a non-empty list of {', '.join(options)}")
        bad = [v for v in value if v not in options]
        if bad:
            raise ValueError(f"{bad[0]!r} is not one of {', '.join(options)}")
        return tuple(o for o in options if o in value)

    return parse


EXTRACTION: dict[str, Callable[[Any], Any]] = {
    "owner": _ident,
    "authority_id": _ident,
    "expires_at": _moment,
    "max_extractions": _whole(1, 10_000),
    "max_pending": _whole(1, 1_000),
    "lookback": _duration(1, 365 * DAY, "a duration from 1s to 365d (seconds, or text such as 90s, 15m, 12h, 7d)"),
    "policy": _policy,
    "max_input_bytes": _whole(4 * 1024, 128 * 1024),
    "max_output_tokens": _whole(1, 8_192),
    "timeout": _duration(1, 300, "a duration from 1s to 300s"),
}
OPTIONAL = {"model": _model}
REVIEW: dict[str, Callable[[Any], Any]] = {"authority_id": _ident, "admissions": _whole(1, 10_000)}
ADOPTION: dict[str, Callable[[Any], Any]] = {
    "authority_id": _ident,
    "kinds": _subset(KINDS),
    "operations": _subset(OPERATIONS),
    "max_records": _whole(1, 10_000),
    "max_bytes": _whole(1, 16 * 1024 * 1024),
    "ttl": _duration(60, 3650 * DAY, "a duration from 60s to 3650d"),
}


def _section(
    raw: Any, fields: Mapping[str, Callable[[Any], Any]], where: str, *, tables: tuple[str, ...] = ()
) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise GrantError(f"{where} must be a table")
    known = set(fields) | set(tables) | (set(OPTIONAL) if where == "learning" else set())
    unknown = sorted(k for k in raw if k not in known)
    if unknown:
        raise GrantError(f"{where}.{unknown[0]}: unknown key (known: {', '.join(sorted(known))})")
    values: dict[str, Any] = {}
    for key, parse in fields.items():
        if key not in raw:
            raise GrantError(f"{where}.{key}: required")
        try:
            values[key] = parse(raw[key])
        except ValueError as exc:
            raise GrantError(f"{where}.{key}: {exc}, got {raw[key]!r}") from None
    return values


def parse_grant(raw: Any, where: str = "learning") -> Grant:
    """Validate a `[learning]` table; refused with the key named (`GrantError`)."""
    values = _section(raw, EXTRACTION, where, tables=("review", "adoption"))
    model = None
    if "model" in raw:
        try:
            model = _model(raw["model"])
        except ValueError as exc:
            raise GrantError(f"{where}.model: {exc}, got {raw['model']!r}") from None
    for table in ("review", "adoption"):
        if table not in raw:
            raise GrantError(f"{where}.{table}: required table")
    review = _section(raw["review"], REVIEW, f"{where}.review")
    adoption = _section(raw["adoption"], ADOPTION, f"{where}.adoption")
    return Grant(**values, model=model, review=ReviewGrant(**review), adoption=AdoptionGrant(**adoption))


def example_section(now: datetime | None = None) -> str:
    """A complete, valid `[learning]` section expiring 30 days from `now` (at that day's end, UTC: the same
    section all day long, so printing it again does not make a different grant), to append to `config.toml`."""
    day = ((now or clock.now()) + timedelta(days=30)).astimezone(UTC).date()
    expires = datetime.combine(day, time(23, 59, 59), UTC)
    return f"""\
# Automatic learning (docs/learning.md). Jiyi checks this section before it opens the database.
[learning]
owner = "owner"                     # who the memory belongs to
authority_id = "learn-{expires:%Y%m%d}"       # this grant's id: change any value below and give a new id
expires_at = {expires:%Y-%m-%dT%H:%M:%SZ}      # the grant stops here (never renewed automatically)
max_extractions = 200               # extraction admissions over the grant's life (1-10,000)
max_pending = 50                    # sources waiting at once (1-1,000); past it the cursors wait
lookback = "7d"                     # how far back a first scan reads (1s-365d)
max_input_bytes = 32768             # a snapshot's bytes (4-128 KiB)
max_output_tokens = 1024            # one model answer (1-8,192 tokens)
timeout = "120s"                    # one extraction or review lease (1-300 s)
policy = \"\"\"
Learn only what I say about myself, my projects and my devices, in my own words.
Learn a lesson only from a run or task whose result was verified.
Never keep passwords, codes, phone numbers or addresses.
\"\"\"
# model = "qwen2.5:7b"              # optional: the model workers should use

[learning.review]
authority_id = "review-{expires:%Y%m%d}"
admissions = 200                    # review admissions (1-10,000)

[learning.adoption]
authority_id = "adopt-{expires:%Y%m%d}"
kinds = ["fact.profile", "fact.project", "fact.environment", "lesson", "procedure", "skill_draft"]
operations = ["add", "replace", "remove"]
max_records = 100                   # adoption mutations (1-10,000)
max_bytes = 65536                   # bytes of adopted content (1 B-16 MiB)
ttl = "90d"                         # adopted records expire after this (60s-3650d)
"""
