"""The desk's maintenance loop (seed 002) as a part of the `Memory` facade: its status, leased batches of
unfiled turns handed to a planner, and the atomic commit that files them into topics (with segments,
facts and skill drafts); and what it built to read: topics, workdays, the consolidation log.

Jiyi never calls a model here: the consolidating agent plans, Jiyi checks and stores.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import msgspec

from service.memory.parts import Parts, check_actor
from service.ops import maintenance as maintenance_ops
from service.ops.perform import lists, pages, performs
from service.wire.desk import ConsolidationEntry, Topic, TopicDetail, TopicTurn, Workday
from service.wire.results import MaintenancePlan, MaintenanceStatus
from service.wire.row import all_of, of
from store.core import clock
from store.core.errors import InvalidInput
from store.desk import interactions, leases, topics
from store.desk.common import when
from store.desk.projection import DOMAIN as DESK
from store.desk.workday import is_workday, previous_workday, workday_of


class MaintenanceService:
    """Status, plan and commit of the maintenance loop; topics, workdays and the consolidation log."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.config, self.store, self.redactor = parts.config, parts.store, parts.redactor

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
            # As the wire's rows, then objects (`to_builtins`, not `asdict`: a field left UNSET is left out).
            "interactions": msgspec.to_builtins(all_of(TopicTurn, (interactions.turn_row(r) for r in rows))),
            "open_topics": msgspec.to_builtins(all_of(Topic, topics.recent_topics(self.store, 20))),
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
        self.parts.changed(DESK)
        result["lease"] = "held" if lease else ("expired_or_unknown" if batch_id else "none")
        return result

    # -- topics and workdays ---------------------------------------------------------------------

    @performs(maintenance_ops.TOPIC_GET)
    def get_topic(self, topic_id: str, *, limit: int = 50, offset: int = 0) -> TopicDetail:
        return of(TopicDetail, topics.get_topic(self.store, topic_id, limit=limit, offset=offset))

    def list_topics(self, *, text: str | None = None, limit: int = 100, offset: int = 0) -> list[Topic]:
        return all_of(Topic, topics.list_topics(self.store, text=text, limit=limit, offset=offset))

    @performs(maintenance_ops.TOPIC_LIST)
    def topic_page(
        self, *, text: str | None = None, workday: str | None = None, limit: int = 100, offset: int = 0
    ) -> maintenance_ops.TopicPage:
        """A page of the topics matching `text`; or every topic of `workday`, in one page."""
        if workday is not None:
            return maintenance_ops.TopicPage(topics=self.workday_topics(workday), next_offset=None)
        rows = self.list_topics(text=text, limit=limit + 1, offset=offset)
        more = len(rows) > limit
        return maintenance_ops.TopicPage(topics=rows[:limit], next_offset=offset + limit if more else None)

    def workday_topics(self, workday: str) -> list[Topic]:
        """The topics active on `workday` (those with a segment that day)."""
        if not is_workday(workday):
            raise InvalidInput("workday must be YYYY-MM-DD")
        return all_of(Topic, topics.workday_topics(self.store, workday))

    @pages(maintenance_ops.WORKDAY_LIST)
    def list_workdays(self, *, limit: int = 30, offset: int = 0) -> list[Workday]:
        return all_of(Workday, topics.workdays(self.store, limit=limit, offset=offset))

    @lists(maintenance_ops.CONSOLIDATION_LOG)
    def consolidation_log(self, limit: int = 50) -> list[ConsolidationEntry]:
        """What consolidation did, newest first (commits, reviews, agent reports)."""
        return all_of(ConsolidationEntry, topics.consolidation_log(self.store, limit))
