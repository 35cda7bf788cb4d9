"""Procedure-card recall for the runs Jiyi records, counted as the reference counts it.

The reference selects a procedure card (recall/procedure_cards.py) at three points of a run and
advances its `procedure_*` counters of `recall_stats.json` once per selection, hit or not:

* `run_start` — a general card for the goal, in mode `on` only;
* `run_start_mention` — in modes `on` and `shadow`, a card for each app the goal names (at most
  two, in the order named: the recall's mention candidates);
* `app_launched` — in modes `on` and `shadow`, a card for each package a confirmed `launch_app`
  opened, once per package per run (one already selected at a mention is not selected again).

Nothing is selected without a goal, or in mode `off`. Jiyi counts these selections (events
`procedure_selected`) and gives no card to the agent. A selection that fails is counted as a
`procedure` recall failure and not as a selection, as the reference fails open.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from recall.episode_recall import RecallResult
from recall.procedure_cards import CardVectors, ProcedureSelection, select_card
from service.memory.episode_recall import EpisodeRecallService
from service.memory.parts import Parts
from store.episodes import lessons, recall_stats

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("jiyi.service.memory")
MENTION_PREFETCH_MAX_APPS = 2  # the reference's cap on mentioned apps
MAX_SELECTIONS_PER_RUN = 64  # a client launching package after package still writes a bounded number


@dataclass
class RunCards:
    """What a run under way knows of its card selections (in memory, with the run)."""

    goal: str  # redacted: what recall embeds
    selected: set[str] = field(default_factory=set)  # packages already selected for
    query: np.ndarray | None = None


Pick = tuple[str, ProcedureSelection]  # (point, selection)


class ProcedureRecall:
    """Selects a run's procedure cards (see the module's docstring); the run path writes what it picked in
    the transaction it writes anyway (`record`), so counting costs a run no commit of its own."""

    def __init__(self, parts: Parts, recall: EpisodeRecallService) -> None:
        self.parts, self.recall = parts, recall
        self.store = parts.store
        self._vectors = CardVectors()

    def run_start(self, cards: RunCards, device: str, shadow: RecallResult | None) -> list[Pick]:
        """The run-start points: a general card in mode `on`, then each app the goal names."""
        mode = self.parts.config.memory_rag
        if mode == "off" or not cards.goal.strip():
            return []
        picks: list[Pick | None] = []
        if mode == "on":
            picks.append(self._select(cards, device, None, "run_start"))
        named = [a for c in (shadow.candidates if shadow else []) if c.source == "mention" for a in c.apps]
        for package in list(dict.fromkeys(named))[:MENTION_PREFETCH_MAX_APPS]:
            if package not in cards.selected:
                cards.selected.add(package)
                picks.append(self._select(cards, device, package, "run_start_mention"))
        return [pick for pick in picks if pick is not None]

    def launched(self, cards: RunCards, device: str, package: str) -> Pick | None:
        """A confirmed launch of `package`: its card, once per package per run."""
        if self.parts.config.memory_rag == "off" or not cards.goal.strip() or package in cards.selected:
            return None
        if len(cards.selected) >= MAX_SELECTIONS_PER_RUN:
            return None
        cards.selected.add(package)
        return self._select(cards, device, package, "app_launched")

    def record(self, run_id: str, picks: list[Pick]) -> None:
        """Count `picks` (inside the caller's transaction)."""
        for point, chosen in picks:
            recall_stats.record_procedure_selection(self.store, run_id, point, chosen, actor="system")

    def _select(self, cards: RunCards, device: str, package: str | None, point: str) -> Pick | None:
        try:
            available = lessons.procedure_cards(self.store)
            embedder = self.recall.embedder if available else None
            if embedder is not None and cards.query is None:
                cards.query = embedder.queries([cards.goal])[0]
            chosen = select_card(
                available,
                cards.goal,
                cards.query,
                app_package=package,
                device=device,
                embedder=embedder,
                vectors=self._vectors,
            )
        except Exception as exc:
            self.recall.note_error("procedure", exc)
            log.warning("procedure-card selection failed (the run goes on): %s", exc)
            return None
        return point, chosen
