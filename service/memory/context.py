"""Context packing as a service of `Memory`: what one execution round of an agent should see, within a budget."""

from __future__ import annotations

from typing import Any

from service.memory.bundles import BundleService
from service.memory.context_pack import (
    build_pack,
    card_line,
    document_line,
    fact_line,
    record_line,
    related_fact_line,
    skill_line,
    topic_line,
    turn_line,
)
from service.memory.desk import DeskService
from service.memory.learning import LearningService
from service.memory.parts import Parts
from service.ops import desk as desk_ops
from service.ops.perform import performs
from store.core.errors import InvalidInput, NotFound
from store.desk import bundles
from store.desk.common import check_id
from store.desk.rows import Document


class ContextService:
    """Builds context packs from desk memory and a schedule's bundle."""

    def __init__(self, parts: Parts, desk: DeskService, bundles: BundleService, learning: LearningService) -> None:
        self.parts = parts
        self.desk = desk
        self.bundles = bundles
        self.learning = learning

    @performs(desk_ops.CONTEXT)
    def prepare_context(
        self, query: str, *, schedule_id: str | None = None, budget_chars: int | None = None, limit: int = 8
    ) -> dict[str, Any]:
        """A pack for one execution round, never over `budget_chars` (default: the configured budget)."""
        budget = budget_chars or self.parts.config.context_budget
        if not isinstance(query, str):
            raise InvalidInput("query must be text")
        recalled, how = self.desk.recalled(query, limit)  # by words and meaning, as `memory.recall`
        bundle_docs: list[Document] = []
        if schedule_id is not None:
            check_id(schedule_id, "schedule_id")
            try:
                bundle = bundles.get_bundle(
                    self.parts.store, self.bundles.bundle_files, bundles.bundle_id_of("schedule", schedule_id)
                )
            except NotFound:
                pass  # the schedule has not run yet: the pack simply has no bundle
            else:
                order = {"requirements.md": 0, "preferences.md": 1, "lessons.md": 2, "state.json": 3}
                docs = [d for d in bundle.documents if d.path in order]
                bundle_docs = sorted(docs, key=lambda d: order[d.path])
        learned = self.learning.prompt_records()
        # An adopted fact is in the system-prompt section already: not twice.
        adopted_facts = {r["target"].removeprefix("fact:") for r in learned if r["target"].startswith("fact:")}
        pack = build_pack(
            {
                "system_prompt": [record_line(r) for r in learned],
                "core_facts": [fact_line(f) for f in recalled.core_facts if f.fact_id not in adopted_facts],
                "skills": [skill_line(s) for s in recalled.relevant_skills],
                "bundle": [document_line(d) for d in bundle_docs],
                "related_facts": [
                    related_fact_line(f) for f in recalled.related_facts if f.fact_id not in adopted_facts
                ],
                "topics": [topic_line(t) for t in recalled.related_topics],
                "task_cards": [card_line(c) for c in recalled.task_cards if c.why == "related"],
                "interactions": [turn_line(i) for i in recalled.interactions if i.why == "related"],
            },
            budget,
        )
        return {"query": query, "schedule_id": schedule_id, **pack, "degraded": how.degraded}
