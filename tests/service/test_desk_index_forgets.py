"""What leaves desk memory leaves the desk index too: a deactivated fact's vector and stored text, the vectors
of items a restored backup never held; and what reaches the index was redacted first. Real SQLite or
PostgreSQL, real Chroma, the hash embedder (none of this is about the model)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from recall.desk_index import COLLECTIONS, SCOPE
from service.config import load_config
from service.memory.memory import Memory
from store.core.acknowledged import LossPolicy
from store.core.errors import ChangesMissing

DAY = "2026-11-{:02d}T02:00:00Z"


def open_home(home: Path, *, loss: LossPolicy = "refuse") -> Memory:
    return Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"}), loss=loss)


@pytest.fixture
def hashed(home: Path) -> Iterator[Memory]:
    with open_home(home) as memory:
        yield memory


def held(memory: Memory, kind: str) -> set[str]:
    return memory.desk.index.open().keys(kind)


def test_a_deactivated_fact_leaves_the_index_and_comes_back_when_confirmed(hashed: Memory) -> None:
    hashed.desk.remember_interaction("i1", user_text="灯塔项目的数据库定了用 PostgreSQL", ts=DAY.format(1))
    fact = {
        "scope": "project",
        "project": "lighthouse",
        "content": "灯塔项目使用 PostgreSQL 数据库",
        "evidence": [{"interaction_id": "i1", "quote": "数据库定了用 PostgreSQL"}],
    }
    hashed.maintenance.maintenance_commit({"facts": [fact]})
    fact_id = hashed.facts.list_facts()[0].fact_id
    hashed.desk.index.drain()
    assert held(hashed, "fact") == {fact_id}

    hashed.facts.set_fact_status(fact_id, "inactive", reason="改用 MySQL 了")
    assert hashed.desk.index.lag() == 1  # the index heard it, behind the acknowledged write
    assert hashed.desk.index.drain() == 0  # nothing embedded: its vector removed
    assert held(hashed, "fact") == set()
    collection = hashed.desk.index.open().index.collection(COLLECTIONS["fact"], SCOPE, create=False)
    assert collection is not None and collection.get(ids=[fact_id], include=["documents"])["documents"] == []
    assert hashed.desk.memory_recall("灯塔用什么数据库").related_facts == []

    hashed.facts.set_fact_status(fact_id, "active", reason="确认仍用 PostgreSQL")
    assert hashed.desk.index.drain() == 1  # embedded again
    assert held(hashed, "fact") == {fact_id}
    assert [f.fact_id for f in hashed.desk.memory_recall("灯塔 PostgreSQL").related_facts] == [fact_id]


def test_the_index_holds_and_embeds_only_the_redacted_text(hashed: Memory, home: Path) -> None:
    hashed.desk.remember_interaction(
        "i1",
        user_text="修空调的刘师傅电话 13912345678，验证码 482913",
        assistant_text="已记下刘师傅的电话",
        ts=DAY.format(1),
    )
    hashed.desk.index.drain()
    desk = hashed.desk.index.open()
    collection = desk.index.collection(COLLECTIONS["interaction"], SCOPE, create=False)
    assert collection is not None
    got = collection.get(ids=["i1"], include=["documents", "embeddings"])
    document = got["documents"][0]
    assert "13912345678" not in document and "482913" not in document and "[redacted" in document
    stored = hashed.desk.memory_recall("刘师傅电话").interactions[0]
    assert document == f"{stored.user_text}\n{stored.assistant_text}"
    assert np.allclose(got["embeddings"][0], desk.embedder.passages([document])[0], atol=1e-6)
    for file in (home / "vectors").rglob("*"):
        if file.is_file():
            assert b"13912345678" not in file.read_bytes(), file


@pytest.mark.sqlite_only  # restoring a backup is copying the database file
def test_after_a_backup_is_restored_rebuild_removes_the_vectors_of_turns_it_never_held(home: Path) -> None:
    with open_home(home) as memory:
        memory.desk.remember_interaction("kept", user_text="周报写上迁移完成六成", ts=DAY.format(1))
        memory.desk.index.drain()
    backup = home.parent / "backup"
    backup.mkdir()
    for file in home.glob("jiyi.sqlite3*"):
        shutil.copy2(file, backup / file.name)
    with open_home(home) as memory:
        memory.desk.remember_interaction("later", user_text="迁移全部完成了", ts=DAY.format(2))
        memory.desk.index.drain()
        assert held(memory, "interaction") == {"kept", "later"}
    for file in home.glob("jiyi.sqlite3*"):
        file.unlink()
    for file in backup.iterdir():
        shutil.copy2(file, home / file.name)
    with pytest.raises(ChangesMissing):  # the home acknowledged "later": a restored copy is taken knowingly
        open_home(home)
    with open_home(home, loss="accept") as memory:
        memory.desk.index.open()
        assert memory.rebuild()["desk_vectors_removed"] == 1
        assert held(memory, "interaction") == {"kept"}
        related = [i.interaction_id for i in memory.desk.memory_recall("迁移完成").interactions]
        assert related == ["kept"]
