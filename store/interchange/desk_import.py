"""Write a checked desk export (`desk_format.read_export`) into a home as the projection's own events.

Every record becomes the events that would have made it (`interaction_remembered`, `task_completed`,
`topic_saved` + `interactions_assigned` + `segment_saved`, `fact_added` + `fact_evidence_added`,
`skill_drafted` + `skill_status_changed`, `bundle_created` + `bundle_document_put` per revision, and the
learning domain's `record_imported`), stamped with the record's own times, with actor `import`: the log
stays the truth and `jiyi rebuild` gives the same views. The records are prepared without the write lock
(read, checked, filtered, compared with the home and with what this import already staged) and published
in short slices (`staged_import`): the home holds the whole import or none of it, and other clients'
writes go on meanwhile.

Importing is idempotent: a record the home already holds (by its id, with the same content) is
*skipped*; one the home holds with other content, or whose id or names Jiyi refuses, is *refused* with
the reason, and the home's is kept. Every text passes the redaction filter, as any write does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from store.core.clock import parse_iso
from store.core.database import Store
from store.core.errors import InvalidInput
from store.core.redaction.json_values import redact_json, redact_json_text
from store.core.redaction.redactor import Redactor
from store.desk import fact_terms
from store.desk import facts as desk_facts
from store.desk import interactions as desk_interactions
from store.desk import skills as desk_skills
from store.desk import topics as desk_topics
from store.desk.bundle_names import check_path, split_bundle_id
from store.desk.common import check_id, safe_text
from store.desk.projection import DOMAIN as DESK
from store.desk.rows import TaskCard
from store.interchange.desk_format import KINDS, Export, file_name
from store.interchange.desk_records import (
    BundleRecord,
    DeskRecord,
    FactRecord,
    InteractionRecord,
    LearnedRecord,
    SkillRecord,
    TopicRecord,
)
from store.interchange.staged_import import Committed, Group, StagedEvent, Staging, publish
from store.learning.grant import KINDS as LEARNED_KINDS
from store.learning.projection import DOMAIN as LEARNING
from store.learning.states import RECORD_STATES
from store.learning.states import TARGET_KINDS as TARGETS

ACTOR = "import"
MAX_REASONS = 20  # reasons kept per kind (the count goes on)
Progress = Callable[[int, int], None]


@dataclass
class KindReport:
    """What became of one kind's records."""

    added: int = 0
    skipped: int = 0  # already in the home, the same
    refused: int = 0
    reasons: list[str] = field(default_factory=list)

    def refuse(self, where: str, why: str) -> None:
        self.refused += 1
        if len(self.reasons) < MAX_REASONS:
            self.reasons.append(f"{where}: {why}")


def _digest(values: tuple[object, ...]) -> str:
    """What two sets of values are compared by (held for every record an import stages, so kept small)."""
    text = json.dumps(list(values), ensure_ascii=False, default=str)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


class Importer:
    """Prepares records as groups of events (see the module docstring): each kind's method checks one record
    whole, compares it with the home and with what this import staged before it, and leaves its events in
    `events`; `held` then answers for it as the home will once it is published."""

    def __init__(self, store: Store, redactor: Redactor) -> None:
        self.store = store
        self.redactor = redactor
        self.db = store.db
        # The documents of a bundle this home holds with other content: refused one by one, the rest written.
        self.refused_parts: list[str] = []
        self.events: list[StagedEvent] = []  # the record's events, as prepared
        self.staged: dict[tuple[str, str], str] = {}  # (what, key) → its digest: what this import stages
        self.holding: dict[tuple[str, str], str] = {}  # the same for the record being prepared

    def begin(self) -> None:
        self.events, self.holding, self.refused_parts = [], {}, []

    def keep(self) -> None:
        """The record's events are staged: the records after it see it as held."""
        self.staged.update(self.holding)

    def _one(self, query: str, *args: object) -> tuple[object, ...] | None:
        row = self.db.execute_sql(query, list(args)).fetchone()
        return tuple(row) if row is not None else None

    def _held(self, what: str, key: str, query: str, *args: object) -> str | None:
        """The digest of what this import staged under (`what`, `key`), else of the home's row `query` finds;
        None when neither holds it."""
        mine = self.staged.get((what, key))
        if mine is not None:
            return mine
        row = self._one(query, *args)
        return None if row is None else _digest(row)

    def _hold(self, what: str, key: str, *values: object) -> None:
        self.holding[(what, key)] = _digest(values)

    def _text(self, value: str, what: str, limit: int) -> str:
        return safe_text(self.redactor, value, what, limit)[0]

    def _short(self, value: str) -> str:
        return self.redactor.redact(value.strip())[:64]

    def _append(self, event_type: str, payload: Mapping[str, object], ts: str, domain: str = DESK) -> None:
        self.events.append((domain, event_type, dict(payload), ts))

    # -- each kind ----------------------------------------------------------------------

    def interaction(self, r: InteractionRecord) -> str:
        """`added`, `skipped` or raises `InvalidInput` (the reason it is refused)."""
        check_id(r["interaction_id"], "interaction_id", self.redactor)
        if r["task_id"] is not None:
            check_id(r["task_id"], "task_id", self.redactor)
        old = self._held(
            "interaction",
            r["interaction_id"],
            "SELECT user_text, assistant_text FROM desk_interaction WHERE interaction_id = ?",
            r["interaction_id"],
        )
        if old is not None and old == _digest((r["user_text"].strip(), r["assistant_text"].strip())):
            return "skipped"  # the home's text, which passed the filter when it was stored: nothing to filter
        user = self._text(r["user_text"], "user_text", desk_interactions.MAX_TURN_CHARS)
        reply = self._text(r["assistant_text"], "assistant_text", desk_interactions.MAX_TURN_CHARS)
        if not user and not reply:
            raise InvalidInput("an interaction needs user_text or assistant_text")
        if old is not None:
            if old != _digest((user, reply)):
                raise InvalidInput("this home holds the interaction with other text (kept; turns are never rewritten)")
            return "skipped"
        self._hold("interaction", r["interaction_id"], user, reply)
        self._append(
            "interaction_remembered",
            {
                "interaction_id": r["interaction_id"],
                "ts": r["ts"],
                "epoch": _epoch(r["ts"], r["epoch"]),
                "workday": r["workday"],
                "source": self._short(r["source"]),
                "user_text": user,
                "assistant_text": reply,
                "task_id": r["task_id"],
            },
            r["ts"],
        )
        return "added"

    def task_card(self, r: TaskCard) -> str:
        check_id(r.task_id, "task_id", self.redactor)
        for name, value in (("schedule_id", r.schedule_id), ("run_id", r.run_id), ("interaction_id", r.interaction_id)):
            if value is not None:
                check_id(value, name, self.redactor)
        if r.status not in desk_interactions.TASK_STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(desk_interactions.TASK_STATUSES)}")
        payload = {
            "task_id": r.task_id,
            "title": self._text(r.title, "title", 200),
            "status": r.status,
            "result": self._text(r.result, "result", desk_interactions.MAX_RESULT_CHARS),
            "schedule_id": r.schedule_id,
            "run_id": r.run_id,
            "interaction_id": r.interaction_id,
            "source": self._short(r.source),
        }
        if not payload["title"]:
            raise InvalidInput("a task card needs a title")
        old = self._held(
            "task", r.task_id, "SELECT title, status, result FROM desk_task_card WHERE task_id = ?", r.task_id
        )
        if old is not None:
            if old != _digest((payload["title"], payload["status"], payload["result"])):
                raise InvalidInput("this home holds the task card with another title, status or result (kept)")
            return "skipped"
        self._hold("task", r.task_id, payload["title"], payload["status"], payload["result"])
        stamp = {"ts": r.ts, "epoch": _epoch(r.ts, r.epoch), "workday": r.workday}
        self._append("task_completed", {**payload, **stamp}, r.ts)
        return "added"

    def topic(self, r: TopicRecord) -> str:
        check_id(r["topic_id"], "topic_id", self.redactor)
        if self._held("topic", r["topic_id"], "SELECT 1 FROM desk_topic WHERE topic_id = ?", r["topic_id"]):
            return "skipped"
        if r["kind"] not in desk_topics.TOPIC_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(desk_topics.TOPIC_KINDS)}")
        for task_id in r["task_ids"]:
            check_id(task_id, "a topic's task id", self.redactor)
        filed = [check_id(i["interaction_id"], "a topic's interaction_id", self.redactor) for i in r["interactions"]]
        twice = next((i for n, i in enumerate(filed) if i in filed[:n]), None)
        if twice is not None:
            raise InvalidInput(f"the topic lists interaction {twice} twice; an interaction is filed once")
        for turn in filed:  # filed by a topic this import staged before
            other = self.staged.get(("filed", turn))
            if other is not None:
                raise InvalidInput(f"interaction {turn} is filed under topic {other} in this export (kept)")
        for start in range(0, len(filed), 500):
            part = filed[start : start + 500]
            marks = ",".join("?" * len(part))
            taken = self._one(
                f"SELECT interaction_id, topic_id FROM desk_topic_interaction WHERE interaction_id IN ({marks})",
                *part,
            )
            if taken is not None:
                raise InvalidInput(f"interaction {taken[0]} is filed under topic {taken[1]} in this home (kept)")
        self._hold("topic", r["topic_id"])
        for turn in filed:
            self.holding[("filed", turn)] = r["topic_id"]
        payload: dict[str, object] = {
            "topic_id": r["topic_id"],
            "title": self._text(r["title"], "title", desk_topics.MAX_TITLE),
            "summary": self._text(r["summary"], "summary", desk_topics.MAX_SUMMARY),
            "kind": r["kind"],
            "task_ids": r["task_ids"],
            "epoch": r["updated_epoch"],
            "workday": r["first_workday"],
        }
        self._append("topic_saved", payload, r["created"])
        if r["updated"] != r["created"]:
            self._append("topic_saved", payload, r["updated"])  # the topic was saved again later: its time
        items = [[i["interaction_id"], i["workday"], i["epoch"]] for i in r["interactions"]]
        for start in range(0, len(items), 500):
            self._append(
                "interactions_assigned", {"topic_id": r["topic_id"], "items": items[start : start + 500]}, r["updated"]
            )
        for segment in r["segments"]:
            summary = self._text(segment["summary"], "a segment's summary", desk_topics.MAX_SEGMENT)
            self._append(
                "segment_saved",
                {"topic_id": r["topic_id"], "workday": segment["workday"], "summary": summary},
                segment["updated"],
            )
        return "added"

    def fact(self, r: FactRecord) -> str:
        check_id(r["fact_id"], "fact_id", self.redactor)
        desk_facts.check_terms(self.redactor, r["scope"], r["content"], r["profile_kind"], r["project"], "fact")
        if r["status"] not in fact_terms.STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(fact_terms.STATUSES)}")
        if self._held("fact", r["fact_id"], "SELECT 1 FROM desk_fact WHERE fact_id = ?", r["fact_id"]):
            return "skipped"
        content = " ".join(self.redactor.redact(r["content"]).split())
        if not content:
            raise InvalidInput("a fact needs content")
        if not r["evidence"]:
            raise InvalidInput("a fact needs at least one evidence")
        for e in r["evidence"]:
            check_id(e["source_id"], "an evidence's source_id", self.redactor)
            if e["source_kind"] not in ("interaction", "task") or e["speaker"] not in ("user", "assistant", "task"):
                raise InvalidInput(
                    "an evidence's source_kind is interaction or task, its speaker user, assistant or task"
                )
        payload: dict[str, object] = {
            "fact_id": r["fact_id"],
            "scope": r["scope"],
            "profile_kind": r["profile_kind"],
            "project": r["project"],
            "content": content,
            "status": r["status"],
            "workday": r["first_workday"],
            "reason": self._text(r["status_reason"], "status_reason", 500),
        }
        if r["origin"] is not None:
            payload["origin"] = self.redactor_json(r["origin"])
        self._hold("fact", r["fact_id"])
        self._append("fact_added", payload, r["created"])
        last = r["created"]
        for e in r["evidence"]:
            self._append(
                "fact_evidence_added",
                {
                    "fact_id": r["fact_id"],
                    "source_kind": e["source_kind"],
                    "source_id": e["source_id"],
                    "speaker": e["speaker"],
                    "quote": self._text(e["quote"], "an evidence quote", desk_facts.MAX_QUOTE_CHARS),
                    "workday": e["workday"],
                    "counts": e["counts"],
                },
                e["ts"],
            )
            last = max(last, e["ts"])
        if r["updated"] > last:  # its state was last set after its evidence: that time, that state
            self._append(
                "fact_status_changed",
                {"fact_id": r["fact_id"], "status": r["status"], "reason": payload["reason"]},
                r["updated"],
            )
        return "added"

    def redactor_json(self, value: dict[str, object]) -> dict[str, object]:
        redacted = redact_json(self.redactor, value)
        return redacted if isinstance(redacted, dict) else {}

    def skill(self, r: SkillRecord) -> str:
        check_id(r["skill_id"], "skill_id", self.redactor)
        if r["status"] not in desk_skills.STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(desk_skills.STATUSES)}")
        if r["source_interaction_id"] is not None:
            check_id(r["source_interaction_id"], "source_interaction_id", self.redactor)
        if r["decided_by"]:  # who decided its status: an actor's name, stored as it is
            check_id(r["decided_by"], "decided_by", self.redactor)
        asked_in = r.get("request_interaction_id")
        if asked_in is not None:
            check_id(asked_in, "request_interaction_id", self.redactor)
        if self._held("skill", r["skill_id"], "SELECT 1 FROM desk_skill WHERE skill_id = ?", r["skill_id"]):
            return "skipped"
        self._hold("skill", r["skill_id"])
        self._append(
            "skill_drafted",
            {
                "skill_id": r["skill_id"],
                "name": self._text(r["name"], "name", desk_skills.MAX_NAME),
                "text": self._text(r["text"], "text", desk_skills.MAX_TEXT),
                "source_interaction_id": r["source_interaction_id"],
                "quote": self._text(r["source_quote"], "source_quote", desk_skills.MAX_TEXT),
            },
            r["created"],
        )
        if r["status"] != "draft":
            payload = {"skill_id": r["skill_id"], "status": r["status"], "from": "draft", "decided_by": r["decided_by"]}
            if r["user_request"]:
                payload["user_request"] = self._text(r["user_request"], "user_request", desk_skills.MAX_REQUEST)
            if asked_in is not None:
                payload["interaction_id"] = asked_in
            self._append("skill_status_changed", payload, r["updated"])
        return "added"

    def bundle(self, r: BundleRecord) -> str:
        kind, key = split_bundle_id(r["bundle_id"])
        if (kind, key) != (r["kind"], r["key"]):
            raise InvalidInput(f"kind and key do not match the bundle id {r['bundle_id']!r}")
        if self.redactor.is_sensitive(key):
            raise InvalidInput(
                "the bundle key looks sensitive (a number, token or listed word); names are not redacted"
            )
        documents = []
        for doc in r["documents"]:
            path = check_path(doc["path"])
            if path.startswith("runs/") and self.redactor.is_sensitive(path.split("/")[1]):
                raise InvalidInput(f"the run id in {path!r} looks sensitive; names are not redacted")
            numbers = [v["revision"] for v in doc["revisions"]]
            if not numbers or numbers != list(range(numbers[0], numbers[0] + len(numbers))) or numbers[0] < 1:
                raise InvalidInput(f"{path}: revisions must be consecutive numbers from 1 or more")
            documents.append((path, doc["revisions"]))
        exists = (
            self._held("bundle", r["bundle_id"], "SELECT 1 FROM desk_bundle WHERE bundle_id = ?", r["bundle_id"])
            is not None
        )
        added = 0
        refused = []
        if not exists:
            self._hold("bundle", r["bundle_id"])
            title = self._text(r["title"], "title", 200)
            payload = {"bundle_id": r["bundle_id"], "kind": kind, "key": key, "title": title}
            self._append("bundle_created", payload, r["created"])
        puts: list[tuple[str, int, str, int, str, str]] = []  # (ts, order, path, revision, content, writer)
        for path, revisions in documents:
            document = f"{r['bundle_id']}\x1f{path}"
            current = self._held(
                "document",
                document,
                "SELECT revision, content FROM desk_bundle_document WHERE bundle_id = ? AND path = ?",
                r["bundle_id"],
                path,
            )
            last = revisions[-1]
            if current is not None:  # its revisions were renumbered from 1 when written: the last is len(revisions)
                if current != _digest((len(revisions), self._document(path, last["content"]))):
                    refused.append(f"{path} is in this home with other content (kept)")
                continue
            self._hold("document", document, len(revisions), self._document(path, last["content"]))
            for revision in revisions:
                number = revision["revision"] - revisions[0]["revision"] + 1
                content = self._document(path, revision["content"])
                puts.append((revision["ts"], len(puts), path, number, content, self._short(revision["actor"])))
            added += 1
        # In the order they were written (across documents), so the bundle's `updated` is its latest write.
        for ts, _order, path, number, content, writer in sorted(puts):
            put: dict[str, object] = {"bundle_id": r["bundle_id"], "path": path, "revision": number, "content": content}
            if writer:
                put["written_by"] = writer
            self._append("bundle_document_put", put, ts)
        self.refused_parts.extend(refused)
        return "added" if added or not exists else "skipped"

    def _document(self, path: str, content: str) -> str:
        return redact_json_text(self.redactor, content) if path == "state.json" else self.redactor.redact(content)

    def learned(self, r: LearnedRecord) -> str:
        check_id(r["record_id"], "record_id", self.redactor)
        check_id(r["grant_id"], "grant_id", self.redactor)
        if r["kind"] not in LEARNED_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(LEARNED_KINDS)}")
        if r["state"] not in RECORD_STATES:
            raise InvalidInput(f"state must be one of {', '.join(RECORD_STATES)}")
        where, _, target = r["target"].partition(":")
        if where not in TARGETS:
            raise InvalidInput(f"target must be {' or '.join(f'{t}:<id>' for t in TARGETS)}")
        check_id(target, "the target's id", self.redactor)
        if self._held("learned", r["record_id"], "SELECT 1 FROM learning_record WHERE record_id = ?", r["record_id"]):
            return "skipped"
        self._hold("learned", r["record_id"])
        self._append(
            "record_imported",
            {
                "record_id": r["record_id"],
                "version": r["version"],
                "grant_id": r["grant_id"],
                "kind": r["kind"],
                "content": self.redactor.redact(r["content"]),
                "state": r["state"],
                "managed": r["managed"],
                "target_ref": r["target"],
                "provenance": self.redactor_json(r["provenance"]),
                "bytes": r["bytes"],
                "expires_at": r["expires_at"],
                "created": r["created"],
                "updated": r["updated"],
                "reason": self.redactor.redact(r["reason"]),
            },
            r["updated"],
            domain=LEARNING,
        )
        return "added"


def _epoch(ts: str, epoch: float) -> float:
    """The record's epoch, unless its `ts` says another time (a hand-edited line): then the `ts`'s.
    (Within a millisecond they agree: `ts` keeps microseconds, an epoch may hold more.)"""
    said = parse_iso(ts).timestamp()
    return float(epoch) if abs(said - float(epoch)) < 0.001 else said


def _write(importer: Importer, kind: str, record: DeskRecord) -> str:
    """Write one record of `kind` (a line of that kind's file: `read_export` checked it is that kind's)."""
    match kind:
        case "interactions":
            return importer.interaction(cast(InteractionRecord, record))
        case "task_cards":
            return importer.task_card(cast(TaskCard, record))
        case "topics":
            return importer.topic(cast(TopicRecord, record))
        case "facts":
            return importer.fact(cast(FactRecord, record))
        case "skills":
            return importer.skill(cast(SkillRecord, record))
        case "bundles":
            return importer.bundle(cast(BundleRecord, record))
        case "learned":
            return importer.learned(cast(LearnedRecord, record))
    raise ValueError(f"not a kind of the desk format: {kind!r}")


def prepare(
    store: Store, redactor: Redactor, export: Export, staging: Staging, progress: Progress | None = None
) -> dict[str, KindReport]:
    """Stage every record of `export` that is to be written (`staged_import`); what will be added, what is
    skipped and refused, per kind. Nothing is written to the home; raises `InvalidInput` when a file is no
    longer what `read_export` checked."""
    importer = Importer(store, redactor)
    reports = {kind: KindReport() for kind in KINDS}
    total = export.total
    for done, (kind, number, record) in enumerate(export.records(), start=1):
        report = reports[kind]
        where = f"{file_name(kind)} line {number}"
        importer.begin()
        # Each kind checks a record whole before its first event: a refused record stages nothing.
        try:
            outcome = _write(importer, kind, record)
        except InvalidInput as exc:
            report.refuse(where, str(exc))
            outcome = ""
        for why in importer.refused_parts:
            report.refuse(where, why)
        if outcome == "added":
            report.added += 1
            importer.keep()
            if importer.events:
                staging.add(Group(kind, where, importer.events))
        elif outcome == "skipped":
            report.skipped += 1
        if progress is not None and (done % 200 == 0 or done == total):
            progress(done, total)
    return reports


def import_export(
    store: Store,
    redactor: Redactor,
    export: Export,
    *,
    folder: Path,
    lock: AbstractContextManager[object],
    committed: Committed,
    progress: Progress | None = None,
    publishing: Progress | None = None,
) -> dict[str, KindReport]:
    """Prepare `export` into a staging file of `folder` (`progress` hears the records read), then publish it
    (`publishing` hears the records written); what was added, skipped and refused, per kind. A record the home
    refuses as it is published (another client wrote the same id meanwhile) is refused with that reason."""
    with Staging(folder, str(export.root)) as staging:
        reports = prepare(store, redactor, export, staging, progress)
    if not staging.groups:
        staging.discard()
        return reports

    def refused(kind: str, where: str, why: str) -> None:
        reports[kind].added -= 1
        reports[kind].refuse(where, why)

    publish(store, staging, lock=lock, actor=ACTOR, refused=refused, committed=committed, progress=publishing)
    return reports
