"""The typed rows the facade answers (`service.wire`) are the store's JSON objects byte for byte:
an agent reading the socket sees the same answer as before they were typed (names, order, absent fields).
The rows the store builds typed (episodes, lessons, learning) are checked against the view's own JSON.

Checked on a demo home, which holds a row of every kind (desk, episodes, lessons, learning, recall)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from service.cli.main import main
from service.config import load_config
from service.memory.memory import EpisodeFilter, Memory
from service.wire.desk import Topic
from service.wire.row import row
from store.desk import bundles, facts, skills, topics
from store.episodes import archive, recall_stats
from store.episodes.models import Episode, Lesson, ToolEvent
from store.learning.models import LearningIntent as LearningIntentModel
from store.learning.models import LearningRecord as LearningRecordModel


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
    same(demo.facts.list_facts(), facts.list_facts(store))
    fact_id = demo.facts.list_facts()[0].fact_id
    same(demo.facts.get_fact(fact_id), facts.get_fact(store, fact_id))
    same(demo.skills.list_skills(), skills.list_skills(store))
    same(demo.maintenance.list_topics(), topics.list_topics(store))
    topic_id = demo.maintenance.list_topics()[0].topic_id
    same(demo.maintenance.get_topic(topic_id, limit=2), topics.get_topic(store, topic_id, limit=2))
    same(demo.maintenance.list_workdays(), topics.workdays(store))
    same(demo.maintenance.consolidation_log(), topics.consolidation_log(store))
    same(demo.bundles.list_bundles(), bundles.list_bundles(store))
    bundle_id = demo.bundles.list_bundles()[0].bundle_id
    same(demo.bundles.get_bundle(bundle_id), bundles.get_bundle(store, demo.bundles.bundle_files, bundle_id))


def test_a_workday_topic_keeps_its_own_fields(demo: Memory) -> None:
    """A workday's topic has that day's `segment` and neither `task_ids` nor `updated`: absent, not null.
    (Its fields come in the listed topic's order, which puts `summary` before `kind`.)"""
    day = next(d.workday for d in demo.maintenance.list_workdays() if d.segments)
    [stored, *_] = topics.workday_topics(demo.store, day)
    typed = demo.maintenance.workday_topics(day)[0]
    assert msgspec.to_builtins(typed) == msgspec.to_builtins(stored)
    assert "task_ids" not in msgspec.to_builtins(typed) and typed.segment == stored.segment
    assert row(Topic, msgspec.to_builtins(stored)) == typed


def test_episode_rows_are_the_archived_records(demo: Memory) -> None:
    """The store builds an episode row from its archived record: the record's own JSON (keys sorted, as the
    archive keeps it) plus `revoked`, byte for byte, with nothing dropped."""
    store = demo.store
    listed = archive.list_episodes(store, EpisodeFilter(), limit=50)
    kept = {
        r.run_id: (r.record, r.revoked) for r in Episode.select().where(Episode.run_id.in_([e.run_id for e in listed]))
    }
    same(listed, [{**json.loads(kept[e.run_id][0]), "revoked": bool(kept[e.run_id][1])} for e in listed])
    same(demo.runs.list_episodes(limit=50), listed)
    run_id = listed[0].run_id
    detail = demo.runs.get_episode(run_id)
    events = ToolEvent.select().where(ToolEvent.run_id == run_id).order_by(ToolEvent.step, ToolEvent.seq)
    timeline = [
        {k: getattr(e, k) for k in ("step", "ts", "tool", "result_class", "app_package", "intent", "note")}
        for e in events
    ]
    same(detail, {**json.loads(kept[run_id][0]), "revoked": bool(kept[run_id][1]), "events": timeline})
    assert wire(detail.listed()) == wire(listed[0])


def test_lesson_rows_are_the_lesson_view(demo: Memory) -> None:
    stored = [
        {
            "lesson_id": r.lesson_id,
            "text": r.text,
            "apps": r.apps.split(),
            "status": r.status,
            "kind": r.kind,
            "version": r.version,
            "created": r.created,
            "updated": r.updated,
        }
        for r in Lesson.select().order_by(Lesson.updated.desc())
    ]
    same(demo.lessons.list_lessons(), stored)
    for lesson in demo.lessons.list_lessons():
        runs = demo.lessons.lesson_runs(lesson.lesson_id)
        assert all(r.archived == (r.goal_text is not UNSET) for r in runs.learned_from + runs.given_to)


def test_learning_rows_are_the_learning_view(demo: Memory) -> None:
    """An intent's candidate is its stored JSON (keys sorted), a record's provenance as adoption wrote it."""
    intents = demo.learning.queue()
    candidates = {r.intent_id: r.candidate for r in LearningIntentModel.select()}
    stored = [candidates[i.intent_id] for i in intents]
    same([i.candidate for i in intents], [json.loads(c) if c else None for c in stored])
    for intent in intents:
        detail = demo.learning.intent(intent.intent_id)
        assert wire(detail).startswith(wire(intent)[:-1] + b",")  # the listed intent's fields, then the detail's
    kept = {r.record_id: r for r in LearningRecordModel.select()}
    listed = demo.learning.list_records()
    same([(r.id, r.provenance) for r in listed], [(r.id, json.loads(kept[r.id].provenance)) for r in listed])


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
