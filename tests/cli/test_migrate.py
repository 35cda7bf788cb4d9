"""`jiyi migrate --to URL`: an SQLite home moved into PostgreSQL and back, verified, resumable."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest

from service.cli.main import main
from service.config import load_config
from service.memory.memory import Memory
from store.appkb import kb as appkb
from store.core.home import DB_NAME
from tests.postgres_server import PostgresServer

pytestmark = pytest.mark.postgresql_only


def _fill(memory: Memory, start: int, count: int) -> None:
    for i in range(start, start + count):
        memory.desk.remember_interaction(f"m{i}", user_text=f"第{i}条：提醒我买牛奶", assistant_text="好的")
        memory.appkb.learn_alias(f"迁移别名{i}", "com.tencent.mm")
    memory.bundles.put_bundle_document(
        "project/move", "notes.md", f"到第{start + count}条", expected_revision=start // 5
    )


def _summary(memory: Memory) -> tuple[int, int, list[str], str]:
    notes = memory.bundles.get_bundle("project/move", path="notes.md").documents[0].content
    names = sorted(e.term for e in appkb.list_entries(memory.store, kind="user"))
    return memory.store.count_events(), memory.desk.desk_counts()["interactions"], names, notes


def test_a_home_moves_into_postgresql_and_back_and_resumes(
    tmp_path: Path, postgres: PostgresServer, database_url: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    for key in [k for k in os.environ if k.startswith("JIYI_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("JIYI_DATABASE_PASSWORD", postgres.password)
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    home = tmp_path / "home"
    with Memory.open(load_config(home=home)) as memory:
        _fill(memory, 0, 5)
        before = _summary(memory)

    assert main(["migrate", "--to", database_url, "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert f"moved {before[0]} events" in out and "this home now uses postgresql://" in out
    # the replay queued the 5 turns for the desk index: brought up to date with a bar, in batches
    assert "desk index: 5 items checked, 5 embedded" in out
    config = load_config(home=home)
    assert config.database_url == database_url
    with Memory.open(config) as memory:
        assert memory.store.path is None
        assert _summary(memory) == before
        _fill(memory, 5, 5)  # life goes on in PostgreSQL
        after = _summary(memory)

    # Back into the home's own file, which still holds the first events: the move resumes after them.
    assert main(["migrate", "--to", f"sqlite:///{home / DB_NAME}", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert f"resumed after event {before[0]}" in out
    # back in the home's own file every turn is queued again: the first 5 are in the index with the same
    # text (checked, not embedded again); the 5 said in PostgreSQL waited for an indexer (none ran there)
    assert "desk index: 10 items checked, 5 embedded" in out
    config = load_config(home=home)
    assert config.database_url == ""
    with Memory.open(config) as memory:
        assert memory.store.path == home / DB_NAME
        assert _summary(memory) == after


def test_a_move_into_a_database_holding_another_log_is_refused(
    tmp_path: Path, postgres: PostgresServer, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in [k for k in os.environ if k.startswith("JIYI_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("JIYI_DATABASE_PASSWORD", postgres.password)
    monkeypatch.setenv("JIYI_EMBED_MODEL", "hash")
    other, home = tmp_path / "other", tmp_path / "home"
    with Memory.open(load_config(home=other, env={"JIYI_DATABASE_URL": database_url, **_password(postgres)})) as m:
        m.desk.remember_interaction("theirs", user_text="别人的记忆")
    with Memory.open(load_config(home=home)) as memory:
        memory.desk.remember_interaction("mine", user_text="我的记忆")
    assert main(["migrate", "--to", database_url, "--home", str(home)]) == 5
    assert load_config(home=home).database_url == ""  # the home stays where it was
    with psycopg.connect(database_url, password=postgres.password) as conn:
        assert conn.execute("SELECT count(*) FROM event").fetchone() == (1,)  # nothing written into theirs


def _password(postgres: PostgresServer) -> dict[str, str]:
    return {"JIYI_DATABASE_PASSWORD": postgres.password}
