"""The records of the desk interchange format (docs/interchange.md), one TypedDict per kind's line.

An export builds them from the views (`desk_export`, keys in the order written); an import reads them back
after `desk_format.check_record` found each field of its kind, of its type (and no other), so a checked line
*is* its kind's record. `desk_format.FIELDS` holds the same names with the check of each.

A task card's line is the store's `TaskCard` itself (`store/desk/rows.py`): one type for the card the store
reads and the line an export writes (an import reads the checked line into one).
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from store.desk.rows import TaskCard


class InteractionRecord(TypedDict):
    interaction_id: str
    ts: str
    epoch: float
    workday: str
    source: str
    user_text: str
    assistant_text: str
    task_id: str | None


class FiledTurn(TypedDict):
    """An interaction filed under a topic."""

    interaction_id: str
    workday: str
    epoch: float


class TopicSegment(TypedDict):
    """A topic's summary of one workday."""

    workday: str
    summary: str
    updated: str


class TopicRecord(TypedDict):
    topic_id: str
    title: str
    summary: str
    kind: str
    task_ids: list[str]
    created: str
    updated: str
    updated_epoch: float
    first_workday: str
    interactions: list[FiledTurn]
    segments: list[TopicSegment]


class EvidenceRecord(TypedDict):
    """A quotation a fact stands on."""

    source_kind: str  # interaction / task
    source_id: str
    speaker: str  # user / assistant / task
    quote: str
    workday: str
    ts: str
    counts: bool


class FactRecord(TypedDict):
    fact_id: str
    scope: str
    profile_kind: str | None
    project: str | None
    content: str
    status: str
    status_reason: str
    first_workday: str
    created: str
    updated: str
    origin: dict[str, object] | None  # where an imported fact came from, as its importer wrote it
    evidence: list[EvidenceRecord]


class SkillRecord(TypedDict):
    skill_id: str
    name: str
    text: str
    status: str
    source_interaction_id: str | None
    source_quote: str
    created: str
    updated: str
    decided_by: str
    user_request: str
    request_interaction_id: NotRequired[str | None]  # an agent's activation: the user's turn it named


class RevisionRecord(TypedDict):
    """One revision of a bundle's document."""

    revision: int
    content: str
    ts: str
    actor: str


class DocumentRecord(TypedDict):
    path: str
    revisions: list[RevisionRecord]


class BundleRecord(TypedDict):
    bundle_id: str
    kind: str
    key: str
    title: str
    created: str
    updated: str
    documents: list[DocumentRecord]


class LearnedRecord(TypedDict):
    record_id: str
    version: int
    grant_id: str
    kind: str
    content: str
    state: str
    managed: bool
    target: str  # fact:<id> / lesson:<id> / skill:<id>
    provenance: dict[str, object]  # sources, quotations, review and grant, as adoption wrote them
    bytes: int
    expires_at: str
    created: str
    updated: str
    reason: str


DeskRecord = InteractionRecord | TaskCard | TopicRecord | FactRecord | SkillRecord | BundleRecord | LearnedRecord
"""A line of any kind's file."""


class ManifestFile(TypedDict):
    """The manifest's entry for one kind's file (a reader needs only its count and checksum)."""

    kind: NotRequired[str]
    count: int
    sha256: str


class Manifest(TypedDict):
    """`manifest.json`: the format's name and schema version, and each kind's file."""

    format: str
    schema_version: int
    exported_at: NotRequired[str]  # written always; a reader does not need them
    jiyi_version: NotRequired[str]
    files: dict[str, ManifestFile]
