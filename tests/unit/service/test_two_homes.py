"""Two homes open in one process (a library user, a test) each keep their own memory.

peewee binds its models to one database per process, and the views are written through them; the store
keeps them with the home that writes (`store.core.model_binding`). Real homes, real SQLite; the hash
embedder (the model is not under test).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from service.config import load_config
from service.memory.memory import Memory
from store.core.home import DB_NAME


def _open(home: Path) -> Memory:
    return Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"}))


def _ids(home: Path) -> list[str]:
    with sqlite3.connect(home / DB_NAME) as db:
        return [row[0] for row in db.execute("SELECT interaction_id FROM desk_interaction ORDER BY 1")]


def test_the_home_opened_first_writes_its_views_into_its_own_database_while_another_is_open(
    tmp_path: Path,
) -> None:
    first = _open(tmp_path / "first")
    try:
        second = _open(tmp_path / "second")  # takes peewee's models
        try:
            first.desk.remember_interaction("turn-first", user_text="第一个家的话")
            second.desk.remember_interaction("turn-second", user_text="第二个家的话")
            first.desk.remember_interaction("turn-first-2", user_text="第一个家又一句")
            assert first.desk.get_interaction("turn-first-2")["user_text"] == "第一个家又一句"
        finally:
            second.close()
        # the models went back to the home still open: a read with no write before it is its own
        assert first.desk.get_interaction("turn-first")["user_text"] == "第一个家的话"
        first.desk.remember_interaction("turn-second", user_text="同一个 id，另一个家")  # not a duplicate here
    finally:
        first.close()
    assert _ids(tmp_path / "first") == ["turn-first", "turn-first-2", "turn-second"]
    assert _ids(tmp_path / "second") == ["turn-second"]
