"""The domains a change is announced for: what a page shows, what a cache keys on, what a notice names.

Each is the event log's own domain name (the store's `DOMAIN` constants), so a
`Domain` compares equal to the string a notice from the socket carries.
"""

from __future__ import annotations

from enum import StrEnum

from store.appkb.projection import DOMAIN as _APP_KB
from store.desk.projection import DOMAIN as _DESK
from store.episodes.archive import DOMAIN as _EXPERIENCE
from store.episodes.lessons import DOMAIN as _LESSONS
from store.episodes.recall_stats import DOMAIN as _RECALL
from store.learning.projection import DOMAIN as _LEARNING


class Domain(StrEnum):
    """A part of the memory that changes as one (its writes publish it; its pages reload on it)."""

    APP_KB = _APP_KB  # aliases, the app inventory, their history
    EXPERIENCE = _EXPERIENCE  # runs, their events and outcomes
    RECALL = _RECALL  # recall evaluations and imported recall statistics
    LESSONS = _LESSONS  # lessons learned from runs
    DESK = _DESK  # the desktop assistant's turns, cards, topics, facts, skills, bundles
    LEARNING = _LEARNING  # the learning pipeline: grant, intents, leases, records


EVERY_DOMAIN = frozenset(Domain)


def domain_named(name: str) -> Domain | None:
    """The domain of `name` (a notice's text), or None for a name this version does not know."""
    try:
        return Domain(name)
    except ValueError:
        return None
