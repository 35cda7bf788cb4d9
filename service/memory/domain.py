"""The domains a change is announced for: what a page shows, what a cache keys on, what a notice names.

Each is the event log's own domain name (the store's `DOMAIN` constants, one
per projection; a test keeps the two lists equal), so a `Domain` compares
equal to the string a notice from the socket carries. Spelt out here rather
than imported, so that a client (the remote memory) names them without
loading the store.
"""

from __future__ import annotations

from enum import StrEnum


class Domain(StrEnum):
    """A part of the memory that changes as one (its writes publish it; its pages reload on it)."""

    APP_KB = "app_kb"  # aliases, the app inventory, their history
    EXPERIENCE = "experience"  # runs, their events and outcomes
    RECALL = "recall"  # recall evaluations and imported recall statistics
    LESSONS = "lessons"  # lessons learned from runs
    DESK = "desk"  # the desktop assistant's turns, cards, topics, facts, skills, bundles
    LEARNING = "learning"  # the learning pipeline: grant, intents, leases, records


EVERY_DOMAIN = frozenset(Domain)
