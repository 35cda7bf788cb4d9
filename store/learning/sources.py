"""The sources learning reads: desk interactions, task cards and phone-agent runs, re-read from Jiyi's own store.

A source is what an extractor may see and a reviewer re-reads: its turns
(who said what, verbatim), its trusted objective when it has one (a
verifier's verdict or a task's result) and a fingerprint of all of it. A
source whose fingerprint changed was revised; a revoked run is retracted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypedDict

from store.core.redaction.json_values import redact_json
from store.core.redaction.redactor import Redactor
from store.desk.models import Interaction
from store.episodes.models import Episode, EpisodeApp, ToolEvent
from store.learning import sql
from store.learning.grant import fingerprint
from store.learning.rows import LearningSource

SOURCE_KINDS = ("interaction", "task", "run")
TASK_OBJECTIVES = ("succeeded", "failed")  # a task card whose result is an objective
RUN_VERDICTS = ("pass", "fail")  # a verifier's verdict is trusted; `skipped` is not an objective
MAX_EVENT_NOTES = 40


class SourceJson(TypedDict):
    """A source as a lease hands it out and the ledger keeps it (`Source.to_dict`)."""

    kind: str
    id: str
    ts: str
    turns: list[dict[str, str]]  # {"role", "text"}
    objective: dict[str, object] | None
    retracted: bool
    fingerprint: str


@dataclass(frozen=True)
class Source:
    """One source as Jiyi reads it now."""

    kind: str
    source_id: str
    turns: list[dict[str, str]]
    objective: dict[str, object] | None  # a run's goal and outcome, a task's result: as their writer gave them
    ts: str
    retracted: bool = False
    apps: list[str] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        return fingerprint({"kind": self.kind, "id": self.source_id, "turns": self.turns, "objective": self.objective})

    def text_of(self, *roles: str) -> list[str]:
        return [t["text"] for t in self.turns if not roles or t["role"] in roles]

    def to_dict(self) -> SourceJson:
        return {
            "kind": self.kind,
            "id": self.source_id,
            "ts": self.ts,
            "turns": self.turns,
            "objective": self.objective,
            "retracted": self.retracted,
            "fingerprint": self.fingerprint,
        }

    def row(self) -> LearningSource:
        """The source as the console shows it (`to_dict`, typed)."""
        return LearningSource(
            kind=self.kind,
            id=self.source_id,
            ts=self.ts,
            turns=self.turns,
            objective=self.objective,
            retracted=self.retracted,
            fingerprint=self.fingerprint,
        )

    def to_stored_dict(self, redactor: Redactor) -> SourceJson:
        """`to_dict` with the turns and the objective redacted: what a lease hands out and keeps in the ledger.

        A run's goal, notes and reason stay verbatim in the episode records only; a copy kept anywhere else
        (a snapshot, a review lease's reply) is redacted like everything else Jiyi files. Quotations are
        still checked against the source as stored: a quotation of the redacted snapshot that avoids the
        markers is verbatim there too, and one holding a secret is refused either way.
        """
        shown = self.to_dict()
        shown["turns"] = [{**turn, "text": redactor.redact(turn["text"])} for turn in self.turns]
        if self.objective is not None:
            shown["objective"] = redact_json(redactor, self.objective)
        return shown


@dataclass(frozen=True)
class _InteractionRow:
    interaction_id: str
    ts: str
    user_text: str
    assistant_text: str


@dataclass(frozen=True)
class _TaskCardRow:
    task_id: str
    ts: str
    title: str
    status: str
    result: str
    interaction_id: str | None


def read(kind: str, source_id: str) -> Source | None:
    """The source as stored now, or None when it no longer exists."""
    db = Interaction._meta.database
    if kind == "interaction":
        row = sql.one_as(
            db,
            _InteractionRow,
            "SELECT interaction_id, ts, user_text, assistant_text FROM desk_interaction WHERE interaction_id = ?",
            [source_id],
        )
        return None if row is None else _interaction(row)
    if kind == "task":
        card = sql.one_as(
            db,
            _TaskCardRow,
            "SELECT task_id, ts, title, status, result, interaction_id FROM desk_task_card WHERE task_id = ?",
            [source_id],
        )
        return None if card is None else _task(db, card)
    if kind == "run":
        episode = Episode.get_or_none(Episode.run_id == source_id)
        return None if episode is None else _run(episode)
    return None


def _interaction(row: _InteractionRow) -> Source:
    turns = []
    if row.user_text:
        turns.append({"role": "user", "text": row.user_text})
    if row.assistant_text:
        turns.append({"role": "assistant", "text": row.assistant_text})
    return Source("interaction", row.interaction_id, turns, None, row.ts)


def _task(db: Any, card: _TaskCardRow) -> Source:
    turns = []
    if card.interaction_id:
        asked = sql.one(db, "SELECT user_text FROM desk_interaction WHERE interaction_id = ?", [card.interaction_id])
        if asked is not None and asked["user_text"]:
            turns.append({"role": "user", "text": asked["user_text"]})
    turns.append({"role": "task", "text": card.title})
    if card.result:
        turns.append({"role": "result", "text": card.result})
    objective: dict[str, object] | None = (
        {"kind": "task_result", "status": card.status, "result": card.result}
        if card.status in TASK_OBJECTIVES
        else None
    )
    return Source("task", card.task_id, turns, objective, card.ts)


def _run(episode: Episode) -> Source:
    turns = [{"role": "goal", "text": episode.goal_text}]
    notes = (
        ToolEvent.select(ToolEvent.tool, ToolEvent.result_class, ToolEvent.note)
        .where(ToolEvent.run_id == episode.run_id)
        .order_by(ToolEvent.step, ToolEvent.seq)
        .limit(MAX_EVENT_NOTES)
    )
    for event in notes:
        text = f"{event.tool} → {event.result_class}" + (f": {event.note}" if event.note else "")
        turns.append({"role": "step", "text": text})
    if episode.reason:
        turns.append({"role": "outcome", "text": episode.reason})
    objective = (
        {"kind": "verifier", "verdict": episode.verifier, "success": bool(episode.success)}
        if episode.verifier in RUN_VERDICTS
        else None
    )
    record = json.loads(episode.record)
    apps = [a.package for a in EpisodeApp.select(EpisodeApp.package).where(EpisodeApp.run_id == episode.run_id)]
    ts = str(record.get("ts_end") or "")
    return Source("run", episode.run_id, turns, objective, ts, retracted=bool(episode.revoked), apps=apps)
