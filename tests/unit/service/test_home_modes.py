"""Everything Jiyi makes in a home is private: folders 0700, files 0600, Chroma's included."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import load_config
from service.demo.fill import fill
from service.memory.memory import Memory


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The common umask (022), whatever the test runner's is: what Jiyi makes must not depend on it."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def modes(home: Path) -> dict[str, str]:
    """Every path under `home` that is not private, with its mode."""
    loose = {}
    for folder, dirs, files in os.walk(home):
        for name in (*dirs, *files):
            path = Path(folder) / name
            mode = os.lstat(path).st_mode
            want = 0o700 if stat.S_ISDIR(mode) else 0o600
            if stat.S_IMODE(mode) != want or stat.S_ISLNK(mode):
                loose[str(path.relative_to(home))] = oct(stat.S_IMODE(mode))
    return loose


@pytest.mark.slow
@pytest.mark.usefixtures("open_umask")
def test_a_filled_home_has_only_private_folders_and_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    memory = Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"}))
    try:
        fill(memory, runs=40)  # runs, episodes and their vectors, desk turns, topics, schedule bundles
        memory.bundles.put_bundle_document("project/jiyi", "notes.md", "# 笔记\n", expected_revision=0)
        notes = Path(memory.bundles.bundle_directory("project/jiyi")) / "notes.md"
        notes.write_text("编辑器里改的\n", "utf-8")
        os.chmod(notes, 0o644)
        kept = memory.bundles.put_bundle_document("project/jiyi", "notes.md", "# 笔记 2\n", expected_revision=1)
        assert kept["outside_edit_kept"]
        memory.appkb.resolve_app("不存在的应用", device="pixel7")  # nothing knows it: the alias vectors are made
        assert memory.recall.engine.index.count("app_alias", "global") > 0
        assert memory.recall.state()["ok"]
        assert (home / "vectors" / "chroma.sqlite3").is_file() and (home / "bundles" / "project").is_dir()
        assert modes(home) == {}  # open: the database's -wal and -shm too
    finally:
        memory.close()
    assert modes(home) == {}
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


@pytest.mark.usefixtures("open_umask")
def test_older_homes_are_made_private_by_a_rebuild_and_by_opening_the_index(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        memory.desk.complete_task("t1", title="周报", status="succeeded", schedule_id="weekly", run_id="r1")
        memory.recall.sync_aliases()
    for part in ("bundles", "vectors"):  # as an older Jiyi left them
        for folder, _dirs, files in os.walk(home / part):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(Path(folder) / name, 0o644)
    with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
        memory.rebuild()
        memory.recall.state()
    assert modes(home) == {}
