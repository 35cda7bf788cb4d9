"""The facade's names the console uses, from modules that load nothing heavy.

The console may not import `store` (import-linter), and `service.memory.memory` brings the whole facade:
the store's models and drivers (peewee, psycopg), recall's dictionaries (pypinyin). The console's process
needs none of them while a service does the work (its private `jiyi serve`, or one it attached to), and shows
its window before anything else: it names the facade's values through this module. A test
(tests/gui/test_console_start.py) keeps the console's window free of those imports.
"""

from __future__ import annotations

from service.wire.results import HomeSize
from store.appkb.entry import AppKbEntry
from store.episodes.episode_filter import EpisodeFilter
from store.learning.states import INTENT_STATES, RECORD_STATES

DREAM_STEPS = ("alias_overwrites", "merge", "evict", "fold", "index_reconcile", "recalibrate")
"""A full dream pass's steps, in order (a light pass runs the first two)."""

__all__ = ["DREAM_STEPS", "INTENT_STATES", "RECORD_STATES", "AppKbEntry", "EpisodeFilter", "HomeSize"]
