"""Every domain's projection, in the order the store registers them."""

from __future__ import annotations

from jiyi.store.appkb_projection import AppKbProjection
from jiyi.store.desk.projection import DeskProjection
from jiyi.store.episodes import EpisodeProjection
from jiyi.store.lessons import LessonProjection
from jiyi.store.projection import Projection
from jiyi.store.recall_stats import RecallProjection


def all_projections() -> list[Projection]:
    return [AppKbProjection(), EpisodeProjection(), RecallProjection(), LessonProjection(), DeskProjection()]
