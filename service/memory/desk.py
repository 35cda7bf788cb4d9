"""The desktop-assistant memory (seed 002) as part of the `Memory` facade.

A part of `Memory`: interactions and task cards, recall, transition hints, and the consolidating
agent's records (the operations of `service/ops/desk.py` but bundles). Its neighbours hold the rest
of seed 002: the maintenance loop, topics and workdays (`maintenance.py`), facts (`facts.py`),
skills (`skills.py`) and bundles (`bundles.py`). Jiyi never calls a model here: the lower agent
classifies and summarizes, Jiyi checks and stores.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import msgspec

from service.memory.bundles import BundleService
from service.memory.desk_index import LAGGING, DeskIndexer
from service.memory.parts import Parts, check_actor
from service.ops import desk as desk_ops
from service.ops.perform import pages, performs, prepares
from service.wire.desk import (
    CoreFact,
    RecalledBundle,
    RecalledCard,
    RecalledTopic,
    RecalledTurn,
    RecentWorkday,
    RelatedCard,
    RelatedFact,
    RelevantSkill,
    TaskCard,
    TopicTurn,
)
from service.wire.recall import DeskRecall, Retrieval
from service.wire.results import ConsolidationRecorded, InteractionRemembered, TaskCompleted
from service.wire.row import all_of, of
from store.core.errors import EnvironmentProblem, InvalidInput
from store.core.redaction.json_values import redact_json
from store.desk import bundles, facts, hybrid, interactions, retrieval, topics
from store.desk.common import when
from store.desk.projection import DOMAIN as DESK
from store.desk.workday import is_workday


def _no_index() -> tuple[Any, Any]:
    raise EnvironmentProblem("no vector index was configured for the desk")


CONSOLIDATION_KINDS = ("activity", "started", "finished", "failed", "note", "workday_review")


class DeskService:
    """Seed 002's operations; see the module docstring."""

    def __init__(
        self, parts: Parts, bundles: BundleService, open_index: Callable[[], tuple[Any, Any]] | None = None
    ) -> None:
        self.parts = parts
        # The desk index (vectors behind the writes; `Memory` hands in how to open the vector index and embedder).
        self.index = DeskIndexer(parts, open_index or _no_index)
        self.config, self.store, self.redactor = parts.config, parts.store, parts.redactor
        self.bundles = bundles  # a scheduled task's run is filed into its bundle

    def _desk_changed(self) -> None:
        self.parts.changed(DESK)

    # -- interactions and task cards -----------------------------------------------------

    def remember_interaction(
        self,
        interaction_id: str,
        *,
        user_text: str | None = None,
        assistant_text: str | None = None,
        source: str | None = None,
        task_id: str | None = None,
        ts: str | float | None = None,
        actor: str = "agent",
    ) -> InteractionRemembered:
        """Keep one completed turn (idempotent by `interaction_id`)."""
        return self.prepare_interaction(
            interaction_id,
            user_text=user_text,
            assistant_text=assistant_text,
            source=source,
            task_id=task_id,
            ts=ts,
            actor=actor,
        )()

    @prepares(desk_ops.REMEMBER)
    def prepare_interaction(
        self,
        interaction_id: str,
        *,
        user_text: str | None = None,
        assistant_text: str | None = None,
        source: str | None = None,
        task_id: str | None = None,
        ts: str | float | None = None,
        actor: str = "agent",
    ) -> Callable[[], InteractionRemembered]:
        """`remember_interaction` in two steps: checked and filtered now (refused here when it must be), and
        the returned call writes it. A host prepares turns while another group of writes holds the write lock."""
        check_actor(actor)
        turn = interactions.prepare_turn(
            self.redactor,
            interaction_id=interaction_id,
            user_text=user_text,
            assistant_text=assistant_text,
            source=source,
            task_id=task_id,
            at=when(ts),
            actor=actor,
        )

        def write() -> InteractionRemembered:
            with self.parts.writes:
                result = interactions.write_turn(self.store, turn)
            if result.created:
                self._desk_changed()
            return {
                "interaction_id": result.interaction_id,
                "created": result.created,
                "workday": result.workday,
                "truncated": result.truncated,
            }

        return write

    @performs(desk_ops.TASK_COMPLETE)
    def complete_task(
        self,
        task_id: str,
        *,
        title: str,
        status: str,
        result: str | None = None,
        schedule_id: str | None = None,
        run_id: str | None = None,
        interaction_id: str | None = None,
        source: str | None = None,
        ts: str | float | None = None,
        actor: str = "agent",
    ) -> TaskCompleted:
        """Save a finished task's card; a scheduled task's run is filed into its bundle in the same commit."""
        check_actor(actor)
        pending: bundles.Pending = {}
        with self.parts.writes:
            with self.store.atomic():
                card, changed = interactions.complete_task(
                    self.store,
                    self.redactor,
                    task_id=task_id,
                    title=title,
                    status=status,
                    result=result,
                    schedule_id=schedule_id,
                    run_id=run_id,
                    interaction_id=interaction_id,
                    source=source,
                    at=when(ts),
                    actor=actor,
                )
                if changed and card.schedule_id:
                    pending = bundles.record_run(self.store, card)
            bundle = bundles.bundle_id_of("schedule", card.schedule_id) if card.schedule_id else None
            if pending and bundle is not None:
                self.bundles.mirror_committed(bundle, pending)
        if changed:
            self._desk_changed()
        # The card as the reply's object (`TaskCompleted.card`): the wire's card, its fields in its order.
        return {
            "card": msgspec.structs.asdict(of(TaskCard, card)),
            "changed": changed,
            "bundle_id": bundle,
            "bundle_paths": sorted(pending),
        }

    @pages(desk_ops.TASK_LIST)
    def list_tasks(
        self, *, status: str | None = None, schedule_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[dict[str, Any]]:
        if status is not None and status not in interactions.TASK_STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(interactions.TASK_STATUSES)}")
        found = interactions.list_tasks(self.store, status=status, schedule_id=schedule_id, limit=limit, offset=offset)
        return [msgspec.structs.asdict(card) for card in all_of(TaskCard, found)]  # objects (`TaskPage`)

    def get_interaction(self, interaction_id: str) -> dict[str, Any]:
        return msgspec.structs.asdict(of(TopicTurn, interactions.get_interaction(self.store, interaction_id)))

    # -- reading for agents ------------------------------------------------------------------

    @performs(desk_ops.RECALL)
    def memory_recall(self, query: str, *, limit: int = 8) -> DeskRecall:
        """Related and recent turns, task cards, bundles, workdays, topics, facts and active skills.

        Each related item carries `score` (how plainly it is related, on a fixed scale) and `signals` (the fused
        value that orders the answer, its full-text rank and BM25,
        its dense rank and similarity); `retrieval` says how the answer was found and `degraded` why dense
        retrieval took no part (None when it did), see docs/desk-memory.md.
        """
        if not isinstance(query, str):
            raise InvalidInput("query must be text")
        started = time.perf_counter()
        found, how = self.recalled(query, limit)
        return DeskRecall(
            query=found.query,
            task_cards=all_of(RecalledCard, found.task_cards),
            interactions=all_of(RecalledTurn, found.interactions),
            bundles=all_of(RecalledBundle, found.bundles),
            recent_workdays=all_of(RecentWorkday, found.recent_workdays),
            related_topics=all_of(RecalledTopic, found.related_topics),
            core_facts=all_of(CoreFact, found.core_facts),
            related_facts=all_of(RelatedFact, found.related_facts),
            relevant_skills=all_of(RelevantSkill, found.relevant_skills),
            retrieval=how,
            degraded=how.degraded,
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
        )

    def recalled(self, query: str, limit: int) -> tuple[retrieval.Recalled, Retrieval]:
        """The store's recall of `query` by words and meaning (`retrieval.recall` with the desk index's dense
        searcher), and how it went: `mode`, `degraded`, `index_lag`. What `memory.recall` answers and
        `context.prepare` packs."""
        dense, how = self._dense(query, limit)
        found = retrieval.recall(self.store, query, retrieval.RecallLimits(limit, self.config.core_facts), dense)
        return found, self._settled(dense, how)

    def _dense(self, query: str, limit: int | None = None) -> tuple[Any, Retrieval]:
        """The query's searcher over the desk index (None: full text alone) and how recall went about it; with
        `limit`, each kind's nearest are asked for as soon as the query's vector is known (as many as `hybrid`
        reads for that limit)."""
        k = hybrid.dense_pool(limit) if limit is not None else 0
        dense, why = self.index.dense(query, k) if query.strip() else (None, None)
        lag = self.index.lag()
        if why is None and lag > LAGGING:
            why = f"the desk index lags: {lag} items not yet embedded are found by their words only"
        return dense, Retrieval(mode="hybrid" if dense is not None else "full_text", degraded=why, index_lag=lag)

    def _settled(self, dense: Any, how: Retrieval) -> Retrieval:
        """`how` once recall ran: the query is embedded while the full text is read, so only then is it known
        whether embedding it failed (full text answered alone)."""
        failed = self.index.failed(dense)
        return how if failed is None else msgspec.structs.replace(how, mode="full_text", degraded=failed)

    @performs(desk_ops.TRANSITION)
    def assess_transition(
        self, text: str, *, current_task_id: str | None = None, current_topic_id: str | None = None
    ) -> dict[str, Any]:
        """Hint whether `text` continues the current task or topic (never decides merging)."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("text must be non-empty")
        dense, how = self._dense(text)
        result = retrieval.assess_transition(
            self.store, text, current_task_id=current_task_id, current_topic_id=current_topic_id, dense=dense
        )
        # The related rows as the wire's, then objects (`to_builtins`: a field left UNSET is left out).
        result["related_topics"] = msgspec.to_builtins(all_of(RecalledTopic, result["related_topics"]))
        result["related_tasks"] = msgspec.to_builtins(all_of(RelatedCard, result["related_tasks"]))
        result["degraded"] = self._settled(dense, how).degraded
        return result

    # -- the consolidating agent's records ---------------------------------------------------

    @performs(desk_ops.CONSOLIDATION)
    def record_consolidation(
        self,
        kind: str,
        *,
        workday: str | None = None,
        summary: str | None = None,
        detail: dict[str, Any] | None = None,
        actor: str = "agent",
    ) -> ConsolidationRecorded:
        """Record what the consolidating agent did (observable); `workday_review` also runs the daily review."""
        check_actor(actor)
        if kind not in CONSOLIDATION_KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(CONSOLIDATION_KINDS)}")
        if workday is not None and not is_workday(workday):
            raise InvalidInput("workday must be YYYY-MM-DD")
        if kind == "workday_review" and workday is None:
            raise InvalidInput("a workday_review names its workday")
        if detail is not None and not isinstance(detail, dict):
            raise InvalidInput("detail must be an object")
        detail = redact_json(self.redactor, detail) if detail else None
        text = self.redactor.redact((summary or "").strip())[:600]
        at = when()
        with self.parts.writes, self.store.atomic():
            deactivated: list[str] = []
            if kind == "workday_review":
                assert workday is not None
                deactivated = facts.review(self.store, workday, actor=actor)
                self.store.append(
                    DESK,
                    "workday_reviewed",
                    {
                        "epoch": at.epoch,
                        "workday": workday,
                        "summary": text,
                        "detail": {**(detail or {}), "deactivated": deactivated},
                    },
                    actor=actor,
                )
            else:
                self.store.append(
                    DESK,
                    "consolidation_recorded",
                    {"epoch": at.epoch, "kind": kind, "workday": workday, "summary": text, "detail": detail or {}},
                    actor=actor,
                )
        self._desk_changed()
        return {"kind": kind, "workday": workday, "ts": at.iso, "deactivated_facts": deactivated}

    def desk_counts(self) -> dict[str, int]:
        """Interactions, task cards, topics, the maintenance backlog, the bundle events the view refused, and
        `index_lag`: items not yet embedded in the desk index."""
        return {
            **topics.counts(self.store),
            "bundle_events_refused": bundles.count_refused(),
            "index_lag": self.index.lag(),
        }
