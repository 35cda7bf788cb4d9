"""The App-KB entry: its shape and validation; a term's identity is `store.core.names.normalize_term`."""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, replace
from typing import Any

from store.core import clock
from store.core.errors import InvalidInput
from store.core.names import normalize_term as normalize_term  # re-exported for the App-KB's modules

KINDS = ("device", "alias", "learned", "user")
ALIAS_KINDS = frozenset({"learned", "user"})
PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)+$")

EntryKey = tuple[str, str, str, str]


def is_package_name(value: str) -> bool:
    """Tell whether `value` has the shape of an Android package name."""
    return bool(PACKAGE_RE.fullmatch((value or "").strip()))


def device_scope(serial: str) -> str:
    return f"device:{serial}"


@dataclass(frozen=True)
class AppKbEntry:
    """One row of the App-KB, in the reference's shape."""

    term: str
    label: str
    package: str
    kind: str
    scope: str
    confidence: float
    success_count: int
    first_seen: str
    last_seen: str
    stale: bool = False
    last_success: str | None = None

    @property
    def key(self) -> EntryKey:
        """Storage identity: (term, package, kind, scope)."""
        return (self.term, self.package, self.kind, self.scope)

    @property
    def term_norm(self) -> str:
        return normalize_term(self.term)

    def to_dict(self) -> dict[str, Any]:
        """The reference's JSON shape (`last_success` only when set)."""
        data = asdict(self)
        if data["last_success"] is None:
            del data["last_success"]
        return data

    def with_(self, **changes: Any) -> AppKbEntry:
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: Any, *, now: str | None = None) -> AppKbEntry:
        """Validate and copy a mapping into an entry; raise `InvalidInput` naming the bad field."""
        if not isinstance(data, dict):
            raise InvalidInput("entry must be an object")
        text = {}
        for name in ("term", "label", "package", "kind", "scope"):
            value = data.get(name)
            if not isinstance(value, str) or not value.strip():
                raise InvalidInput(f"entry.{name} must be a non-empty string")
            text[name] = value.strip()
        if text["kind"] not in KINDS:
            raise InvalidInput(f"entry.kind must be one of {', '.join(KINDS)}, not {text['kind']!r}")
        scope = text["scope"]
        if scope != "global" and not (scope.startswith("device:") and scope[7:].strip()):
            raise InvalidInput(f"entry.scope must be 'global' or 'device:<serial>', not {scope!r}")
        confidence = data.get("confidence", 0.0)
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            raise InvalidInput("entry.confidence must be a number")
        if not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0:
            raise InvalidInput("entry.confidence must be between 0 and 1")
        successes = data.get("success_count", 0)
        if isinstance(successes, bool) or not isinstance(successes, int) or successes < 0:
            raise InvalidInput("entry.success_count must be a whole number >= 0")
        stale = data.get("stale", False)
        if not isinstance(stale, bool):
            raise InvalidInput("entry.stale must be true or false")
        stamp = now or clock.iso_now()
        seen = {}
        for name in ("first_seen", "last_seen"):
            value = data.get(name)
            value = stamp if value is None else value
            if not clock.is_iso(value):
                raise InvalidInput(f"entry.{name} must be an ISO-8601 time")
            seen[name] = str(value).strip()
        last_success = data.get("last_success")
        if last_success is not None:
            if not clock.is_iso(last_success):
                raise InvalidInput("entry.last_success must be an ISO-8601 time")
            last_success = str(last_success).strip()
        return cls(
            term=text["term"],
            label=text["label"],
            package=text["package"],
            kind=text["kind"],
            scope=scope,
            confidence=float(confidence),
            success_count=successes,
            first_seen=seen["first_seen"],
            last_seen=seen["last_seen"],
            stale=stale,
            last_success=last_success,
        )


def sort_key(entry: AppKbEntry) -> tuple[str, str, str, str]:
    """The reference's stable order: scope, kind, normalized term, package."""
    return (entry.scope, entry.kind, entry.term_norm, entry.package)


def parse_assignment(text: str) -> tuple[str, str]:
    """Split `名称=包名` into its two halves, with a clear error when malformed."""
    if not isinstance(text, str) or "=" not in text:
        raise InvalidInput(f"expected 名称=包名 (name=package), got {text!r}")
    name, _, package = text.rpartition("=")
    if not name.strip():
        raise InvalidInput(f"the name before '=' is empty in {text!r}")
    if not package.strip():
        raise InvalidInput(f"the package after '=' is empty in {text!r}")
    return name.strip(), package.strip()
