"""Checks and conversions every desk operation shares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from store.core import clock
from store.core.errors import InvalidInput, SensitiveContent
from store.desk.workday import workday_of

if TYPE_CHECKING:  # a type only: the socket's declarations check ids with this module, without the filter's rules
    from store.core.redaction.redactor import Redactor

# No control characters (C0, DEL, C1), no line or paragraph separators, no lone surrogates
# (they cannot be encoded for SQLite or a file name), no slashes of either kind.
_ID = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff/\\]{1,128}")
# A file or folder name holds 255 bytes; Jiyi adds up to 30 to a bundle file's name
# (`<name>.outside-<time>` for a kept outside edit, `.<name>.<random>` while writing).
NAME_BYTES = 200
TRUNCATED = "…[truncated {n} characters]"


def check_id(value: object, what: str, redactor: Redactor | None = None) -> str:
    """An id: 1–128 characters, no control characters or slashes; never sensitive text (with a `redactor`)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} must be a non-empty string")
    if not _ID.fullmatch(value) or value != value.strip() or value in {".", ".."}:
        raise InvalidInput(
            f"{what} {value[:40]!r} must be 1–128 characters without slashes, backslashes or control characters"
        )
    if redactor is not None and redactor.is_sensitive(value):
        raise SensitiveContent(f"{what} looks sensitive (a number, token or listed word); ids are stored as they are")
    return value


def check_name(value: object, what: str, redactor: Redactor | None = None) -> str:
    """An id that becomes a file or folder name: `check_id`, and at most `NAME_BYTES` bytes in UTF-8."""
    name = check_id(value, what, redactor)
    size = len(name.encode("utf-8"))
    if size > NAME_BYTES:
        raise InvalidInput(
            f"{what} {name[:40]!r}… is {size} bytes in UTF-8; it names a file or folder, so it may be "
            f"at most {NAME_BYTES} bytes (about {NAME_BYTES // 3} Chinese characters)"
        )
    return name


def safe_text(redactor: Redactor, value: object, what: str, max_chars: int) -> tuple[str, bool]:
    """`value` through the safe-text filter and cut to `max_chars`; (text, whether it was cut)."""
    if value is None:
        return "", False
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string")
    text = redactor.redact(value.strip())
    if len(text) <= max_chars:
        return text, False
    cut = len(text) - max_chars
    return text[:max_chars] + TRUNCATED.format(n=cut), True


@dataclass(frozen=True)
class When:
    iso: str
    epoch: float
    workday: str


def when(value: object = None, *, now: datetime | None = None) -> When:
    """A moment from ISO-8601 text or epoch seconds (default: now), with its workday."""
    if value is None:
        moment = now or clock.now()
    elif isinstance(value, bool):
        raise InvalidInput("a time must be ISO-8601 text or epoch seconds")
    elif isinstance(value, int | float):
        moment = datetime.fromtimestamp(float(value), UTC)
    elif isinstance(value, str) and clock.is_iso(value):
        moment = clock.parse_iso(value.strip())
    else:
        raise InvalidInput(f"{str(value)[:40]!r} is not ISO-8601 text or epoch seconds")
    moment = moment.astimezone(UTC)
    return When(moment.isoformat(), moment.timestamp(), workday_of(moment))
