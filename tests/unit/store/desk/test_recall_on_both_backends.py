"""`memory.recall` answers the same on SQLite and on PostgreSQL for the same data.

The PostgreSQL path reads what every search needs first in one statement (a
round trip saved per search table); this holds it to SQLite's answers. Only the
full-text rank of topics and facts differs by back end (bm25 against ts_rank),
so those are compared without it; everything else is compared whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from service.config import load_config, save_settings
from service.memory.memory import Memory
from store.core.errors import StorageProblem
from tests.postgres_server import PostgresServer, start_postgres

pytestmark = pytest.mark.postgresql_only

QUERIES = ["牛奶", "周报 UFO", "火锅店", "quarterly report", "嵌入式", "没有的词", "提醒我"]
WITHOUT_RANK = ("related_topics", "related_facts")  # their score is the back end's full-text rank
# When each side's fill ran, and the topic ids a commit draws: the clock and chance, not the back end.
WRITTEN_AT = {"updated", "created", "topic_id"}


def _without_write_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "(written)" if k in WRITTEN_AT else _without_write_times(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_write_times(v) for v in value]
    return value


def _at(i: int) -> str:
    """Three workdays, each turn at its own minute (equally relevant turns are ordered by time)."""
    return f"2026-11-{25 + i % 3}T02:{i:02d}:00Z"


def _fill(memory: Memory) -> None:
    said = ["提醒我买牛奶", "预订火锅店", "写 UFO 周报", "会议纪要 quarterly report", "我是做嵌入式开发的"]
    for i in range(40):
        memory.desk.remember_interaction(
            f"i{i}", user_text=f"{said[i % len(said)]} 第{i}次", assistant_text="好的", ts=_at(i)
        )
    for i in range(6):
        memory.desk.complete_task(
            f"t{i}",
            title="UFO 周报" if i % 2 else "买牛奶",
            status="succeeded",
            result=f"第{i}次完成",
            schedule_id="weekly-ufo" if i % 2 else None,
            run_id=f"r{i}" if i % 2 else None,
            ts=_at(i),
        )
    plan = memory.maintenance.maintenance_plan(limit=500)
    life = {f"i{i}" for i in range(0, 40, 5)}
    memory.maintenance.maintenance_commit(
        {
            "batch_id": plan["batch_id"],
            "topics": [
                {"title": "买牛奶和火锅店", "interaction_ids": sorted(life), "segment": "生活"},
                {
                    "title": "UFO 周报",
                    "interaction_ids": sorted({t["interaction_id"] for t in plan["interactions"]} - life),
                    "segment": "工作",
                },
            ],
            "facts": [
                {
                    "scope": "profile",
                    "profile_kind": "identity",
                    "content": "做嵌入式开发",
                    "evidence": [{"interaction_id": "i4", "quote": "我是做嵌入式开发的"}],
                }
            ],
        }
    )


def _answers(memory: Memory) -> dict[str, dict[str, Any]]:
    _fill(memory)
    # Every item embedded first: a question would embed what waits itself, but only for 2 s (issue 37), so how
    # much of it on a busy machine would be the clock's doing, not the back end's.
    memory.desk.index.drain()
    out = {}
    for query in QUERIES:
        answer = _without_write_times(msgspec.to_builtins(memory.desk.memory_recall(query)))
        del answer["latency_ms"]
        for key in WITHOUT_RANK:  # sorted once the topic ids a commit drew are out (they would order them)
            answer[key] = sorted(({k: v for k, v in item.items() if k != "score"} for item in answer[key]), key=str)
        out[query] = answer
    return out


def test_recall_answers_the_same_on_both_back_ends(postgres: PostgresServer, database_url: str, tmp_path: Path) -> None:
    # One after the other: peewee binds the view models to one database per process at a time.
    local = tmp_path / "local"
    with Memory.open(load_config(home=local, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        on_sqlite = _answers(memory)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o700)
    save_settings(shared, {"database_url": database_url, "database_password_file": str(postgres.password_file)})
    with Memory.open(load_config(home=shared, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        on_postgres = _answers(memory)
    for query in QUERIES:
        for part in on_sqlite[query]:
            assert on_postgres[query][part] == on_sqlite[query][part], (query, part)
    assert on_postgres == on_sqlite
    # The comparison covers every part of an answer, not empty ones.
    milk, ufo = on_sqlite["牛奶"], on_sqlite["周报 UFO"]
    assert [i["why"] for i in milk["interactions"]][:8] == ["related"] * 8
    assert ufo["task_cards"][0]["why"] == "related" and ufo["bundles"][0]["bundle_id"] == "schedule/weekly-ufo"
    assert ufo["related_topics"] and on_sqlite["嵌入式"]["core_facts"] and milk["recent_workdays"]
    assert on_sqlite["没有的词"]["interactions"] == [
        {**i, "why": "recent"} for i in on_sqlite["没有的词"]["interactions"]
    ]


def test_recall_with_the_server_away_is_unavailable_and_answers_again_when_it_is_back(tmp_path: Path) -> None:
    # Its first reads go out together (pipelined): a server going away there is an environment problem too.
    server = start_postgres()
    try:
        home = tmp_path / "home"
        home.mkdir(mode=0o700)
        save_settings(
            home, {"database_url": server.create_database("away"), "database_password_file": str(server.password_file)}
        )
        with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
            memory.desk.remember_interaction("i1", user_text="提醒我买牛奶")
            server.pause()
            with pytest.raises(StorageProblem) as away:
                memory.desk.memory_recall("牛奶")
            assert away.value.code == "unavailable" and "the database is unavailable" in str(away.value)
            server.resume()
            assert [i.interaction_id for i in memory.desk.memory_recall("牛奶").interactions] == ["i1"]
    finally:
        server.stop()
