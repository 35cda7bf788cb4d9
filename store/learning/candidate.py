"""An extractor's result: `{"operation": "noop"}` or one candidate, checked against the source Jiyi holds.

A candidate names its operation, kind, content and verbatim quotations (and,
to replace or remove, the exact managed record id and version). It cannot set
namespace, trust, TTL, provenance, authority or anything else: those are
Jiyi's. Facts and skill drafts quote the owner's own words (a user turn);
lessons and procedures come only from a source with a trusted objective (a
verifier's verdict or a task's result), never from a reply that looked fine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict

from store.core.errors import InvalidInput, SensitiveContent
from store.core.redaction.redactor import Redactor
from store.learning.grant import KINDS, OPERATIONS, Grant
from store.learning.models import LearningRecord
from store.learning.records import FACT_SCOPES, target_intact
from store.learning.sources import Source

FIELDS = {"operation", "kind", "content", "quotations", "target"}
JIYI_OWNS = {"namespace", "trust", "ttl", "expires_at", "provenance", "authority", "authority_id", "owner", "status"}
MAX_CONTENT = {"fact": 300, "lesson": 800, "procedure": 800, "skill_draft": 4000}
MAX_QUOTATIONS = 8
MAX_QUOTE = 500


class Target(TypedDict):
    """The managed record a candidate updates or removes, at the version the extractor read."""

    id: str
    version: int


@dataclass(frozen=True)
class Candidate:
    operation: str
    kind: str
    content: str
    quotations: list[str]
    target: Target | None

    @property
    def bytes(self) -> int:
        return len(self.content.encode())

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "operation": self.operation,
            "kind": self.kind,
            "content": self.content,
            "quotations": self.quotations,
        }
        if self.target is not None:
            out["target"] = self.target
        return out

    @classmethod
    def from_dict(cls, raw: Mapping[str, object]) -> Candidate:
        """A candidate as `to_dict` kept it (an intent's `candidate`)."""
        quotations, target = raw["quotations"], raw.get("target")
        return cls(
            str(raw["operation"]),
            str(raw["kind"]),
            str(raw["content"]),
            [str(q) for q in quotations] if isinstance(quotations, list) else [],
            Target(id=str(target["id"]), version=int(target["version"])) if isinstance(target, dict) else None,
        )


def parse(raw: object, *, source: Source, feed: str, grant: Grant, redactor: Redactor) -> Candidate | None:
    """The checked candidate, None for an explicit no-op; `InvalidInput` naming what is wrong."""
    if not isinstance(raw, dict):
        raise InvalidInput('result must be an object: {"operation": "noop"} or one candidate')
    owned = sorted(set(raw) & JIYI_OWNS)
    if owned:
        raise InvalidInput(f"result.{owned[0]} cannot be set by a candidate: Jiyi sets it")
    unknown = sorted(set(raw) - FIELDS)
    if unknown:
        raise InvalidInput(f"result has an unknown field {unknown[0]!r} (known: {', '.join(sorted(FIELDS))})")
    operation = raw.get("operation")
    if operation == "noop":
        extra = sorted(set(raw) - {"operation"})
        if extra:
            raise InvalidInput(f"a noop result carries nothing else (got {extra[0]!r})")
        return None
    if operation not in OPERATIONS:
        raise InvalidInput(f"result.operation must be noop or one of {', '.join(OPERATIONS)}")
    if operation not in grant.adoption.operations:
        raise InvalidInput(
            f"result.operation {operation!r} is not granted (granted: {', '.join(grant.adoption.operations)})"
        )
    kind = raw.get("kind")
    if kind not in KINDS:
        raise InvalidInput(f"result.kind must be one of {', '.join(KINDS)}")
    if kind not in grant.adoption.kinds:
        raise InvalidInput(f"result.kind {kind!r} is not granted (granted: {', '.join(grant.adoption.kinds)})")
    content = _content(raw.get("content"), kind, operation, redactor)
    quotations = _quotations(raw.get("quotations"), kind, source, feed)
    for i, quote in enumerate(quotations):
        if redactor.redact(quote) != quote:
            # Quotations are kept as provenance and evidence: what is learned is never sensitive.
            raise SensitiveContent(f"result.quotations[{i}] holds sensitive text (a number, token or listed word)")
    target = _target(raw.get("target"), operation, kind)
    return Candidate(operation, kind, content, quotations, target)


def _content(value: object, kind: str, operation: str, redactor: Redactor) -> str:
    if operation == "remove" and value in (None, ""):
        return ""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("result.content must be non-empty text")
    text = " ".join(value.split()) if kind != "skill_draft" else value.strip()
    limit = MAX_CONTENT[kind.split(".")[0]]
    if len(text) > limit:
        raise InvalidInput(f"result.content is longer than {limit} characters for a {kind}")
    if redactor.is_sensitive(text) or redactor.is_sensitive(value):  # as sent too: a key wrapped over lines
        raise SensitiveContent("result.content holds sensitive text (a number, token or listed word); never learned")
    return text


def _quotations(value: object, kind: str, source: Source, feed: str) -> list[str]:
    if not isinstance(value, list) or not value or len(value) > MAX_QUOTATIONS:
        raise InvalidInput(f"result.quotations must list 1–{MAX_QUOTATIONS} verbatim quotations of the source")
    quotes = []
    for i, quote in enumerate(value):
        if not isinstance(quote, str) or not quote.strip() or len(quote) > MAX_QUOTE:
            raise InvalidInput(f"result.quotations[{i}] must be 1–{MAX_QUOTE} characters of text")
        quotes.append(quote)
    if kind in FACT_SCOPES or kind == "skill_draft":
        if kind == "skill_draft" and source.kind != "interaction":
            raise InvalidInput("a skill_draft comes from the owner's guidance in an interaction")
        owner_words = source.text_of("user")
        for i, quote in enumerate(quotes):
            if not any(quote in text for text in owner_words):
                said_elsewhere = any(quote in text for text in source.text_of())
                raise InvalidInput(
                    f"result.quotations[{i}] "
                    + (
                        "is not the owner's words (facts come only from the owner's own statements)"
                        if said_elsewhere
                        else "does not appear verbatim in a user turn of the source"
                    )
                )
        return quotes
    if feed != "objective" or source.objective is None:
        raise InvalidInput(
            f"a {kind} must bind a trusted objective (a verifier's verdict or a task result); this source has none"
        )
    everything = source.text_of()
    for i, quote in enumerate(quotes):
        if not any(quote in text for text in everything):
            raise InvalidInput(f"result.quotations[{i}] does not appear verbatim in the source")
    return quotes


def _target(value: object, operation: str, kind: str) -> Target | None:
    if operation == "add":
        if value is not None:
            raise InvalidInput("result.target belongs to replace and remove only")
        return None
    if kind == "skill_draft":
        raise InvalidInput("a skill draft is decided by a person on the skills page; learning only adds drafts")
    if not isinstance(value, dict) or set(value) != {"id", "version"}:
        raise InvalidInput(f"result.target must be {{id, version}} of a managed record to {operation}")
    record_id, version = value["id"], value["version"]
    if not isinstance(record_id, str) or isinstance(version, bool) or not isinstance(version, int):
        raise InvalidInput("result.target.id must be text and result.target.version a whole number")
    check_target(record_id, version, kind)
    return {"id": record_id, "version": version}


def check_target(record_id: str, version: int, kind: str) -> LearningRecord:
    """The managed record `record_id` at exactly `version`, of `kind`; `InvalidInput` otherwise."""
    row = LearningRecord.get_or_none(LearningRecord.record_id == record_id)
    if row is None:
        raise InvalidInput(f"result.target: no adopted record {record_id!r}")
    if not row.managed or not target_intact(row):
        raise InvalidInput(f"result.target: record {record_id} is the owner's now (edited or changed by a person)")
    if row.version != version:
        raise InvalidInput(f"result.target: record {record_id} is at version {row.version}, not {version}")
    if row.kind != kind:
        raise InvalidInput(f"result.target: record {record_id} is a {row.kind}, not a {kind}")
    return row
