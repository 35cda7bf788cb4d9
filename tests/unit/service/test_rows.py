"""The typed rows the facade answers (`service.memory.rows`) are the store's JSON objects byte for byte:
an agent reading the socket sees the same answer as before they were typed (names, order, absent fields).

Checked on a demo home, which holds a row of every kind (desk, episodes, lessons, learning, recall)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from service.cli.main import main
from service.config import load_config
from service.memory.memory import EpisodeFilter, Memory
from service.memory.rows import Topic, row
from store.desk import bundles, facts, skills, topics
from store.episodes import archive, lessons, recall_stats
from store.learning import queue, records


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    home = tmp_path_factory.mktemp("rows") / "demo"
    assert main(["demo", "--runs", "60", "--home", str(home)]) == 0
    with Memory.open(load_config(home=home)) as memory:
        yield memory


def wire(value: Any) -> bytes:
    """What the socket sends for `value` (`service.rpc.protocol.encode`: typed rows as their builtins)."""
    return json.dumps(msgspec.to_builtins(value), ensure_ascii=False, separators=(",", ":")).encode()


def same(typed: Any, stored: Any) -> None:
    assert stored, "the demo home lacks this kind of row"
    assert wire(typed) == wire(stored)


def test_desk_rows_are_the_store_objects(demo: Memory) -> None:
    store = demo.store
    same(demo.desk.list_facts(), facts.list_facts(store))
    fact_id = demo.desk.list_facts()[0].fact_id
    same(demo.desk.get_fact(fact_id), facts.get_fact(store, fact_id))
    same(demo.desk.list_skills(), skills.list_skills(store))
    same(demo.desk.list_topics(), topics.list_topics(store))
    topic_id = demo.desk.list_topics()[0].topic_id
    same(demo.desk.get_topic(topic_id, limit=2), topics.get_topic(store, topic_id, limit=2))
    same(demo.desk.list_workdays(), topics.workdays(store))
    same(demo.desk.consolidation_log(), topics.consolidation_log(store))
    same(demo.desk.list_bundles(), bundles.list_bundles(store))
    bundle_id = demo.desk.list_bundles()[0].bundle_id
    same(demo.desk.get_bundle(bundle_id), bundles.get_bundle(store, demo.desk.bundle_files, bundle_id))


def test_a_workday_topic_keeps_its_own_fields(demo: Memory) -> None:
    """A workday's topic has that day's `segment` and neither `task_ids` nor `updated`: absent, not null.
    (Its fields come in the listed topic's order, which puts `summary` before `kind`.)"""
    day = next(d.workday for d in demo.desk.list_workdays() if d.segments)
    [stored, *_] = topics.workday_topics(demo.store, day)
    typed = demo.desk.workday_topics(day)[0]
    assert msgspec.to_builtins(typed) == stored
    assert "task_ids" not in msgspec.to_builtins(typed) and typed.segment == stored["segment"]
    assert row(Topic, stored) == typed


def test_episode_rows_are_the_store_objects(demo: Memory) -> None:
    store = demo.store
    listed = archive.list_episodes(store, EpisodeFilter(), limit=50)
    same(demo.runs.list_episodes(limit=50), listed)
    run_id = listed[0].run_id
    detail = demo.runs.get_episode(run_id)
    same(detail, archive.get_episode(store, run_id))
    assert wire(detail.listed()) == wire(listed[0])


def test_lesson_rows_are_the_store_objects(demo: Memory) -> None:
    store = demo.store
    same(demo.lessons.list_lessons(), lessons.list_lessons(store))
    for lesson in demo.lessons.list_lessons():
        same(demo.lessons.lesson_runs(lesson.lesson_id), lessons.runs_of(store, lesson.lesson_id))


def test_learning_rows_are_the_store_objects(demo: Memory) -> None:
    same(demo.learning.queue(), queue.intents(None, 100, 0))
    for intent in demo.learning.queue():
        same(demo.learning.intent(intent.intent_id), queue.intent_detail(intent.intent_id))
    same(demo.learning.list_records(), records.list_records(demo.store.db, None, 200, 0))


def test_daily_recall_points_are_the_store_objects(demo: Memory) -> None:
    same(demo.recall.recall_statistics()["daily"], recall_stats.daily(demo.store))


def test_a_row_the_store_mistypes_is_refused_naming_the_field() -> None:
    """A row is checked once, where the facade makes it: a store object of the wrong shape is a bug, said there."""
    with pytest.raises(msgspec.ValidationError, match=r"\$\.interactions"):
        row(
            Topic,
            {
                "topic_id": "t",
                "title": "x",
                "summary": "",
                "kind": "chat",
                "first_workday": "2026-01-01",
                "last_workday": "2026-01-01",
                "interactions": "many",
            },
        )
