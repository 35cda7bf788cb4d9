"""The desktop-assistant memory (seed 002) as part of the `Memory` facade.

A service of `Memory`: interactions and task cards, recall, transition hints,
maintenance (status, leased batches, atomic commits), topics,
facts, skills and bundles. Jiyi never calls a model here: the lower agent
classifies and summarizes, Jiyi checks and stores.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec

from service.memory.bundle_mirror import BundleMirror
from service.memory.desk_index import LAGGING, DeskIndexer
from service.memory.parts import Parts, check_actor
from service.memory.recall_rows import DeskRecall, Retrieval
from service.memory.results import (
    ConsolidationRecorded,
    DocumentWritten,
    InteractionRemembered,
    MaintenancePlan,
    MaintenanceStatus,
    TaskCompleted,
)
from service.memory.rows import (
    Bundle,
    BundleDetail,
    ConsolidationEntry,
    Fact,
    Skill,
    Topic,
    TopicDetail,
    Workday,
)
from service.ops import desk as desk_ops
from service.ops import maintenance as maintenance_ops
from service.ops.perform import lists, pages, performs, prepares
from store.core import clock
from store.core.errors import EnvironmentProblem, InvalidInput
from store.core.redaction.json_values import redact_json
from store.desk import (
    bundle_names,
    bundles,
    fact_terms,
    facts,
    hybrid,
    interactions,
    leases,
    retrieval,
    skills,
    topics,
)
from store.desk.bundle_files import BundleFiles
from store.desk.common import when
from store.desk.projection import DOMAIN as DESK
from store.desk.rows import RecentWorkday
from store.desk.workday import is_workday, previous_workday, workday_of


def _no_index() -> tuple[Any, Any]:
    raise EnvironmentProblem("no vector index was configured for the desk")


CONSOLIDATION_KINDS = ("activity", "started", "finished", "failed", "note", "workday_review")


class DeskService:
    """Seed 002's operations; see the module docstring."""

    def __init__(self, parts: Parts, open_index: Callable[[], tuple[Any, Any]] | None = None) -> None:
        self.parts = parts
        # The desk index (vectors behind the writes; `Memory` hands in how to open the vector index and embedder).
        self.index = DeskIndexer(parts, open_index or _no_index)
        self.config, self.store, self.redactor = parts.config, parts.store, parts.redactor
        self.bundle_files = BundleFiles(parts.config.bundles_path)
        self.mirror = BundleMirror(self.store, self.bundle_files, parts.writes)

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
                report = bundles.mirror(self.bundle_files, bundle, pending)
                failed = {path for _bundle, path in report.not_written}
                self.mirror.mirrored(bundle, list(pending), report)
                self.mirror.wrote(bundle, {path: text for path, (text, _old) in pending.items() if path not in failed})
        if changed:
            self._desk_changed()
        # The card as the reply's object (`TaskCompleted.card`); its fields and order are the row's.
        return {
            "card": msgspec.structs.asdict(card),
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
        return [msgspec.structs.asdict(card) for card in found]  # `task.list` answers objects (`TaskPage`)

    def get_interaction(self, interaction_id: str) -> dict[str, Any]:
        return msgspec.structs.asdict(interactions.get_interaction(self.store, interaction_id))

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
            task_cards=found.task_cards,
            interactions=found.interactions,
            bundles=found.bundles,
            recent_workdays=found.recent_workdays,
            related_topics=found.related_topics,
            core_facts=found.core_facts,
            related_facts=found.related_facts,
            relevant_skills=found.relevant_skills,
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
        result["degraded"] = self._settled(dense, how).degraded
        return result

    # -- maintenance ---------------------------------------------------------------------------

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

    @performs(maintenance_ops.STATUS)
    def maintenance_status(self) -> MaintenanceStatus:
        """Backlog, idle time, leases, and whether the previous workday still needs its review."""
        now = clock.now()
        today = workday_of(now)
        yesterday = previous_workday(today)
        last = topics.last_activity(self.store)
        idle = now.timestamp() - last if last else None
        idle_enough = idle is None or idle >= self.config.idle_minutes * 60
        backlog = topics.backlog(self.store)
        oldest = topics.unarchived(self.store, 1)
        return {
            "now": now.isoformat(),
            "workday": today,
            "backlog": backlog,
            "oldest_unarchived": oldest[0].ts if oldest else None,
            "last_activity": datetime.fromtimestamp(last, UTC).isoformat() if last else None,
            "idle_seconds": round(idle, 1) if idle is not None else None,
            "idle_threshold_seconds": self.config.idle_minutes * 60,
            "should_consolidate": backlog > 0 and idle_enough,
            "previous_workday": yesterday,
            "previous_workday_needs_review": topics.needs_review(self.store, yesterday),
            "leases": [
                {
                    "batch_id": lease.batch_id,
                    "interactions": len(lease.rows),
                    "expires_in_seconds": round(lease.expires - time.time(), 1),
                }
                for lease in leases.live(self.store)
            ],
        }

    @performs(maintenance_ops.PLAN)
    def maintenance_plan(self, *, limit: int = 50, lease_seconds: int | None = None) -> MaintenancePlan:
        """Lease the oldest unfiled interactions to a planner; an expired lease returns them to the backlog."""
        if not 1 <= limit <= topics.MAX_BATCH:
            raise InvalidInput(f"limit must be between 1 and {topics.MAX_BATCH}")
        seconds = lease_seconds or self.config.lease_seconds
        if self.store.budget is not None:
            # A lease lives in memory, but its commit would be refused: tell the planner before it does the work.
            self.store.budget.check()
        lease, rows = leases.take(self.store, limit, seconds)
        if lease is None:
            return {
                "batch_id": None,
                "interactions": [],
                "lease_expires_in": 0,
                "open_topics": [],
                "backlog": topics.backlog(self.store),
            }
        return {
            "batch_id": lease.batch_id,
            "lease_expires_in": seconds,
            # `to_builtins`, not `asdict`: a field a row leaves UNSET is left out (as before rows were typed).
            "interactions": [msgspec.to_builtins(interactions.turn_row(r)) for r in rows],
            "open_topics": [msgspec.to_builtins(t) for t in topics.recent_topics(self.store, 20)],
            "backlog": topics.backlog(self.store),
        }

    def maintenance_commit(self, request: dict[str, Any], *, actor: str = "agent") -> dict[str, Any]:
        """File a batch into topics with segments, facts and skill drafts, atomically; exactly once per interaction."""
        check_actor(actor)
        if not isinstance(request, dict):
            raise InvalidInput("the commit must be an object")
        batch_id = request.get("batch_id")
        if batch_id is not None and not isinstance(batch_id, str):
            raise InvalidInput("batch_id must be a string")
        lease = leases.find(self.store, batch_id) if batch_id is not None else None
        with self.parts.writes:
            result = topics.commit(
                self.store,
                self.redactor,
                request,
                at=when(),
                actor=actor,
                batch=lease.interaction_ids if lease else None,
            )
        if batch_id is not None:
            leases.drop(self.store, batch_id)
        self._desk_changed()
        result["lease"] = "held" if lease else ("expired_or_unknown" if batch_id else "none")
        return result

    # -- topics and workdays ---------------------------------------------------------------------

    @performs(maintenance_ops.TOPIC_GET)
    def get_topic(self, topic_id: str, *, limit: int = 50, offset: int = 0) -> TopicDetail:
        return topics.get_topic(self.store, topic_id, limit=limit, offset=offset)

    def list_topics(self, *, text: str | None = None, limit: int = 100, offset: int = 0) -> list[Topic]:
        return topics.list_topics(self.store, text=text, limit=limit, offset=offset)

    def recent_workdays(self, count: int = topics.OVERVIEW_WORKDAYS) -> list[RecentWorkday]:
        return topics.recent_workdays(self.store, count)

    def workday_topics(self, workday: str) -> list[Topic]:
        """The topics active on `workday` (those with a segment that day)."""
        if not is_workday(workday):
            raise InvalidInput("workday must be YYYY-MM-DD")
        return topics.workday_topics(self.store, workday)

    @pages(maintenance_ops.WORKDAY_LIST)
    def list_workdays(self, *, limit: int = 30, offset: int = 0) -> list[Workday]:
        return topics.workdays(self.store, limit=limit, offset=offset)

    @lists(maintenance_ops.CONSOLIDATION_LOG)
    def consolidation_log(self, limit: int = 50) -> list[ConsolidationEntry]:
        """What consolidation did, newest first (commits, reviews, agent reports)."""
        return topics.consolidation_log(self.store, limit)

    # -- facts -------------------------------------------------------------------------------------

    @pages(maintenance_ops.FACT_LIST)
    def list_facts(
        self,
        *,
        scope: str | None = None,
        status: str | None = None,
        text: str | None = None,
        limit: int = 200,
        offset: int = 0,
    ) -> list[Fact]:
        if scope is not None and scope not in fact_terms.SCOPES:
            raise InvalidInput(f"scope must be one of {', '.join(fact_terms.SCOPES)}")
        if status is not None and status not in fact_terms.STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(fact_terms.STATUSES)}")
        return facts.list_facts(self.store, scope=scope, status=status, text=text, limit=limit, offset=offset)

    def get_fact(self, fact_id: str) -> Fact:
        return facts.get_fact(self.store, fact_id)

    def set_fact_status(self, fact_id: str, status: str, *, reason: str = "", actor: str = "user") -> Fact:
        """Confirm (active) or deactivate (inactive) a fact by hand; the reason is kept redacted."""
        check_actor(actor)
        with self.parts.writes:
            result = facts.set_status(self.store, fact_id, status, self.redactor.redact(reason), actor=actor)
        self._desk_changed()
        return result

    # -- skills --------------------------------------------------------------------------------------

    def list_skills(self, status: str | None = None, *, limit: int = 200, offset: int = 0) -> list[Skill]:
        if status is not None and status not in skills.STATUSES:
            raise InvalidInput(f"status must be one of {', '.join(skills.STATUSES)}")
        return skills.list_skills(self.store, status, limit, offset)

    @performs(maintenance_ops.SKILL_GET)
    def get_skill(self, skill_id: str) -> Skill:
        return skills.get_skill(self.store, skill_id)

    @performs(maintenance_ops.SKILL_SET_STATUS)
    def set_skill_status(
        self,
        skill_id: str,
        status: str,
        *,
        user_request: str | None = None,
        interaction_id: str | None = None,
        actor: str = "user",
    ) -> Skill:
        """Approve, reject, disable or re-draft a skill (the person's decision). An agent may only activate a
        draft the user asked for in their latest turn: `interaction_id` names it, `user_request` quotes them."""
        check_actor(actor)
        with self.parts.writes:
            result = skills.set_status(
                self.store,
                skill_id,
                status,
                actor=actor,
                user_request=user_request,
                redactor=self.redactor,
                interaction_id=interaction_id,
            )
        self._desk_changed()
        return result

    # -- bundles ---------------------------------------------------------------------------------------

    @pages(desk_ops.BUNDLE_LIST)
    def list_bundles(self, *, kind: str | None = None, limit: int = 200, offset: int = 0) -> list[Bundle]:
        if kind is not None and kind not in bundle_names.KINDS:
            raise InvalidInput(f"kind must be one of {', '.join(bundle_names.KINDS)}")
        return bundles.list_bundles(self.store, kind, limit, offset)

    def get_bundle(self, bundle_id: str, path: str | None = None) -> BundleDetail:
        return bundles.get_bundle(self.store, self.bundle_files, bundle_id, path)

    def put_bundle_document(
        self, bundle_id: str, path: str, content: str, *, expected_revision: int, actor: str = "agent"
    ) -> DocumentWritten:
        """Write a document if `expected_revision` is current; a stale one is a conflict carrying the current one."""
        check_actor(actor)
        with self.parts.writes:
            result = bundles.put_document(
                self.store,
                self.bundle_files,
                self.redactor,
                bundle_id=bundle_id,
                path=path,
                content=content,
                expected_revision=expected_revision,
                actor=actor,
            )
            report = bundles.MirrorReport()
            if result.changed:
                report.count(result.mirror_problem, (result.bundle_id, result.path))
            # An unchanged put writes no file of its own; a file that failed before (its own too) is tried again.
            self.mirror.mirrored(result.bundle_id, [result.path] if result.changed else [], report)
            if result.changed and result.mirror_problem is None:
                self.mirror.wrote(result.bundle_id, {result.path: result.content})
        if result.changed:
            self._desk_changed()
        return {
            "bundle_id": result.bundle_id,
            "path": result.path,
            "revision": result.revision,
            "changed": result.changed,
            "content": result.content,
            "outside_edit_kept": result.outside_edit_kept,
            "mirror_problem": result.mirror_problem,
        }

    def mirror_remote(self, seq: int) -> None:
        """Another host committed desk event `seq`: mirror the documents it (or others) put since the last call."""
        with self.parts.writes:
            self.mirror.follow(seq)

    def catch_up_mirror(self) -> bundles.MirrorReport:
        """Mirror what the files missed: puts of other hosts while this host did not hear their notices
        (stopped, or reconnecting), and a put whose file a crash or a full disk kept from it (at start)."""
        with self.parts.writes:
            return self.mirror.catch_up()

    def close(self) -> None:
        """Record how far the mirror is (the mark a local store saves every few seconds only)."""
        self.mirror.stop_retrying()
        with self.parts.writes:
            self.mirror.close()

    def restore_bundle_files(self) -> bundles.MirrorReport:
        """Mirror every document whose file is missing (a crash between commit and mirror, a wiped folder)."""
        return bundles.mirror_all(self.store, self.bundle_files)

    def bundle_directory(self, bundle_id: str) -> str:
        """The folder a bundle is mirrored to (it may not exist yet)."""
        bundle_names.split_bundle_id(bundle_id)
        return str(self.bundle_files.root / bundle_id)

    def desk_counts(self) -> dict[str, int]:
        """Interactions, task cards, topics, the maintenance backlog, the bundle events the view refused, and
        `index_lag`: items not yet embedded in the desk index."""
        return {
            **topics.counts(self.store),
            "bundle_events_refused": bundles.count_refused(),
            "index_lag": self.index.lag(),
        }
